// String commands through the executor; expected bytes checked against Redis 7.0.15.
#include <gtest/gtest.h>

#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

TEST(StringCommands, SetGetAndOptions) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "w", "NX"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "w", "XX", "GET"}), "$1\r\nv\r\n");
  EXPECT_EQ(t.run(c, {"SET", "n", "w", "XX"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "EX", "0"}), "-ERR invalid expire time in 'set' command\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "EX", "x"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "EX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "NX", "XX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "KEEPTTL", "EX", "5"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "PX", "1500"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "k"}), ":1500\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "2", "KEEPTTL"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "k"}), ":1500\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "3"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "k"}), ":-1\r\n");
}

TEST(StringCommands, SetGetOnAListIsWrongTypeAndSetsNothing) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("l", listd::store::Value::make_list());
  t.exec().keyspace().db(0).peek("l")->value.as_list().push_back("x");
  EXPECT_EQ(t.run(c, {"SET", "l", "1", "GET"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_EQ(t.run(c, {"TYPE", "l"}), "+list\r\n");
  EXPECT_EQ(t.run(c, {"SET", "l", "1"}), "+OK\r\n");  // plain SET replaces any type
  EXPECT_EQ(t.run(c, {"TYPE", "l"}), "+string\r\n");
}

TEST(StringCommands, Counters) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"INCR", "n"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"INCRBY", "n", "41"}), ":42\r\n");
  EXPECT_EQ(t.run(c, {"DECR", "n"}), ":41\r\n");
  EXPECT_EQ(t.run(c, {"DECRBY", "n", "-9223372036854775808"}), "-ERR decrement would overflow\r\n");
  EXPECT_EQ(t.run(c, {"SET", "n", "9223372036854775807"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"INCR", "n"}), "-ERR increment or decrement would overflow\r\n");
  EXPECT_EQ(t.run(c, {"SET", "s", "007"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"INCR", "s"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"SET", "f", "10.50"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"INCRBYFLOAT", "f", "0.1"}), "$4\r\n10.6\r\n");
  EXPECT_EQ(t.run(c, {"INCRBYFLOAT", "f", "5.0e3"}), "$22\r\n5010.60000000000000009\r\n");
  EXPECT_EQ(t.run(c, {"INCRBYFLOAT", "f", "abc"}), "-ERR value is not a valid float\r\n");
}

TEST(StringCommands, RangesAndAppend) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"GETRANGE", "nokey", "0", "1"}), "$0\r\n\r\n");
  EXPECT_EQ(t.run(c, {"APPEND", "s", "Hello"}), ":5\r\n");
  EXPECT_EQ(t.run(c, {"APPEND", "s", " World"}), ":11\r\n");
  EXPECT_EQ(t.run(c, {"GETRANGE", "s", "-5", "-1"}), "$5\r\nWorld\r\n");
  EXPECT_EQ(t.run(c, {"GETRANGE", "s", "0", "100"}), "$11\r\nHello World\r\n");
  EXPECT_EQ(t.run(c, {"GETRANGE", "s", "-1", "-5"}), "$0\r\n\r\n");
  EXPECT_EQ(t.run(c, {"SETRANGE", "s", "6", "Redis"}), ":11\r\n");
  EXPECT_EQ(t.run(c, {"GET", "s"}), "$11\r\nHello Redis\r\n");
  EXPECT_EQ(t.run(c, {"SETRANGE", "z", "3", "x"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"GET", "z"}), std::string("$4\r\n\0\0\0x\r\n", 10));
  EXPECT_EQ(t.run(c, {"SETRANGE", "s", "-1", "x"}), "-ERR offset is out of range\r\n");
  EXPECT_EQ(t.run(c, {"SETRANGE", "nokey", "0", ""}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"STRLEN", "s"}), ":11\r\n");
}

TEST(StringCommands, MultiKey) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"MSET", "a"}), "-ERR wrong number of arguments for 'mset' command\r\n");
  EXPECT_EQ(t.run(c, {"MSET", "a", "1", "b", "2"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"MGET", "a", "nokey", "b"}), "*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n");
  EXPECT_EQ(t.run(c, {"MSETNX", "a", "1", "c", "3"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"MSETNX", "c", "3", "d", "4"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"GETDEL", "c"}), "$1\r\n3\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "c"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"GETSET", "d", "5"}), "$1\r\n4\r\n");
  EXPECT_EQ(t.run(c, {"SETNX", "d", "6"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SETEX", "e", "0", "v"}), "-ERR invalid expire time in 'setex' command\r\n");
  EXPECT_EQ(t.run(c, {"SETEX", "e", "10", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"GETEX", "e", "PERSIST"}), "$1\r\nv\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "e"}), ":-1\r\n");
  EXPECT_EQ(t.run(c, {"GETEX", "e", "PERSIST", "EX", "5"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"GETEX", "e", "EX", "0"}), "-ERR invalid expire time in 'getex' command\r\n");
}

TEST(StringCommands, TransactionsQueueAndWatchSeesWrites) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  EXPECT_EQ(t.run(a, {"WATCH", "k"}), "+OK\r\n");
  EXPECT_EQ(t.run(b, {"SET", "k", "x"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"SET", "k", "y"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "*-1\r\n");
  EXPECT_EQ(t.run(a, {"GET", "k"}), "$1\r\nx\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"SET", "k"}), "-ERR wrong number of arguments for 'set' command\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"INCR", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"SET", "k", "1"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "*2\r\n-ERR value is not an integer or out of range\r\n+OK\r\n");
}

}  // namespace
