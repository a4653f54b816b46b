// The request parser keeps its own zero-copy inline splitter (views into the read buffer, an
// arena only for quoted words). This checks it against the shared base::split_args in its
// binary-safe form on every short line of a small alphabet and on random longer ones.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/protocol/request_parser.h"

namespace listd::protocol {
namespace {

// Quotes, escapes, hex digits, every kind of blank, NUL and plain letters: what the splitter
// treats specially. No '*' (a multibulk request) and no '\n' (the end of the line).
constexpr std::string_view kAlphabet{"a x4\"'\\\t\v\f\r\0", 12};

std::optional<std::vector<std::string>> parse_inline_line(const std::string& line) {
  RequestParser parser;
  const std::string request = line + "\n";
  const ParseStatus status = parser.parse(request);
  if (status == ParseStatus::kError) {
    EXPECT_EQ(parser.error_message(), kProtoErrUnbalancedQuotes) << base::repr(line);
    return std::nullopt;
  }
  EXPECT_EQ(status, ParseStatus::kRequest) << base::repr(line);
  EXPECT_EQ(parser.consumed(), request.size()) << base::repr(line);
  return std::vector<std::string>(parser.argv().begin(), parser.argv().end());
}

std::optional<std::vector<std::string>> shared_split(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF is one line end
  return base::split_args(line, base::NulByte::kIsData);
}

void expect_same(const std::string& line) {
  EXPECT_EQ(parse_inline_line(line), shared_split(line)) << base::repr(line);
}

TEST(InlineSplit, EveryLineUpToFourBytesAgreesWithSplitArgs) {
  std::string line;
  std::vector<std::size_t> digits;
  for (std::size_t len = 1; len <= 4; ++len) {
    digits.assign(len, 0);
    for (;;) {
      line.clear();
      for (std::size_t d : digits) line += kAlphabet[d];
      if (line[0] != '*') expect_same(line);
      std::size_t i = 0;
      while (i < len && ++digits[i] == kAlphabet.size()) digits[i++] = 0;
      if (i == len) break;
    }
  }
}

TEST(InlineSplit, RandomLinesAgreeWithSplitArgs) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
  std::uniform_int_distribution<std::size_t> length(1, 40);
  for (int n = 0; n < 20000; ++n) {
    std::string line;
    for (std::size_t len = length(rng); line.size() < len;) line += kAlphabet[pick(rng)];
    expect_same(line);
  }
}

TEST(InlineSplit, HexEscapesAndQuotedRunsAgree) {
  for (const char* line : {"set k \"\\x41\\x4g\\x\"", "a'b c'd", "ab\"c d\" e", "'\\'' x",
                           "\"\\\\\" \"\\q\"", "get \"\\xff\\x00\""})
    expect_same(line);
}

}  // namespace
}  // namespace listd::protocol
