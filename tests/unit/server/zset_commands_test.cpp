// Sorted-set commands through the executor: raw reply bytes (checked against redis-server
// 7.0.15), score formatting, ranges, RESP3 shapes, errors, and the blocking pops served through
// the list pops' waiting lists (manual clock, no sleeps; no waiter may outlive a test).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/server/errors.h"
#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

class ZSetCommandsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u) << "a waiter was leaked";
    EXPECT_EQ(t.exec().blocking().waiters().blocking_key_count(), 0u)
        << "a waiting list was leaked";
  }
  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(ZSetCommandsTest, ScoresAreFormattedAsRedis70) {
  EXPECT_EQ(t.run(c, {"ZADD", "z", "1.1", "a", "3", "b", "1e20", "c", "1e-5", "d"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"ZSCORE", "z", "a"}), bulk("1.1000000000000001"));
  EXPECT_EQ(
      t.run(c, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}),
      array({"d", "1.0000000000000001e-05", "a", "1.1000000000000001", "b", "3", "c", "1e+20"}));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "-0", "neg"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZSCORE", "z", "neg"}), bulk("0"));  // a listpack turns -0 into 0
  EXPECT_EQ(t.run(c, {"ZADD", "z", "inf", "top"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZSCORE", "z", "top"}), bulk("inf"));
  EXPECT_EQ(t.run(c, {"ZINCRBY", "z", "-inf", "top"}),
            error("ERR resulting score is not a number (NaN)"));
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"ZSCORE", "z", "a"}), ",1.1000000000000001\r\n");
  EXPECT_EQ(t.run(c, {"ZSCORE", "z", "zz"}), "_\r\n");
  EXPECT_EQ(t.run(c, {"ZMSCORE", "z", "b", "zz"}), "*2\r\n,3\r\n_\r\n");
  EXPECT_EQ(
      t.run(c, {"ZRANGE", "z", "0", "1", "WITHSCORES"}),
      "*2\r\n*2\r\n" + bulk("neg") + ",0\r\n*2\r\n" + bulk("d") + ",1.0000000000000001e-05\r\n");
  EXPECT_EQ(t.run(c, {"ZSCAN", "z", "0", "MATCH", "b"}), "*2\r\n$1\r\n0\r\n" + array({"b", "3"}));
}

TEST_F(ZSetCommandsTest, ZaddOptionsFollowRedis) {
  EXPECT_EQ(t.run(c, {"ZADD", "z", "1", "a", "2", "b"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "z", "NX", "XX", "1", "a"}),
            error("ERR XX and NX options at the same time are not compatible"));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "GT", "LT", "1", "a"}),
            error("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "INCR", "1", "a", "2", "b"}),
            error("ERR INCR option supports a single increment-element pair"));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "1", "a", "2"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "nan", "a"}), error("ERR value is not a valid float"));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "CH", "10", "a", "2", "b", "11", "new"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "z", "XX", "CH", "0", "a", "0", "nope"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "z", "GT", "CH", "5", "a", "50", "b"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "z", "LT", "CH", "1", "a", "100", "b"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "z", "INCR", "5", "a"}), bulk("6"));
  EXPECT_EQ(t.run(c, {"ZADD", "z", "NX", "INCR", "5", "a"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "nokey", "XX", "1", "a"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "nokey"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"ZINCRBY", "z", "2.5", "a"}), bulk("8.5"));
  EXPECT_EQ(t.run(c, {"ZINCRBY", "z", "NX", "m"}),
            error(listd::server::kSyntaxErr));  // NX is an option here
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}),
            array({"a", "8.5", "new", "11", "b", "50"}));
}

TEST_F(ZSetCommandsTest, RanksCountsAndRanges) {
  t.run(c, {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"});
  EXPECT_EQ(t.run(c, {"ZRANK", "z", "c"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZREVRANK", "z", "c"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZRANK", "z", "zz"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"ZCOUNT", "z", "(1", "3"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZCOUNT", "z", "-inf", "+inf"}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"ZCOUNT", "z", "x", "1"}), error("ERR min or max is not a float"));
  EXPECT_EQ(t.run(c, {"ZCOUNT", "z", " 1", "2"}), ":2\r\n");  // strtod skips leading space
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "(1", "4", "BYSCORE", "LIMIT", "1", "2"}), array({"c", "d"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "4", "(1", "BYSCORE", "REV", "WITHSCORES"}),
            array({"d", "4", "c", "3", "b", "2"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "1", "4", "BYSCORE", "LIMIT", "-1", "2"}), "*0\r\n");
  EXPECT_EQ(
      t.run(c, {"ZRANGE", "z", "0", "1", "LIMIT", "0", "1"}),
      error(
          "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "[a", "[b", "BYLEX", "WITHSCORES"}),
            error("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "0", "1", "FOO"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"ZRANGEBYSCORE", "z", "1", "3", "REV"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "2"}),
            array({"d", "c"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "-100", "100"}), array({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "0", "-1", "REV"}), array({"e", "d", "c", "b", "a"}));
  EXPECT_EQ(t.run(c, {"ZREVRANGE", "z", "0", "1", "WITHSCORES"}), array({"e", "5", "d", "4"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "nokey", "0", "-1"}), "*0\r\n");
}

TEST_F(ZSetCommandsTest, LexRanges) {
  t.run(c, {"ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d"});
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "[b", "(d", "BYLEX"}), array({"b", "c"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "1", "2"}),
            array({"c", "b"}));
  EXPECT_EQ(t.run(c, {"ZRANGEBYLEX", "z", "-", "[b"}), array({"a", "b"}));
  EXPECT_EQ(t.run(c, {"ZRANGEBYLEX", "z", "b", "+"}),
            error("ERR min or max not valid string range item"));
  EXPECT_EQ(t.run(c, {"ZLEXCOUNT", "z", "(a", "+"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"ZREMRANGEBYLEX", "z", "[c", "+"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZRANGE", "z", "0", "-1"}), array({"a", "b"}));
}

TEST_F(ZSetCommandsTest, RemovalsDeleteEmptiedKeys) {
  t.run(c, {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"});
  EXPECT_EQ(t.run(c, {"ZREMRANGEBYRANK", "z", "x", "1"}), error(listd::server::kNotIntegerErr));
  EXPECT_EQ(t.run(c, {"ZREMRANGEBYRANK", "z", "-1", "-1"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZREMRANGEBYSCORE", "z", "(1", "+inf"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZREM", "z", "zz", "a"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "z"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"ZREMRANGEBYSCORE", "nokey", "x", "1"}),
            error("ERR min or max is not a float"));
}

TEST_F(ZSetCommandsTest, PopsAndMpopShapes) {
  t.run(c, {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"});
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "z"}), array({"a", "1"}));
  EXPECT_EQ(t.run(c, {"ZPOPMAX", "z", "2"}), array({"d", "4", "c", "3"}));
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "z", "0"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "z", "-1"}), error("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "nokey"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "z", "5"}), array({"b", "2"}));
  EXPECT_EQ(t.run(c, {"EXISTS", "z"}), ":0\r\n");
  t.run(c, {"ZADD", "p", "1", "a", "2", "b", "3", "c"});
  EXPECT_EQ(t.run(c, {"ZMPOP", "0", "p", "MIN"}), error("ERR numkeys should be greater than 0"));
  EXPECT_EQ(t.run(c, {"ZMPOP", "1", "p", "MID"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"ZMPOP", "5", "p", "MIN"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"ZMPOP", "1", "p", "MIN", "COUNT", "0"}),
            error("ERR count should be greater than 0"));
  EXPECT_EQ(t.run(c, {"ZMPOP", "2", "nokey", "p", "MAX", "COUNT", "2"}),
            "*2\r\n" + bulk("p") + "*2\r\n" + array({"c", "3"}) + array({"b", "2"}));
  EXPECT_EQ(t.run(c, {"ZMPOP", "1", "nokey", "MIN"}), "*-1\r\n");
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "p", "1"}), "*1\r\n*2\r\n" + bulk("a") + ",1\r\n");
  EXPECT_EQ(t.run(c, {"ZMPOP", "1", "nokey", "MIN"}), "_\r\n");
}

TEST_F(ZSetCommandsTest, WrongTypeEverywhere) {
  t.run(c, {"SET", "str", "v"});
  const std::string wt = error(listd::server::kWrongTypeErr);
  for (auto argv : std::initializer_list<std::initializer_list<std::string_view>>{
           {"ZADD", "str", "1", "a"},
           {"ZSCORE", "str", "a"},
           {"ZRANGE", "str", "0", "1"},
           {"ZCOUNT", "str", "0", "1"},
           {"ZPOPMIN", "str"},
           {"ZMPOP", "2", "nokey", "str", "MIN"},
           {"ZREM", "str", "a"},
           {"ZCARD", "str"},
           {"ZRANK", "str", "a"},
           {"ZSCAN", "str", "0"},
           {"BZPOPMIN", "nokey", "str", "1"},
           {"ZINCRBY", "str", "1", "a"}})
    EXPECT_EQ(t.run(c, argv), wt) << *argv.begin();
  // Arguments are checked before the type.
  EXPECT_EQ(t.run(c, {"ZRANGE", "str", "0", "1", "FOO"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"ZADD", "str", "x", "a"}), error("ERR value is not a valid float"));
  EXPECT_EQ(t.run(c, {"TYPE", "nokey"}), "+none\r\n");
  t.run(c, {"ZADD", "z", "1", "a"});
  EXPECT_EQ(t.run(c, {"TYPE", "z"}), "+zset\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "z"}), bulk("listpack"));
}

TEST_F(ZSetCommandsTest, ANewSetStartsAsAListpackHoweverManyMembersTheZaddHas) {
  // Redis 7.0 ZADD creates a listpack unless the first member is longer than 64 bytes, and the
  // listpack stores -0 as the integer 0: the sign is gone after the conversion too.
  std::vector<std::string> argv{"ZADD", "big", "-0", "m0"};
  for (int i = 1; i <= 130; ++i) {
    argv.push_back(std::to_string(i));
    argv.push_back("m" + std::to_string(i));
  }
  EXPECT_EQ(t.run_strings(c, argv), ":131\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "big"}), bulk("skiplist"));
  EXPECT_EQ(t.run(c, {"ZSCORE", "big", "m0"}), bulk("0"));
  const std::string long_member(65, 'x');
  EXPECT_EQ(t.run_strings(c, {"ZADD", "long", "-0", long_member}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "long"}), bulk("skiplist"));
  EXPECT_EQ(t.run_strings(c, {"ZSCORE", "long", long_member}), bulk("-0"));
}

TEST_F(ZSetCommandsTest, LargeSetsUseTheSkipList) {
  std::vector<std::string> argv{"ZADD", "big"};
  for (int i = 0; i < 1000; ++i) {
    argv.push_back(std::to_string(i % 100));
    argv.push_back("m" + std::to_string(i));
  }
  EXPECT_EQ(t.run_strings(c, argv), ":1000\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "big"}), bulk("skiplist"));
  EXPECT_EQ(t.run(c, {"ZCOUNT", "big", "10", "(20"}), ":100\r\n");
  EXPECT_EQ(t.run(c, {"ZRANGEBYSCORE", "big", "99", "+inf", "LIMIT", "0", "2"}),
            array({"m199", "m299"}));
  // LIMIT offsets jump by rank (values from redis-server 7.0.15 on the same set).
  EXPECT_EQ(t.run(c, {"ZRANGEBYSCORE", "big", "-inf", "+inf", "LIMIT", "500", "2", "WITHSCORES"}),
            array({"m150", "50", "m250", "50"}));
  EXPECT_EQ(t.run(c, {"ZREVRANGEBYSCORE", "big", "+inf", "-inf", "LIMIT", "10", "1"}),
            array({"m998"}));
  EXPECT_EQ(t.run(c, {"ZREVRANGEBYSCORE", "big", "50", "(10", "LIMIT", "395", "10"}),
            array({"m411", "m311", "m211", "m111", "m11"}));
  EXPECT_EQ(t.run(c, {"ZRANK", "big", "m1"}), ":10\r\n");  // after m0, m100, ..., m900
  EXPECT_EQ(t.run(c, {"ZPOPMIN", "big"}), array({"m0", "0"}));
  EXPECT_EQ(t.run(c, {"ZREMRANGEBYRANK", "big", "0", "98"}), ":99\r\n");
  EXPECT_EQ(t.run(c, {"ZCARD", "big"}), ":900\r\n");
  EXPECT_EQ(t.run(c, {"COPY", "big", "big2"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZRANGE", "big2", "0", "0", "WITHSCORES"}),
            array({"m10", "10"}));  // scores 0..9 are gone
}

// ---- blocking ----------------------------------------------------------------------------

TEST_F(ZSetCommandsTest, BzpopminIsServedByALaterZadd) {
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "q1", "q2", "0"}), "");
  EXPECT_TRUE(w.blocked());
  EXPECT_EQ(t.run(c, {"ZADD", "q2", "5", "x", "7", "y"}), ":2\r\n");
  EXPECT_FALSE(w.blocked());
  EXPECT_EQ(t.take_output(w), array({"q2", "x", "5"}));
  EXPECT_EQ(t.run(c, {"ZRANGE", "q2", "0", "-1"}), array({"y"}));
}

TEST_F(ZSetCommandsTest, BzmpopPopsUpToCountAndDeletesTheKey) {
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BZMPOP", "0", "1", "q", "MAX", "COUNT", "5"}), "");
  EXPECT_EQ(t.run(c, {"ZADD", "q", "1", "a", "2", "b"}), ":2\r\n");
  EXPECT_EQ(t.take_output(w),
            "*2\r\n" + bulk("q") + "*2\r\n" + array({"b", "2"}) + array({"a", "1"}));
  EXPECT_EQ(t.run(c, {"EXISTS", "q"}), ":0\r\n");
}

TEST_F(ZSetCommandsTest, WaitersAreServedOldestFirstOneEach) {
  auto& w1 = t.client();
  auto& w2 = t.client();
  auto& w3 = t.client();
  EXPECT_EQ(t.run(w1, {"BZPOPMIN", "q", "0"}), "");
  EXPECT_EQ(t.run(w2, {"BZPOPMAX", "q", "0"}), "");
  EXPECT_EQ(t.run(w3, {"BZPOPMIN", "q", "0"}), "");
  EXPECT_EQ(t.run(c, {"ZADD", "q", "1", "a", "2", "b"}), ":2\r\n");
  EXPECT_EQ(t.take_output(w1), array({"q", "a", "1"}));
  EXPECT_EQ(t.take_output(w2), array({"q", "b", "2"}));
  EXPECT_TRUE(w3.blocked());
  EXPECT_EQ(t.run(c, {"ZADD", "q", "3", "c"}), ":1\r\n");
  EXPECT_EQ(t.take_output(w3), array({"q", "c", "3"}));
}

TEST_F(ZSetCommandsTest, TimeoutRepliesNullArrayOnTheManualClock) {
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "q", "1.5"}), "");
  t.advance_ms(1000);
  EXPECT_TRUE(w.blocked());
  t.advance_ms(600);
  EXPECT_FALSE(w.blocked());
  EXPECT_EQ(t.take_output(w), "*-1\r\n");
  ASSERT_EQ(t.run(w, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(w, {"BZMPOP", "0.01", "1", "q", "MIN"}), "");
  t.advance_ms(20);
  EXPECT_EQ(t.take_output(w), "_\r\n");
}

TEST_F(ZSetCommandsTest, ArgumentErrorsComeBeforeBlocking) {
  EXPECT_EQ(t.run(c, {"BZPOPMIN", "q", "-1"}), error("ERR timeout is negative"));
  EXPECT_EQ(t.run(c, {"BZPOPMIN", "q", "x"}), error("ERR timeout is not a float or out of range"));
  EXPECT_EQ(t.run(c, {"BZMPOP", "x", "0", "q", "MIN"}),
            error("ERR numkeys should be greater than 0"));
  EXPECT_EQ(t.run(c, {"BZMPOP", "x", "1", "q", "MIN", "COUNT", "0"}),
            error("ERR count should be greater than 0"));
  EXPECT_EQ(t.run(c, {"BZMPOP", "x", "1", "q", "MIN"}),
            error("ERR timeout is not a float or out of range"));
  EXPECT_FALSE(c.blocked());
}

TEST_F(ZSetCommandsTest, InsideMultiBlockingPopsAnswerNullAndZaddWakesAfterExec) {
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"BZPOPMIN", "q", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BZMPOP", "0", "1", "q", "MIN"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*2\r\n*-1\r\n*-1\r\n");
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "q", "0"}), "");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "q", "1", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "q", "2", "b"}), "+QUEUED\r\n");
  EXPECT_TRUE(w.blocked());
  EXPECT_EQ(t.run(c, {"EXEC"}), "*2\r\n:1\r\n:1\r\n");
  EXPECT_EQ(t.take_output(w), array({"q", "a", "1"}));
}

TEST_F(ZSetCommandsTest, AZsetWaiterIgnoresAListCreatedOnItsKey) {
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "k", "1"}), "");
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "x"}), ":1\r\n");
  EXPECT_TRUE(w.blocked());
  EXPECT_EQ(t.run(c, {"DEL", "k"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "k", "1", "m"}), ":1\r\n");
  EXPECT_EQ(t.take_output(w), array({"k", "m", "1"}));
}

TEST_F(ZSetCommandsTest, DisconnectWhileBlockedLosesNothing) {
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "q", "0"}), "");
  t.disconnect(w);
  EXPECT_EQ(t.run(c, {"ZADD", "q", "1", "a"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZCARD", "q"}), ":1\r\n");
}

TEST_F(ZSetCommandsTest, BlockingPopsInvalidateWatchers) {
  auto& w = t.client();
  auto& watcher = t.client();
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "q", "0"}), "");
  EXPECT_EQ(t.run(c, {"ZADD", "q", "1", "a", "2", "b"}), ":2\r\n");
  EXPECT_EQ(t.take_output(w), array({"q", "a", "1"}));
  EXPECT_EQ(t.run(watcher, {"WATCH", "q"}), "+OK\r\n");
  EXPECT_EQ(t.run(w, {"BZPOPMIN", "q", "0"}), array({"q", "b", "2"}));
  EXPECT_EQ(t.run(watcher, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(watcher, {"ZCARD", "q"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(watcher, {"EXEC"}), "*-1\r\n");
}

TEST(ZsetCommands, ZintercardTakesSortedSetsAndSets) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"ZADD", "z1", "1", "a", "2", "b", "3", "c", "4", "d"});
  t.run(c, {"ZADD", "z2", "1", "b", "2", "c", "3", "e"});
  t.run(c, {"SADD", "s", "c", "d", "e", "b"});
  t.run(c, {"RPUSH", "l", "x"});
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "2", "z1", "z2"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "3", "z1", "z2", "s"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "2", "z1", "s", "LIMIT", "1"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "2", "z1", "z1"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "2", "z1", "nokey"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "1", "z1", "limit", "-1"}), "-ERR LIMIT can't be negative\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "0", "z1"}),
            "-ERR at least 1 input key is needed for 'zintercard' command\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "3", "z1", "z2"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "1", "z1", "WEIGHTS", "1"}), "-ERR syntax error\r\n");
  // the keys are read before the options
  EXPECT_EQ(t.run(c, {"ZINTERCARD", "2", "z1", "l", "LIMIT", "-1"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
}

}  // namespace
