// The non-blocking list commands through the executor: reply bytes as Redis 7.0.15 sends them
// (captured from a real redis-server), in RESP2 and RESP3, errors in Redis' order, empty-list
// deletion, WATCH invalidation and the dirty counter.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "support/resp.h"
#include "support/test_server.h"

namespace {

using listd::testing::TestServer;
using namespace listd::testing::resp;
using listd::server::Client;

const std::string kWrongType = error(listd::server::kWrongTypeErr);
const std::string kNotInt = error(listd::server::kNotIntegerErr);
const std::string kSyntax = error(listd::server::kSyntaxErr);
const std::string kMustBePositive = error("ERR value is out of range, must be positive");
const std::string kRankZero = error(
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list");

class ListCommandsTest : public ::testing::Test {
 protected:
  bool exists(std::string_view key) { return t.exec().keyspace().db(0).peek(key) != nullptr; }
  void add_string(std::string_view key) {
    t.exec().keyspace().db(0).add(key, listd::store::Value::make_string("v"));
  }
  std::string range(std::string_view key) { return t.run(c, {"LRANGE", key, "0", "-1"}); }
  long long dirty() { return t.exec().stats().dirty; }

  TestServer t;
  Client& c = t.client();
};

// ---- push ------------------------------------------------------------------------------

TEST_F(ListCommandsTest, PushesReturnTheLengthAndKeepArgumentOrder) {
  EXPECT_EQ(t.run(c, {"LPUSH", "k", "a", "b", "c"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "d", "e"}), ":5\r\n");
  EXPECT_EQ(range("k"), array({"c", "b", "a", "d", "e"}));
  EXPECT_EQ(t.run(c, {"lpush", "k", "z"}), ":6\r\n");
}

TEST_F(ListCommandsTest, PushxOnlyPushesOntoAnExistingList) {
  EXPECT_EQ(t.run(c, {"LPUSHX", "k", "a"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"RPUSHX", "k", "a", "b"}), ":0\r\n");
  EXPECT_FALSE(exists("k"));
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "m"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"LPUSHX", "k", "p", "q"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"RPUSHX", "k", "r", "s"}), ":5\r\n");
  EXPECT_EQ(range("k"), array({"q", "p", "m", "r", "s"}));
}

TEST_F(ListCommandsTest, ArityErrorsUseTheLowerCaseName) {
  EXPECT_EQ(t.run(c, {"LPUSH", "k"}), error("ERR wrong number of arguments for 'lpush' command"));
  EXPECT_EQ(t.run(c, {"Lpop", "k", "1", "2"}),
            error("ERR wrong number of arguments for 'lpop' command"));
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k"}),
            error("ERR wrong number of arguments for 'lmpop' command"));
  EXPECT_EQ(t.run(c, {"LPOS", "k"}), error("ERR wrong number of arguments for 'lpos' command"));
  EXPECT_EQ(t.run(c, {"LINSERT", "k", "BEFORE", "a"}),
            error("ERR wrong number of arguments for 'linsert' command"));
}

// ---- pop -------------------------------------------------------------------------------

TEST_F(ListCommandsTest, PopTakesFromEitherEnd) {
  t.run(c, {"RPUSH", "k", "a", "b", "c", "d"});
  EXPECT_EQ(t.run(c, {"LPOP", "k"}), bulk("a"));
  EXPECT_EQ(t.run(c, {"RPOP", "k"}), bulk("d"));
  EXPECT_EQ(range("k"), array({"b", "c"}));
}

TEST_F(ListCommandsTest, PopWithCountRepliesAnArrayInPopOrder) {
  t.run(c, {"RPUSH", "k", "a", "b", "c", "d", "e"});
  EXPECT_EQ(t.run(c, {"LPOP", "k", "2"}), array({"a", "b"}));
  EXPECT_EQ(t.run(c, {"RPOP", "k", "2"}), array({"e", "d"}));
  EXPECT_EQ(t.run(c, {"LPOP", "k", "1"}), array({"c"}));
  EXPECT_FALSE(exists("k"));
  t.run(c, {"RPUSH", "k", "a", "b", "c"});
  EXPECT_EQ(t.run(c, {"RPOP", "k", "9223372036854775807"}), array({"c", "b", "a"}));
  EXPECT_FALSE(exists("k"));
}

TEST_F(ListCommandsTest, PopCountZeroAndMissingKeys) {
  t.run(c, {"RPUSH", "k", "a"});
  EXPECT_EQ(t.run(c, {"LPOP", "k", "0"}), kEmptyArray);
  EXPECT_TRUE(exists("k"));
  EXPECT_EQ(t.run(c, {"LPOP", "nokey"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOP", "nokey", "0"}), kNullArray);
  EXPECT_EQ(t.run(c, {"RPOP", "nokey", "2"}), kNullArray);
}

TEST_F(ListCommandsTest, PopCountIsParsedBeforeTheKey) {
  add_string("s");
  t.run(c, {"RPUSH", "k", "a"});
  for (const char* bad : {"-1", "x", "", "1.5", "+1", "01", " 1", "99999999999999999999"}) {
    EXPECT_EQ(t.run(c, {"LPOP", "nokey", bad}), kMustBePositive) << bad;
    EXPECT_EQ(t.run(c, {"RPOP", "s", bad}), kMustBePositive) << bad;
    EXPECT_EQ(t.run(c, {"LPOP", "k", bad}), kMustBePositive) << bad;
  }
  EXPECT_EQ(t.run(c, {"LPOP", "s"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LPOP", "s", "0"}), kWrongType);
  EXPECT_EQ(range("k"), array({"a"}));
}

TEST_F(ListCommandsTest, PopRepliesInResp3) {
  t.run(c, {"HELLO", "3"});
  t.run(c, {"RPUSH", "k", "a", "b"});
  EXPECT_EQ(t.run(c, {"LPOP", "nokey"}), kResp3Null);
  EXPECT_EQ(t.run(c, {"LPOP", "nokey", "2"}), kResp3Null);
  EXPECT_EQ(t.run(c, {"LPOP", "k", "0"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"RPOP", "k", "5"}), array({"b", "a"}));
}

// ---- reads -----------------------------------------------------------------------------

TEST_F(ListCommandsTest, LlenCountsAndMissingIsZero) {
  EXPECT_EQ(t.run(c, {"LLEN", "k"}), ":0\r\n");
  t.run(c, {"RPUSH", "k", "a", "b"});
  EXPECT_EQ(t.run(c, {"LLEN", "k"}), ":2\r\n");
}

TEST_F(ListCommandsTest, LrangeClampsAndAcceptsNegativeIndexes) {
  t.run(c, {"RPUSH", "k", "a", "b", "c", "d", "e"});
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "-100", "100"}), array({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "-2", "-1"}), array({"d", "e"}));
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "1", "-3"}), array({"b", "c"}));
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "4", "4"}), array({"e"}));
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "2", "1"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "-1", "-2"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "5", "10"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "0", "-6"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "-9223372036854775808", "9223372036854775807"}),
            array({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(t.run(c, {"LRANGE", "nokey", "0", "-1"}), kEmptyArray);
}

TEST_F(ListCommandsTest, LrangeParsesIndexesBeforeTheLookup) {
  add_string("s");
  EXPECT_EQ(t.run(c, {"LRANGE", "nokey", "x", "1"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LRANGE", "nokey", "0", "x"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LRANGE", "s", "-0", "1"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LRANGE", "s", "0", "1"}), kWrongType);
}

TEST_F(ListCommandsTest, LindexLooksUpTheKeyBeforeParsingTheIndex) {
  add_string("s");
  t.run(c, {"RPUSH", "k", "a", "b", "c"});
  EXPECT_EQ(t.run(c, {"LINDEX", "nokey", "x"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LINDEX", "s", "x"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "x"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-0"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "+1"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "01"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "0"}), bulk("a"));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-1"}), bulk("c"));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-3"}), bulk("a"));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "3"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-4"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "9223372036854775807"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-9223372036854775808"}), kNullBulk);
  t.run(c, {"HELLO", "3"});
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "5"}), kResp3Null);
  EXPECT_EQ(t.run(c, {"LINDEX", "nokey", "0"}), kResp3Null);
}

// ---- in-place writes -------------------------------------------------------------------

TEST_F(ListCommandsTest, LsetReplacesByIndexWithRedisErrors) {
  add_string("s");
  t.run(c, {"RPUSH", "k", "a", "b", "c"});
  EXPECT_EQ(t.run(c, {"LSET", "nokey", "x", "v"}), error("ERR no such key"));
  EXPECT_EQ(t.run(c, {"LSET", "s", "x", "v"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LSET", "k", "x", "v"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LSET", "k", "3", "v"}), error("ERR index out of range"));
  EXPECT_EQ(t.run(c, {"LSET", "k", "-4", "v"}), error("ERR index out of range"));
  EXPECT_EQ(t.run(c, {"LSET", "k", "-9223372036854775808", "v"}), error("ERR index out of range"));
  EXPECT_EQ(t.run(c, {"LSET", "k", "-1", "Z"}), kOk);
  EXPECT_EQ(t.run(c, {"LSET", "k", "0", "a-much-longer-element-than-before"}), kOk);
  EXPECT_EQ(range("k"), array({"a-much-longer-element-than-before", "b", "Z"}));
}

TEST_F(ListCommandsTest, LinsertBeforeAfterPivot) {
  add_string("s");
  EXPECT_EQ(t.run(c, {"LINSERT", "nokey", "MIDDLE", "a", "b"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LINSERT", "s", "middle", "a", "b"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LINSERT", "s", "before", "a", "b"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LINSERT", "nokey", "before", "a", "b"}), ":0\r\n");
  EXPECT_FALSE(exists("nokey"));
  t.run(c, {"RPUSH", "k", "a", "x", "a"});
  EXPECT_EQ(t.run(c, {"LINSERT", "k", "After", "a", "1"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"LINSERT", "k", "bEfOrE", "a", "0"}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"LINSERT", "k", "before", "zz", "w"}), ":-1\r\n");
  EXPECT_EQ(range("k"), array({"0", "a", "1", "x", "a"}));
}

TEST_F(ListCommandsTest, LremByDirectionAndCount) {
  t.run(c, {"RPUSH", "k", "1", "2", "1", "3", "1", "4"});
  EXPECT_EQ(t.run(c, {"LREM", "k", "0", "1"}), ":3\r\n");
  EXPECT_EQ(range("k"), array({"2", "3", "4"}));
  t.run(c, {"RPUSH", "k", "3", "3", "3"});
  EXPECT_EQ(t.run(c, {"LREM", "k", "-2", "3"}), ":2\r\n");
  EXPECT_EQ(range("k"), array({"2", "3", "4", "3"}));
  EXPECT_EQ(t.run(c, {"LREM", "k", "1", "3"}), ":1\r\n");
  EXPECT_EQ(range("k"), array({"2", "4", "3"}));
  EXPECT_EQ(t.run(c, {"LREM", "k", "9223372036854775807", "zz"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"LREM", "k", "-9223372036854775808", "2"}), ":1\r\n");
}

TEST_F(ListCommandsTest, LremParsesCountBeforeTheLookupAndDeletesEmptiedList) {
  add_string("s");
  EXPECT_EQ(t.run(c, {"LREM", "nokey", "x", "a"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LREM", "nokey", "0", "a"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"LREM", "s", "0", "a"}), kWrongType);
  t.run(c, {"RPUSH", "k", "a", "a"});
  EXPECT_EQ(t.run(c, {"LREM", "k", "0", "a"}), ":2\r\n");
  EXPECT_FALSE(exists("k"));
}

TEST_F(ListCommandsTest, LtrimKeepsTheRangeAndDeletesWhenEmpty) {
  add_string("s");
  EXPECT_EQ(t.run(c, {"LTRIM", "nokey", "x", "1"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LTRIM", "nokey", "0", "1"}), kOk);
  EXPECT_EQ(t.run(c, {"LTRIM", "s", "0", "1"}), kWrongType);
  t.run(c, {"RPUSH", "k", "a", "b", "c", "d", "e"});
  EXPECT_EQ(t.run(c, {"LTRIM", "k", "1", "-2"}), kOk);
  EXPECT_EQ(range("k"), array({"b", "c", "d"}));
  EXPECT_EQ(t.run(c, {"LTRIM", "k", "-9223372036854775808", "9223372036854775807"}), kOk);
  EXPECT_EQ(range("k"), array({"b", "c", "d"}));
  EXPECT_EQ(t.run(c, {"LTRIM", "k", "-1", "100"}), kOk);
  EXPECT_EQ(range("k"), array({"d"}));
  EXPECT_EQ(t.run(c, {"LTRIM", "k", "5", "1"}), kOk);
  EXPECT_FALSE(exists("k"));
  t.run(c, {"RPUSH", "k", "a"});
  EXPECT_EQ(t.run(c, {"LTRIM", "k", "1", "-1"}), kOk);
  EXPECT_FALSE(exists("k"));
}

// ---- LPOS ------------------------------------------------------------------------------

TEST_F(ListCommandsTest, LposFindsByRankCountAndMaxlen) {
  t.run(c, {"RPUSH", "L", "a", "b", "c", "a", "b", "a"});
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "c"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "zz"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "-1"}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "2"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "b", "RANK", "3"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "b", "RANK", "3", "COUNT", "1"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "-2", "COUNT", "0"}), ints({3, 0}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "2", "COUNT", "2"}), ints({3, 5}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "COUNT", "0", "MAXLEN", "4"}), ints({0, 3}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "-1", "MAXLEN", "2"}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "-1", "MAXLEN", "2", "COUNT", "5"}), ints({5}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "MAXLEN", "1", "RANK", "2"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "MAXLEN", "0"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "COUNT", "9223372036854775807"}), ints({0, 3, 5}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "zz", "COUNT", "0"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "9223372036854775807"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "-9223372036854775807"}), kNullBulk);
}

TEST_F(ListCommandsTest, LposLaterOptionsOverrideEarlierOnes) {
  t.run(c, {"RPUSH", "L", "a", "b", "c", "a", "b", "a"});
  EXPECT_EQ(t.run(c, {"lpos", "L", "a", "rank", "1", "count", "1", "rank", "2"}), ints({3}));
  EXPECT_EQ(t.run(c, {"lpos", "L", "a", "count", "1", "count", "0"}), ints({0, 3, 5}));
}

// Redis 7.0.15 negates RANK in a C long: LLONG_MIN stays negative and then matches from the
// tail like RANK -1, never stopping at COUNT (captured from redis-server 7.0.15).
TEST_F(ListCommandsTest, LposRankLlongMinBehavesAsRedis7015) {
  t.run(c, {"RPUSH", "L", "a", "b", "c", "a", "b", "a"});
  const std::string_view min = "-9223372036854775808";
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", min}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", min, "COUNT", "0"}), ints({5, 3, 0}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", min, "COUNT", "1"}), ints({5, 3, 0}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", min, "COUNT", "2", "MAXLEN", "3"}), ints({5, 3}));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", min, "MAXLEN", "3"}), ":5\r\n");
}

TEST_F(ListCommandsTest, LposOptionErrorsComeBeforeTheLookup) {
  add_string("s");
  t.run(c, {"RPUSH", "L", "a"});
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "0"}), kRankZero);
  EXPECT_EQ(t.run(c, {"LPOS", "nokey", "a", "RANK", "0"}), kRankZero);
  EXPECT_EQ(t.run(c, {"LPOS", "s", "a", "RANK", "0"}), kRankZero);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK", "x"}), kNotInt);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "COUNT", "-1"}), error("ERR COUNT can't be negative"));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "COUNT", "x"}), error("ERR COUNT can't be negative"));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "MAXLEN", "-1"}), error("ERR MAXLEN can't be negative"));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "MAXLEN", "x"}), error("ERR MAXLEN can't be negative"));
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "FOO", "1"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "a", "RANK"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LPOS", "s", "a"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LPOS", "s", "a", "COUNT", "1"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LPOS", "nokey", "a"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOS", "nokey", "a", "COUNT", "0"}), kEmptyArray);
  t.run(c, {"HELLO", "3"});
  EXPECT_EQ(t.run(c, {"LPOS", "nokey", "a"}), kResp3Null);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "zz"}), kResp3Null);
  EXPECT_EQ(t.run(c, {"LPOS", "L", "zz", "COUNT", "0"}), kEmptyArray);
}

// ---- LMOVE / RPOPLPUSH -----------------------------------------------------------------

TEST_F(ListCommandsTest, LmoveMovesBetweenListsAndDeletesTheEmptiedSource) {
  t.run(c, {"RPUSH", "src", "a", "b"});
  EXPECT_EQ(t.run(c, {"LMOVE", "src", "dst", "LeFt", "RiGhT"}), bulk("a"));
  EXPECT_EQ(t.run(c, {"LMOVE", "src", "dst", "right", "left"}), bulk("b"));
  EXPECT_FALSE(exists("src"));
  EXPECT_EQ(range("dst"), array({"b", "a"}));
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "dst", "other"}), bulk("a"));
  EXPECT_EQ(range("other"), array({"a"}));
  EXPECT_EQ(range("dst"), array({"b"}));
}

TEST_F(ListCommandsTest, LmoveOntoItselfRotates) {
  t.run(c, {"RPUSH", "L", "a", "b", "c"});
  EXPECT_EQ(t.run(c, {"LMOVE", "L", "L", "left", "right"}), bulk("a"));
  EXPECT_EQ(range("L"), array({"b", "c", "a"}));
  EXPECT_EQ(t.run(c, {"LMOVE", "L", "L", "RIGHT", "left"}), bulk("a"));
  EXPECT_EQ(range("L"), array({"a", "b", "c"}));
  EXPECT_EQ(t.run(c, {"LMOVE", "L", "L", "left", "left"}), bulk("a"));
  EXPECT_EQ(range("L"), array({"a", "b", "c"}));
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "L", "L"}), bulk("c"));
  EXPECT_EQ(range("L"), array({"c", "a", "b"}));
}

TEST_F(ListCommandsTest, LmoveOfASingleElementOntoItselfKeepsTheKeyAndItsTtl) {
  t.run(c, {"RPUSH", "one", "x"});
  EXPECT_EQ(t.run(c, {"PEXPIRE", "one", "100000"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"LMOVE", "one", "one", "left", "right"}), bulk("x"));
  EXPECT_EQ(t.run(c, {"PTTL", "one"}), ":100000\r\n");
  EXPECT_EQ(range("one"), array({"x"}));
}

TEST_F(ListCommandsTest, LmoveChecksDirectionsThenSourceThenDestination) {
  add_string("s");
  t.run(c, {"RPUSH", "L", "a", "b", "c"});
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "d", "UP", "RIGHT"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMOVE", "nokey", "d", "left", "UP"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMOVE", "nokey", "s", "LEFT", "RIGHT"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "L", "LEFT", "RIGHT"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "nokey", "LEFT", "RIGHT"}), kWrongType);
  // A wrong-typed destination: nothing is popped.
  EXPECT_EQ(t.run(c, {"LMOVE", "L", "s", "LEFT", "RIGHT"}), kWrongType);
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "L", "s"}), kWrongType);
  EXPECT_EQ(range("L"), array({"a", "b", "c"}));
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "nokey", "s"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "s", "L"}), kWrongType);
  t.run(c, {"HELLO", "3"});
  EXPECT_EQ(t.run(c, {"LMOVE", "nokey", "d", "left", "right"}), kResp3Null);
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "nokey", "d"}), kResp3Null);
}

// ---- LMPOP -----------------------------------------------------------------------------

TEST_F(ListCommandsTest, LmpopPopsFromTheFirstNonEmptyKey) {
  t.run(c, {"RPUSH", "L", "a", "b", "c", "d"});
  EXPECT_EQ(t.run(c, {"LMPOP", "2", "nokey", "L", "right", "count", "2"}),
            "*2\r\n" + bulk("L") + array({"d", "c"}));
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "L", "LEFT"}), "*2\r\n" + bulk("L") + array({"a"}));
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "L", "LEFT", "COUNT", "100"}),
            "*2\r\n" + bulk("L") + array({"b"}));
  EXPECT_FALSE(exists("L"));
  EXPECT_EQ(t.run(c, {"LMPOP", "2", "L", "M", "left"}), kNullArray);
  t.run(c, {"HELLO", "3"});
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "L", "left"}), kResp3Null);
}

TEST_F(ListCommandsTest, LmpopArgumentErrorsMatchRedis) {
  const std::string numkeys = error("ERR numkeys should be greater than 0");
  const std::string count = error("ERR count should be greater than 0");
  EXPECT_EQ(t.run(c, {"LMPOP", "0", "k", "LEFT"}), numkeys);
  EXPECT_EQ(t.run(c, {"LMPOP", "-1", "k", "LEFT"}), numkeys);
  EXPECT_EQ(t.run(c, {"LMPOP", "x", "k", "LEFT"}), numkeys);
  EXPECT_EQ(t.run(c, {"LMPOP", "2", "k", "LEFT"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMPOP", "9223372036854775807", "k", "LEFT"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "MIDDLE"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "LEFT", "COUNT", "0"}), count);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "LEFT", "COUNT", "-1"}), count);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "LEFT", "COUNT", "x"}), count);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "LEFT", "COUNT"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "LEFT", "COUNT", "1", "COUNT", "2"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMPOP", "1", "k", "LEFT", "FOO"}), kSyntax);
}

TEST_F(ListCommandsTest, LmpopStopsAtTheFirstWrongTypeBeforeData) {
  add_string("s");
  t.run(c, {"RPUSH", "L", "x"});
  EXPECT_EQ(t.run(c, {"LMPOP", "2", "s", "L", "LEFT"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LMPOP", "2", "nokey", "s", "LEFT"}), kWrongType);
  EXPECT_EQ(t.run(c, {"LMPOP", "2", "L", "s", "LEFT"}), "*2\r\n" + bulk("L") + array({"x"}));
  EXPECT_FALSE(exists("L"));
}

// ---- every command on a wrong type -----------------------------------------------------

TEST_F(ListCommandsTest, EveryCommandRefusesANonListKey) {
  add_string("s");
  const std::vector<std::vector<std::string_view>> cmds = {
      {"LPUSH", "s", "a"},
      {"RPUSH", "s", "a"},
      {"LPUSHX", "s", "a"},
      {"RPUSHX", "s", "a"},
      {"LPOP", "s"},
      {"RPOP", "s", "2"},
      {"LLEN", "s"},
      {"LRANGE", "s", "0", "-1"},
      {"LINDEX", "s", "0"},
      {"LSET", "s", "0", "a"},
      {"LINSERT", "s", "AFTER", "a", "b"},
      {"LREM", "s", "0", "a"},
      {"LTRIM", "s", "0", "1"},
      {"LPOS", "s", "a"},
      {"RPOPLPUSH", "s", "d"},
      {"LMOVE", "s", "d", "LEFT", "LEFT"},
      {"LMPOP", "1", "s", "LEFT"},
  };
  for (const auto& cmd : cmds) EXPECT_EQ(t.run(c, cmd), kWrongType) << cmd[0];
  EXPECT_EQ(t.exec().keyspace().db(0).peek("s")->value.type(), listd::store::ValueType::kString);
  EXPECT_FALSE(exists("d"));
}

// ---- element bytes ---------------------------------------------------------------------

TEST_F(ListCommandsTest, ElementsAreBinarySafeAndByteIdentical) {
  const std::string zero("a\0b", 3);
  const std::string crlf = "x\r\ny";
  const std::vector<std::string> values = {
      zero, crlf, "", "007", "-0", "+1", "1.50", "9223372036854775808", " 1"};
  for (const auto& v : values) t.run_strings(c, {"RPUSH", "k", v});
  EXPECT_EQ(range("k"), array(values));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "0"}), bulk(zero));
  EXPECT_EQ(t.run_strings(c, {"LPOS", "k", crlf}), ":1\r\n");
  EXPECT_EQ(t.run_strings(c, {"LREM", "k", "0", zero}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"LPOP", "k"}), bulk(crlf));
  EXPECT_EQ(t.run(c, {"LPOP", "k"}), bulk(""));
  EXPECT_EQ(t.run(c, {"LPOP", "k"}), bulk("007"));
}

TEST_F(ListCommandsTest, LongElementsSurviveEveryOperation) {
  const std::string big(100000, 'x');
  const std::string mid(5000, 'y');
  std::string odd(70000, '\0');
  for (std::size_t i = 0; i < odd.size(); ++i) odd[i] = static_cast<char>(i * 31);
  t.run_strings(c, {"RPUSH", "k", "a", big, "b", mid, odd});
  EXPECT_EQ(t.run(c, {"LLEN", "k"}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "1"}), bulk(big));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-1"}), bulk(odd));
  EXPECT_EQ(t.run_strings(c, {"LSET", "k", "0", mid}), kOk);
  EXPECT_EQ(t.run_strings(c, {"LINSERT", "k", "AFTER", big, odd}), ":6\r\n");
  EXPECT_EQ(range("k"), array({mid, big, odd, "b", mid, odd}));
  EXPECT_EQ(t.run_strings(c, {"LPOS", "k", odd, "COUNT", "0"}), ints({2, 5}));
  EXPECT_EQ(t.run_strings(c, {"LREM", "k", "-1", odd}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "k", "k"}), bulk(mid));
  EXPECT_EQ(t.run(c, {"LPOP", "k", "2"}), array({mid, mid}));
  EXPECT_EQ(t.run(c, {"RPOP", "k", "3"}), array({"b", odd, big}));
  EXPECT_FALSE(exists("k"));
}

TEST_F(ListCommandsTest, ManyElementsAcrossBlocks) {
  // 20,000 elements of ~10 bytes span many 8 KB blocks.
  std::vector<std::string> args = {"RPUSH", "k"};
  for (int i = 0; i < 20000; ++i) args.push_back("element" + std::to_string(i));
  EXPECT_EQ(t.run_strings(c, args), ":20000\r\n");
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "12345"}), bulk("element12345"));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-20000"}), bulk("element0"));
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "9998", "10001"}),
            array({"element9998", "element9999", "element10000", "element10001"}));
  EXPECT_EQ(t.run(c, {"LSET", "k", "10000", "X"}), kOk);
  EXPECT_EQ(t.run(c, {"LPOS", "k", "X"}), ":10000\r\n");
  EXPECT_EQ(t.run(c, {"LPOS", "k", "X", "MAXLEN", "10000"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"LPOS", "k", "X", "RANK", "-1", "MAXLEN", "10000"}), ":10000\r\n");
  EXPECT_EQ(t.run(c, {"LINSERT", "k", "BEFORE", "element15000", "Y"}), ":20001\r\n");
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "15000"}), bulk("Y"));
  EXPECT_EQ(t.run(c, {"LREM", "k", "0", "Y"}), ":1\r\n");
  const std::string popped = t.run(c, {"LPOP", "k", "5000"});
  EXPECT_EQ(popped.substr(0, 9), "*5000\r\n$8");
  EXPECT_EQ(t.run(c, {"RPOP", "k", "2"}), array({"element19999", "element19998"}));
  EXPECT_EQ(t.run(c, {"LTRIM", "k", "100", "-101"}), kOk);
  EXPECT_EQ(t.run(c, {"LLEN", "k"}), ":14798\r\n");
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "0"}), bulk("element5100"));
  EXPECT_EQ(t.run(c, {"LINDEX", "k", "-1"}), bulk("element19897"));
  EXPECT_TRUE(t.exec().keyspace().db(0).peek("k")->value.as_list().invariants_hold());
}

// ---- keyspace effects ------------------------------------------------------------------

TEST_F(ListCommandsTest, PushOntoAnExpiredKeyStartsAFreshList) {
  t.run(c, {"RPUSH", "k", "old"});
  EXPECT_EQ(t.run(c, {"PEXPIRE", "k", "100"}), ":1\r\n");
  t.clock().advance_ms(101);  // no tick: the lazy lookup must drop it
  EXPECT_EQ(t.run(c, {"LPUSHX", "k", "x"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "new"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "k"}), ":-1\r\n");
  EXPECT_EQ(range("k"), array({"new"}));
}

TEST_F(ListCommandsTest, EveryRemovingCommandDeletesAnEmptiedList) {
  const std::vector<std::vector<std::string_view>> cmds = {
      {"LPOP", "k"},
      {"RPOP", "k", "5"},
      {"LREM", "k", "0", "a"},
      {"LTRIM", "k", "1", "0"},
      {"LMPOP", "1", "k", "RIGHT"},
      {"LMOVE", "k", "d", "LEFT", "LEFT"},
      {"RPOPLPUSH", "k", "d"},
  };
  for (const auto& cmd : cmds) {
    t.run(c, {"RPUSH", "k", "a"});
    t.run(c, cmd);
    EXPECT_FALSE(exists("k")) << cmd[0];
  }
}

TEST_F(ListCommandsTest, DirtyCountsChangesAsRedisDoes) {
  // Captured from Redis 7.0.15 rdb_changes_since_last_save on ["a","b","a","c","a","d"].
  const std::vector<std::pair<std::vector<std::string_view>, long long>> cases = {
      {{"LPUSH", "L", "x", "y", "z"}, 3},
      {{"RPUSHX", "L", "x", "y"}, 2},
      {{"LPOP", "L", "2"}, 2},
      {{"RPOP", "L"}, 1},
      {{"LTRIM", "L", "1", "-2"}, 2},
      {{"LTRIM", "L", "0", "-1"}, 0},
      {{"LREM", "L", "0", "a"}, 3},
      {{"LMOVE", "L", "D", "left", "left"}, 1},
      {{"LMPOP", "1", "L", "LEFT", "COUNT", "3"}, 3},
      {{"LMPOP", "1", "L", "LEFT", "COUNT", "100"}, 6},
      {{"LSET", "L", "0", "q"}, 1},
      {{"LINSERT", "L", "before", "a", "q"}, 1},
      {{"LINSERT", "L", "before", "zz", "q"}, 0},
      {{"LPOP", "L", "100"}, 6},
      {{"RPOPLPUSH", "L", "L"}, 1},
      {{"LPOP", "L", "0"}, 0},
      {{"LPUSHX", "nokey", "a"}, 0},
      {{"LRANGE", "L", "0", "-1"}, 0},
      {{"LPOS", "L", "a"}, 0},
  };
  for (const auto& [cmd, delta] : cases) {
    t.run(c, {"DEL", "L", "D"});
    t.run(c, {"RPUSH", "L", "a", "b", "a", "c", "a", "d"});
    const long long before = dirty();
    t.run(c, cmd);
    EXPECT_EQ(dirty() - before, delta) << cmd[0] << " " << cmd[1];
  }
}

// WATCH outcome after one command by another client, as Redis 7.0.15 decides it (signalModifiedKey
// is what counts, not the dirty counter: a no-op LTRIM still fails the transaction).
TEST_F(ListCommandsTest, WatchIsInvalidatedByListChangesFromAnotherClient) {
  Client& other = t.client();
  struct Case {
    std::string_view watched;
    std::vector<std::string_view> cmd;
    bool fails;
  };
  const std::vector<Case> cases = {
      {"L", {"LPUSH", "L", "x"}, true},
      {"L", {"RPOP", "L"}, true},
      {"L", {"LTRIM", "L", "0", "-1"}, true},
      {"L", {"LTRIM", "L", "0", "0"}, true},
      {"L", {"LSET", "L", "0", "a"}, true},
      {"L", {"LMOVE", "L", "L", "left", "right"}, true},
      {"D", {"LMOVE", "L", "D", "left", "left"}, true},
      {"L", {"LMOVE", "L", "D", "left", "left"}, true},
      {"L", {"LREM", "L", "0", "zz"}, false},
      {"L", {"LINSERT", "L", "before", "zz", "x"}, false},
      {"L", {"LPOP", "L", "0"}, false},
      {"L", {"LPOS", "L", "a"}, false},
      {"L", {"LRANGE", "L", "0", "-1"}, false},
      {"N", {"LPUSHX", "N", "a"}, false},
      {"N", {"LTRIM", "N", "0", "1"}, false},
      {"N", {"LPOP", "N"}, false},
      {"N", {"LMOVE", "N", "L", "left", "left"}, false},
  };
  for (const auto& cs : cases) {
    t.run(c, {"DEL", "L", "D", "N"});
    t.run(c, {"RPUSH", "L", "a", "b", "c"});
    EXPECT_EQ(t.run(c, {"WATCH", cs.watched}), kOk);
    t.run(other, cs.cmd);
    EXPECT_EQ(t.run(c, {"MULTI"}), kOk);
    EXPECT_EQ(t.run(c, {"LLEN", "L"}), "+QUEUED\r\n");
    const std::string reply = t.run(c, {"EXEC"});
    EXPECT_EQ(reply == kNullArray, cs.fails) << cs.cmd[0] << " " << cs.cmd[1] << ": " << reply;
  }
}

TEST_F(ListCommandsTest, ListCommandsRunInsideMultiExec) {
  EXPECT_EQ(t.run(c, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "a", "b"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"LMOVE", "k", "k", "LEFT", "RIGHT"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"LPOP", "k", "5"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"LPOP", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*4\r\n:2\r\n" + bulk("a") + array({"b", "a"}) + kNullBulk);
}

TEST_F(ListCommandsTest, WriteLookupsDoNotCountKeyspaceHits) {
  t.run(c, {"RPUSH", "k", "a", "b"});
  t.run(c, {"LPUSH", "k", "c"});
  t.run(c, {"LPOP", "nokey"});
  t.run(c, {"LMOVE", "k", "k", "LEFT", "RIGHT"});
  EXPECT_EQ(t.exec().stats().keyspace_hits, 0u);
  EXPECT_EQ(t.exec().stats().keyspace_misses, 0u);
  t.run(c, {"LLEN", "k"});
  t.run(c, {"LPOS", "nokey", "a"});
  EXPECT_EQ(t.exec().stats().keyspace_hits, 1u);
  EXPECT_EQ(t.exec().stats().keyspace_misses, 1u);
}

TEST_F(ListCommandsTest, CreatingADestinationWakesItsWaiter) {
  Client& waiter = t.client();
  EXPECT_EQ(t.run(waiter, {"BLPOP", "dst", "0"}), "");
  t.run(c, {"RPUSH", "src", "x", "y"});
  EXPECT_EQ(t.run(c, {"LMOVE", "src", "dst", "LEFT", "RIGHT"}), bulk("x"));
  EXPECT_EQ(t.take_output(waiter), array({"dst", "x"}));
  EXPECT_FALSE(exists("dst"));
}

// ---- registration ----------------------------------------------------------------------

TEST_F(ListCommandsTest, CommandsAreRegisteredWithRedisArityFlagsAndKeys) {
  using namespace listd::server;
  struct Expect {
    std::string_view name;
    int arity;
    std::uint32_t flags;
    int first, last, step, numkeys_at;
  };
  const std::vector<Expect> expected = {
      {"lpush", -3, kWrite | kDenyOom | kFast, 1, 1, 1, 0},
      {"rpush", -3, kWrite | kDenyOom | kFast, 1, 1, 1, 0},
      {"lpushx", -3, kWrite | kDenyOom | kFast, 1, 1, 1, 0},
      {"rpushx", -3, kWrite | kDenyOom | kFast, 1, 1, 1, 0},
      {"lpop", -2, kWrite | kFast, 1, 1, 1, 0},
      {"rpop", -2, kWrite | kFast, 1, 1, 1, 0},
      {"llen", 2, kReadonly | kFast, 1, 1, 1, 0},
      {"lrange", 4, kReadonly, 1, 1, 1, 0},
      {"lindex", 3, kReadonly, 1, 1, 1, 0},
      {"lset", 4, kWrite | kDenyOom, 1, 1, 1, 0},
      {"linsert", 5, kWrite | kDenyOom, 1, 1, 1, 0},
      {"lrem", 4, kWrite, 1, 1, 1, 0},
      {"ltrim", 4, kWrite, 1, 1, 1, 0},
      {"lpos", -3, kReadonly, 1, 1, 1, 0},
      {"rpoplpush", 3, kWrite | kDenyOom, 1, 2, 1, 0},
      {"lmove", 5, kWrite | kDenyOom, 1, 2, 1, 0},
      {"lmpop", -4, kWrite | kOwnEffect, 0, 0, 0, 1},  // logged as LPOP|RPOP key n
  };
  for (const auto& e : expected) {
    const CommandSpec* spec = t.exec().commands().find(e.name);
    ASSERT_NE(spec, nullptr) << e.name;
    EXPECT_EQ(spec->arity, e.arity) << e.name;
    EXPECT_EQ(spec->flags, e.flags) << e.name;
    EXPECT_EQ(spec->keys.first, e.first) << e.name;
    EXPECT_EQ(spec->keys.last, e.last) << e.name;
    EXPECT_EQ(spec->keys.step, e.step) << e.name;
    EXPECT_EQ(spec->keys.numkeys_at, e.numkeys_at) << e.name;
    EXPECT_EQ(spec->group, "list") << e.name;
  }
  const std::vector<std::string_view> argv = {"LMPOP", "2", "a", "b", "LEFT"};
  EXPECT_EQ(t.exec().commands().find("lmpop")->key_positions(argv), (std::vector<int>{2, 3}));
}

}  // namespace
