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
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "EX", "0"}),
            "-ERR invalid expire time in 'set' command\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "1", "EX", "x"}),
            "-ERR value is not an integer or out of range\r\n");
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

TEST(StringCommands, OptionKeywordsAreCheckedBeforeTheExpiryValue) {
  // Redis 7.0 parseExtendedStringArgumentsOrReply: every keyword first, then the last expiry's
  // value; the same expiry keyword may repeat, two different ones are a syntax error.
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "k", "v", "PXAT", "-5", "XX", "EXAT", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "v", "EX", "x", "PX", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "v", "EX", "0", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "k"}), ":100\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "v", "EX", "100", "EX", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  t.run(c, {"LPUSH", "l", "x"});
  // The expiry's value is read before GET's type check.
  EXPECT_EQ(t.run(c, {"SET", "l", "v", "GET", "EX", "0"}),
            "-ERR invalid expire time in 'set' command\r\n");
  EXPECT_EQ(t.run(c, {"SET", "l", "v", "EX", "10", "EX", "20", "GET"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  // GETEX: a missing key answers nil before the expiry's value is read; PERSIST may repeat.
  EXPECT_EQ(t.run(c, {"GETEX", "nokey", "EX", "abc"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"GETEX", "nokey", "EX", "5", "PX", "5"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"GETEX", "k", "EX", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"GETEX", "k", "PERSIST", "PERSIST"}), "$1\r\nv\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "k"}), ":-1\r\n");
}

TEST(StringCommands, ObjectEncodingFollowsTheCommandThatMadeTheString) {
  // Redis 7.0: arguments get tryObjectEncoding (int/embstr/raw by content), APPEND and SETRANGE
  // edit a raw string, INCRBYFLOAT formats an embstr; COPY unshares 0..9999.
  TestServer t;
  auto& c = t.client();
  auto encoding = [&](const char* key) { return t.run(c, {"OBJECT", "ENCODING", key}); };
  auto refcount = [&](const char* key) { return t.run(c, {"OBJECT", "REFCOUNT", key}); };
  t.run(c, {"SET", "i", "12"});
  EXPECT_EQ(encoding("i"), "$3\r\nint\r\n");
  EXPECT_EQ(refcount("i"), ":2147483647\r\n");
  t.run(c, {"SET", "e", std::string(44, 'e')});
  EXPECT_EQ(encoding("e"), "$6\r\nembstr\r\n");
  t.run(c, {"SET", "r", std::string(45, 'r')});
  EXPECT_EQ(encoding("r"), "$3\r\nraw\r\n");
  t.run(c, {"APPEND", "i", "3"});  // "123", edited in place
  EXPECT_EQ(encoding("i"), "$3\r\nraw\r\n");
  EXPECT_EQ(refcount("i"), ":1\r\n");
  t.run(c, {"INCR", "i"});  // a fresh integer object
  EXPECT_EQ(encoding("i"), "$3\r\nint\r\n");
  t.run(c, {"APPEND", "a", "5"});  // APPEND to a missing key stores the argument
  EXPECT_EQ(encoding("a"), "$3\r\nint\r\n");
  t.run(c, {"SET", "x", "1"});
  t.run(c, {"SETRANGE", "x", "0", ""});  // sets nothing: unchanged
  EXPECT_EQ(encoding("x"), "$3\r\nint\r\n");
  t.run(c, {"SETRANGE", "x", "0", "7"});
  EXPECT_EQ(encoding("x"), "$3\r\nraw\r\n");
  t.run(c, {"SETRANGE", "y", "0", "7"});
  EXPECT_EQ(encoding("y"), "$3\r\nraw\r\n");
  t.run(c, {"INCRBYFLOAT", "f", "3"});
  EXPECT_EQ(t.run(c, {"GET", "f"}), "$1\r\n3\r\n");
  EXPECT_EQ(encoding("f"), "$6\r\nembstr\r\n");
  EXPECT_EQ(refcount("f"), ":1\r\n");
  t.run(c, {"INCRBYFLOAT", "g", "1e300"});
  EXPECT_EQ(encoding("g"), "$3\r\nraw\r\n");
  t.run(c, {"SET", "s", "5"});
  t.run(c, {"COPY", "s", "s2"});
  EXPECT_EQ(encoding("s2"), "$3\r\nint\r\n");
  EXPECT_EQ(refcount("s2"), ":1\r\n");
  EXPECT_EQ(refcount("s"), ":2147483647\r\n");
  t.run(c, {"COPY", "x", "x2"});
  EXPECT_EQ(encoding("x2"), "$3\r\nraw\r\n");
  t.run(c, {"RENAME", "s", "s3"});
  EXPECT_EQ(refcount("s3"), ":2147483647\r\n");
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

TEST(StringCommands, SubstrIsGetrange) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SET", "a", "ohmytext"});
  EXPECT_EQ(t.run(c, {"SUBSTR", "a", "1", "3"}), "$3\r\nhmy\r\n");
  EXPECT_EQ(t.run(c, {"SUBSTR", "a", "-3", "-1"}), "$3\r\next\r\n");
  EXPECT_EQ(t.run(c, {"SUBSTR", "a", "x", "1"}),
            "-ERR value is not an integer or out of range\r\n");
}

TEST(StringCommands, LcsStringLengthAndMatches) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"MSET", "a", "ohmytext", "b", "mynewtext"});
  t.run(c, {"RPUSH", "l", "x"});
  EXPECT_EQ(t.run(c, {"LCS", "a", "b"}), "$6\r\nmytext\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "b", "LEN"}), ":6\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "b", "IDX", "WITHMATCHLEN"}),
            "*4\r\n$7\r\nmatches\r\n*2\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
            "*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n$3\r\nlen\r\n:6\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "b", "idx", "minmatchlen", "4"}),
            "*4\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
            "$3\r\nlen\r\n:6\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "nokey", "IDX"}),
            "*4\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "b", "IDX", "LEN"}),
            "-ERR If you want both the length and indexes, please just use IDX.\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "b", "MINMATCHLEN"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"LCS", "a", "l"}), "-ERR The specified keys must contain string values\r\n");
}

}  // namespace
