// Connection-level behaviour of the real listd: AUTH/HELLO with requirepass, SELECT,
// MULTI/EXEC/DISCARD/WATCH across clients, SIGTERM shutdown, and a client that never reads
// its replies not stalling the others. Expected bytes were captured from redis-server 7.0.15.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using namespace std::chrono_literals;

template <class... Args>
ReplyPtr command(redisContext* c, const char* format, Args... args) {
  return ReplyPtr(static_cast<redisReply*>(redisCommand(c, format, args...)));
}

std::string reply_text(const ReplyPtr& r) { return r && r->str ? std::string(r->str, r->len) : ""; }

std::string run_shell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

constexpr std::string_view kNoAuth = "-NOAUTH Authentication required.\r\n";
constexpr std::string_view kWrongPass =
    "-WRONGPASS invalid username-password pair or user is disabled.\r\n";

// ---------------------------------------------------------------------------------------------
// AUTH and HELLO with requirepass.

class AuthTest : public ::testing::Test {
 protected:
  // ServerProcess AUTHs with the --requirepass value while it waits for the server.
  static void SetUpTestSuite() {
    server_.emplace(ServerProcess::start_listd({"--requirepass", "pw"}));
  }
  static void TearDownTestSuite() { server_.reset(); }
  static int port() { return server_->port(); }
  static inline std::optional<ServerProcess> server_;
};

TEST_F(AuthTest, CommandsAnswerNoauthUntilAuthenticated) {
  RespClient c(port());
  EXPECT_EQ(c.call({"PING"}), kNoAuth);
  EXPECT_EQ(c.call({"SELECT", "1"}), kNoAuth);
  EXPECT_EQ(c.call({"MULTI"}), kNoAuth);
  c.send("PING\r\n");
  EXPECT_EQ(c.read_reply(), kNoAuth);
}

TEST_F(AuthTest, WrongPasswordIsRefusedAndAuthOkUnlocksTheConnection) {
  RespClient c(port());
  EXPECT_EQ(c.call({"AUTH", "bad"}), kWrongPass);
  EXPECT_EQ(c.call({"AUTH", "default", "bad"}), kWrongPass);
  EXPECT_EQ(c.call({"AUTH", "someone", "pw"}), kWrongPass);
  EXPECT_EQ(c.call({"PING"}), kNoAuth);
  EXPECT_EQ(c.call({"AUTH", "pw"}), "+OK\r\n");
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
  // Another connection is still unauthenticated.
  RespClient d(port());
  EXPECT_EQ(d.call({"PING"}), kNoAuth);
  EXPECT_EQ(d.call({"AUTH", "default", "pw"}), "+OK\r\n");
  EXPECT_EQ(d.call({"PING"}), "+PONG\r\n");
}

TEST_F(AuthTest, HiredisAuthFlow) {
  ContextPtr c(server_->connect());
  ReplyPtr r = command(c.get(), "PING");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, REDIS_REPLY_ERROR);
  EXPECT_EQ(reply_text(r), "NOAUTH Authentication required.");
  r = command(c.get(), "AUTH %s", "pw");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, REDIS_REPLY_STATUS);
  EXPECT_EQ(reply_text(r), "OK");
  r = command(c.get(), "PING");
  EXPECT_EQ(reply_text(r), "PONG");
}

TEST_F(AuthTest, HelloThreeWithAuthAuthenticatesAndSwitchesToResp3) {
  RespClient c(port());
  const std::string hello = c.call({"HELLO", "3", "AUTH", "default", "pw"});
  EXPECT_EQ(hello.rfind("%7\r\n", 0), 0u) << escape_bytes(hello);
  EXPECT_NE(hello.find("$5\r\nproto\r\n:3\r\n"), std::string::npos) << escape_bytes(hello);
  EXPECT_NE(hello.find("$4\r\nmode\r\n$10\r\nstandalone\r\n"), std::string::npos);
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(c.call({"CLIENT", "GETNAME"}), "_\r\n");  // RESP3 null
  EXPECT_EQ(c.call({"HELLO", "2"}).rfind("*14\r\n", 0), 0u);
  EXPECT_EQ(c.call({"CLIENT", "GETNAME"}), "$-1\r\n");
}

TEST_F(AuthTest, HelloWithWrongPasswordIsRefused) {
  RespClient c(port());
  EXPECT_EQ(c.call({"HELLO", "3", "AUTH", "default", "bad"}), kWrongPass);
  EXPECT_EQ(c.call({"PING"}), kNoAuth);
}

TEST_F(AuthTest, HelloWithoutAuthIsRefused) {
  RespClient c(port());
  const std::string r = c.call({"HELLO", "3"});
  EXPECT_EQ(r.rfind("-NOAUTH HELLO must be called with the client already authenticated", 0), 0u)
      << escape_bytes(r);
  EXPECT_EQ(c.call({"PING"}), kNoAuth);
}

// Redis 7.0.15's wording ("HELLO AUTH <user> <pass>"), not 7.2's ("HELLO <proto> AUTH ...").
TEST_F(AuthTest, HelloWithoutAuthTextMatchesRedis70) {
  RespClient c(port());
  EXPECT_EQ(c.call({"HELLO", "3"}),
            "-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
            "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
            "the RESP protocol version at the same time\r\n");
}

TEST_F(AuthTest, UnauthenticatedClientCannotSendLargeRequests) {
  // CVE-2021-32675: before AUTH, at most 10 arguments and 16 KB per bulk.
  RespClient c(port());
  c.send("*11\r\n");
  EXPECT_EQ(c.read_reply(), "-ERR Protocol error: unauthenticated multibulk length\r\n");
  EXPECT_TRUE(c.wait_closed(5s));
  RespClient d(port());
  d.send("*1\r\n$20000\r\n");
  EXPECT_EQ(d.read_reply(), "-ERR Protocol error: unauthenticated bulk length\r\n");
  EXPECT_TRUE(d.wait_closed(5s));
  RespClient e(port());
  EXPECT_EQ(e.call({"AUTH", "pw"}), "+OK\r\n");
  e.send("*11\r\n");
  for (int i = 0; i < 11; ++i) e.send("$1\r\nx\r\n");
  EXPECT_EQ(e.read_reply(),
            "-ERR unknown command 'x', with args beginning with: 'x' 'x' 'x' 'x' "
            "'x' 'x' 'x' 'x' 'x' 'x' \r\n");
}

TEST_F(AuthTest, RedisCliWithPasswordGetsPong) {
  const std::string out = run_shell("timeout 20 redis-cli --no-auth-warning -a pw -p " +
                                    std::to_string(port()) + " PING 2>&1");
  EXPECT_EQ(out, "PONG\n");
}

TEST(AuthWithoutPasswordTest, AuthWithoutConfiguredPasswordIsAnError) {
  ServerProcess server = ServerProcess::start_listd();
  RespClient c(server.port());
  EXPECT_EQ(c.call({"AUTH", "x"}),
            "-ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?\r\n");
  EXPECT_EQ(c.call({"AUTH", "u", "p"}), kWrongPass);
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
}

// ---------------------------------------------------------------------------------------------
// SELECT and transactions on one shared server.

class SessionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_.emplace(ServerProcess::start_listd()); }
  static void TearDownTestSuite() { server_.reset(); }
  static int port() { return server_->port(); }
  static inline std::optional<ServerProcess> server_;
};

TEST_F(SessionTest, SelectChecksTheIndex) {
  RespClient c(port());
  EXPECT_EQ(c.call({"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(c.call({"SELECT", "15"}), "+OK\r\n");
  EXPECT_EQ(c.call({"SELECT", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(c.call({"SELECT", "-1"}), "-ERR DB index is out of range\r\n");
  for (const char* bad : {"x", "1.5", " 1", "01", "+1", ""})
    EXPECT_EQ(c.call({"SELECT", bad}), "-ERR value is not an integer or out of range\r\n") << bad;
  EXPECT_EQ(c.call({"SELECT"}), "-ERR wrong number of arguments for 'select' command\r\n");
}

TEST_F(SessionTest, SelectedDatabasesAreIsolated) {
  RespClient c(port());
  EXPECT_EQ(c.call({"SELECT", "5"}), "+OK\r\n");
  EXPECT_EQ(c.call({"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(c.call({"RPUSH", "sel", "a"}), ":1\r\n");
  EXPECT_EQ(c.call({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(c.call({"SELECT", "6"}), "+OK\r\n");
  EXPECT_EQ(c.call({"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(c.call({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(c.call({"RPUSH", "sel", "b", "c"}), ":2\r\n");
  EXPECT_EQ(c.call({"SELECT", "5"}), "+OK\r\n");
  EXPECT_EQ(c.call({"RPUSH", "sel", "d"}), ":2\r\n");
  // A new connection starts in db 0.
  RespClient d(port());
  EXPECT_EQ(d.call({"SELECT", "6"}), "+OK\r\n");
  EXPECT_EQ(d.call({"RPUSH", "sel", "e"}), ":3\r\n");
}

TEST_F(SessionTest, MultiExecRunsQueuedCommandsInOrder) {
  RespClient c(port());
  EXPECT_EQ(c.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(c.call({"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(c.call({"ECHO", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(c.call({"SELECT", "2"}), "+QUEUED\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "*3\r\n+PONG\r\n$1\r\na\r\n+OK\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "-ERR EXEC without MULTI\r\n");
  EXPECT_EQ(c.call({"DISCARD"}), "-ERR DISCARD without MULTI\r\n");
  // The same over hiredis, pipelined.
  ContextPtr h(server_->connect());
  redisAppendCommand(h.get(), "MULTI");
  redisAppendCommand(h.get(), "ECHO %s", "x");
  redisAppendCommand(h.get(), "EXEC");
  std::vector<ReplyPtr> replies;
  for (int i = 0; i < 3; ++i) {
    void* raw = nullptr;
    ASSERT_EQ(redisGetReply(h.get(), &raw), REDIS_OK);
    replies.emplace_back(static_cast<redisReply*>(raw));
  }
  EXPECT_EQ(reply_text(replies[1]), "QUEUED");
  ASSERT_EQ(replies[2]->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(replies[2]->elements, 1u);
  EXPECT_EQ(std::string(replies[2]->element[0]->str, replies[2]->element[0]->len), "x");
}

TEST_F(SessionTest, EmptyTransactionAndNestedMulti) {
  RespClient c(port());
  EXPECT_EQ(c.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(c.call({"MULTI"}), "-ERR MULTI calls can not be nested\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "*0\r\n");
}

TEST_F(SessionTest, DiscardDropsTheQueue) {
  RespClient c(port());
  EXPECT_EQ(c.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(c.call({"ECHO", "never"}), "+QUEUED\r\n");
  EXPECT_EQ(c.call({"DISCARD"}), "+OK\r\n");
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "-ERR EXEC without MULTI\r\n");
}

TEST_F(SessionTest, QueuedErrorAbortsExec) {
  RespClient c(port());
  EXPECT_EQ(c.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(c.call({"ECHO"}), "-ERR wrong number of arguments for 'echo' command\r\n");
  EXPECT_EQ(c.call({"NOPE", "x"}),
            "-ERR unknown command 'NOPE', with args beginning with: 'x' \r\n");
  EXPECT_EQ(c.call({"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "-ERR EXEC without MULTI\r\n");
}

// An EXEC rejected inside MULTI (here for arity) aborts the transaction, as Redis'
// rejectCommand -> execCommandAbort; outside MULTI it is the same EXECABORT (Redis flags the
// client's next EXEC as failed and has no MULTI to discard).
TEST_F(SessionTest, RejectedExecAbortsTheTransaction) {
  RespClient c(port());
  EXPECT_EQ(c.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(c.call({"EXEC", "x"}),
            "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command\r\n");
  EXPECT_EQ(c.call({"DISCARD"}), "-ERR DISCARD without MULTI\r\n");
  EXPECT_EQ(c.call({"EXEC", "x"}),
            "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command\r\n");
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
}

TEST_F(SessionTest, WatchInsideMultiIsAnErrorThatDoesNotAbort) {
  RespClient c(port());
  EXPECT_EQ(c.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(c.call({"WATCH", "k"}), "-ERR WATCH inside MULTI is not allowed\r\n");
  EXPECT_EQ(c.call({"EXEC"}), "*0\r\n");
}

TEST_F(SessionTest, WatchedKeyChangedByAnotherClientFailsExec) {
  RespClient a(port());
  RespClient b(port());
  EXPECT_EQ(a.call({"SELECT", "9"}), "+OK\r\n");
  EXPECT_EQ(b.call({"SELECT", "9"}), "+OK\r\n");
  EXPECT_EQ(a.call({"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(a.call({"WATCH", "wk"}), "+OK\r\n");
  EXPECT_EQ(b.call({"RPUSH", "wk", "x"}), ":1\r\n");
  EXPECT_EQ(a.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(a.call({"RPUSH", "wk", "mine"}), "+QUEUED\r\n");
  EXPECT_EQ(a.call({"EXEC"}), "*-1\r\n");
  EXPECT_EQ(b.call({"DBSIZE"}), ":1\r\n");
  // EXEC unwatches: the next transaction runs.
  EXPECT_EQ(a.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(a.call({"RPUSH", "wk", "mine"}), "+QUEUED\r\n");
  EXPECT_EQ(a.call({"EXEC"}), "*1\r\n:2\r\n");
  // A key in another database with the same name does not count.
  EXPECT_EQ(a.call({"WATCH", "wk"}), "+OK\r\n");
  EXPECT_EQ(b.call({"SELECT", "10"}), "+OK\r\n");
  EXPECT_EQ(b.call({"RPUSH", "wk", "other-db"}), ":1\r\n");
  EXPECT_EQ(b.call({"DEL", "wk"}).substr(0, 1), ":");
  EXPECT_EQ(a.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(a.call({"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(a.call({"EXEC"}), "*1\r\n+PONG\r\n");
}

TEST_F(SessionTest, UnwatchForgetsTheConflict) {
  RespClient a(port());
  RespClient b(port());
  EXPECT_EQ(a.call({"WATCH", "uk"}), "+OK\r\n");
  EXPECT_EQ(b.call({"RPUSH", "uk", "x"}).substr(0, 1), ":");
  EXPECT_EQ(a.call({"UNWATCH"}), "+OK\r\n");
  EXPECT_EQ(a.call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(a.call({"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(a.call({"EXEC"}), "*1\r\n+PONG\r\n");
}

TEST_F(SessionTest, ClientThatNeverReadsDoesNotStallOthers) {
  // The slow client pipelines ~32 MB of replies and never reads them: they stay buffered in
  // the server while another client keeps getting prompt answers.
  RespClient slow(port());
  const std::string payload(64 * 1024, 's');
  const std::string request = encode_command({"ECHO", payload});
  std::size_t sent_requests = 0;
  const auto until = std::chrono::steady_clock::now() + 2s;
  std::string pending;
  while (sent_requests < 500 && std::chrono::steady_clock::now() < until) {
    if (pending.empty()) pending = request;
    const ssize_t n =
        ::send(slow.fd(), pending.data(), pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      pending.erase(0, static_cast<std::size_t>(n));
      if (pending.empty()) ++sent_requests;
    } else {
      std::this_thread::sleep_for(1ms);
    }
  }
  EXPECT_GT(sent_requests, 50u) << "the server stopped reading the slow client's requests";

  // "Prompt" is a generous bound (a stall behind the slow client would last until its 32 MB
  // drained, which never happens here), scaled for the sanitizer pass.
  const std::chrono::duration<double> prompt(2.0 * test_slowdown());
  RespClient fast(port());
  for (int i = 0; i < 200; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(fast.call({"ECHO", std::to_string(i)}),
              "$" + std::to_string(std::to_string(i).size()) + "\r\n" + std::to_string(i) + "\r\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, prompt);
  }
  // The slow client's replies were kept, in order: read a few of them now.
  const std::string expected_reply = "$65536\r\n" + payload + "\r\n";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(slow.read_reply(10s), expected_reply);
}

// ---------------------------------------------------------------------------------------------
// Shutdown (each test owns its server).

TEST(ShutdownTest, SigtermExitsZeroAndClosesConnections) {
  ServerProcess server = ServerProcess::start_listd();
  RespClient a(server.port());
  RespClient b(server.port());
  EXPECT_EQ(a.call({"PING"}), "+PONG\r\n");
  b.send("*2\r\n$4\r\nECHO\r\n");  // a half-sent request
  ContextPtr h(server.connect());
  EXPECT_EQ(server.stop(), 0);
  EXPECT_TRUE(a.wait_closed(5s));
  EXPECT_TRUE(b.wait_closed(5s));
  EXPECT_EQ(a.unread(), "");
  ReplyPtr r = command(h.get(), "PING");
  EXPECT_FALSE(r) << "hiredis connection still answered after shutdown";
}

// The main thread's kernel wait channel names a nanosleep once DEBUG SLEEP runs (it is
// ep_poll/do_epoll_wait while the loop waits for events).
bool main_thread_sleeping(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/wchan").c_str(), "r");
  if (!f) return false;
  char buf[128] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  return std::string_view(buf, n).find("nanosleep") != std::string_view::npos;
}

TEST(ShutdownTest, RequestInFlightIsAnsweredBeforeExit) {
  ServerProcess server = ServerProcess::start_listd();
  const pid_t pid = server.pid();
  RespClient a(server.port());
  const auto sent = std::chrono::steady_clock::now();
  a.send_command({"DEBUG", "SLEEP", "1"});
  // SIGTERM only once the server is inside the command (it cannot answer CLIENT LIST then).
  bool sleeping = false;
  const auto deadline = sent + 10s;
  while (!sleeping && std::chrono::steady_clock::now() < deadline) {
    sleeping = main_thread_sleeping(pid);
    if (!sleeping) std::this_thread::sleep_for(100us);
  }
  ASSERT_TRUE(sleeping) << "listd's main thread never entered DEBUG SLEEP";
  EXPECT_EQ(server.stop(), 0);
  // A lower bound only: the exit waited for the whole sleep instead of cutting it short.
  EXPECT_GE(std::chrono::steady_clock::now() - sent, 1s);
  EXPECT_EQ(a.read_reply(5s), "+OK\r\n");
  EXPECT_TRUE(a.wait_closed(5s));
}

TEST(ShutdownTest, ShutdownCommandExitsZero) {
  ServerProcess server = ServerProcess::start_listd();
  const pid_t pid = server.pid();
  {
    RespClient a(server.port());
    a.send_command({"SHUTDOWN", "NOSAVE"});
    EXPECT_TRUE(a.wait_closed(5s));
    EXPECT_EQ(a.unread(), "");  // Redis sends no reply to a successful SHUTDOWN
  }
  // Wait for the exit without reaping (WNOWAIT), so stop() still owns the pid and reads the
  // status; a SIGTERM to the zombie changes nothing.
  bool exited = false;
  for (int i = 0; i < 500 && !exited; ++i) {
    siginfo_t info{};
    exited = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
             info.si_pid == pid;
    if (!exited) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(exited) << "listd still running 5 s after SHUTDOWN";
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
}  // namespace listd::testing
