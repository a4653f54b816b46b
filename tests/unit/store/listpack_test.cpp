#include "listd/store/listpack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace listd::store {
namespace {

std::vector<std::string> texts(const Listpack& lp) {
  std::vector<std::string> out;
  char buf[24];
  for (auto p = lp.first(); p != Listpack::kNone; p = lp.next(p))
    out.emplace_back(lp.at(p).text(buf));
  return out;
}

TEST(Listpack, EmptyIsHeaderAndTerminator) {
  Listpack lp;
  EXPECT_EQ(lp.bytes(), 7u);
  EXPECT_EQ(lp.first(), Listpack::kNone);
  EXPECT_EQ(lp.raw(), std::string_view("\x07\x00\x00\x00\x00\x00\xff", 7));
}

TEST(Listpack, IntegersOfEveryWidthRoundTrip) {
  const std::vector<std::int64_t> values = {0,       127,     128,        -1,        -4096,
                                            4095,    4096,    -32768,     32767,     -8388608,
                                            8388607, 1 << 30, -(1 << 30), INT64_MAX, INT64_MIN};
  Listpack lp;
  for (auto v : values) lp.append_int(v);
  std::size_t i = 0;
  for (auto p = lp.first(); p != Listpack::kNone; p = lp.next(p), ++i) {
    const LpItem it = lp.at(p);
    ASSERT_TRUE(it.is_int);
    EXPECT_EQ(it.integer, values[i]);
  }
  EXPECT_EQ(i, values.size());
  EXPECT_EQ(lp.count(), values.size());
}

TEST(Listpack, StringsThatAreStrictIntegersAreStoredAsIntegers) {
  Listpack lp;
  lp.append_string("123");
  lp.append_string("0123");
  lp.append_string("-0");
  lp.append_string(std::string(70, 'x'));
  lp.append_string(std::string(5000, 'y'));
  const auto p = lp.first();
  EXPECT_TRUE(lp.at(p).is_int);
  EXPECT_FALSE(lp.at(lp.next(p)).is_int);
  EXPECT_EQ(texts(lp), (std::vector<std::string>{"123", "0123", "-0", std::string(70, 'x'),
                                                 std::string(5000, 'y')}));
  // 6-bit string "0123" is 1 + 4 bytes + 1 backlen; integer 123 is 1 + 1.
  EXPECT_EQ(lp.next(p) - p, 2u);
}

TEST(Listpack, WalksBackwardsThroughLongBacklens) {
  Listpack lp;
  lp.append_string("a");
  lp.append_string(std::string(300, 'b'));
  lp.append_int(7);
  auto p = lp.last();
  EXPECT_EQ(lp.int_at(p), 7);
  p = lp.prev(p);
  EXPECT_EQ(lp.at(p).str.size(), 300u);
  p = lp.prev(p);
  EXPECT_EQ(lp.at(p).str, "a");
  EXPECT_EQ(lp.prev(p), Listpack::kNone);
}

TEST(Listpack, ReplaceIntMayChangeTheWidth) {
  Listpack lp;
  lp.append_int(127);
  lp.append_string("tail");
  lp.replace_int(lp.first(), 128);
  EXPECT_EQ(texts(lp), (std::vector<std::string>{"128", "tail"}));
  EXPECT_EQ(lp.prev(lp.last()), lp.first());
  EXPECT_EQ(lp.bytes(), lp.raw().size());
}

TEST(Listpack, FromRawAcceptsItsOwnBytesAndRejectsDamage) {
  Listpack lp;
  lp.append_string("field");
  lp.append_int(-5000);
  const std::string raw(lp.raw());
  const auto copy = Listpack::from_raw(raw);
  ASSERT_TRUE(copy.has_value());
  EXPECT_EQ(texts(*copy), texts(lp));
  std::string bad = raw;
  bad[bad.size() - 2] ^= 0x01;  // the last backlen
  EXPECT_FALSE(Listpack::from_raw(bad).has_value());
  EXPECT_FALSE(Listpack::from_raw(raw.substr(0, raw.size() - 1)).has_value());
}

}  // namespace
}  // namespace listd::store
