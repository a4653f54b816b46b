// Diskless full sync in-process: a replica with capa eof whose transport hands over one end of
// a socket pair gets its RDB from a real forked child through that socket, framed `$EOF:<mark>`
// as Redis 7.0 frames it (../shared/REPLICATION.md §1.2); the stream after it waits for its
// first REPLCONF ACK; repl-diskless-sync-delay and -max-replicas decide when the child starts;
// replicas that cannot take the EOF form get `$<len>` from disk.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"
#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

const std::string kSelect0 = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";

class ReplicationDisklessTest : public ::testing::Test {
 protected:
  ReplicationDisklessTest() {
    static int n = 0;
    dir_ = ::testing::TempDir() + "/listd_diskless_" + std::to_string(::getpid()) + "_" +
           std::to_string(n++);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    EXPECT_FALSE(t_.config().apply_directive(std::vector<std::string>{"dir", dir_}));
    const auto keep = [this](listd::config::LogLevel, std::string_view line) {
      log_.emplace_back(line);
    };
    t_.exec().persistence().set_logger(keep);
    t_.exec().replication().set_logger(keep);
  }
  ~ReplicationDisklessTest() override {
    t_.exec().persistence().shutdown();
    for (int fd : fds_) ::close(fd);
    std::filesystem::remove_all(dir_);
  }

  void set(const std::string& name, const std::string& value) {
    EXPECT_FALSE(t_.config().apply_directive(std::vector<std::string>{name, value}));
  }

  /// A replica client whose transport's socket is one end of a pair (non-blocking, as net's);
  /// `peer` is the other end, where the test reads what the child wrote.
  listd::server::Client& socket_replica(int& peer) {
    auto& r = paired_client(peer);
    EXPECT_EQ(t_.run(r, {"REPLCONF", "capa", "eof", "capa", "psync2"}), "+OK\r\n");
    return r;
  }
  listd::server::Client& paired_client(int& peer) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ::fcntl(sv[0], F_SETFL, ::fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    fds_.push_back(sv[0]);
    fds_.push_back(sv[1]);
    auto& r = t_.client();
    t_.transport(r).socket = sv[0];
    peer = sv[1];
    return r;
  }

  /// Everything on `peer` until it holds a trailing `$EOF:` mark (bounded by poll's timeout).
  static std::string read_transfer(int peer) {
    std::string got;
    static const std::regex kFramed("[^$]*\\$EOF:([0-9a-f]{40})\r\n[\\s\\S]*");
    for (int i = 0; i < 1000; ++i) {
      std::smatch m;
      if (std::regex_match(got, m, kFramed) && got.size() >= m.position(1) + 80 &&
          got.compare(got.size() - 40, 40, m[1].str()) == 0)
        break;
      pollfd p{peer, POLLIN, 0};
      if (::poll(&p, 1, 10'000) <= 0) break;
      char buf[65536];
      const ssize_t n = ::read(peer, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }

  /// Reaps the running child (its end reaches the replication hook, which may start the next
  /// one): Persistence::cron polled until one more child's end is logged, bounded (10 s).
  void reap_child() {
    ASSERT_TRUE(t_.exec().persistence().child_running());
    const int ended = children_ended();
    for (int i = 0; i < 5000 && children_ended() == ended; ++i) {
      ::poll(nullptr, 0, 2);  // the child's exit is a real process event: poll for it
      t_.exec().persistence().cron();
    }
    EXPECT_EQ(children_ended(), ended + 1);
  }
  int children_ended() const {
    return count_log("Background RDB transfer terminated with success") +
           count_log("Background saving terminated with success");
  }

  int count_log(const std::string& line) const {
    int n = 0;
    for (const std::string& l : log_) n += l == line;
    return n;
  }

  std::string info_replication() {
    auto& c = t_.client();
    const std::string out = t_.run(c, {"INFO", "replication"});
    t_.disconnect(c);
    return out;
  }

  std::string dir_;
  TestServer t_;
  std::vector<std::string> log_;
  std::vector<int> fds_;
};

TEST_F(ReplicationDisklessTest, TheChildWritesAnEofFramedRdbAndTheStreamWaitsForTheFirstAck) {
  set("repl-diskless-sync-delay", "0");
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"RPUSH", "before", "a", "b"}), ":2\r\n");
  int peer = -1;
  auto& r = socket_replica(peer);
  EXPECT_EQ(t_.run(r, {"PSYNC", "?", "-1"}), "");  // everything goes through the child
  EXPECT_EQ(t_.run(c, {"RPUSH", "after", "x"}), ":1\r\n");
  const std::string got = read_transfer(peer);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      got, m, std::regex("\\+FULLRESYNC ([0-9a-f]{40}) 0\r\n\\$EOF:([0-9a-f]{40})\r\n([\\s\\S]*)")))
      << got.substr(0, 120);
  const std::string mark = m[2].str();
  const std::string rdb = m[3].str().substr(0, m[3].length() - 40);
  EXPECT_EQ(m[3].str().substr(rdb.size()), mark);  // nothing after the mark
  EXPECT_EQ(rdb.rfind("REDIS0009", 0), 0u);
  EXPECT_NE(rdb.find("repl-id"), std::string::npos);
  EXPECT_NE(rdb.find(m[1].str()), std::string::npos);
  EXPECT_NE(rdb.find("before"), std::string::npos);
  EXPECT_EQ(rdb.find("after"), std::string::npos);  // written after the fork: in the stream

  reap_child();
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: replicas sockets"), 1);
  EXPECT_EQ(count_log("Background RDB transfer terminated with success"), 1);
  EXPECT_NE(info_replication().find("slave0:ip=127.0.0.1,port=0,state=online,"), std::string::npos);
  EXPECT_EQ(t_.take_output(r), "");  // held until the replica says it loaded the RDB
  EXPECT_EQ(t_.run(r, {"REPLCONF", "ACK", "0"}),
            kSelect0 + "*3\r\n$5\r\nRPUSH\r\n$5\r\nafter\r\n$1\r\nx\r\n");
  EXPECT_EQ(t_.run(c, {"RPUSH", "after", "y"}), ":2\r\n");
  EXPECT_EQ(t_.take_output(r), "*3\r\n$5\r\nRPUSH\r\n$5\r\nafter\r\n$1\r\ny\r\n");
  // No BGSAVE was counted: the transfer saved nothing.
  const std::string stats = t_.run(c, {"INFO", "stats"});
  EXPECT_NE(stats.find("sync_full:1\r\n"), std::string::npos);
}

TEST_F(ReplicationDisklessTest, ReplicasJoiningWithinTheDelayShareOneChild) {
  set("repl-diskless-sync-delay", "60");
  set("repl-diskless-sync-max-replicas", "2");
  int peer1 = -1, peer2 = -1;
  auto& r1 = socket_replica(peer1);
  EXPECT_EQ(t_.run(r1, {"PSYNC", "?", "-1"}), "");
  EXPECT_FALSE(t_.exec().persistence().child_running());  // waits for the delay
  t_.clock().advance_ms(1'000);
  t_.exec().cron(t_.clock().monotonic_ms());
  EXPECT_FALSE(t_.exec().persistence().child_running());  // 1 of 2 replicas, 1 s of 60
  EXPECT_EQ(t_.take_output(r1), "\n");                    // the keep-alive while it waits
  auto& r2 = socket_replica(peer2);
  EXPECT_EQ(t_.run(r2, {"PSYNC", "?", "-1"}), "");
  t_.exec().cron(t_.clock().monotonic_ms());  // 2 waiting: max-replicas starts the child
  EXPECT_TRUE(t_.exec().persistence().child_running());
  const std::string got1 = read_transfer(peer1);
  const std::string got2 = read_transfer(peer2);
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"RPUSH", "q", "x"}), ":1\r\n");
  // r1 loaded its RDB and acks before the child was reaped: its stream starts at the reaping.
  EXPECT_EQ(t_.run(r1, {"REPLCONF", "ACK", "0"}), "");
  reap_child();
  const std::string push = "*3\r\n$5\r\nRPUSH\r\n$1\r\nq\r\n$1\r\nx\r\n";
  EXPECT_EQ(t_.take_output(r1), kSelect0 + push);
  EXPECT_EQ(t_.take_output(r2), "");  // held until its own ACK
  // The keep-alive of the cron that started the child was not flushed yet: the child sent it
  // first. Then the same offset, mark and RDB for both: one child.
  ASSERT_EQ(got1.rfind("\n+FULLRESYNC ", 0), 0u) << got1.substr(0, 60);
  EXPECT_EQ(got1, got2);
  EXPECT_EQ(count_log("Delay next BGSAVE for diskless SYNC"), 2);
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: replicas sockets"), 1);
  const std::string info = info_replication();
  EXPECT_NE(info.find("slave0:ip=127.0.0.1,port=0,state=online"), std::string::npos) << info;
  EXPECT_NE(info.find("slave1:ip=127.0.0.1,port=0,state=online"), std::string::npos) << info;
}

TEST_F(ReplicationDisklessTest, AReplicaJoiningDuringATransferWaitsForTheNextChild) {
  set("repl-diskless-sync-delay", "0");
  int peer1 = -1, peer2 = -1;
  auto& r1 = socket_replica(peer1);
  EXPECT_EQ(t_.run(r1, {"PSYNC", "?", "-1"}), "");
  auto& r2 = socket_replica(peer2);
  EXPECT_EQ(t_.run(r2, {"PSYNC", "?", "-1"}), "");
  EXPECT_EQ(count_log("Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC"), 1);
  const std::string first = read_transfer(peer1);
  reap_child();  // its end starts the next child, for r2
  EXPECT_TRUE(t_.exec().persistence().child_running());
  const std::string second = read_transfer(peer2);
  reap_child();
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: replicas sockets"), 2);
  EXPECT_NE(first.substr(first.size() - 40), second.substr(second.size() - 40));  // new mark
}

TEST_F(ReplicationDisklessTest, TheFinalSaveKillsATransferInsteadOfWaitingForIt) {
  set("repl-diskless-sync-delay", "0");
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"SET", "big", std::string(4 << 20, 'v')}), "+OK\r\n");
  int peer = -1;
  auto& r = socket_replica(peer);  // nobody reads `peer`: the child blocks on a full socket
  EXPECT_EQ(t_.run(r, {"PSYNC", "?", "-1"}), "");
  ASSERT_TRUE(t_.exec().persistence().child_running());
  EXPECT_TRUE(t_.exec().persistence().save_before_exit(true, false));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/dump.rdb"));
  EXPECT_EQ(count_log("There is a child saving an .rdb. Killing it!"), 1);
  EXPECT_EQ(count_log("Background transfer error"), 1);
  EXPECT_EQ(count_log("Saving the final RDB snapshot before exiting."), 1);
  // The replica is closed (its sync failed); it will ask again.
  EXPECT_EQ(count_log("Closing replica 127.0.0.1:40000: SYNC failed. BGSAVE child returned an "
                      "error"),
            1);
}

// REPLCONF rdb-filter-only: the RDB goes to the socket even with repl-diskless-sync no (never
// to dump.rdb), keeps its AUX fields and leaves out the keys of every database, and the
// FUNCTION records unless `functions` was asked for (redis-cli --replica / --functions-rdb).
TEST_F(ReplicationDisklessTest, AFilteredRdbIsSentDisklessWithoutKeysOrWithOnlyFunctions) {
  set("repl-diskless-sync", "no");
  set("rdbcompression", "no");  // the test looks for the names in the bytes
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"RPUSH", "somekey", "a"}), ":1\r\n");
  EXPECT_EQ(t_.run(c, {"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"RPUSH", "db3key", "a"}), ":1\r\n");
  const std::string library =
      "#!lua name=filterlib\nredis.register_function('f', function() return 1 end)";
  EXPECT_EQ(t_.run(c, {"FUNCTION", "LOAD", library}), "$9\r\nfilterlib\r\n");
  int peer1 = -1, peer2 = -1;
  auto& nothing = socket_replica(peer1);  // redis-cli --replica
  EXPECT_EQ(t_.run(nothing, {"REPLCONF", "rdb-filter-only", ""}), "+OK\r\n");
  auto& functions = socket_replica(peer2);  // redis-cli --functions-rdb
  EXPECT_EQ(t_.run(functions, {"REPLCONF", "rdb-only", "1"}), "+OK\r\n");
  EXPECT_EQ(t_.run(functions, {"REPLCONF", "rdb-filter-only", "functions"}), "+OK\r\n");
  EXPECT_EQ(t_.run(nothing, {"SYNC"}), "");                // a child at once: diskless is off
  EXPECT_EQ(t_.run(functions, {"PSYNC", "?", "-1"}), "");  // another filter: the next child
  EXPECT_EQ(count_log("Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC"), 1);
  const std::string got1 = read_transfer(peer1);
  reap_child();  // its end starts the next child, for the functions-only replica
  const std::string got2 = read_transfer(peer2);
  reap_child();
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: replicas sockets"), 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/dump.rdb"));

  ASSERT_EQ(got1.rfind("$EOF:", 0), 0u) << got1.substr(0, 60);  // SYNC: no +FULLRESYNC
  EXPECT_NE(got1.find("REDIS0009"), std::string::npos);
  EXPECT_NE(got1.find("repl-id"), std::string::npos);
  EXPECT_EQ(got1.find("somekey"), std::string::npos);
  EXPECT_EQ(got1.find("db3key"), std::string::npos);
  EXPECT_EQ(got1.find("filterlib"), std::string::npos);
  ASSERT_EQ(got2.rfind("+FULLRESYNC ", 0), 0u) << got2.substr(0, 60);
  EXPECT_NE(got2.find(library), std::string::npos);
  EXPECT_EQ(got2.find("somekey"), std::string::npos);
  EXPECT_EQ(got2.find("db3key"), std::string::npos);

  // The --replica one streams as usual once it acked; the rdb-only one is closed.
  EXPECT_EQ(count_log("RDB transfer completed, rdb only replica (127.0.0.1:0) should be "
                      "disconnected asap"),
            1);
  EXPECT_EQ(t_.run(nothing, {"REPLCONF", "ACK", "0"}), "");
  EXPECT_EQ(t_.run(c, {"RPUSH", "after", "x"}), ":1\r\n");
  EXPECT_EQ(t_.take_output(nothing),
            "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$5\r\nRPUSH\r\n$5\r\nafter\r\n$1\r\nx\r\n");
}

// Replicas share a child only with the same filter (Redis' batches by slave_req): when the
// delay ends, the first waiting replica's batch goes, the others wait for the next child.
TEST_F(ReplicationDisklessTest, AFilteredReplicaSharesAChildOnlyWithTheSameFilter) {
  set("repl-diskless-sync-delay", "5");
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"RPUSH", "somekey", "a"}), ":1\r\n");
  int peer1 = -1, peer2 = -1, peer3 = -1;
  auto& full = socket_replica(peer1);
  auto& filtered = socket_replica(peer2);
  EXPECT_EQ(t_.run(filtered, {"REPLCONF", "rdb-filter-only", ""}), "+OK\r\n");
  auto& full2 = socket_replica(peer3);
  EXPECT_EQ(t_.run(full, {"PSYNC", "?", "-1"}), "");
  EXPECT_EQ(t_.run(filtered, {"PSYNC", "?", "-1"}), "");
  EXPECT_EQ(t_.run(full2, {"PSYNC", "?", "-1"}), "");
  EXPECT_EQ(count_log("Delay next BGSAVE for diskless SYNC"), 3);
  t_.clock().advance_ms(6'000);
  t_.exec().cron(t_.clock().monotonic_ms());
  ASSERT_TRUE(t_.exec().persistence().child_running());
  const std::string got1 = read_transfer(peer1);
  const std::string got3 = read_transfer(peer3);
  reap_child();  // the filtered replica's child starts now
  const std::string got2 = read_transfer(peer2);
  reap_child();
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: replicas sockets"), 2);
  EXPECT_NE(got1.find("somekey"), std::string::npos);
  EXPECT_EQ(got1.substr(got1.find("$EOF:")), got3.substr(got3.find("$EOF:")));  // one child
  EXPECT_EQ(got2.find("somekey"), std::string::npos);
  EXPECT_NE(got2.find("repl-id"), std::string::npos);
}

TEST_F(ReplicationDisklessTest, ReplicasWithoutCapaEofOrASocketGetTheDiskForm) {
  // The default delay (5 s) does not apply to them: their BGSAVE starts at once.
  int peer = -1;
  auto& no_eof = paired_client(peer);
  EXPECT_EQ(t_.run(no_eof, {"REPLCONF", "capa", "psync2"}), "+OK\r\n");
  const std::string reply = t_.run(no_eof, {"PSYNC", "?", "-1"});
  EXPECT_EQ(reply.rfind("+FULLRESYNC ", 0), 0u) << reply;
  reap_child();
  const std::string bulk = t_.take_output(no_eof);
  EXPECT_EQ(bulk.rfind("$", 0), 0u);
  EXPECT_EQ(bulk.find("$EOF:"), std::string::npos);
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: disk"), 1);

  auto& no_socket = t_.client();  // capa eof, but a transport without a plain socket (TLS)
  ASSERT_EQ(t_.transport(no_socket).socket, -1);
  EXPECT_EQ(t_.run(no_socket, {"REPLCONF", "capa", "eof"}), "+OK\r\n");
  EXPECT_EQ(t_.run(no_socket, {"PSYNC", "?", "-1"}).rfind("+FULLRESYNC ", 0), 0u);
  reap_child();
  EXPECT_EQ(t_.take_output(no_socket).rfind("$", 0), 0u);
  EXPECT_EQ(count_log("Starting BGSAVE for SYNC with target: disk"), 2);
}

}  // namespace
