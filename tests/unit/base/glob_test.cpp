#include "listd/base/glob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace listd::base {
namespace {

using namespace std::string_view_literals;

TEST(GlobTest, StarMatchesAnyNonEmptySubject) {
  EXPECT_TRUE(glob_match("*", "hello"));
  EXPECT_TRUE(glob_match("*", "x"));
  EXPECT_TRUE(glob_match("**", "hello"));
  EXPECT_TRUE(glob_match("h*", "hello"));
  EXPECT_TRUE(glob_match("*o", "hello"));
  EXPECT_FALSE(glob_match("*x", "hello"));
}

TEST(GlobTest, EmptySubjectOnlyMatchesEmptyPatternLikeRedis7) {
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("**", ""));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_FALSE(glob_match("", "a"));
}

TEST(GlobTest, TrailingStarsMatchEmptyRemainder) {
  EXPECT_TRUE(glob_match("hello*", "hello"));
  EXPECT_TRUE(glob_match("hello***", "hello"));
  EXPECT_FALSE(glob_match("hello*?", "hello"));
}

TEST(GlobTest, QuestionMarkMatchesExactlyOneByte) {
  EXPECT_TRUE(glob_match("h?llo", "hello"));
  EXPECT_TRUE(glob_match("h?llo", "hallo"));
  EXPECT_FALSE(glob_match("h?llo", "hllo"));
  EXPECT_FALSE(glob_match("h?llo", "heello"));
}

TEST(GlobTest, StarInTheMiddle) {
  EXPECT_TRUE(glob_match("h*llo", "hllo"));
  EXPECT_TRUE(glob_match("h*llo", "heeeello"));
  EXPECT_FALSE(glob_match("h*llo", "heeeelo"));
  EXPECT_TRUE(glob_match("*llo*", "hello world"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXbYbZ"));
}

TEST(GlobTest, CharacterClass) {
  EXPECT_TRUE(glob_match("h[ae]llo", "hello"));
  EXPECT_TRUE(glob_match("h[ae]llo", "hallo"));
  EXPECT_FALSE(glob_match("h[ae]llo", "hillo"));
}

TEST(GlobTest, NegatedClass) {
  EXPECT_TRUE(glob_match("h[^e]llo", "hallo"));
  EXPECT_TRUE(glob_match("h[^e]llo", "hbllo"));
  EXPECT_FALSE(glob_match("h[^e]llo", "hello"));
  // "[^]" is an empty negated class: any byte.
  EXPECT_TRUE(glob_match("[^]", "x"));
  // "[]" is an empty class: nothing.
  EXPECT_FALSE(glob_match("[]", "x"));
}

TEST(GlobTest, Ranges) {
  EXPECT_TRUE(glob_match("h[a-b]llo", "hallo"));
  EXPECT_TRUE(glob_match("h[a-b]llo", "hbllo"));
  EXPECT_FALSE(glob_match("h[a-b]llo", "hcllo"));
  EXPECT_TRUE(glob_match("[0-9][0-9]", "42"));
  EXPECT_TRUE(glob_match("[a-cx]", "x"));
  EXPECT_TRUE(glob_match("[-a]", "-"));
  // Redis reads "[a-]" as the range 'a'..']' (swapped to ']'..'a'), not as 'a' or '-'.
  EXPECT_FALSE(glob_match("[a-]", "-"));
  EXPECT_TRUE(glob_match("[a-]", "_"));
}

TEST(GlobTest, ReversedRangeIsSwapped) {
  EXPECT_TRUE(glob_match("h[b-a]llo", "hallo"));
  EXPECT_TRUE(glob_match("[z-a]", "m"));
  EXPECT_FALSE(glob_match("[z-a]", "A"));
}

TEST(GlobTest, BackslashEscapes) {
  EXPECT_TRUE(glob_match("\\*", "*"));
  EXPECT_FALSE(glob_match("\\*", "a"));
  EXPECT_TRUE(glob_match("a\\?b", "a?b"));
  EXPECT_FALSE(glob_match("a\\?b", "axb"));
  EXPECT_TRUE(glob_match("\\[a]", "[a]"));
  EXPECT_TRUE(glob_match("\\\\", "\\"));
  // A trailing backslash is a literal backslash.
  EXPECT_TRUE(glob_match("a\\", "a\\"));
  // Escapes inside a class.
  EXPECT_TRUE(glob_match("[\\]]", "]"));
  EXPECT_TRUE(glob_match("[\\-a]", "-"));
}

TEST(GlobTest, UnmatchedBracketRunsToEndOfPattern) {
  EXPECT_FALSE(glob_match("[", "["));
  EXPECT_FALSE(glob_match("[", "a"));
  EXPECT_TRUE(glob_match("a[bc", "ab"));
  EXPECT_TRUE(glob_match("a[bc", "ac"));
  EXPECT_FALSE(glob_match("a[bc", "abc"));
  // "[^" is a negated empty class at the end of the pattern: any one byte.
  EXPECT_TRUE(glob_match("[^", "z"));
}

TEST(GlobTest, NocaseFoldsAsciiLetters) {
  EXPECT_TRUE(glob_match("HELLO", "hello", true));
  EXPECT_FALSE(glob_match("HELLO", "hello", false));
  EXPECT_TRUE(glob_match("MAX*", "maxmemory", true));
  EXPECT_TRUE(glob_match("h[AE]llo", "hEllo", true));
  EXPECT_TRUE(glob_match("h[A-C]llo", "hbllo", true));
  EXPECT_FALSE(glob_match("h[A-C]llo", "hbllo", false));
}

TEST(GlobTest, NocaseEscapedClassMemberStaysCaseSensitiveLikeRedis) {
  EXPECT_FALSE(glob_match("[\\A]", "a", true));
  EXPECT_TRUE(glob_match("[\\A]", "A", true));
  // Outside a class the escaped byte folds as usual.
  EXPECT_TRUE(glob_match("\\A", "a", true));
}

TEST(GlobTest, BinarySafe) {
  EXPECT_TRUE(glob_match("a?c"sv, "a\0c"sv));
  EXPECT_TRUE(glob_match("a\0*"sv, "a\0bc"sv));
  EXPECT_FALSE(glob_match("a\0*"sv, "ab"sv));
}

TEST(GlobTest, PathologicalPatternFinishesQuickly) {
  // Redis' regression test "Regression for pattern matching very long nested loops".
  std::string pattern;
  for (int i = 0; i < 500; ++i) pattern += "a*";
  pattern += "b";
  const std::string subject(100000, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(glob_match(pattern, subject));
  EXPECT_TRUE(glob_match(pattern.substr(0, pattern.size() - 1), subject));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST(GlobTest, MoreThanAThousandStarGroupsNeverMatchLikeRedis) {
  std::string thousand;
  for (int i = 0; i < 1000; ++i) thousand += "*a";
  const std::string subject(3000, 'a');
  EXPECT_TRUE(glob_match(thousand, subject));
  // A final, 1001st group is accepted before Redis recurses.
  EXPECT_TRUE(glob_match(thousand + "*", subject));
  // A 1001st group followed by anything exceeds the recursion limit.
  EXPECT_FALSE(glob_match(thousand + "*a", subject));
}

}  // namespace
}  // namespace listd::base
