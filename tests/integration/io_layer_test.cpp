// listd's own I/O layer (net::UringLoop or net::EpollLoop, net::Connection) over real sockets,
// on the backend the run chose (LISTD_IO_BACKEND, else auto): replies the socket could not take
// at once are kept and finished when it has room, a burst of connections is accepted, and the
// backend (io-backend) is named in INFO, CONFIG GET and the start-up log. The paths shared with
// every other suite (pipelining, blocked waiters, half-closed peers, pub/sub) are covered there.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using namespace std::chrono_literals;

// The omem= field of `id`'s CLIENT LIST line (bytes held for a socket that did not take them).
long long held_output(RespClient& admin, const std::string& id) {
  const std::string list = admin.call({"CLIENT", "LIST", "ID", id});
  const std::size_t at = list.find(" omem=");
  return at == std::string::npos ? -1 : std::atoll(list.c_str() + at + 6);
}

// The numeric `field=` of `id`'s CLIENT LIST line, -1 if absent.
long long client_field(RespClient& admin, const std::string& id, const std::string& field) {
  const std::string list = admin.call({"CLIENT", "LIST", "ID", id});
  const std::size_t at = list.find(" " + field + "=");
  return at == std::string::npos ? -1 : std::atoll(list.c_str() + at + field.size() + 2);
}

std::string client_id(RespClient& c) {
  const std::string r = c.call({"CLIENT", "ID"});  // ":<id>\r\n"
  return r.substr(1, r.size() - 3);
}

class IoLayerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_.emplace(ServerProcess::start_listd()); }
  static void TearDownTestSuite() { server_.reset(); }
  static int port() { return server_->port(); }
  static inline std::optional<ServerProcess> server_;
};

TEST_F(IoLayerTest, RepliesTheSocketCouldNotTakeArriveWholeAndInOrder) {
  RespClient admin(port());
  std::vector<std::string> rpush{"RPUSH", "io:big"};
  for (int i = 0; i < 2000; ++i) rpush.push_back(std::string(100, static_cast<char>('a' + i % 26)));
  admin.call({"DEL", "io:big"});
  ASSERT_EQ(admin.call(rpush), ":2000\r\n");
  const std::string one_reply = admin.call({"LRANGE", "io:big", "0", "-1"});
  ASSERT_GT(one_reply.size(), 200'000u);

  // 40 pipelined LRANGEs (~9 MB of replies) and an ECHO, nothing read: the server's send stops
  // short, the rest waits in the connection until the socket has room again.
  RespClient reader(port());
  const std::string id = client_id(reader);
  std::string pipeline;
  for (int i = 0; i < 40; ++i) pipeline += encode_command({"LRANGE", "io:big", "0", "-1"});
  pipeline += encode_command({"ECHO", "last"});
  ASSERT_TRUE(reader.send(pipeline));
  bool held = false;
  for (int i = 0; i < 500 && !held; ++i) {
    held = held_output(admin, id) > 0;
    if (!held) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(held) << "the server never held output for the client that does not read";
  for (int i = 0; i < 40; ++i) ASSERT_EQ(reader.read_reply(10s), one_reply) << "reply " << i;
  EXPECT_EQ(reader.read_reply(), "$4\r\nlast\r\n");
  EXPECT_EQ(held_output(admin, id), 0);
  EXPECT_EQ(reader.call({"PING"}), "+PONG\r\n");  // the connection is read again
}

TEST_F(IoLayerTest, ABurstOfConnectionsIsAcceptedAndEachAnswered) {
  std::vector<std::unique_ptr<RespClient>> clients;
  for (int i = 0; i < 200; ++i) clients.push_back(std::make_unique<RespClient>(port()));
  for (auto& c : clients) ASSERT_TRUE(c->send_command({"ECHO", "hi"}));
  for (auto& c : clients) EXPECT_EQ(c->read_reply(), "$2\r\nhi\r\n");
}

TEST_F(IoLayerTest, ABigArgumentSentInPiecesIsOneRequest) {
  RespClient c(port());
  const std::string value(3 * 1024 * 1024 + 7, 'v');  // larger than many reads
  const std::string request = encode_command({"SET", "io:value", value});
  for (std::size_t at = 0; at < request.size(); at += 100'000)
    ASSERT_TRUE(c.send(std::string_view(request).substr(at, 100'000)));
  EXPECT_EQ(c.read_reply(10s), "+OK\r\n");
  EXPECT_EQ(c.call({"STRLEN", "io:value"}), ":" + std::to_string(value.size()) + "\r\n");
}

TEST_F(IoLayerTest, InfoNamesTheMultiplexingApiAsRedisDoes) {
  // auto is io_uring on the kernels listd is tested on (6.x, no seccomp profile).
  const char* forced = std::getenv("LISTD_IO_BACKEND");
  const std::string backend = forced && std::string(forced) == "epoll" ? "epoll" : "io_uring";
  RespClient c(port());
  EXPECT_NE(c.call({"INFO", "server"}).find("\r\nmultiplexing_api:" + backend + "\r\n"),
            std::string::npos);
}

TEST_F(IoLayerTest, TheBackendIsChosenOnlyAtStartUp) {
  RespClient c(port());
  EXPECT_EQ(c.call({"CONFIG", "SET", "io-backend", "epoll"}),
            "-ERR CONFIG SET failed (possibly related to argument 'io-backend') - can't set "
            "immutable config\r\n");
}

// One server's side of the idle-buffer test: an idle client with nothing buffered and one holding
// half a request.
struct IdleClients {
  explicit IdleClients(int port)
      : admin(port),
        empty(port),
        partial(port),
        empty_id(client_id(empty)),
        partial_id(client_id(partial)) {}
  // Both idle clients' read buffers given back (the partial request kept).
  bool released() {
    return client_field(admin, empty_id, "qbuf-free") == 0 &&
           client_field(admin, empty_id, "qbuf") == 0 &&
           client_field(admin, partial_id, "qbuf-free") == 0 &&
           client_field(admin, partial_id, "qbuf") > 0;
  }
  RespClient admin, empty, partial;
  std::string empty_id, partial_id;
};

TEST(IoLayerIdle, AnIdleClientsReadBufferIsReleasedAsRedisDoes) {
  // Both servers side by side, so the test waits for one cron period, not two.
  ServerProcess redis = ServerProcess::start_redis();
  ServerProcess listd = ServerProcess::start_listd();
  std::vector<std::unique_ptr<IdleClients>> sides;
  sides.push_back(std::make_unique<IdleClients>(redis.port()));
  sides.push_back(std::make_unique<IdleClients>(listd.port()));
  for (auto& side : sides) {
    // The client running CLIENT LIST reads into a buffer with room to spare.
    const std::string self = client_id(side->admin);
    EXPECT_GT(client_field(side->admin, self, "qbuf-free"), 0);
    ASSERT_TRUE(side->partial.send("*2\r\n$4\r\nECHO\r\n$5\r\nhel"));
  }
  // Redis gives a buffer back once its client has been idle for more than 2 s (checked every
  // cron): poll, bounded.
  bool released[2] = {false, false};
  for (int i = 0; i < 200 && !(released[0] && released[1]); ++i) {
    for (int s = 0; s < 2; ++s) released[s] = released[s] || sides[s]->released();
    if (!(released[0] && released[1])) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(released[0]) << "redis-server never released the idle clients' buffers";
  EXPECT_TRUE(released[1]) << "listd never released the idle clients' buffers";
  for (auto& side : sides) {
    // Both clients go on as before: the half request completes, the other reads again.
    ASSERT_TRUE(side->partial.send("lo\r\n"));
    EXPECT_EQ(side->partial.read_reply(), "$5\r\nhello\r\n");
    EXPECT_EQ(side->empty.call({"PING"}), "+PONG\r\n");
    EXPECT_GT(client_field(side->empty, side->empty_id, "qbuf-free"), 0);
  }
}

TEST(IoLayerLog, EachBackendAskedForIsNamedInTheLogConfigAndInfo) {
  for (const std::string backend : {"epoll", "io_uring"}) {
    const std::filesystem::path log = std::filesystem::temp_directory_path() /
                                      ("listd-io-" + std::to_string(::getpid()) + ".log");
    {
      ServerProcess s =
          ServerProcess::start_listd({"--logfile", log.string(), "--io-backend", backend});
      RespClient c(s.port());
      EXPECT_EQ(c.call({"CONFIG", "GET", "io-backend"}), "*2\r\n$10\r\nio-backend\r\n$" +
                                                             std::to_string(backend.size()) +
                                                             "\r\n" + backend + "\r\n");
      EXPECT_NE(c.call({"INFO", "server"}).find("\r\nmultiplexing_api:" + backend + "\r\n"),
                std::string::npos);
    }
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(log);
    EXPECT_NE(text.str().find("I/O backend: " + backend + " (io-backend " + backend + ")"),
              std::string::npos)
        << text.str();
  }
}

std::string read_and_remove(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

// Under a seccomp profile that refuses io_uring (as Docker's default does), auto runs on epoll
// and says why; io_uring asked for by name refuses to start.
TEST(IoLayerLog, WhereIoUringIsRefusedAutoFallsBackToEpoll) {
  const std::filesystem::path log = std::filesystem::temp_directory_path() /
                                    ("listd-seccomp-" + std::to_string(::getpid()) + ".log");
  {
    ServerProcess s = ServerProcess::start_listd_via(
        LISTD_WITHOUT_IO_URING, {"--logfile", log.string(), "--io-backend", "auto"});
    RespClient c(s.port());
    EXPECT_NE(c.call({"INFO", "server"}).find("\r\nmultiplexing_api:epoll\r\n"), std::string::npos);
    EXPECT_EQ(c.call({"RPUSH", "q", "a"}), ":1\r\n");
  }
  EXPECT_NE(read_and_remove(log).find("I/O backend: epoll (io-backend auto, io_uring unavailable: "
                                      "io_uring_queue_init: Operation not permitted)"),
            std::string::npos);

  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(LISTD_WITHOUT_IO_URING, LISTD_WITHOUT_IO_URING, "--port", "0", "--logfile", log.c_str(),
            "--io-backend", "io_uring", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_NE(read_and_remove(log).find("io-backend io_uring: io_uring_queue_init: Operation not "
                                      "permitted"),
            std::string::npos);
}

}  // namespace
}  // namespace listd::testing
