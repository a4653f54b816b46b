// The replica side of replication in-process: the test plays the master by feeding bytes to
// ReplicationReplica and reading what it sent through a recording MasterLinkTransport. The
// handshake's bytes, both RDB forms, the stream applied without replies (GETACK answered),
// offsets as Redis counts them, -READONLY, expired keys kept, promotion's replid2, demotion's
// -UNBLOCKED and a PSYNC that continues after a lost link. Byte formats follow
// ../shared/REPLICATION.md §1 (captured from Redis 7.0.15); tests/python/test_replica_side.py
// runs the same against a real redis-server master.
#include "listd/server/replication_replica.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "listd/persistence/rdb.h"
#include "listd/server/master_link.h"
#include "listd/server/replication_master.h"
#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

class RecordingLink final : public listd::server::MasterLinkTransport {
 public:
  void connect(const std::string& h, int p) override {
    host = h;
    port = p;
    ++connects;
  }
  void send(std::string_view bytes) override { sent.append(bytes); }
  void close() override { ++closes; }
  std::string take() {
    std::string out;
    out.swap(sent);
    return out;
  }
  std::string host;
  int port = 0;
  int connects = 0;
  int closes = 0;
  std::string sent;
};

std::string resp(std::initializer_list<std::string_view> argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (std::string_view a : argv)
    out += "$" + std::to_string(a.size()) + "\r\n" + std::string(a) + "\r\n";
  return out;
}

const std::string kMasterId(40, 'a');
const std::string kMark(40, 'm');

class ReplicationReplicaTest : public ::testing::Test {
 protected:
  ReplicationReplicaTest() {
    const auto quiet = [](listd::config::LogLevel, std::string_view) {};
    t_.exec().replication().set_logger(quiet);
    replica().set_logger(quiet);
    replica().set_transport(&link_);
  }
  ~ReplicationReplicaTest() override { replica().set_transport(nullptr); }

  listd::server::ReplicationReplica& replica() { return t_.exec().replica_side(); }
  void feed(std::string_view bytes) { replica().on_bytes(bytes); }

  /// A master's RDB holding `list` = [x, y] and `gone` already expired.
  std::string master_rdb() {
    listd::store::Keyspace ks(16);
    listd::store::Entry* e = ks.db(0).add("list", listd::store::Value::make_list());
    e->value.as_list().push_back("x");
    e->value.as_list().push_back("y");
    listd::store::Entry* g = ks.db(0).add("gone", listd::store::Value::make_string("v"));
    ks.db(0).set_expire(*g, 1000);  // long past
    listd::persistence::RdbSaveOptions o;
    return listd::persistence::rdb_to_string(ks, o);
  }

  /// REPLICAOF (unless a master is set already), the handshake, +FULLRESYNC at offset 100 and the
  /// RDB in the `$<len>` form.
  void sync_disk() {
    if (!replica().active()) {
      auto& c = t_.client();
      EXPECT_EQ(t_.run(c, {"REPLICAOF", "127.0.0.1", "7777"}), "+OK\r\n");
    }
    replica().on_connected();
    EXPECT_EQ(link_.take(), resp({"PING"}));
    feed("+PONG\r\n");
    feed("+OK\r\n+OK\r\n");
    link_.take();
    feed("+FULLRESYNC " + kMasterId + " 100\r\n");
    const std::string rdb = master_rdb();
    feed("\n$" + std::to_string(rdb.size()) + "\r\n" + rdb.substr(0, 10));
    feed(rdb.substr(10));
  }

  TestServer t_;
  RecordingLink link_;
};

TEST_F(ReplicationReplicaTest, HandshakeSendsRedisBytesInOrder) {
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"REPLICAOF", "127.0.0.1", "7777"}), "+OK\r\n");
  EXPECT_EQ(link_.connects, 1);
  EXPECT_EQ(link_.host, "127.0.0.1");
  EXPECT_EQ(link_.port, 7777);
  EXPECT_EQ(t_.run(c, {"REPLICAOF", "127.0.0.1", "7777"}),
            "+OK Already connected to specified master\r\n");
  replica().on_connected();
  EXPECT_EQ(link_.take(), resp({"PING"}));
  feed("-NOAUTH Authentication required.\r\n");  // still goes on: AUTH may follow
  EXPECT_EQ(link_.take(), resp({"REPLCONF", "listening-port", "6379"}) +
                              resp({"REPLCONF", "capa", "eof", "capa", "psync2"}));
  feed("+OK\r\n-ERR unknown\r\n");  // a REPLCONF error is not critical
  // A master that became a replica PSYNCs with its own history (offset + 1).
  const std::string own = t_.exec().replication().replid();
  EXPECT_EQ(link_.take(), resp({"PSYNC", own, "1"}));
}

TEST_F(ReplicationReplicaTest, MasterauthAndMasteruserAreSentAfterThePing) {
  ASSERT_FALSE(t_.config().set("masterauth", "secret"));
  ASSERT_FALSE(t_.config().set("masteruser", "repl"));
  ASSERT_FALSE(t_.config().set("replica-announce-port", "7000"));
  ASSERT_TRUE(replica().set_master("127.0.0.1", 7777));
  replica().on_connected();
  link_.take();
  feed("+PONG\r\n");
  EXPECT_EQ(link_.take(), resp({"AUTH", "repl", "secret"}) +
                              resp({"REPLCONF", "listening-port", "7000"}) +
                              resp({"REPLCONF", "capa", "eof", "capa", "psync2"}));
  feed("-WRONGPASS invalid username-password pair\r\n");  // AUTH refused: the link is dropped
  EXPECT_EQ(link_.closes, 2);                             // set_master's close, then this one
  EXPECT_FALSE(replica().link_up());
}

TEST_F(ReplicationReplicaTest, FullSyncReplacesTheDataAndKeepsExpiredKeys) {
  auto& c = t_.client();
  t_.run(c, {"SET", "old", "1"});
  sync_disk();
  EXPECT_TRUE(replica().link_up());
  EXPECT_EQ(t_.run(c, {"EXISTS", "old"}), ":0\r\n");
  EXPECT_EQ(t_.run(c, {"LRANGE", "list", "0", "-1"}), "*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
  // Expired on arrival: hidden from reads, kept until the master's DEL.
  EXPECT_EQ(t_.run(c, {"GET", "gone"}), "$-1\r\n");
  EXPECT_EQ(t_.run(c, {"DBSIZE"}), ":2\r\n");
  const std::string del = resp({"DEL", "gone"});
  feed(del);
  EXPECT_EQ(t_.run(c, {"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(t_.exec().replication().replid(), kMasterId);
  EXPECT_EQ(t_.exec().replication().master_repl_offset(), 100 + static_cast<long long>(del.size()));
  EXPECT_EQ(link_.take(), "");  // no reply to the stream, no ACK in the `$<len>` form
}

TEST_F(ReplicationReplicaTest, DisklessFormEndsAtTheMarkAndAcksAtOnce) {
  auto& c = t_.client();
  ASSERT_TRUE(replica().set_master("127.0.0.1", 7777));
  replica().on_connected();
  feed("+PONG\r\n+OK\r\n+OK\r\n");
  feed("\n\n+FULLRESYNC " + kMasterId + " 1481\r\n");
  const std::string rdb = master_rdb();
  feed("$EOF:" + kMark + "\r\n" + rdb);
  EXPECT_NE(t_.run(c, {"INFO", "replication"}).find("master_sync_in_progress:1"),
            std::string::npos);
  link_.take();
  feed(kMark);
  EXPECT_EQ(link_.take(), resp({"REPLCONF", "ACK", "1481"}));
  EXPECT_EQ(t_.run(c, {"LLEN", "list"}), ":2\r\n");
}

TEST_F(ReplicationReplicaTest, StreamOffsetsGetackAndTransactions) {
  sync_disk();
  auto& c = t_.client();
  link_.take();
  const std::string select = resp({"SELECT", "3"});
  const std::string push = resp({"RPUSH", "q", "a"});
  feed(select + push.substr(0, 7));  // a command split across reads
  feed(push.substr(7));
  const long long after_push = 100 + static_cast<long long>(select.size() + push.size());
  EXPECT_EQ(t_.exec().replication().master_repl_offset(), after_push);
  const std::string getack = resp({"REPLCONF", "GETACK", "*"});
  feed(getack);  // answered with the offset before the GETACK
  EXPECT_EQ(link_.take(), resp({"REPLCONF", "ACK", std::to_string(after_push)}));
  const long long after_getack = after_push + static_cast<long long>(getack.size());
  const std::string multi = resp({"MULTI"}) + resp({"RPUSH", "q", "b"});
  feed(multi);  // inside MULTI the offset waits for EXEC
  EXPECT_EQ(t_.exec().replication().master_repl_offset(), after_getack);
  feed(resp({"EXEC"}));
  EXPECT_EQ(t_.exec().replication().master_repl_offset(),
            after_getack + static_cast<long long>(multi.size() + resp({"EXEC"}).size()));
  EXPECT_EQ(t_.run(c, {"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"LRANGE", "q", "0", "-1"}), "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(link_.take(), "");
  t_.exec().cron(t_.clock().monotonic_ms());  // once a second: the ACK
  EXPECT_EQ(link_.take(), resp({"REPLCONF", "ACK",
                                std::to_string(t_.exec().replication().master_repl_offset())}));
}

TEST_F(ReplicationReplicaTest, NormalClientsGetReadonlyForEveryWrite) {
  sync_disk();
  auto& c = t_.client();
  const std::string ro = "-READONLY You can't write against a read only replica.\r\n";
  EXPECT_EQ(t_.run(c, {"LPUSH", "list", "z"}), ro);
  EXPECT_EQ(t_.run(c, {"BRPOP", "list", "0"}), ro);
  EXPECT_EQ(t_.run(c, {"RPOP", "list"}), ro);
  EXPECT_EQ(t_.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"LPUSH", "list", "z"}), ro);
  EXPECT_EQ(t_.run(c, {"EXEC"}),
            "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(t_.run(c, {"EVAL", "#!lua\nreturn 1", "0"}), ro);  // a write script: refused
  EXPECT_EQ(t_.run(c, {"EVAL", "return redis.call('lpush', 'list', 'z')", "0"}).substr(0, 54),
            ro.substr(0, 54));
  EXPECT_EQ(t_.run(c, {"EVAL", "return redis.call('llen', 'list')", "0"}), ":2\r\n");
  EXPECT_EQ(t_.run(c, {"LLEN", "list"}), ":2\r\n");
}

TEST_F(ReplicationReplicaTest, InfoAndRoleShowTheLink) {
  auto& c = t_.client();
  ASSERT_TRUE(replica().set_master("127.0.0.1", 7777));
  std::string info = t_.run(c, {"INFO", "replication"});
  EXPECT_NE(info.find("role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:7777\r\n"
                      "master_link_status:down\r\nmaster_last_io_seconds_ago:-1\r\n"
                      "master_sync_in_progress:0\r\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("master_link_down_since_seconds:-1\r\nslave_priority:100\r\n"
                      "slave_read_only:1\r\nreplica_announced:1\r\nconnected_slaves:0\r\n"),
            std::string::npos)
      << info;
  EXPECT_EQ(t_.run(c, {"ROLE"}),
            "*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:7777\r\n$10\r\nconnecting\r\n:-1\r\n");
  sync_disk();
  info = t_.run(c, {"INFO", "replication"});
  EXPECT_NE(info.find("master_link_status:up\r\nmaster_last_io_seconds_ago:0\r\n"
                      "master_sync_in_progress:0\r\nslave_read_repl_offset:100\r\n"
                      "slave_repl_offset:100\r\nslave_priority:100\r\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("master_replid:" + kMasterId), std::string::npos);
  EXPECT_EQ(t_.run(c, {"ROLE"}),
            "*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:7777\r\n$9\r\nconnected\r\n:100\r\n");
}

TEST_F(ReplicationReplicaTest, LostLinkContinuesWithPsyncFromTheOffset) {
  sync_disk();
  feed(resp({"SET", "k", "v"}));
  const long long offset = t_.exec().replication().master_repl_offset();
  replica().on_link_closed("EOF");
  EXPECT_EQ(link_.connects, 2);  // at once
  replica().on_connected();
  feed("+PONG\r\n+OK\r\n+OK\r\n");
  EXPECT_NE(link_.take().find(resp({"PSYNC", kMasterId, std::to_string(offset + 1)})),
            std::string::npos);
  feed("+CONTINUE " + kMasterId + "\r\n" + resp({"SET", "k2", "v2"}));
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"MGET", "k", "k2"}), "*2\r\n$1\r\nv\r\n$2\r\nv2\r\n");
  EXPECT_EQ(t_.exec().replication().replid2(), std::string(40, '0'));
}

TEST_F(ReplicationReplicaTest, ContinueWithANewIdKeepsTheOldOneAsReplid2) {
  sync_disk();
  replica().on_link_closed("EOF");
  replica().on_connected();
  feed("+PONG\r\n+OK\r\n+OK\r\n");
  const std::string promoted(40, 'b');
  feed("+CONTINUE " + promoted + "\r\n");
  EXPECT_EQ(t_.exec().replication().replid(), promoted);
  EXPECT_EQ(t_.exec().replication().replid2(), kMasterId);
  auto& c = t_.client();
  EXPECT_NE(t_.run(c, {"INFO", "replication"}).find("second_repl_offset:101\r\n"),
            std::string::npos);
}

TEST_F(ReplicationReplicaTest, PromotionShiftsTheReplidAndAcceptsWrites) {
  sync_disk();
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"REPLICAOF", "NO", "ONE"}), "+OK\r\n");
  EXPECT_EQ(t_.exec().replication().replid2(), kMasterId);
  EXPECT_NE(t_.exec().replication().replid(), kMasterId);
  const std::string info = t_.run(c, {"INFO", "replication"});
  EXPECT_NE(info.find("role:master\r\n"), std::string::npos);
  EXPECT_NE(info.find("second_repl_offset:101\r\n"), std::string::npos);
  EXPECT_EQ(t_.run(c, {"LPUSH", "list", "z"}), ":3\r\n");
  // A master again expires keys itself.
  EXPECT_EQ(t_.run(c, {"GET", "gone"}), "$-1\r\n");
  EXPECT_EQ(t_.run(c, {"DBSIZE"}), ":1\r\n");
}

TEST_F(ReplicationReplicaTest, DemotionUnblocksBlockedClients) {
  auto& waiter = t_.client();
  auto& admin = t_.client();
  EXPECT_EQ(t_.run(waiter, {"BLPOP", "q", "0"}), "");
  EXPECT_EQ(t_.run(admin, {"REPLICAOF", "127.0.0.1", "7777"}), "+OK\r\n");
  EXPECT_EQ(t_.take_output(waiter),
            "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
            "replica?)\r\n");
  EXPECT_TRUE(waiter.close_after_reply);
  EXPECT_FALSE(waiter.blocked());
}

TEST_F(ReplicationReplicaTest, ReplicaofArgumentsAsRedis) {
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"REPLICAOF", "h", "99999"}), "-ERR Invalid master port\r\n");
  EXPECT_EQ(t_.run(c, {"SLAVEOF", "h", "x"}), "-ERR Invalid master port\r\n");
  EXPECT_EQ(t_.run(c, {"REPLICAOF", "no", "one"}), "+OK\r\n");  // on a master: nothing
  EXPECT_FALSE(replica().active());
  auto& other = t_.client();
  EXPECT_EQ(t_.run(other, {"SLAVEOF", "127.0.0.1", "7777"}), "+OK\r\n");
  auto& late = t_.client();
  EXPECT_EQ(t_.run(late, {"PSYNC", "?", "-1"}),
            "-NOMASTERLINK Can't SYNC while not connected with my master\r\n");
}

}  // namespace

namespace {

TEST_F(ReplicationReplicaTest, TheMasterLinkIsClientTypeMaster) {
  sync_disk();
  auto& c = t_.client();
  const std::string list = t_.run(c, {"CLIENT", "LIST", "TYPE", "master"});
  EXPECT_NE(list.find("addr=127.0.0.1:7777 "), std::string::npos) << list;
  EXPECT_NE(list.find(" flags=M "), std::string::npos) << list;
  // The other normal client goes; the master link is spared.
  EXPECT_EQ(t_.run(c, {"CLIENT", "KILL", "TYPE", "normal"}), ":1\r\n");
  EXPECT_TRUE(replica().link_up());
  EXPECT_EQ(t_.run(c, {"CLIENT", "KILL", "TYPE", "master"}), ":1\r\n");
  replica().flush();  // what net does with the kill list at the end of the turn
  EXPECT_FALSE(replica().link_up());
}

TEST_F(ReplicationReplicaTest, WaitOnAReplicaIsRefused) {
  sync_disk();
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"WAIT", "1", "100"}),
            "-ERR WAIT cannot be used with replica instances. Please also note that since Redis "
            "4.0 if a replica is configured to be writable (which is not the default) writes to "
            "replicas are just local and are not propagated.\r\n");
}

TEST(WaitTest, CountsTimesOutAndNeverBlocksInMulti) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"WAIT", "0", "0"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"WAIT", "x", "0"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"WAIT", "1", "-1"}), "-ERR timeout is negative\r\n");
  EXPECT_EQ(t.run(c, {"WAIT", "1", "1.5"}), "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"WAIT", "1", "100"}), "");  // no replica: blocks until the timeout
  EXPECT_TRUE(c.blocked());
  t.advance_ms(50);
  EXPECT_EQ(t.take_output(c), "");
  t.advance_ms(60);
  EXPECT_EQ(t.take_output(c), ":0\r\n");
  EXPECT_FALSE(c.blocked());
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"WAIT", "1", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n:0\r\n");
}

// Sentinel's promotion and demotion, one transaction each (../shared/REPLICATION.md §3.1). The
// replies and the rewritten replicaof line are redis-server 7.0.15's, captured with the same
// requests: CONFIG GET and CONFIG REWRITE follow the role set at run time.
TEST_F(ReplicationReplicaTest, SentinelTransactionsRewriteTheReplicaofLine) {
  const std::filesystem::path conf = std::filesystem::temp_directory_path() /
                                     ("listd-sentinel-" + std::to_string(::getpid()) + ".conf");
  std::ofstream(conf) << "port 6380\n";
  t_.config().set_config_file(conf.string());
  const auto file = [&] {
    std::stringstream text;
    text << std::ifstream(conf).rdbuf();
    return text.str();
  };
  auto& sentinel = t_.client();
  auto& worker = t_.client();
  auto& subscriber = t_.client();
  EXPECT_EQ(t_.run(worker, {"PING"}), "+PONG\r\n");
  t_.run(subscriber, {"SUBSCRIBE", "__sentinel__:hello"});
  EXPECT_EQ(t_.run(sentinel, {"REPLICAOF", "127.0.0.1", "7777"}), "+OK\r\n");
  EXPECT_EQ(t_.run(sentinel, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t_.run(sentinel, {"SLAVEOF", "NO", "ONE"}), "+QUEUED\r\n");
  EXPECT_EQ(t_.run(sentinel, {"CONFIG", "REWRITE"}), "+QUEUED\r\n");
  EXPECT_EQ(t_.run(sentinel, {"CLIENT", "KILL", "TYPE", "normal"}), "+QUEUED\r\n");
  EXPECT_EQ(t_.run(sentinel, {"CLIENT", "KILL", "TYPE", "pubsub"}), "+QUEUED\r\n");
  EXPECT_EQ(t_.run(sentinel, {"EXEC"}), "*4\r\n+OK\r\n+OK\r\n:1\r\n:1\r\n");
  EXPECT_FALSE(replica().active());
  EXPECT_EQ(file().find("replicaof"), std::string::npos) << file();
  EXPECT_EQ(t_.run(sentinel, {"CONFIG", "GET", "replicaof"}),
            "*2\r\n$9\r\nreplicaof\r\n$0\r\n\r\n");

  EXPECT_EQ(t_.run(sentinel, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t_.run(sentinel, {"SLAVEOF", "127.0.0.1", "7777"}), "+QUEUED\r\n");
  EXPECT_EQ(t_.run(sentinel, {"CONFIG", "REWRITE"}), "+QUEUED\r\n");
  EXPECT_EQ(t_.run(sentinel, {"EXEC"}), "*2\r\n+OK\r\n+OK\r\n");
  EXPECT_NE(file().find("\nreplicaof 127.0.0.1 7777\n"), std::string::npos) << file();
  EXPECT_EQ(t_.run(sentinel, {"CONFIG", "GET", "replicaof"}),
            "*2\r\n$9\r\nreplicaof\r\n$14\r\n127.0.0.1 7777\r\n");
  std::filesystem::remove(conf);
}

// replica-serve-stale-data no with the link down: the replies are redis-server 7.0.15's to the
// same requests (a replica of an address nobody answers).
TEST_F(ReplicationReplicaTest, ServeStaleDataNoRefusesWhileTheLinkIsDown) {
  const std::string master_down =
      "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n";
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "slave-serve-stale-data", "no"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"GET", "q"}), "$-1\r\n");  // a master: nothing is stale
  EXPECT_EQ(t_.run(c, {"REPLICAOF", "127.0.0.1", "7777"}), "+OK\r\n");
  ASSERT_FALSE(replica().link_up());
  EXPECT_EQ(t_.run(c, {"GET", "q"}), master_down);
  EXPECT_EQ(t_.run(c, {"PING"}), master_down);
  EXPECT_EQ(t_.run(c, {"LPUSH", "q", "a"}),
            "-READONLY You can't write against a read only replica.\r\n");
  EXPECT_EQ(t_.run(c, {"ROLE"}).rfind("*5\r\n$5\r\nslave\r\n", 0), 0u);
  EXPECT_EQ(t_.run(c, {"EVAL", "return redis.call('get','q')", "0"}), master_down);
  EXPECT_EQ(t_.run(c, {"EVAL", "#!lua\nreturn redis.call('get','q')", "0"}),
            "-READONLY You can't write against a read only replica.\r\n");
  const std::string stale_call =
      t_.run(c, {"EVAL", "#!lua flags=no-writes,allow-stale\nreturn redis.call('get','q')", "0"});
  EXPECT_EQ(stale_call.rfind("-ERR Can not execute the command on a stale replica script: ", 0), 0u)
      << stale_call;
  EXPECT_NE(stale_call.find(", on @user_script:2.\r\n"), std::string::npos) << stale_call;
  EXPECT_EQ(t_.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"GET", "q"}), master_down);
  EXPECT_EQ(t_.run(c, {"EXEC"}),
            "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(t_.run(c, {"INFO", "replication"}).find("MASTERDOWN"), std::string::npos);
  // Once the link is up the data is served again.
  sync_disk();
  EXPECT_EQ(t_.run(c, {"LLEN", "list"}), ":2\r\n");
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "replica-serve-stale-data", "yes"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"CONFIG", "GET", "slave-serve-stale-data"}),
            "*2\r\n$22\r\nslave-serve-stale-data\r\n$3\r\nyes\r\n");
}

}  // namespace
