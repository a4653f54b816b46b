// SORT and SORT_RO through the executor: replies recorded from redis-server 7.0.15 (numeric
// and ALPHA order, BY weights and hash fields, nosort, GET, LIMIT's arithmetic, STORE, errors,
// strtod's forms), and the set a script sorts with BY nosort.
#include <gtest/gtest.h>

#include <string>

#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

class SortCommandsTest : public ::testing::Test {
 protected:
  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(SortCommandsTest, NumbersWordsWeightsHashFieldsGetAndLimit) {
  EXPECT_EQ(t.run(c, {"RPUSH", "l", "3", "1", "2", "10"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l"}), "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$2\r\n10\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "DESC", "LIMIT", "1", "2"}), "*2\r\n$1\r\n3\r\n$1\r\n2\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "ALPHA"}),
            "*4\r\n$1\r\n1\r\n$2\r\n10\r\n$1\r\n2\r\n$1\r\n3\r\n");
  EXPECT_EQ(t.run(c, {"MSET", "w_1", "c", "w_2", "a", "w_3", "b"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "BY", "w_*", "ALPHA", "GET", "#", "GET", "w_*"}),
            "*8\r\n$2\r\n10\r\n$-1\r\n$1\r\n2\r\n$1\r\na\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n1\r\n$"
            "1\r\nc\r\n");
  EXPECT_EQ(t.run(c, {"HSET", "h_1", "f", "9"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "BY", "h_*->f", "GET", "h_*->f"}),
            "*4\r\n$-1\r\n$-1\r\n$-1\r\n$1\r\n9\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"}),
            "*2\r\n$1\r\n2\r\n$1\r\n1\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "LIMIT", "5", "-1"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "LIMIT", "-3", "2", "GET", "nostar", "GET", "#"}),
            "*4\r\n$-1\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n");
}

TEST_F(SortCommandsTest, SetsSortedSetsAndStore) {
  EXPECT_EQ(t.run(c, {"SADD", "s", "b", "a", "c"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "s", "BY", "nosort", "STORE", "d"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"LRANGE", "d", "0", "-1"}), "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "nokey", "STORE", "d"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "d"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"ZADD", "z", "1", "c", "2", "b", "3", "a"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "5"}),
            "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "z", "ALPHA", "LIMIT", "0", "2"}), "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "bad", "x", "1"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "bad"}),
            "-ERR One or more scores can't be converted into double\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "bad", "ALPHA", "STORE", "d"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"LRANGE", "d", "0", "-1"}), "*2\r\n$1\r\n1\r\n$1\r\nx\r\n");
}

TEST_F(SortCommandsTest, ErrorsWrongTypeAndStrtodForms) {
  EXPECT_EQ(t.run(c, {"SORT_RO", "l", "STORE", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "LIMIT", "a", "1"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "l", "BY"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SET", "str", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "str"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "n", "1e1", "0x10", " 3", ""}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"SORT", "n"}), "*4\r\n$0\r\n\r\n$2\r\n 3\r\n$3\r\n1e1\r\n$4\r\n0x10\r\n");
}

// From a script, a set not sorted is sorted with ALPHA (Redis' rule for replicas and the AOF).
TEST_F(SortCommandsTest, AScriptSortsASetItWouldNotSort) {
  EXPECT_EQ(t.run(c, {"SADD", "s", "b", "a", "c"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "s"}),
            "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
}

}  // namespace
