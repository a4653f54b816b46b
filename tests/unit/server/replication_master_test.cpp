// The master side of replication in-process: the handshake replies, +FULLRESYNC and the RDB
// from a real BGSAVE child (in a temp dir), the stream after it (SELECT first), REPLCONF ACK
// without a reply, +CONTINUE from the backlog, INFO replication / ROLE / CLIENT, the stream's
// ping, repl-timeout and repl-backlog-ttl. Byte formats follow ../shared/REPLICATION.md §1-2
// (captured from Redis 7.0.15); tests/python/test_replication.py checks them against Redis.
#include "listd/server/replication_master.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "listd/server/persistence.h"
#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

class ReplicationMasterTest : public ::testing::Test {
 protected:
  ReplicationMasterTest() {
    static int n = 0;
    dir_ = ::testing::TempDir() + "/listd_repl_" + std::to_string(::getpid()) + "_" +
           std::to_string(n++);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    EXPECT_FALSE(t_.config().apply_directive(std::vector<std::string>{"dir", dir_}));
    const auto quiet = [](listd::config::LogLevel, std::string_view) {};
    t_.exec().persistence().set_logger(quiet);
    t_.exec().replication().set_logger(quiet);
  }
  ~ReplicationMasterTest() override {
    t_.exec().persistence().shutdown();
    std::filesystem::remove_all(dir_);
  }

  /// PSYNC ? -1 from `r`, then the RDB once the child is reaped; returns the replid.
  std::string full_sync(listd::server::Client& r) {
    const std::string reply = t_.run(r, {"PSYNC", "?", "-1"});
    std::smatch m;
    EXPECT_TRUE(std::regex_match(reply, m, std::regex("\\+FULLRESYNC ([0-9a-f]{40}) (\\d+)\r\n")))
        << reply;
    // Waits for the child (its exit hands the RDB to the replica), then one more SAVE.
    EXPECT_TRUE(t_.exec().persistence().save_before_exit(true, false));
    const std::string bulk = t_.take_output(r);
    EXPECT_EQ(bulk.rfind("$", 0), 0u) << bulk.substr(0, 40);
    const std::size_t eol = bulk.find("\r\n");
    const std::string rdb = bulk.substr(eol + 2);
    EXPECT_EQ(std::to_string(rdb.size()), bulk.substr(1, eol - 1));  // no CRLF after it
    EXPECT_EQ(rdb.rfind("REDIS0009", 0), 0u);
    EXPECT_NE(rdb.find("repl-id"), std::string::npos);
    EXPECT_NE(rdb.find(m[1].str()), std::string::npos);
    return m[1].str();
  }

  std::string info_replication() {
    auto& c = t_.client();
    const std::string out = t_.run(c, {"INFO", "replication"});
    t_.disconnect(c);
    return out;
  }

  std::string dir_;
  TestServer t_;
};

const std::string kSelect0 = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";
const std::string kPushQ = "*3\r\n$5\r\nRPUSH\r\n$1\r\nq\r\n$1\r\nx\r\n";

TEST_F(ReplicationMasterTest, HandshakeRepliesAreRedisOnes) {
  auto& r = t_.client();
  EXPECT_EQ(t_.run(r, {"REPLCONF", "listening-port", "7001"}), "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "capa", "eof", "capa", "psync2", "capa", "dual-channel"}),
            "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "ip-address", "10.0.0.9"}), "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "capa"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "listening-port", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "nope", "1"}), "-ERR Unrecognized REPLCONF option: nope\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "ACK", "5"}), "");  // never answered
  EXPECT_EQ(t_.run(r, {"PSYNC", "?", "x"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t_.run(r, {"ROLE"}), "*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n");
}

// REPLCONF rdb-filter-only: redis-server 7.0.15's replies. The value is split as sdssplitargs
// splits; `functions` (any case) is the only filter word.
TEST_F(ReplicationMasterTest, RdbFilterOnlyRepliesAreRedisOnes) {
  auto& r = t_.client();
  EXPECT_EQ(t_.run(r, {"REPLCONF", "rdb-filter-only", ""}), "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "RDB-FILTER-ONLY", "FUNCTIONS"}), "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "rdb-filter-only", " functions  \"Functions\" "}), "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "rdb-filter-only", "\"functions"}),
            "-ERR Missing rdb-filter-only values\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "rdb-filter-only", "functions keys"}),
            "-ERR Unsupported rdb-filter-only option: keys\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "capa", "eof", "rdb-filter-only", "'a b'"}),
            "-ERR Unsupported rdb-filter-only option: a b\r\n");
  EXPECT_EQ(t_.run(r, {"REPLCONF", "rdb-filter-only"}), "-ERR syntax error\r\n");
}

// A filtered RDB is only ever sent diskless: without capa eof, PSYNC and SYNC are refused with
// Redis' text and the client stays a normal one; listd also refuses a connection its diskless
// child cannot write to (TLS: here a transport without a plain socket).
TEST_F(ReplicationMasterTest, AFilteredReplicaNeedsTheEofCapability) {
  auto& r = t_.client();
  EXPECT_EQ(t_.run(r, {"REPLCONF", "rdb-filter-only", "functions"}), "+OK\r\n");
  const std::string refused = "-ERR Filtered replica requires EOF capability\r\n";
  EXPECT_EQ(t_.run(r, {"PSYNC", "?", "-1"}), refused);
  EXPECT_EQ(t_.run(r, {"SYNC"}), refused);
  EXPECT_FALSE(t_.exec().replication().is_replica(r));
  EXPECT_EQ(t_.run(r, {"PING"}), "+PONG\r\n");
  EXPECT_NE(info_replication().find("connected_slaves:0\r\n"), std::string::npos);
  EXPECT_FALSE(t_.exec().persistence().child_running());
  EXPECT_EQ(t_.run(r, {"REPLCONF", "capa", "eof"}), "+OK\r\n");
  EXPECT_EQ(t_.run(r, {"PSYNC", "?", "-1"}),
            "-ERR Filtered replica requires a plain TCP connection: listd cannot send a filtered "
            "RDB over TLS\r\n");
  EXPECT_FALSE(t_.exec().replication().is_replica(r));
  // An unsupported word leaves the filter set (Redis sets it before checking the words).
  auto& u = t_.client();
  EXPECT_EQ(t_.run(u, {"REPLCONF", "rdb-filter-only", "keys"}),
            "-ERR Unsupported rdb-filter-only option: keys\r\n");
  EXPECT_EQ(t_.run(u, {"SYNC"}), refused);
}

TEST_F(ReplicationMasterTest, FullSyncThenTheStreamStartingWithSelect) {
  auto& w = t_.client();
  EXPECT_EQ(t_.run(w, {"RPUSH", "before", "a"}), ":1\r\n");  // no replica: no stream yet
  EXPECT_NE(info_replication().find("repl_backlog_active:0\r\n"), std::string::npos);
  auto& r = t_.client();
  EXPECT_EQ(t_.run(r, {"REPLCONF", "listening-port", "7001"}), "+OK\r\n");
  const std::string replid = full_sync(r);
  EXPECT_EQ(t_.run(w, {"RPUSH", "q", "x"}), ":1\r\n");
  EXPECT_EQ(t_.take_output(r), kSelect0 + kPushQ);
  EXPECT_EQ(t_.run(w, {"SELECT", "2"}), "+OK\r\n");
  EXPECT_EQ(t_.run(w, {"DEL", "nothing"}), ":0\r\n");  // no change: no effect
  EXPECT_EQ(t_.run(w, {"SET", "s", "v"}), "+OK\r\n");
  const std::string select2_set =
      "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*3\r\n$3\r\nSET\r\n$1\r\ns\r\n$1\r\nv\r\n";
  EXPECT_EQ(t_.take_output(r), select2_set);
  // The fork was at offset 0: every stream byte since counts.
  const long long end = t_.exec().replication().master_repl_offset();
  EXPECT_EQ(end, static_cast<long long>(kSelect0.size() + kPushQ.size() + select2_set.size()));
  EXPECT_EQ(t_.run(r, {"REPLCONF", "ACK", std::to_string(end)}), "");

  const std::string info = info_replication();
  EXPECT_NE(info.find("role:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=7001,"
                      "state=online,offset=" +
                      std::to_string(end) + ",lag=0\r\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("master_replid:" + replid + "\r\n"), std::string::npos);
  EXPECT_NE(info.find("master_repl_offset:" + std::to_string(end) + "\r\n"), std::string::npos);
  EXPECT_NE(info.find("repl_backlog_active:1\r\nrepl_backlog_size:1048576\r\n"
                      "repl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:" +
                      std::to_string(end) + "\r\n"),
            std::string::npos);
  EXPECT_EQ(t_.run(w, {"ROLE"}), "*3\r\n$6\r\nmaster\r\n:" + std::to_string(end) +
                                     "\r\n*1\r\n*3\r\n$9\r\n127.0.0.1\r\n$4\r\n7001\r\n$" +
                                     std::to_string(std::to_string(end).size()) + "\r\n" +
                                     std::to_string(end) + "\r\n");
  const std::string list = t_.run(w, {"CLIENT", "LIST", "TYPE", "replica"});
  EXPECT_NE(list.find("flags=S "), std::string::npos) << list;
  EXPECT_EQ(t_.run(w, {"CLIENT", "KILL", "TYPE", "replica"}), ":1\r\n");
}

TEST_F(ReplicationMasterTest, PsyncContinuesFromTheBacklogOrFallsBackToAFullSync) {
  auto& w = t_.client();
  auto& r = t_.client();
  const std::string replid = full_sync(r);
  EXPECT_EQ(t_.run(w, {"RPUSH", "q", "x"}), ":1\r\n");
  t_.disconnect(r);

  auto& again = t_.client();
  EXPECT_EQ(t_.run(again, {"REPLCONF", "capa", "psync2"}), "+OK\r\n");
  EXPECT_EQ(t_.run(again, {"PSYNC", replid, std::to_string(kSelect0.size() + 1)}),
            "+CONTINUE " + replid + "\r\n" + kPushQ);
  auto& old_style = t_.client();  // no capa psync2: +CONTINUE without the id
  EXPECT_EQ(t_.run(old_style, {"PSYNC", replid, "1"}), "+CONTINUE\r\n" + kSelect0 + kPushQ);
  auto& stranger = t_.client();
  EXPECT_EQ(t_.run(stranger, {"PSYNC", std::string(40, 'a'), "1"}).rfind("+FULLRESYNC ", 0), 0u);
  auto& too_far = t_.client();
  EXPECT_EQ(t_.run(too_far, {"PSYNC", replid, "1000"}).rfind("+FULLRESYNC ", 0), 0u);
  auto& c = t_.client();
  const std::string stats = t_.run(c, {"INFO", "stats"});
  EXPECT_NE(stats.find("sync_full:3\r\nsync_partial_ok:2\r\nsync_partial_err:2\r\n"),
            std::string::npos)
      << stats;
  t_.exec().persistence().save_before_exit(true, false);
}

TEST_F(ReplicationMasterTest, CronPingsTheStreamAndDropsSilentReplicas) {
  EXPECT_FALSE(
      t_.config().apply_directive(std::vector<std::string>{"repl-ping-replica-period", "2"}));
  auto& r = t_.client();
  full_sync(r);
  t_.exec().cron(t_.clock().monotonic_ms());
  EXPECT_EQ(t_.take_output(r), "");
  t_.exec().cron(t_.clock().monotonic_ms());
  EXPECT_EQ(t_.take_output(r), "*1\r\n$4\r\nping\r\n");  // lower case, no SELECT before it
  t_.clock().advance_ms(61'000);                         // repl-timeout 60 without an ACK
  const std::vector<listd::server::Client*> closed = t_.exec().cron(t_.clock().monotonic_ms());
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0], &r);
}

TEST_F(ReplicationMasterTest, TheBacklogIsFreedAfterItsTtlWithoutReplicas) {
  EXPECT_FALSE(t_.config().apply_directive(std::vector<std::string>{"repl-backlog-ttl", "10"}));
  auto& r = t_.client();
  const std::string replid = full_sync(r);
  t_.disconnect(r);
  t_.clock().advance_ms(5'000);
  t_.exec().cron(t_.clock().monotonic_ms());
  EXPECT_NE(info_replication().find("repl_backlog_active:1\r\n"), std::string::npos);
  t_.clock().advance_ms(6'000);
  t_.exec().cron(t_.clock().monotonic_ms());
  const std::string info = info_replication();
  EXPECT_NE(info.find("repl_backlog_active:0\r\n"), std::string::npos);
  EXPECT_EQ(info.find(replid), std::string::npos);  // a new history starts with a new id
}

}  // namespace

namespace {

TEST_F(ReplicationMasterTest, ReplOptionsAct) {
  auto& c = t_.client();
  // Diskless sync acts (replication_diskless_test.cpp); these replicas have no socket for it.
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "repl-diskless-sync", "yes"}), "+OK\r\n");
  auto& r = t_.client();
  full_sync(r);
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "repl-backlog-size", "1"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"SET", "k", std::string(20000, 'v')}), "+OK\r\n");
  const std::string info = info_replication();
  // Redis keeps at least 16 KB whatever the setting says.
  EXPECT_NE(info.find("repl_backlog_size:1\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("repl_backlog_histlen:16384\r\n"), std::string::npos) << info;
}

// min-replicas-to-write / -max-lag: the replies are redis-server 7.0.15's to the same requests
// (-NOREPLICAS for writes, EXEC aborted, the script error with its location; reads go on).
TEST_F(ReplicationMasterTest, MinReplicasToWriteRefusesWritesWithoutGoodReplicas) {
  const std::string no_replicas = "-NOREPLICAS Not enough good replicas to write.\r\n";
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "min-replicas-to-write", "1"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"LPUSH", "q", "a"}), no_replicas);
  EXPECT_EQ(t_.run(c, {"BLPOP", "q", "1"}), no_replicas);
  EXPECT_EQ(t_.run(c, {"GET", "q"}), "$-1\r\n");
  EXPECT_EQ(t_.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"LPUSH", "q", "a"}), no_replicas);
  EXPECT_EQ(t_.run(c, {"EXEC"}),
            "-EXECABORT Transaction discarded because of previous errors.\r\n");
  const std::string script = t_.run(c, {"EVAL", "return redis.call('lpush','q','a')", "0"});
  EXPECT_EQ(script.rfind("-NOREPLICAS Not enough good replicas to write. script: ", 0), 0u)
      << script;
  EXPECT_NE(script.find(", on @user_script:1.\r\n"), std::string::npos) << script;
  EXPECT_EQ(t_.run(c, {"EVAL", "#!lua\nreturn redis.call('lpush','q','a')", "0"}), no_replicas);
  EXPECT_EQ(t_.run(c, {"EVAL", "return redis.pcall('lpush','q','a')", "0"}), no_replicas);
  EXPECT_NE(info_replication().find("connected_slaves:0\r\nmin_slaves_good_slaves:0\r\n"),
            std::string::npos);

  // An online replica that acked within min-replicas-max-lag (10 s) is good.
  auto& r = t_.client();
  full_sync(r);
  EXPECT_EQ(t_.run(r, {"REPLCONF", "ACK", "0"}), "");
  EXPECT_EQ(t_.run(c, {"LPUSH", "q", "a"}), ":1\r\n");
  EXPECT_NE(info_replication().find("min_slaves_good_slaves:1\r\n"), std::string::npos);
  t_.clock().advance_ms(11'000);  // its last ACK is now 11 s old
  EXPECT_EQ(t_.run(c, {"LPUSH", "q", "b"}), no_replicas);
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "min-slaves-max-lag", "0"}), "+OK\r\n");  // off
  EXPECT_EQ(t_.run(c, {"LPUSH", "q", "b"}), ":2\r\n");
  EXPECT_EQ(info_replication().find("min_slaves_good_slaves"), std::string::npos);
}

// ---- sync-replicas (sync_replication.h): the transport's consumption of Client::out is
// SyncReplication::before_send, called here where net::Connection calls it.

class SyncReplicasTest : public ReplicationMasterTest {
 protected:
  /// Runs `argv` for `c`, then hands over what the transport may send now.
  std::string send(listd::server::Client& c, std::initializer_list<std::string_view> argv) {
    std::vector<std::string_view> v(argv);
    t_.exec().execute(c, v);
    return sendable(c);
  }
  std::string sendable(listd::server::Client& c) {
    t_.exec().sync_replication().before_send(c);
    return t_.take_output(c);
  }
  long long offset() { return t_.exec().replication().master_repl_offset(); }
  /// What net::Server::finish_turn does at a turn's end for the acknowledgements.
  void end_turn() {
    t_.exec().sync_replication().end_turn();
    t_.exec().replication().end_turn();
  }
  void ack(listd::server::Client& r, long long at) {
    t_.take_output(r);  // the stream so far
    EXPECT_EQ(t_.run(r, {"REPLCONF", "ACK", std::to_string(at)}), "");
  }
  /// An online replica that acked everything so far.
  listd::server::Client& synced_replica() {
    auto& r = t_.client();
    full_sync(r);
    ack(r, offset());
    t_.take_output(r);
    return r;
  }
};

const std::string kGetack = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
const std::string kNoReplicas = "-NOREPLICAS Not enough good replicas to write.\r\n";

TEST_F(SyncReplicasTest, WritesAreRefusedWithFewerStreamingReplicas) {
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"LPUSH", "q", "a"}), kNoReplicas);  // a refusal is sent at once
  EXPECT_EQ(send(c, {"BRPOP", "q", "0"}), kNoReplicas);
  EXPECT_EQ(send(c, {"LLEN", "q"}), ":0\r\n");  // reads of acknowledged data are not held
  EXPECT_EQ(send(c, {"PING"}), "+PONG\r\n");
  auto& r = t_.client();
  full_sync(r);  // online: it counts once it streams, before its first ACK
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "2"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"LPUSH", "q", "a"}), kNoReplicas);
  EXPECT_NE(info_replication().find("sync_replicas:2\r\nsync_replicas_acked_offset:0\r\n"
                                    "sync_replicas_held_clients:0\r\nsync_replicas_timeouts:0\r\n"),
            std::string::npos);
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "0"}), "+OK\r\n");
  EXPECT_EQ(info_replication().find("sync_replicas"), std::string::npos);  // off: Redis' fields
}

TEST_F(SyncReplicasTest, AWriteIsAnsweredOnceTheReplicaAckedItsOffset) {
  auto& c = t_.client();
  auto& r = synced_replica();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"RPUSH", "q", "x"}), "");  // held
  EXPECT_EQ(c.held_bytes(), 4u);
  const long long after_push = offset();
  // The turn's end asks once, whatever the turn wrote; a turn without writes asks nothing.
  end_turn();
  EXPECT_EQ(t_.take_output(r), kSelect0 + kPushQ + kGetack);
  end_turn();
  EXPECT_EQ(t_.take_output(r), "");
  ack(r, after_push - 1);  // not yet the push's end
  EXPECT_EQ(sendable(c), "");
  ack(r, after_push);  // replicas answer GETACK with the offset before it
  EXPECT_EQ(sendable(c), ":1\r\n");
  EXPECT_EQ(c.held, nullptr);
  EXPECT_EQ(send(c, {"RPUSH", "q", "b"}), "");
  EXPECT_EQ(send(c, {"RPUSH", "q", "c"}), "");
  end_turn();  // one GETACK for both
  const std::string stream = t_.take_output(r);
  EXPECT_EQ(stream.find(kGetack), stream.size() - kGetack.size()) << stream;
  ack(r, offset() - static_cast<long long>(kGetack.size()));
  EXPECT_EQ(sendable(c), ":2\r\n:3\r\n");
}

TEST_F(SyncReplicasTest, HeldOutputLeavesInOrderAndOnlyWhatShowsDataWaits) {
  auto& c = t_.client();
  auto& other = t_.client();
  auto& r = synced_replica();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"RPUSH", "q", "a"}), "");
  const long long first = offset();
  // Another client: its read may show the unacknowledged push, its PING and INFO cannot.
  EXPECT_EQ(send(other, {"LRANGE", "q", "0", "-1"}), "");
  EXPECT_EQ(send(other, {"ECHO", "x"}), "");  // behind its held read: order is kept
  auto& admin = t_.client();
  EXPECT_EQ(send(admin, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(send(admin, {"CLIENT", "SETNAME", "a"}), "+OK\r\n");
  // Sentinel's transaction of admin commands is answered; one that read a key waits.
  EXPECT_EQ(send(admin, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(send(admin, {"CONFIG", "GET", "port"}), "+QUEUED\r\n");
  EXPECT_EQ(send(admin, {"CLIENT", "ID"}), "+QUEUED\r\n");
  EXPECT_EQ(send(admin, {"EXEC"}).rfind("*2\r\n", 0), 0u);
  // Sentinel's hello channel flows: messages promise nothing.
  EXPECT_EQ(send(admin, {"SUBSCRIBE", "__sentinel__:hello"}).rfind("*3\r\n", 0), 0u);
  EXPECT_EQ(send(other, {"PUBLISH", "__sentinel__:hello", "hi"}), "");  // behind its read
  EXPECT_EQ(sendable(admin), "*3\r\n$7\r\nmessage\r\n$18\r\n__sentinel__:hello\r\n$2\r\nhi\r\n");
  auto& reader = t_.client();
  EXPECT_EQ(send(reader, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(send(reader, {"LLEN", "q"}), "+QUEUED\r\n");
  EXPECT_EQ(send(reader, {"EXEC"}), "");
  EXPECT_EQ(send(c, {"RPUSH", "q", "b"}), "");
  EXPECT_EQ(send(other, {"PING"}), "");  // behind the read, and waits for no more than it
  ack(r, first);
  EXPECT_EQ(sendable(c), ":1\r\n");  // the second push waits for its own offset
  EXPECT_EQ(sendable(other), "*1\r\n$1\r\na\r\n$1\r\nx\r\n:1\r\n+PONG\r\n");
  ack(r, offset());
  EXPECT_EQ(sendable(c), ":2\r\n");
  EXPECT_EQ(sendable(reader), "*1\r\n:1\r\n");
}

TEST_F(SyncReplicasTest, APublishMovesTheStreamButHoldsNoRead) {
  auto& c = t_.client();
  auto& r = synced_replica();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"RPUSH", "q", "a"}), "");
  ack(r, offset());
  EXPECT_EQ(sendable(c), ":1\r\n");
  EXPECT_EQ(send(c, {"PUBLISH", "__sentinel__:hello", "x"}), ":0\r\n");
  EXPECT_NE(t_.take_output(r).find("PUBLISH"), std::string::npos);  // replicas get it
  EXPECT_EQ(send(c, {"LRANGE", "q", "0", "-1"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(SyncReplicasTest, AServedBlockingPopIsHeldUntilThePopIsAcked) {
  auto& worker = t_.client();
  auto& producer = t_.client();
  auto& r = synced_replica();
  EXPECT_EQ(t_.run(worker, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(worker, {"BRPOP", "q", "0"}), "");  // blocked
  EXPECT_EQ(send(producer, {"LPUSH", "q", "job"}), "");
  EXPECT_NE(t_.take_output(r).find("RPOP"), std::string::npos);  // the served pop streamed
  ack(r, offset());
  EXPECT_EQ(sendable(worker), "*2\r\n$1\r\nq\r\n$3\r\njob\r\n");
  EXPECT_EQ(sendable(producer), ":1\r\n");
}

TEST_F(SyncReplicasTest, HeldPastTheTimeoutTheClientIsClosedWithoutIt) {
  auto& c = t_.client();
  synced_replica();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas-timeout", "500"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"RPUSH", "q", "a"}), "");
  ASSERT_TRUE(t_.exec().next_wakeup_ms().has_value());
  t_.advance_ms(499);
  t_.exec().tick();
  EXPECT_FALSE(c.close_asap);
  t_.advance_ms(1);
  t_.exec().tick();
  EXPECT_TRUE(c.close_asap);  // closed at the turn's end, its held reply never written
  EXPECT_EQ(c.held, nullptr);
  EXPECT_NE(info_replication().find("sync_replicas_held_clients:0\r\nsync_replicas_timeouts:1\r\n"),
            std::string::npos);
}

TEST_F(SyncReplicasTest, SwitchedOffHeldOutputLeaves) {
  auto& c = t_.client();
  synced_replica();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(c, {"RPUSH", "q", "a"}), "");
  // Off: everything held leaves at once, before the reply that switched it off.
  EXPECT_EQ(send(c, {"CONFIG", "SET", "sync-replicas", "0"}), ":1\r\n+OK\r\n");
}

TEST_F(SyncReplicasTest, ADemotionClosesTheHeldClientsWithUnacknowledgedOutput) {
  auto& c = t_.client();
  auto& acked = t_.client();
  auto& r = synced_replica();
  EXPECT_EQ(t_.run(c, {"CONFIG", "SET", "sync-replicas", "1"}), "+OK\r\n");
  EXPECT_EQ(send(acked, {"RPUSH", "q", "a"}), "");
  // Acknowledged, but not yet written when the role changes (a FAILOVER in the same turn).
  ack(r, offset());
  EXPECT_EQ(send(c, {"RPUSH", "q", "b"}), "");
  t_.exec().replication().set_following(true, nullptr);
  EXPECT_TRUE(c.close_asap);
  EXPECT_EQ(c.held, nullptr);
  EXPECT_FALSE(acked.close_asap);
  EXPECT_EQ(sendable(acked), ":1\r\n");
  t_.exec().replication().set_following(false, nullptr);
}

}  // namespace
