// Hash commands through the executor: raw reply bytes (checked against redis-server 7.0.15),
// RESP3 shapes, argument errors in Redis' order, WRONGTYPE, empty hashes deleted, WATCH.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "listd/server/errors.h"
#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

class HashCommandsTest : public ::testing::Test {
 protected:
  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(HashCommandsTest, SetGetAndFieldOrderFollowInsertion) {
  EXPECT_EQ(t.run(c, {"HSET", "h", "a", "1", "b", "2", "c", "3"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"HSET", "h", "a", "10", "d", "4"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"HGETALL", "h"}), "*8\r\n" + bulk("a") + bulk("10") + bulk("b") + bulk("2") +
                                            bulk("c") + bulk("3") + bulk("d") + bulk("4"));
  EXPECT_EQ(t.run(c, {"HGET", "h", "a"}), bulk("10"));
  EXPECT_EQ(t.run(c, {"HGET", "h", "zz"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"HGET", "nokey", "a"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"HMGET", "h", "a", "zz", "c"}),
            "*3\r\n" + bulk("10") + "$-1\r\n" + bulk("3"));
  EXPECT_EQ(t.run(c, {"HKEYS", "h"}), "*4\r\n" + bulk("a") + bulk("b") + bulk("c") + bulk("d"));
  EXPECT_EQ(t.run(c, {"HVALS", "nokey"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"HLEN", "h"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"HEXISTS", "h", "d"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"HSTRLEN", "h", "a"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"HMSET", "h", "e", "5"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"HSETNX", "h", "e", "9"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"HSETNX", "h", "f", "6"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"TYPE", "h"}), "+hash\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "h"}), bulk("listpack"));
}

TEST_F(HashCommandsTest, OddPairCountIsAnArityErrorBeforeTheTypeCheck) {
  EXPECT_EQ(t.run(c, {"SET", "s", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"HSET", "s", "a", "1", "b"}),
            error("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(t.run(c, {"HMSET", "s", "a"}),
            error("ERR wrong number of arguments for 'hmset' command"));
  EXPECT_EQ(t.run(c, {"HSET", "s", "a", "1"}), error(listd::server::kWrongTypeErr));
  for (auto argv :
       std::initializer_list<std::initializer_list<std::string_view>>{{"HGET", "s", "a"},
                                                                      {"HGETALL", "s"},
                                                                      {"HDEL", "s", "a"},
                                                                      {"HLEN", "s"},
                                                                      {"HSCAN", "s", "0"},
                                                                      {"HINCRBY", "s", "a", "1"},
                                                                      {"HRANDFIELD", "s"},
                                                                      {"HMGET", "s", "a"}})
    EXPECT_EQ(t.run(c, argv), error(listd::server::kWrongTypeErr)) << *argv.begin();
}

TEST_F(HashCommandsTest, DeletingTheLastFieldDeletesTheKey) {
  t.run(c, {"HSET", "h", "a", "1", "b", "2"});
  EXPECT_EQ(t.run(c, {"HDEL", "h", "a", "zz", "a"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"HDEL", "h", "b"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "h"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"HDEL", "h", "b"}), ":0\r\n");
}

TEST_F(HashCommandsTest, IncrementsFollowRedisErrorsAndFormats) {
  EXPECT_EQ(t.run(c, {"HINCRBY", "h", "n", "x"}), error(listd::server::kNotIntegerErr));
  EXPECT_EQ(t.run(c, {"EXISTS", "h"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"HINCRBY", "h", "n", "9223372036854775807"}), ":9223372036854775807\r\n");
  EXPECT_EQ(t.run(c, {"HINCRBY", "h", "n", "1"}),
            error("ERR increment or decrement would overflow"));
  t.run(c, {"HSET", "h", "s", "abc"});
  EXPECT_EQ(t.run(c, {"HINCRBY", "h", "s", "1"}), error("ERR hash value is not an integer"));
  EXPECT_EQ(t.run(c, {"HINCRBYFLOAT", "h", "s", "1"}), error("ERR hash value is not a float"));
  EXPECT_EQ(t.run(c, {"HINCRBYFLOAT", "h", "f", "inf"}), error("ERR value is NaN or Infinity"));
  EXPECT_EQ(t.run(c, {"HINCRBYFLOAT", "h", "f", "abc"}), error("ERR value is not a valid float"));
  EXPECT_EQ(t.run(c, {"HINCRBYFLOAT", "h", "f", "1.5"}), bulk("1.5"));
  EXPECT_EQ(t.run(c, {"HINCRBYFLOAT", "h", "f", "0.1"}), bulk("1.6"));
  EXPECT_EQ(t.run(c, {"HINCRBYFLOAT", "h", "g", "5.0e3"}), bulk("5000"));
  EXPECT_EQ(t.run(c, {"HGET", "h", "g"}), bulk("5000"));
}

TEST_F(HashCommandsTest, Resp3RepliesMapsAndNestedPairs) {
  t.run(c, {"HSET", "h", "a", "1", "b", "2"});
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"HGETALL", "h"}), "%2\r\n" + bulk("a") + bulk("1") + bulk("b") + bulk("2"));
  EXPECT_EQ(t.run(c, {"HGETALL", "nokey"}), "%0\r\n");
  EXPECT_EQ(t.run(c, {"HGET", "h", "zz"}), "_\r\n");
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "5", "WITHVALUES"}),
            "*2\r\n*2\r\n" + bulk("a") + bulk("1") + "*2\r\n" + bulk("b") + bulk("2"));
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "nokey"}), "_\r\n");
}

TEST_F(HashCommandsTest, RandfieldCountsAndErrors) {
  t.run(c, {"HSET", "h", "a", "1", "b", "2", "c", "3"});
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "10", "WITHVALUES"}),
            "*6\r\n" + bulk("a") + bulk("1") + bulk("b") + bulk("2") + bulk("c") + bulk("3"));
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "0"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "nokey", "3"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "x"}), error(listd::server::kNotIntegerErr));
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "1", "WITHVALUES", "x"}),
            error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "-9223372036854775808"}),
            error("ERR value is out of range, value must between -9223372036854775807 and "
                  "9223372036854775807"));
  EXPECT_EQ(t.run(c, {"HRANDFIELD", "h", "9223372036854775807", "WITHVALUES"}),
            error("ERR value is out of range"));
  // Negative counts repeat; positive counts below the size never do.
  const std::string rep = t.run(c, {"HRANDFIELD", "h", "-7"});
  EXPECT_EQ(rep.substr(0, 4), "*7\r\n");
  for (int i = 0; i < 20; ++i) {
    const std::string two = t.run(c, {"HRANDFIELD", "h", "2"});
    ASSERT_EQ(two.substr(0, 4), "*2\r\n");
    EXPECT_NE(two.substr(4, 7), two.substr(11, 7));
  }
}

TEST_F(HashCommandsTest, ScanOfAHashtableVisitsEveryFieldOnce) {
  std::vector<std::string> argv{"HSET", "big"};
  for (int i = 0; i < 600; ++i) {
    argv.push_back("f" + std::to_string(i));
    argv.push_back("v");
  }
  EXPECT_EQ(t.run_strings(c, argv), ":600\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "big"}), bulk("hashtable"));
  std::multiset<std::string> seen;
  std::string cursor = "0";
  do {
    const std::string out = t.run_strings(c, {"HSCAN", "big", cursor, "COUNT", "20"});
    std::size_t p = out.find("\r\n", 4);  // "*2\r\n$n\r\n<cursor>\r\n*m\r\n..."
    const std::size_t cur_start = p + 2;
    p = out.find("\r\n", cur_start);
    cursor = out.substr(cur_start, p - cur_start);
    p = out.find("\r\n", p + 2);  // after *m
    for (std::size_t i = p + 2; i < out.size();) {
      const std::size_t e = out.find("\r\n", i);
      const std::size_t len = std::stoul(out.substr(i + 1, e - i - 1));
      const std::string field = out.substr(e + 2, len);
      i = e + 2 + len + 2;
      const std::size_t e2 = out.find("\r\n", i);
      i = e2 + 2 + std::stoul(out.substr(i + 1, e2 - i - 1)) + 2;  // skip the value
      seen.insert(field);
    }
  } while (cursor != "0");
  EXPECT_EQ(seen.size(), 600u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 600u);
  EXPECT_EQ(t.run(c, {"HSCAN", "big", "x"}), error("ERR invalid cursor"));
  EXPECT_EQ(t.run(c, {"HSCAN", "big", "0", "COUNT", "0"}), error(listd::server::kSyntaxErr));
  EXPECT_EQ(t.run(c, {"HSCAN", "nokey", "0", "FOO"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(HashCommandsTest, ScanOfAListpackReturnsEverythingFilteredByMatch) {
  t.run(c, {"HSET", "h", "a1", "x", "b1", "y", "a2", "z"});
  EXPECT_EQ(t.run(c, {"HSCAN", "h", "0", "MATCH", "a*"}),
            "*2\r\n$1\r\n0\r\n*4\r\n" + bulk("a1") + bulk("x") + bulk("a2") + bulk("z"));
}

TEST_F(HashCommandsTest, LongValuesConvertToAHashtableAndCopyKeepsTheContent) {
  t.run(c, {"HSET", "h", "f", std::string(65, 'x')});
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "h"}), bulk("hashtable"));
  EXPECT_EQ(t.run(c, {"COPY", "h", "h2"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"HGET", "h2", "f"}), bulk(std::string(65, 'x')));
  const std::string usage = t.run(c, {"MEMORY", "USAGE", "h2"});
  ASSERT_EQ(usage[0], ':');
  EXPECT_GT(std::stoll(usage.substr(1)), 65);
}

TEST_F(HashCommandsTest, WritesInvalidateWatchers) {
  auto& w = t.client();
  t.run(c, {"HSET", "h", "a", "1"});
  EXPECT_EQ(t.run(w, {"WATCH", "h"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"HGET", "h", "a"}), bulk("1"));
  EXPECT_EQ(t.run(w, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(w, {"HGET", "h", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(w, {"EXEC"}), "*1\r\n" + bulk("1"));  // reads do not touch the key
  EXPECT_EQ(t.run(w, {"WATCH", "h"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"HINCRBY", "h", "a", "1"}), ":2\r\n");
  EXPECT_EQ(t.run(w, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(w, {"HGET", "h", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(w, {"EXEC"}), "*-1\r\n");
}

}  // namespace
