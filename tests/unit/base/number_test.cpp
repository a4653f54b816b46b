#include "listd/base/number.h"

#include <gtest/gtest.h>

namespace listd::base {
namespace {

TEST(Number, StrictIntegerLikeRedis) {
  long long v = 0;
  for (const char* ok : {"0", "1", "-1", "9223372036854775807", "-9223372036854775808"})
    EXPECT_TRUE(parse_strict_integer(ok, v)) << ok;
  for (const char* bad : {"", "+1", " 1", "1 ", "01", "-0", "1.5", "9223372036854775808",
                          "-9223372036854775809", "abc", "-", "00", "18446744073709551616",
                          "99999999999999999999", "-18446744073709551615", "1a", "-a"})
    EXPECT_FALSE(parse_strict_integer(bad, v)) << bad;
  for (auto [text, value] : {std::pair{"7", 7LL},
                             {"-7", -7LL},
                             {"10", 10LL},
                             {"123456", 123456LL},
                             {"-9223372036854775808", -9223372036854775807LL - 1}}) {
    ASSERT_TRUE(parse_strict_integer(text, v)) << text;
    EXPECT_EQ(v, value) << text;
  }
}

TEST(Number, LongDoubleLikeRedisString2ld) {
  long double v = 0;
  for (const char* ok : {"0.1", "5", "1e-05", "0x10", "inf", "-inf", "1e400", "-0.0001"})
    EXPECT_TRUE(parse_long_double(ok, v)) << ok;
  for (const char* bad : {"", " 1", "1 ", "nan", "abc", "1e-99999"})
    EXPECT_FALSE(parse_long_double(bad, v)) << bad;
}

TEST(Number, HumanFriendlyLongDouble) {
  EXPECT_EQ(format_long_double_human(10.6L), "10.6");
  EXPECT_EQ(format_long_double_human(3.0L), "3");
  EXPECT_EQ(format_long_double_human(-0.0L), "0");
}

}  // namespace
}  // namespace listd::base
