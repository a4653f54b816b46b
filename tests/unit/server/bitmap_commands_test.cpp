// Bitmap commands through the executor; expected bytes checked against Redis 7.0.15.
#include <gtest/gtest.h>

#include <string>

#include "listd/server/bit_ops.h"
#include "support/test_server.h"

using listd::testing::TestServer;
namespace bits = listd::server::bits;

namespace {

constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr const char* kOffsetErr = "-ERR bit offset is not an integer or out of range\r\n";

TEST(BitOps, FirstBitPadsClearBitsAndWalksWords) {
  EXPECT_EQ(bits::first_bit(std::string(20, '\xff'), 0), 160);
  EXPECT_EQ(bits::first_bit(std::string(20, '\0'), 1), -1);
  std::string s(20, '\0');
  s[17] = 0x10;
  EXPECT_EQ(bits::first_bit(s, 1), 17 * 8 + 3);
  EXPECT_EQ(bits::popcount(s + std::string(9, '\xff')), 73);
}

TEST(BitOps, OverflowRulesOfEachMode) {
  std::uint64_t u = 0;
  EXPECT_EQ(bits::unsigned_overflow(250, 10, 8, bits::Overflow::kWrap, u), 1);
  EXPECT_EQ(u, 4u);
  EXPECT_EQ(bits::unsigned_overflow(3, -10, 8, bits::Overflow::kSat, u), -1);
  EXPECT_EQ(u, 0u);
  std::int64_t i = 0;
  EXPECT_EQ(bits::signed_overflow(100, 100, 8, bits::Overflow::kWrap, i), 1);
  EXPECT_EQ(i, -56);
  EXPECT_EQ(bits::signed_overflow(-100, -100, 8, bits::Overflow::kSat, i), -1);
  EXPECT_EQ(i, -128);
  EXPECT_EQ(bits::signed_overflow(INT64_MAX, 1, 64, bits::Overflow::kSat, i), 1);
  EXPECT_EQ(i, INT64_MAX);
  EXPECT_EQ(bits::signed_overflow(5, -3, 64, bits::Overflow::kFail, i), 0);
}

TEST(BitmapCommands, SetbitGetbitAndTheirErrors) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "7", "1"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "100", "1"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "100", "1"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"GETBIT", "k", "7"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"GETBIT", "k", "8"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"GETBIT", "nokey", "8"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"STRLEN", "k"}), ":13\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "k"}), "$3\r\nraw\r\n");
  // 512 MB of bits is the limit (proto-max-bulk-len)
  EXPECT_EQ(t.run(c, {"GETBIT", "k", "4294967296"}), kOffsetErr);
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "4294967296", "1"}), kOffsetErr);
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "-1", "1"}), kOffsetErr);
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "1", "2"}), "-ERR bit is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"SETBIT", "k", "1", "x"}), "-ERR bit is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"SET", "n", "5"}), "+OK\r\n");  // an "int" string edits as its digits
  EXPECT_EQ(t.run(c, {"SETBIT", "n", "6", "1"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"GET", "n"}), "$1\r\n7\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "l", "a"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"SETBIT", "l", "0", "1"}), kWrongType);
  EXPECT_EQ(t.run(c, {"GETBIT", "l", "0"}), kWrongType);
}

TEST(BitmapCommands, BitcountAndBitposRanges) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SETBIT", "k", "7", "1"});
  t.run(c, {"SETBIT", "k", "100", "1"});
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "0", "0"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "0", "-1", "bit"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "8", "99", "BIT"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "a", "b"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "0", "1", "foo"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"BITCOUNT", "k", "-1", "-2", "foo"}), ":0\r\n");  // empty before syntax
  EXPECT_EQ(t.run(c, {"BITCOUNT", "nokey", "x"}), ":0\r\n");            // absent before syntax
  EXPECT_EQ(t.run(c, {"BITPOS", "k", "1"}), ":7\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "k", "0"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "k", "2"}), "-ERR The bit argument must be 1 or 0.\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "k", "1", "1"}), ":100\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "k", "0", "0", "0", "bit"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "k", "1", "8", "100", "bit"}), ":100\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "nokey", "0", "x"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "nokey", "1"}), ":-1\r\n");
  EXPECT_EQ(t.run(c, {"SET", "ff", "\xff\xff"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"BITPOS", "ff", "0"}), ":16\r\n");             // padded with zeros
  EXPECT_EQ(t.run(c, {"BITPOS", "ff", "0", "0", "-1"}), ":-1\r\n");  // an explicit end is not
  EXPECT_EQ(t.run(c, {"BITPOS", "ff", "0", "3", "9", "bit"}), ":-1\r\n");
}

TEST(BitmapCommands, BitopStoresOrDeletesTheDestination) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SET", "a", "abc"});
  t.run(c, {"SET", "b", "\x0f"});
  EXPECT_EQ(t.run(c, {"BITOP", "and", "d", "a", "b"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"GET", "d"}), std::string("$3\r\n\x01\0\0\r\n", 9));
  EXPECT_EQ(t.run(c, {"BITOP", "XOR", "d", "a", "b", "nokey"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"GET", "d"}), "$3\r\nnbc\r\n");
  EXPECT_EQ(t.run(c, {"BITOP", "not", "d", "b"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"GET", "d"}), "$1\r\n\xf0\r\n");
  EXPECT_EQ(t.run(c, {"BITOP", "not", "d", "a", "b"}),
            "-ERR BITOP NOT must be called with a single source key.\r\n");
  EXPECT_EQ(t.run(c, {"BITOP", "foo", "d", "a"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "d", "100"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"BITOP", "or", "d", "a"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "d"}), ":-1\r\n");  // stored as SET does
  EXPECT_EQ(t.run(c, {"BITOP", "or", "d", "nokey"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "d"}), ":0\r\n");
  t.run(c, {"RPUSH", "l", "x"});
  EXPECT_EQ(t.run(c, {"BITOP", "or", "d", "a", "l"}), kWrongType);
}

TEST(BitmapCommands, BitfieldOperationsAndOverflow) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(
      t.run(c, {"BITFIELD", "b",        "set",  "i8",     "0",        "-100", "get",    "u4", "#1",
                "incrby",   "u2",       "100",  "1",      "overflow", "sat",  "incrby", "i8", "0",
                "-200",     "overflow", "fail", "incrby", "u8",       "0",    "1000"}),
      "*5\r\n:0\r\n:12\r\n:1\r\n:-128\r\n$-1\r\n");
  EXPECT_EQ(t.run(c, {"BITFIELD_RO", "b", "get", "i8", "0"}), "*1\r\n:-128\r\n");
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "get", "i64", "60", "get", "u63", "0"}),
            "*2\r\n:4194304\r\n:4611686018427387904\r\n");
  EXPECT_EQ(t.run(c, {"BITFIELD", "nokey"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "nokey"}), ":0\r\n");
  const char* type_err =
      "-ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
      "i64 is.\r\n";
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "get", "i65", "0"}), type_err);
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "get", "u64", "0"}), type_err);
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "get", "i8", "x"}), kOffsetErr);
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "get", "i8", "#-1"}), kOffsetErr);
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "set", "i8", "#536870912", "1"}), kOffsetErr);
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "overflow", "foo"}),
            "-ERR Invalid OVERFLOW type specified\r\n");
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "foo"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"BITFIELD", "b", "set", "i8", "0"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"BITFIELD_RO", "b", "set", "i8", "0", "1"}),
            "-ERR BITFIELD_RO only supports the GET subcommand\r\n");
  t.run(c, {"RPUSH", "l", "x"});
  EXPECT_EQ(t.run(c, {"BITFIELD", "l", "get", "i8", "0"}), kWrongType);
  EXPECT_EQ(t.run(c, {"BITFIELD", "l", "set", "i8", "0", "1"}), kWrongType);
}

}  // namespace
