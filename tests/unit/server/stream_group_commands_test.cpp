// Consumer groups on the executor: XREADGROUP BLOCK on the list machinery (each new entry goes
// to exactly one waiting consumer, oldest waiter first; a destroyed group or deleted key wakes
// its waiters with Redis 7.0's errors; a timeout answers null), and the PEL bookkeeping behind
// XPENDING / XACK / XCLAIM / XAUTOCLAIM on the manual clock (idle times exact here).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/resp.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using namespace listd::testing::resp;

std::string entry(const std::string& id, const std::string& f, const std::string& v) {
  return "*2\r\n" + bulk(id) + "*2\r\n" + bulk(f) + bulk(v);
}

std::string one_key(const std::string& key, const std::string& entries, int n) {
  return "*1\r\n*2\r\n" + bulk(key) + "*" + std::to_string(n) + "\r\n" + entries;
}

class StreamGroupTest : public ::testing::Test {
 protected:
  void SetUp() override { t.run(c, {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}); }
  void TearDown() override {
    EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u) << "a waiter was leaked";
  }
  testing::TestServer t;
  Client& c = t.client();
};

TEST_F(StreamGroupTest, EachNewEntryGoesToExactlyOneBlockedConsumerOldestFirst) {
  Client& w1 = t.client();
  Client& w2 = t.client();
  Client& w3 = t.client();
  for (Client* w : {&w1, &w2, &w3})
    EXPECT_EQ(t.run(*w, {"XREADGROUP", "GROUP", "g", "c" + std::to_string(w->id), "BLOCK", "0",
                         "STREAMS", "s", ">"}),
              "");
  EXPECT_EQ(t.run(c, {"XADD", "s", "1-1", "f", "a"}), bulk("1-1"));
  EXPECT_EQ(t.take_output(w1), one_key("s", entry("1-1", "f", "a"), 1));
  EXPECT_EQ(t.take_output(w2), "");
  EXPECT_TRUE(w2.blocked() && w3.blocked());
  t.run(c, {"XADD", "s", "2-1", "f", "b"});
  EXPECT_EQ(t.take_output(w2), one_key("s", entry("2-1", "f", "b"), 1));
  EXPECT_EQ(t.take_output(w3), "");
  // Both entries are pending, each for the consumer it went to.
  EXPECT_EQ(t.run(c, {"XPENDING", "s", "g", "-", "+", "10"}),
            "*2\r\n*4\r\n" + bulk("1-1") + bulk("c" + std::to_string(w1.id)) + ":0\r\n:1\r\n" +
                "*4\r\n" + bulk("2-1") + bulk("c" + std::to_string(w2.id)) + ":0\r\n:1\r\n");
  t.run(c, {"XGROUP", "DESTROY", "s", "g"});
  EXPECT_EQ(t.take_output(w3),
            error("NOGROUP the consumer group this client was blocked on no longer exists"));
}

TEST_F(StreamGroupTest, ADeletedOrOverwrittenKeyUnblocksGroupReadersButNotPlainReaders) {
  Client& group_reader = t.client();
  Client& plain_reader = t.client();
  t.run(group_reader, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  t.run(plain_reader, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  t.run(c, {"DEL", "s"});
  EXPECT_EQ(t.take_output(group_reader), error("UNBLOCKED the stream key no longer exists"));
  EXPECT_TRUE(plain_reader.blocked());
  t.run(c, {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  t.run(group_reader, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  t.run(c, {"SET", "s", "v"});
  EXPECT_EQ(t.take_output(group_reader), error("UNBLOCKED the stream key no longer exists"));
  t.run(c, {"DEL", "s"});
  t.run(c, {"XADD", "s", "1-1", "f", "v"});
  EXPECT_EQ(t.take_output(plain_reader), one_key("s", entry("1-1", "f", "v"), 1));
}

TEST_F(StreamGroupTest, ABlockedGroupReadTimesOutWithNullAndAnswersAtOnceInMulti) {
  Client& w = t.client();
  t.run(w, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "100", "STREAMS", "s", ">"});
  EXPECT_TRUE(w.blocked());
  t.advance_ms(150);
  EXPECT_EQ(t.take_output(w), "*-1\r\n");
  t.run(w, {"MULTI"});
  t.run(w, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  EXPECT_EQ(t.run(w, {"EXEC"}), "*1\r\n*-1\r\n");
}

TEST_F(StreamGroupTest, IdleTimesFollowTheClockAndClaimsMoveOwnership) {
  for (const char* id : {"1-1", "2-1", "3-1"}) t.run(c, {"XADD", "s", id, "f", "v"});
  t.run(c, {"XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", ">"});
  t.advance_ms(5000);
  EXPECT_EQ(t.run(c, {"XPENDING", "s", "g", "IDLE", "5000", "-", "+", "1"}),
            "*1\r\n*4\r\n" + bulk("1-1") + bulk("a") + ":5000\r\n:1\r\n");
  EXPECT_EQ(t.run(c, {"XCLAIM", "s", "g", "b", "5001", "1-1", "JUSTID"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"XCLAIM", "s", "g", "b", "5000", "1-1", "JUSTID"}), "*1\r\n" + bulk("1-1"));
  EXPECT_EQ(t.run(c, {"XAUTOCLAIM", "s", "g", "b", "5000", "0", "COUNT", "1", "JUSTID"}),
            "*3\r\n" + bulk("3-1") + "*1\r\n" + bulk("2-1") + "*0\r\n");
  EXPECT_EQ(t.run(c, {"XPENDING", "s", "g"}), "*4\r\n:3\r\n" + bulk("1-1") + bulk("3-1") +
                                                  "*2\r\n*2\r\n" + bulk("a") + bulk("1") +
                                                  "*2\r\n" + bulk("b") + bulk("2"));
  EXPECT_EQ(t.run(c, {"XACK", "s", "g", "1-1", "2-1", "3-1", "3-1"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"XPENDING", "s", "g"}), "*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n");
}

// Each way a waited-for stream can leave its key, with the reply redis-server 7.0.15 gave its
// blocked XREADGROUP client (checked by hand, one blocked redis-py connection per case).
// Redis serves XREADGROUP's keys in order: a key named twice with `>` finds the first read's
// deliveries, so it is left out (found by the random stream oracle); with a COUNT that leaves
// entries it is served twice, and a history id after `>` sees what `>` just delivered.
TEST_F(StreamGroupTest, AKeyNamedTwiceIsServedAfterWhatItsFirstReadDelivered) {
  t.run(c, {"XADD", "s", "1-1", "f", "a"});
  t.run(c, {"XADD", "s", "2-1", "f", "b"});
  EXPECT_EQ(t.run(c, {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "s", ">", ">"}),
            one_key("s", entry("1-1", "f", "a") + entry("2-1", "f", "b"), 2));
  t.run(c, {"XADD", "s", "3-1", "f", "c"});
  t.run(c, {"XADD", "s", "4-1", "f", "d"});
  const std::string key = "*2\r\n" + bulk("s");
  EXPECT_EQ(
      t.run(c, {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", "s", ">", ">"}),
      "*2\r\n" + key + "*1\r\n" + entry("3-1", "f", "c") + key + "*1\r\n" + entry("4-1", "f", "d"));
  t.run(c, {"XADD", "s", "5-1", "f", "e"});
  EXPECT_EQ(
      t.run(c, {"XREADGROUP", "GROUP", "g", "d", "STREAMS", "s", "s", ">", "0"}),
      "*2\r\n" + key + "*1\r\n" + entry("5-1", "f", "e") + key + "*1\r\n" + entry("5-1", "f", "e"));
  EXPECT_EQ(t.run(c, {"XREADGROUP", "GROUP", "g", "d", "STREAMS", "s", "s", ">", ">"}), "*-1\r\n");
}

TEST(StreamGroupWake, AStreamRemovedOrReplacedWakesGroupReadersWithRedis70sReply) {
  const std::string unblocked = error("UNBLOCKED the stream key no longer exists");
  const std::string nogroup =
      error("NOGROUP the consumer group this client was blocked on no longer exists");
  struct Case {
    const char* name;
    std::vector<std::vector<std::string>> action;
    const std::string& reply;
  };
  const std::vector<Case> cases = {
      {"RENAME away", {{"RENAME", "s", "u"}}, unblocked},
      {"RENAME a list over it", {{"RPUSH", "l", "x"}, {"RENAME", "l", "s"}}, unblocked},
      {"RENAME a string over it", {{"SET", "l", "x"}, {"RENAME", "l", "s"}}, unblocked},
      {"RENAME a stream over it", {{"XADD", "t", "5-1", "f", "v"}, {"RENAME", "t", "s"}}, nogroup},
      {"MOVE", {{"MOVE", "s", "1"}}, unblocked},
      {"COPY REPLACE a string", {{"SET", "l", "x"}, {"COPY", "l", "s", "REPLACE"}}, unblocked},
      {"COPY REPLACE a stream",
       {{"XADD", "t", "5-1", "f", "v"}, {"COPY", "t", "s", "REPLACE"}},
       nogroup},
      {"FLUSHDB", {{"FLUSHDB"}}, unblocked},
      {"FLUSHALL", {{"FLUSHALL"}}, unblocked},
      {"SWAPDB with an empty db", {{"SWAPDB", "0", "1"}}, unblocked},
      {"SWAPDB with a stream",
       {{"SELECT", "1"}, {"XADD", "s", "9-1", "f", "v"}, {"SWAPDB", "0", "1"}},
       nogroup},
      {"SWAPDB with a string",
       {{"SELECT", "1"}, {"SET", "s", "v"}, {"SWAPDB", "0", "1"}},
       unblocked},
      {"DEL", {{"DEL", "s"}}, unblocked},
      {"SET over it", {{"SET", "s", "v"}}, unblocked},
      {"PEXPIRE in the past", {{"PEXPIRE", "s", "-1"}}, unblocked},
      {"DEL and XADD in MULTI",
       {{"MULTI"}, {"DEL", "s"}, {"XADD", "s", "1-1", "f", "v"}, {"EXEC"}},
       nogroup},
      {"DEL and SADD in MULTI", {{"MULTI"}, {"DEL", "s"}, {"SADD", "s", "x"}, {"EXEC"}}, unblocked},
      {"evicted",
       {{"CONFIG", "SET", "maxmemory-policy", "allkeys-random"},
        {"CONFIG", "SET", "maxmemory", "1"},
        {"GET", "x"}},
       unblocked},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    testing::TestServer t;
    Client& c = t.client();
    Client& w = t.client();
    t.run(c, {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
    t.run(w, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
    ASSERT_TRUE(w.blocked());
    for (const auto& argv : k.action) t.run_strings(c, argv);
    EXPECT_EQ(t.take_output(w), k.reply);
    EXPECT_FALSE(w.blocked());
  }
}

// Active expiry (the key is never looked up): the waiter is woken by the expiry itself.
TEST(StreamGroupWake, AnExpiredStreamWakesItsGroupReaders) {
  testing::TestServer t;
  Client& c = t.client();
  Client& w = t.client();
  t.run(c, {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  t.run(c, {"PEXPIRE", "s", "100"});
  t.run(w, {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"});
  t.advance_ms(50);
  EXPECT_TRUE(w.blocked());
  t.advance_ms(200);
  EXPECT_EQ(t.take_output(w), error("UNBLOCKED the stream key no longer exists"));
  EXPECT_EQ(t.exec().stats().expired_keys, 1u);
}

// From a script BLOCK is refused before its value is read, with the command's name as the script
// spelled it (Redis 7.0.15 xreadCommand); inside MULTI the read answers a null array at once.
TEST(StreamGroupWake, BlockFromAScriptIsAnError) {
  testing::TestServer t;
  Client& c = t.client();
  t.run(c, {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"});
  EXPECT_EQ(t.run(c, {"EVAL",
                      "return redis.pcall('xreadgroup','GROUP','g','c','BLOCK','0','STREAMS','s',"
                      "'>')",
                      "0"}),
            error("ERR xreadgroup command is not allowed with BLOCK option from scripts"));
  EXPECT_EQ(
      t.run(c,
            {"EVAL", "return redis.pcall('XREAD','COUNT','1','BLOCK','x','STREAMS','s','0')", "0"}),
      error("ERR XREAD command is not allowed with BLOCK option from scripts"));
  EXPECT_EQ(
      t.run(c,
            {"EVAL", "return redis.pcall('XREAD','COUNT','x','BLOCK','x','STREAMS','s','0')", "0"}),
      error("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u);
}

}  // namespace
}  // namespace listd::server
