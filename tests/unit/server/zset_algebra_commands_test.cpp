// ZUNION / ZINTER / ZDIFF (+STORE), ZRANGESTORE and ZRANDMEMBER through the executor: Redis'
// errors and reply shapes (RESP2 and RESP3), the inf/NaN rules, the destination's form, WATCH
// on destination and sources, and ZRANDMEMBER's random forms by property. Byte-for-byte
// agreement on random commands is integration.ZsetAlgebraOracle's job.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

class ZsetAlgebraTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(t.run(c, {"ZADD", "a", "1", "x", "2", "y", "3", "z"}), integer(3));
    ASSERT_EQ(t.run(c, {"ZADD", "b", "10", "y", "20", "z", "30", "w"}), integer(3));
    ASSERT_EQ(t.run(c, {"SADD", "s", "y", "w", "q"}), integer(3));
  }
  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(ZsetAlgebraTest, UnionIntersectionAndDifferenceWithSetsAsInputs) {
  EXPECT_EQ(t.run(c, {"ZUNION", "3", "a", "b", "s", "WITHSCORES"}),
            array({"q", "1", "x", "1", "y", "13", "z", "23", "w", "31"}));
  EXPECT_EQ(t.run(c, {"ZINTER", "3", "a", "b", "s", "AGGREGATE", "MAX", "WITHSCORES"}),
            array({"y", "10"}));
  EXPECT_EQ(t.run(c, {"ZINTER", "2", "a", "b", "WEIGHTS", "2", "0.5", "WITHSCORES"}),
            array({"y", "9", "z", "16"}));
  EXPECT_EQ(t.run(c, {"ZDIFF", "2", "a", "b", "WITHSCORES"}), array({"x", "1"}));
  EXPECT_EQ(t.run(c, {"ZDIFF", "2", "a", "a"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"ZUNION", "2", "a", "nokey"}), array({"x", "y", "z"}));
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"ZDIFF", "2", "a", "b", "WITHSCORES"}), "*1\r\n*2\r\n$1\r\nx\r\n,1\r\n");
}

TEST_F(ZsetAlgebraTest, InfinitiesFollowRedis) {
  ASSERT_EQ(t.run(c, {"ZADD", "i", "-inf", "x", "inf", "y"}), integer(2));
  // 0 * inf is NaN: counted as 0; inf + -inf in a SUM is 0 too.
  EXPECT_EQ(t.run(c, {"ZUNION", "2", "a", "i", "WEIGHTS", "0", "inf", "WITHSCORES"}),
            array({"x", "-inf", "z", "0", "y", "inf"}));
  EXPECT_EQ(t.run(c, {"ZINTER", "2", "i", "i", "WEIGHTS", "1", "-1", "WITHSCORES"}),
            array({"x", "0", "y", "0"}));
  ASSERT_EQ(t.run(c, {"ZADD", "zero", "0", "m"}), integer(1));
  EXPECT_EQ(t.run(c, {"ZUNION", "1", "zero", "WEIGHTS", "-1", "WITHSCORES"}), array({"m", "-0"}));
  // Stored in a listpack, -0 becomes 0, as in Redis.
  EXPECT_EQ(t.run(c, {"ZUNIONSTORE", "d", "1", "zero", "WEIGHTS", "-1"}), integer(1));
  EXPECT_EQ(t.run(c, {"ZSCORE", "d", "m"}), bulk("0"));
}

TEST_F(ZsetAlgebraTest, ErrorsAreRedisTexts) {
  EXPECT_EQ(t.run(c, {"ZUNION", "0", "a"}),
            error("ERR at least 1 input key is needed for 'zunion' command"));
  EXPECT_EQ(t.run(c, {"ZINTERSTORE", "d", "0", "a"}),
            error("ERR at least 1 input key is needed for 'zinterstore' command"));
  EXPECT_EQ(t.run(c, {"ZUNION", "x", "a"}), error("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"ZUNION", "3", "a", "b"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"}),
            error("ERR weight value is not a float"));
  EXPECT_EQ(t.run(c, {"ZUNION", "2", "a", "b", "WEIGHTS", "1"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"ZUNION", "2", "a", "b", "AGGREGATE", "avg"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"ZDIFF", "2", "a", "b", "WEIGHTS", "1", "1"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"ZUNIONSTORE", "d", "1", "a", "WITHSCORES"}), error("ERR syntax error"));
  ASSERT_EQ(t.run(c, {"SET", "str", "v"}), kOk);
  EXPECT_EQ(t.run(c, {"ZUNION", "2", "a", "str"}).substr(0, 10), "-WRONGTYPE");
  EXPECT_EQ(t.run(c, {"ZRANGESTORE", "d", "a", "0", "-1", "WITHSCORES"}),
            error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"ZRANGESTORE", "d", "a", "0", "-1", "LIMIT", "0", "1"}),
            error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE "
                  "or BYLEX"));
}

TEST_F(ZsetAlgebraTest, StoreFormsReplaceOrDeleteTheDestination) {
  ASSERT_EQ(t.run(c, {"SET", "d", "v", "EX", "100"}), kOk);
  EXPECT_EQ(t.run(c, {"ZUNIONSTORE", "d", "2", "a", "b"}), integer(4));
  EXPECT_EQ(t.run(c, {"TTL", "d"}), integer(-1));
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "d"}), bulk("listpack"));
  EXPECT_EQ(t.run(c, {"ZINTERSTORE", "d", "2", "a", "nokey"}), integer(0));
  EXPECT_EQ(t.run(c, {"EXISTS", "d"}), integer(0));
  EXPECT_EQ(t.run(c, {"ZRANGESTORE", "d", "b", "(10", "+inf", "BYSCORE", "LIMIT", "0", "1"}),
            integer(1));
  EXPECT_EQ(t.run(c, {"ZRANGE", "d", "0", "-1", "WITHSCORES"}), array({"z", "20"}));
  EXPECT_EQ(t.run(c, {"ZRANGESTORE", "a", "a", "0", "0", "REV"}), integer(1));  // in place
  EXPECT_EQ(t.run(c, {"ZRANGE", "a", "0", "-1"}), array({"z"}));
  // A long member makes the result a skip list from the start.
  ASSERT_EQ(t.run_strings(c, {"ZADD", "long", "1", std::string(70, 'L')}), integer(1));
  EXPECT_EQ(t.run(c, {"ZUNIONSTORE", "d", "2", "long", "b"}), integer(4));
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "d"}), bulk("skiplist"));
}

TEST_F(ZsetAlgebraTest, WatchSeesTheDestinationOnly) {
  listd::server::Client& other = t.client();
  ASSERT_EQ(t.run(c, {"WATCH", "a"}), kOk);
  ASSERT_EQ(t.run(other, {"ZUNIONSTORE", "d", "2", "a", "b"}), integer(4));
  ASSERT_EQ(t.run(c, {"MULTI"}), kOk);
  ASSERT_EQ(t.run(c, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n+PONG\r\n") << "a source is only read";
  ASSERT_EQ(t.run(c, {"WATCH", "d"}), kOk);
  ASSERT_EQ(t.run(other, {"ZDIFFSTORE", "d", "1", "b"}), integer(3));
  ASSERT_EQ(t.run(c, {"MULTI"}), kOk);
  ASSERT_EQ(t.run(c, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), kNullArray);
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "2", "a", "b"}),
            array({"d", "a", "b"}));
}

/// Parses a flat RESP2 array of bulks.
std::vector<std::string> bulks(const std::string& reply) {
  std::vector<std::string> out;
  std::size_t p = reply.find("\r\n") + 2;
  while (p < reply.size()) {
    const std::size_t eol = reply.find("\r\n", p);
    const std::size_t len = std::stoul(reply.substr(p + 1, eol - p - 1));
    out.push_back(reply.substr(eol + 2, len));
    p = eol + 2 + len + 2;
  }
  return out;
}

TEST_F(ZsetAlgebraTest, RandmemberCountsFollowRedis) {
  ASSERT_EQ(t.run(c, {"ZADD", "r", "1", "m1", "2", "m2", "3", "m3", "4", "m4", "5", "m5"}),
            integer(5));
  const std::map<std::string, std::string> scores = {
      {"m1", "1"}, {"m2", "2"}, {"m3", "3"}, {"m4", "4"}, {"m5", "5"}};
  // Negative: exactly that many, repetitions allowed; pairs keep their scores.
  const auto drawn = bulks(t.run(c, {"ZRANDMEMBER", "r", "-40", "WITHSCORES"}));
  ASSERT_EQ(drawn.size(), 80u);
  std::set<std::string> distinct;
  for (std::size_t i = 0; i < drawn.size(); i += 2) {
    EXPECT_EQ(scores.at(drawn[i]), drawn[i + 1]);
    distinct.insert(drawn[i]);
  }
  EXPECT_LT(distinct.size(), 40u);
  // Positive below the size: distinct members, as many as asked (both of Redis' strategies).
  for (const char* n : {"2", "4"}) {
    const auto picked = bulks(t.run(c, {"ZRANDMEMBER", "r", n}));
    EXPECT_EQ(picked.size(), std::stoul(n));
    EXPECT_EQ(std::set<std::string>(picked.begin(), picked.end()).size(), picked.size());
    for (const auto& m : picked) EXPECT_TRUE(scores.count(m)) << m;
  }
  // At least the size: the whole set, highest score first.
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "r", "9"}), array({"m5", "m4", "m3", "m2", "m1"}));
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "r", "0"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "nokey", "3"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "nokey"}), kNullBulk);
  EXPECT_TRUE(scores.count(bulks("*1\r\n" + t.run(c, {"ZRANDMEMBER", "r"}))[0]));
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "r", "1", "WITHSCORE"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "r", "-9223372036854775808"}),
            error("ERR value is out of range, value must between -9223372036854775807 and "
                  "9223372036854775807"));
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "r", "9223372036854775807", "WITHSCORES"}),
            error("ERR value is out of range"));
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"ZRANDMEMBER", "r", "7", "WITHSCORES"}).substr(0, 18),
            "*5\r\n*2\r\n$2\r\nm5\r\n,5");
}

}  // namespace
