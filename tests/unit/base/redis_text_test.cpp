#include "listd/base/redis_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace listd::base {
namespace {

using namespace std::string_view_literals;
using V = std::vector<std::string>;

TEST(Case, FoldsAsciiLettersOnly) {
  EXPECT_EQ(to_lower("GeT\xc8Z1"), "get\xc8z1");
  char buf[8];
  EXPECT_EQ(to_lower("LPUSH", buf), "lpush");
  EXPECT_TRUE(iequals("WithScores", "withscores"));
  EXPECT_FALSE(iequals("withscore", "withscores"));
  EXPECT_FALSE(iequals("\xc8", "\xe8"));  // no Latin-1 folding in the "C" locale
  EXPECT_TRUE(iequals("", ""));
}

TEST(Trim, RemovesTheGivenBytesAtBothEnds) {
  EXPECT_EQ(trim("  a b \r\n"), "a b");
  EXPECT_EQ(trim(" \t\r\n"), "");
  EXPECT_EQ(trim("xxaxx", "x"), "a");
  EXPECT_EQ(trim("\va\v"), "\va\v");  // only the bytes asked for
}

TEST(Hex, DigitsAndValues) {
  EXPECT_TRUE(is_hex_digit('f'));
  EXPECT_TRUE(is_hex_digit('F'));
  EXPECT_FALSE(is_hex_digit('g'));
  EXPECT_EQ(hex_digit_value('a'), 10);
  EXPECT_EQ(hex_digit_value('F'), 15);
  EXPECT_EQ(hex_digit_value('7'), 7);
  EXPECT_EQ(hex_digit_value('x'), -1);
}

TEST(SplitArgs, HandlesQuotesAndEscapes) {
  EXPECT_EQ(split_args("port 6379"), (V{"port", "6379"}));
  EXPECT_EQ(split_args("  a\t b  "), (V{"a", "b"}));
  EXPECT_EQ(split_args("requirepass \"a b\""), (V{"requirepass", "a b"}));
  EXPECT_EQ(split_args("x \"\\n\\t\\\"\\x41\\q\""), (V{"x", "\n\t\"Aq"}));
  EXPECT_EQ(split_args("x 'it\\'s'"), (V{"x", "it's"}));
  EXPECT_EQ(split_args("x 'a\\nb'"), (V{"x", "a\\nb"}));
  EXPECT_EQ(split_args("save \"\""), (V{"save", ""}));
  EXPECT_EQ(split_args("a\"b c\"d"), std::nullopt);
  EXPECT_EQ(split_args("ab\"c d\""), (V{"abc d"}));
  EXPECT_EQ(split_args(""), V{});
  EXPECT_EQ(split_args("x \"open"), std::nullopt);
  EXPECT_EQ(split_args("x 'open"), std::nullopt);
  EXPECT_EQ(split_args("x \"a\"b"), std::nullopt);
  EXPECT_EQ(split_args("x \"a\\"), std::nullopt);       // a backslash cannot escape the line's end
  EXPECT_EQ(split_args("x \"\\x4\""), (V{"x", "x4"}));  // half a hex escape is \x then "4"
}

TEST(SplitArgs, VerticalTabSeparatesWordsButDoesNotEndOne) {
  // Redis skips every isspace() byte between words but ends a plain word only on " \n\r\t".
  EXPECT_EQ(split_args("\va\vb c"), (V{"a\vb", "c"}));
  EXPECT_EQ(split_args("\"a\"\fb"), (V{"a", "b"}));  // and may follow a closing quote
}

TEST(SplitArgs, NulEndsTheLineOrIsData) {
  EXPECT_EQ(split_args("a b\0c d"sv), (V{"a", "b"}));
  EXPECT_EQ(split_args("a \"b\0c\""sv), std::nullopt);
  EXPECT_EQ(split_args("a b\0c d"sv, NulByte::kIsData), (V{"a", std::string("b\0c", 3), "d"}));
  EXPECT_EQ(split_args("a \"b\0c\""sv, NulByte::kIsData), (V{"a", std::string("b\0c", 3)}));
}

TEST(Repr, QuotesAndEscapesLikeSdscatrepr) {
  EXPECT_EQ(repr("abc"), "\"abc\"");
  EXPECT_EQ(repr("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(repr("\x01"), "\"\\x01\"");
  EXPECT_EQ(repr("\xff\x7f"), "\"\\xff\\x7f\"");
  EXPECT_EQ(repr("\\\n\r\t\a\b"), "\"\\\\\\n\\r\\t\\a\\b\"");
  std::string out = "+";
  append_repr(out, "a b");
  EXPECT_EQ(out, "+\"a b\"");
}

TEST(Repr, RoundTripsThroughSplitArgs) {
  const std::string nasty = "a \"b\" \\ \n\r\t\a\b \x01\xff";
  const auto words = split_args("x " + repr(nasty));
  ASSERT_TRUE(words.has_value());
  EXPECT_EQ(words->at(1), nasty);
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte += static_cast<char>(c);
  EXPECT_EQ(split_args(repr(every_byte)), (V{every_byte}));
}

TEST(Repr, NeedsReprLikeSdsneedsrepr) {
  EXPECT_FALSE(needs_repr("appendonly.aof.1.base.rdb"));
  EXPECT_FALSE(needs_repr(""));
  for (std::string_view s : {"a b"sv, "a\"b"sv, "a\\b"sv, "a\nb"sv, "\x01"sv, "\xff"sv, "a\0"sv})
    EXPECT_TRUE(needs_repr(s)) << repr(s);
}

}  // namespace
}  // namespace listd::base
