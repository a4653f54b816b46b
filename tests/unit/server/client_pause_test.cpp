// CLIENT PAUSE / UNPAUSE on the executor (Redis 7.0 pauseClients, blockPostponeClient): which
// commands wait, in what order they run afterwards, and that a pause freezes expiry and
// eviction. A postponed request is re-run by the test as the transport re-parses it
// (Connection::resume): execute() leaves it unconsumed and sets Client::postponed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/resp.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using namespace listd::testing::resp;

class ClientPauseTest : public ::testing::Test {
 protected:
  /// Runs `argv` on `c` and expects it to wait for the pause's end.
  void expect_postponed(Client& c, std::initializer_list<std::string_view> argv) {
    EXPECT_EQ(t.run(c, argv), "") << *argv.begin();
    EXPECT_TRUE(c.postponed) << *argv.begin();
  }
  std::vector<Client*> resumed() { return t.exec().clients().take_resume_list(); }
  std::string info_field(Client& c, const std::string& section, const std::string& name) {
    const std::string info = t.run(c, {"INFO", section});
    const std::size_t at = info.find("\r\n" + name + ":");
    if (at == std::string::npos) return "<missing>";
    const std::size_t begin = at + name.size() + 3;
    return info.substr(begin, info.find("\r\n", begin) - begin);
  }

  testing::TestServer t;
};

TEST_F(ClientPauseTest, ArgumentErrorsAreRedisTexts) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE"}),
            error("ERR wrong number of arguments for 'client|pause' command"));
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "abc"}),
            error("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "1.5"}),
            error("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "9223372036854775808"}),
            error("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "-1"}), error("ERR timeout is negative"));
  // The mode is checked first.
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "abc", "foo"}),
            error("ERR CLIENT PAUSE mode must be WRITE or ALL"));
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "10", "write", "x"}),
            error("ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT "
                  "HELP."));
  EXPECT_EQ(t.run(c, {"CLIENT", "UNPAUSE", "x"}),
            error("ERR wrong number of arguments for 'client|unpause' command"));
  EXPECT_FALSE(t.exec().client_pause().active());
}

TEST_F(ClientPauseTest, ZeroOrWrappingTimeoutStartsNoPause) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "0"}), kOk);
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "9223372036854775807", "WRITE"}), kOk);
  EXPECT_FALSE(t.exec().client_pause().active());
  EXPECT_EQ(t.run(c, {"SET", "k", "v"}), kOk);
  EXPECT_EQ(t.run(c, {"CLIENT", "UNPAUSE"}), kOk);  // nothing to end: still OK
}

TEST_F(ClientPauseTest, WriteModePostponesWritesAndMayReplicateCommandsOnly) {
  Client& admin = t.client();
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  EXPECT_EQ(t.run(admin, {"GET", "k"}), kNullBulk);
  EXPECT_EQ(t.run(admin, {"EVAL_RO", "return 1", "0"}), integer(1));
  EXPECT_EQ(t.run(admin, {"EVAL", "#!lua flags=no-writes\nreturn 2", "0"}), integer(2));
  EXPECT_EQ(t.run(admin, {"CONFIG", "SET", "maxmemory", "0"}), kOk);
  EXPECT_EQ(t.run(admin, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(admin, {"GET", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(admin, {"EXEC"}), "*1\r\n$-1\r\n");
  // Writes, and what may replicate: PUBLISH, SPUBLISH, PFCOUNT, EVAL without a shebang.
  for (auto argv : std::vector<std::vector<std::string_view>>{{"LPUSH", "k", "x"},
                                                              {"PUBLISH", "ch", "m"},
                                                              {"SPUBLISH", "ch", "m"},
                                                              {"PFCOUNT", "h"},
                                                              {"EVAL", "return 1", "0"},
                                                              {"FLUSHALL"}}) {
    Client& c = t.client();
    EXPECT_EQ(t.run(c, argv), "") << argv[0];
    EXPECT_TRUE(c.postponed) << argv[0];
  }
  // Inside MULTI the write waits before it is queued; EXEC waits for a queued write.
  Client& tx = t.client();
  EXPECT_EQ(t.run(tx, {"MULTI"}), kOk);
  expect_postponed(tx, {"SET", "a", "b"});
  EXPECT_EQ(t.exec().client_pause().postponed_count(), 7u);
  EXPECT_EQ(info_field(admin, "clients", "blocked_clients"), "7");
}

TEST_F(ClientPauseTest, ExecOfQueuedWritesWaits) {
  Client& tx = t.client();
  Client& admin = t.client();
  EXPECT_EQ(t.run(tx, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(tx, {"SET", "a", "b"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  expect_postponed(tx, {"EXEC"});
  EXPECT_EQ(t.run(admin, {"CLIENT", "UNPAUSE"}), kOk);
  EXPECT_EQ(resumed(), std::vector<Client*>{&tx});
  EXPECT_EQ(t.run(tx, {"EXEC"}), "*1\r\n+OK\r\n");
}

TEST_F(ClientPauseTest, PostponedCommandsRunInArrivalOrderAfterUnpause) {
  Client& admin = t.client();
  Client& a = t.client();
  Client& b = t.client();
  Client& c = t.client();
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  expect_postponed(b, {"RPUSH", "q", "b"});
  expect_postponed(a, {"RPUSH", "q", "a"});
  expect_postponed(c, {"RPUSH", "q", "c"});
  const std::string list = t.run(admin, {"CLIENT", "LIST", "ID", std::to_string(b.id)});
  EXPECT_NE(list.find(" flags=b "), std::string::npos) << list;
  EXPECT_NE(list.find(" cmd=rpush "), std::string::npos) << list;
  EXPECT_EQ(t.run(admin, {"EXISTS", "q"}), integer(0));
  EXPECT_EQ(t.run(admin, {"CLIENT", "UNPAUSE"}), kOk);
  const std::vector<Client*> order = resumed();
  EXPECT_EQ(order, (std::vector<Client*>{&b, &a, &c}));
  EXPECT_FALSE(a.postponed || b.postponed || c.postponed);
  EXPECT_EQ(t.run(b, {"RPUSH", "q", "b"}), integer(1));
  EXPECT_EQ(t.run(a, {"RPUSH", "q", "a"}), integer(2));
  EXPECT_EQ(t.run(c, {"RPUSH", "q", "c"}), integer(3));
  EXPECT_EQ(t.run(admin, {"LRANGE", "q", "0", "-1"}), array({"b", "a", "c"}));
}

TEST_F(ClientPauseTest, WaiterIsServedOnlyWhenThePostponedPushRuns) {
  Client& worker = t.client();
  Client& producer = t.client();
  Client& admin = t.client();
  EXPECT_EQ(t.run(worker, {"BRPOP", "q", "0"}), "");
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  expect_postponed(producer, {"LPUSH", "q", "job"});
  EXPECT_TRUE(worker.blocked());
  EXPECT_EQ(info_field(admin, "clients", "blocked_clients"), "2");
  EXPECT_EQ(t.run(admin, {"CLIENT", "UNPAUSE"}), kOk);
  EXPECT_EQ(t.take_output(worker), "");
  EXPECT_EQ(resumed(), std::vector<Client*>{&producer});
  EXPECT_EQ(t.run(producer, {"LPUSH", "q", "job"}), integer(1));
  EXPECT_EQ(t.take_output(worker), key_value("q", "job"));
}

TEST_F(ClientPauseTest, AllModePostponesEverythingUntilTheTimeout) {
  Client& admin = t.client();
  Client& reader = t.client();
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "500"}), kOk);  // ALL by default
  expect_postponed(reader, {"PING"});
  expect_postponed(admin, {"CLIENT", "UNPAUSE"});  // as in Redis: only the timeout ends it
  EXPECT_EQ(t.exec().next_wakeup_ms().value_or(0), t.clock().monotonic_ms() + 500);
  t.advance_ms(499);
  EXPECT_TRUE(reader.postponed);
  t.advance_ms(1);
  EXPECT_EQ(resumed(), (std::vector<Client*>{&reader, &admin}));
  EXPECT_EQ(t.run(reader, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(t.run(admin, {"CLIENT", "UNPAUSE"}), kOk);
}

TEST_F(ClientPauseTest, ASecondPauseKeepsTheStricterModeAndTheLaterEnd) {
  Client& admin = t.client();
  Client& c = t.client();
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "1000", "WRITE"}), kOk);
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10", "ALL"}), kOk);
  EXPECT_EQ(t.exec().client_pause().mode(), PauseMode::kAll);
  t.advance_ms(20);
  expect_postponed(c, {"GET", "k"});
  t.advance_ms(980);
  EXPECT_FALSE(t.exec().client_pause().active());
  EXPECT_EQ(resumed(), std::vector<Client*>{&c});
}

TEST_F(ClientPauseTest, ADisconnectedPostponedClientIsForgotten) {
  Client& admin = t.client();
  Client& gone = t.client();
  Client& stays = t.client();
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  expect_postponed(gone, {"SET", "a", "1"});
  expect_postponed(stays, {"SET", "b", "1"});
  t.disconnect(gone);
  EXPECT_EQ(t.exec().client_pause().postponed_count(), 1u);
  EXPECT_EQ(t.run(admin, {"CLIENT", "UNPAUSE"}), kOk);
  EXPECT_EQ(resumed(), std::vector<Client*>{&stays});
}

TEST_F(ClientPauseTest, APostponedClientIsNeverClosedAsIdle) {
  Client& admin = t.client();
  Client& waiting = t.client();
  Client& idle = t.client();
  EXPECT_EQ(t.run(admin, {"CONFIG", "SET", "timeout", "1"}), kOk);
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  expect_postponed(waiting, {"SET", "a", "1"});
  t.advance_ms(3000);
  const std::vector<Client*> closed = t.exec().cron(t.clock().monotonic_ms());
  EXPECT_EQ(std::count(closed.begin(), closed.end(), &waiting), 0);
  EXPECT_EQ(std::count(closed.begin(), closed.end(), &idle), 1);
  t.exec().unpause_clients();
}

TEST_F(ClientPauseTest, ReplicasAreNeverPaused) {
  Client& admin = t.client();
  Client& replica = t.client();
  replica.replica = true;
  EXPECT_EQ(t.run(admin, {"CLIENT", "PAUSE", "10000", "ALL"}), kOk);
  EXPECT_EQ(t.run(replica, {"PING"}), "+PONG\r\n");
  EXPECT_FALSE(replica.postponed);
  t.exec().unpause_clients();
}

TEST_F(ClientPauseTest, KeysDoNotExpireWhilePausedButReadsHideThem) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "k", "v", "PX", "100"}), kOk);
  EXPECT_EQ(t.run(c, {"SET", "w", "v", "PX", "100"}), kOk);
  t.clock().advance_ms(200);  // past the TTLs, before active expiry has reached them
  // A write to a hidden key in the transaction that pauses replaces it (no second entry).
  EXPECT_EQ(t.run(c, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "10000", "WRITE"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"SET", "w", "new"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*2\r\n+OK\r\n+OK\r\n");
  t.advance_ms(100);  // ticks, but no active expiry while paused
  // Only the pause's end is due: no expiry ticks spin on the key nobody deletes.
  EXPECT_EQ(t.exec().next_wakeup_ms().value_or(0), t.clock().monotonic_ms() + 9900);
  EXPECT_EQ(t.run(c, {"GET", "k"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"EXISTS", "k"}), integer(0));
  EXPECT_EQ(t.run(c, {"DBSIZE"}), integer(2));  // lazy expiry hid `k` but deleted nothing
  EXPECT_EQ(t.run(c, {"GET", "w"}), bulk("new"));
  EXPECT_EQ(t.exec().stats().expired_keys, 1u);  // the old `w`, replaced
  EXPECT_EQ(t.run(c, {"CLIENT", "UNPAUSE"}), kOk);
  t.advance_ms(100);  // active expiry again
  EXPECT_EQ(t.run(c, {"DBSIZE"}), integer(1));
}

TEST_F(ClientPauseTest, APromotionDuringThePauseKeepsExpiredKeys) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "k", "v", "PX", "100"}), kOk);
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  EXPECT_EQ(t.run(c, {"REPLICAOF", "127.0.0.1", "9"}), kOk);  // no transport: never connects
  EXPECT_EQ(t.run(c, {"REPLICAOF", "NO", "ONE"}), kOk);
  t.clock().advance_ms(200);
  EXPECT_EQ(t.run(c, {"GET", "k"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"DBSIZE"}), integer(1));  // still paused: nothing deleted it
  EXPECT_EQ(t.run(c, {"CLIENT", "UNPAUSE"}), kOk);
  EXPECT_EQ(t.run(c, {"GET", "k"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"DBSIZE"}), integer(0));
}

TEST_F(ClientPauseTest, NothingIsEvictedWhilePaused) {
  Client& c = t.client();
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(t.run_strings(c, {"SET", "key" + std::to_string(i), std::string(200, 'x')}), kOk);
  EXPECT_EQ(t.run(c, {"CLIENT", "PAUSE", "10000", "WRITE"}), kOk);
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "maxmemory-eviction-tenacity", "100"}), kOk);  // no limit
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "maxmemory-policy", "allkeys-random"}), kOk);
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "maxmemory", "1"}), kOk);
  EXPECT_EQ(t.run(c, {"GET", "key1"}), bulk(std::string(200, 'x')));
  EXPECT_EQ(t.run(c, {"DBSIZE"}), integer(20));
  EXPECT_EQ(t.exec().evictor().evicted_keys(), 0u);
  EXPECT_EQ(t.run(c, {"CLIENT", "UNPAUSE"}), kOk);
  EXPECT_EQ(t.run(c, {"DBSIZE"}), integer(0));  // over the limit: the next command evicts
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "maxmemory", "0"}), kOk);
}

}  // namespace
}  // namespace listd::server
