// Set commands through the executor: raw reply bytes (checked against redis-server 7.0.15),
// RESP3 set replies, argument errors, WRONGTYPE across keys, STORE forms, empty sets deleted.
#include <gtest/gtest.h>

#include <string>

#include "listd/server/errors.h"
#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

const std::string kWrongType = error(listd::server::kWrongTypeErr);

class SetCommandsTest : public ::testing::Test {
 protected:
  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(SetCommandsTest, IntegerSetsAreIntsetsRepliedInOrder) {
  EXPECT_EQ(t.run(c, {"SADD", "s", "3", "1", "2"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"SADD", "s", "2", "4"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SMEMBERS", "s"}), "*4\r\n" + bulk("1") + bulk("2") + bulk("3") + bulk("4"));
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "s"}), bulk("intset"));
  EXPECT_EQ(t.run(c, {"SREM", "s", "4", "9"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SISMEMBER", "s", "1"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SISMEMBER", "nokey", "1"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SMISMEMBER", "s", "1", "9", "2"}), "*3\r\n:1\r\n:0\r\n:1\r\n");
  EXPECT_EQ(t.run(c, {"SCARD", "s"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"TYPE", "s"}), "+set\r\n");
  EXPECT_EQ(t.run(c, {"SADD", "s", "007"}), ":1\r\n");  // not canonical: a string member
  // Redis 7.0 has no listpack sets: a small set of strings is a hashtable.
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "s"}), bulk("hashtable"));
  EXPECT_EQ(t.run(c, {"SISMEMBER", "s", "7"}), ":0\r\n");
}

TEST_F(SetCommandsTest, PopAndRandomMemberShapesAndErrors) {
  t.run(c, {"SADD", "s", "1", "2", "3"});
  EXPECT_EQ(t.run(c, {"SPOP", "s", "x"}), error("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run(c, {"SPOP", "s", "-1"}), error("ERR value is out of range, must be positive"));
  EXPECT_EQ(t.run(c, {"SPOP", "s", "1", "2"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"SPOP", "s", "0"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "nokey"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "nokey", "2"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"SRANDMEMBER", "s", "5"}), "*3\r\n" + bulk("1") + bulk("2") + bulk("3"));
  EXPECT_EQ(t.run(c, {"SRANDMEMBER", "s", "-5"}).substr(0, 4), "*5\r\n");
  EXPECT_EQ(t.run(c, {"SRANDMEMBER", "s", "-9223372036854775808"}),
            error("ERR value is out of range, value must between -9223372036854775807 and "
                  "9223372036854775807"));
  EXPECT_EQ(t.run(c, {"SRANDMEMBER", "nokey"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"SRANDMEMBER", "nokey", "2"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "s", "10"}), "*3\r\n" + bulk("1") + bulk("2") + bulk("3"));
  EXPECT_EQ(t.run(c, {"EXISTS", "s"}), ":0\r\n");
  t.run(c, {"SADD", "s", "a", "b", "c", "d"});
  const std::string two = t.run(c, {"SPOP", "s", "2"});
  EXPECT_EQ(two.substr(0, 4), "*2\r\n");
  EXPECT_EQ(t.run(c, {"SCARD", "s"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "s"}).substr(0, 4), "$1\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "s"}).substr(0, 4), "$1\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "s"}), ":0\r\n");
}

TEST_F(SetCommandsTest, Resp3UsesSetRepliesExceptForSrandmember) {
  t.run(c, {"SADD", "s", "1", "2"});
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"SMEMBERS", "s"}), "~2\r\n" + bulk("1") + bulk("2"));
  EXPECT_EQ(t.run(c, {"SMEMBERS", "nokey"}), "~0\r\n");
  EXPECT_EQ(t.run(c, {"SINTER", "s", "nokey"}), "~0\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "nokey", "2"}), "~0\r\n");
  EXPECT_EQ(t.run(c, {"SRANDMEMBER", "s", "100"}), "*2\r\n" + bulk("1") + bulk("2"));
  EXPECT_EQ(t.run(c, {"SPOP", "nokey"}), "_\r\n");
  EXPECT_EQ(t.run(c, {"SPOP", "s", "5"}), "~2\r\n" + bulk("1") + bulk("2"));
}

TEST_F(SetCommandsTest, AlgebraAndStoreForms) {
  t.run(c, {"SADD", "s", "1", "2", "3"});
  t.run(c, {"SADD", "t", "2", "3", "4"});
  EXPECT_EQ(t.run(c, {"SINTER", "s", "t"}), "*2\r\n" + bulk("2") + bulk("3"));
  EXPECT_EQ(t.run(c, {"SUNION", "s", "t"}),
            "*4\r\n" + bulk("1") + bulk("2") + bulk("3") + bulk("4"));
  EXPECT_EQ(t.run(c, {"SDIFF", "s", "t"}), "*1\r\n" + bulk("1"));
  EXPECT_EQ(t.run(c, {"SDIFF", "nokey", "s"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"SINTER", "s", "nokey"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"SINTERSTORE", "d", "s", "t"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "d"}), bulk("intset"));
  EXPECT_EQ(t.run(c, {"PEXPIRE", "d", "5000"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SUNIONSTORE", "d", "s", "t"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "d"}), ":-1\r\n");  // replaced: the TTL goes with the old value
  EXPECT_EQ(t.run(c, {"SDIFFSTORE", "d", "s", "s"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "d"}), ":0\r\n");
  // The destination may be one of the sources.
  EXPECT_EQ(t.run(c, {"SUNIONSTORE", "s", "s", "t"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"SMEMBERS", "s"}), "*4\r\n" + bulk("1") + bulk("2") + bulk("3") + bulk("4"));
}

TEST_F(SetCommandsTest, EveryKeyIsTypeCheckedEvenAfterAMissingOne) {
  t.run(c, {"SET", "str", "v"});
  t.run(c, {"SADD", "s", "a"});
  EXPECT_EQ(t.run(c, {"SINTER", "nokey", "str"}), kWrongType);
  EXPECT_EQ(t.run(c, {"SDIFF", "nokey", "str"}), kWrongType);
  EXPECT_EQ(t.run(c, {"SUNIONSTORE", "d", "s", "str"}), kWrongType);
  EXPECT_EQ(t.run(c, {"SUNIONSTORE", "str", "s"}),
            ":1\r\n");  // the destination's type is irrelevant
  EXPECT_EQ(t.run(c, {"TYPE", "str"}), "+set\r\n");
  t.run(c, {"SET", "str", "v"});
  for (auto argv :
       std::initializer_list<std::initializer_list<std::string_view>>{{"SADD", "str", "a"},
                                                                      {"SREM", "str", "a"},
                                                                      {"SMEMBERS", "str"},
                                                                      {"SCARD", "str"},
                                                                      {"SPOP", "str"},
                                                                      {"SRANDMEMBER", "str"},
                                                                      {"SSCAN", "str", "0"},
                                                                      {"SMISMEMBER", "str", "a"}})
    EXPECT_EQ(t.run(c, argv), kWrongType) << *argv.begin();
}

TEST_F(SetCommandsTest, SmoveMovesOneMemberAndCleansUp) {
  t.run(c, {"SADD", "a", "x", "y"});
  t.run(c, {"SET", "str", "v"});
  EXPECT_EQ(t.run(c, {"SMOVE", "nokey", "str", "x"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SMOVE", "a", "str", "x"}), kWrongType);
  EXPECT_EQ(t.run(c, {"SMOVE", "a", "a", "x"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SMOVE", "a", "a", "zz"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SMOVE", "a", "b", "x"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SMOVE", "a", "b", "x"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SMOVE", "a", "b", "y"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "a"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SCARD", "b"}), ":2\r\n");
}

TEST_F(SetCommandsTest, SmallSetsOfStringsAreHashtablesAsInRedis70) {
  EXPECT_EQ(t.run(c, {"SADD", "s", "a"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "s"}), bulk("hashtable"));
  t.run(c, {"SADD", "i", "1"});
  t.run(c, {"SMOVE", "s", "i", "a"});
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "i"}), bulk("hashtable"));
  EXPECT_EQ(t.run(c, {"SUNIONSTORE", "u", "i"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "u"}), bulk("hashtable"));
}

TEST_F(SetCommandsTest, SpopLeavingFewMembersRebuildsTheSetLikeRedis) {
  // Redis 7.0 SPOP "CASE 3" (remaining * 5 <= count) keeps the remaining members in a new set:
  // a hashtable of integers becomes an intset. A smaller count only removes members.
  std::vector<std::string> argv{"SADD", "s", "a"};
  for (int i = 0; i < 11; ++i) argv.push_back(std::to_string(i));
  t.run_strings(c, argv);
  argv[1] = "t";
  t.run_strings(c, argv);
  t.run(c, {"SREM", "s", "a"});
  t.run(c, {"SREM", "t", "a"});
  ASSERT_EQ(t.run(c, {"OBJECT", "ENCODING", "s"}), bulk("hashtable"));
  EXPECT_EQ(t.run(c, {"SPOP", "s", "9"}).substr(0, 4), "*9\r\n");  // 2 stay: 10 > 9
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "s"}), bulk("hashtable"));
  t.run(c, {"EXPIRE", "t", "100"});
  EXPECT_EQ(t.run(c, {"SPOP", "t", "10"}).substr(0, 5), "*10\r\n");  // 1 stays: 5 <= 10
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "t"}), bulk("intset"));
  EXPECT_EQ(t.run(c, {"SCARD", "t"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "t"}), ":100\r\n");
}

TEST_F(SetCommandsTest, SscanOfCompactFormsIsOneStep) {
  t.run(c, {"SADD", "s", "1", "2", "3"});
  EXPECT_EQ(t.run(c, {"SSCAN", "s", "0", "MATCH", "2"}), "*2\r\n$1\r\n0\r\n*1\r\n" + bulk("2"));
  EXPECT_EQ(t.run(c, {"SSCAN", "s", "x"}), error("ERR invalid cursor"));
  // strtoul, as in Redis: an empty cursor is 0.
  EXPECT_EQ(t.run(c, {"SSCAN", "s", ""}),
            "*2\r\n$1\r\n0\r\n*3\r\n" + bulk("1") + bulk("2") + bulk("3"));
  EXPECT_EQ(t.run(c, {"SSCAN", "s", "0", "COUNT", "0"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"SSCAN", "nokey", "0", "FOO"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(SetCommandsTest, LargeSetsSurviveConversionAndFullScan) {
  std::vector<std::string> argv{"SADD", "big"};
  for (int i = 0; i < 1000; ++i) argv.push_back("m" + std::to_string(i));
  EXPECT_EQ(t.run_strings(c, argv), ":1000\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "big"}), bulk("hashtable"));
  EXPECT_EQ(t.run(c, {"SISMEMBER", "big", "m999"}), ":1\r\n");
  std::string cursor = "0";
  std::size_t members = 0;
  do {
    const std::string out = t.run_strings(c, {"SSCAN", "big", cursor, "COUNT", "50"});
    const std::size_t cs = out.find("\r\n", 4) + 2;
    const std::size_t ce = out.find("\r\n", cs);
    cursor = out.substr(cs, ce - cs);
    members += std::stoul(out.substr(ce + 3, out.find("\r\n", ce + 2) - ce - 3));
  } while (cursor != "0");
  EXPECT_EQ(members, 1000u);
  EXPECT_EQ(t.run(c, {"SPOP", "big", "999"}).substr(0, 6), "*999\r\n");
  EXPECT_EQ(t.run(c, {"SCARD", "big"}), ":1\r\n");
}

TEST(SetCommands, SintercardCountsUpToTheLimit) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SADD", "x", "1", "2", "3", "4", "a", "b"});
  t.run(c, {"SADD", "y", "2", "3", "a", "c"});
  t.run(c, {"RPUSH", "l", "z"});
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "y"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "y", "LIMIT", "2"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "y", "limit", "0"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "x"}), ":6\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "nokey"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "y", "LIMIT", "-1"}),
            "-ERR LIMIT can't be negative\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "y", "LIMIT", "x"}),
            "-ERR LIMIT can't be negative\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "0", "x"}), "-ERR numkeys should be greater than 0\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "x", "x"}), "-ERR numkeys should be greater than 0\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "3", "x", "y"}),
            "-ERR Number of keys can't be greater than number of args\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "1", "x", "LIMIT"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SINTERCARD", "2", "x", "l"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
}

}  // namespace
