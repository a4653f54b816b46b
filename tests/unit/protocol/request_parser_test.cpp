// RequestParser: every request form Redis 7.0 accepts, every protocol error with its exact text,
// the size limits, fragmentation at every byte boundary, buffer moves between calls, linear work
// and no allocation in the steady state.
#include "listd/protocol/request_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

// Allocation counting for the whole test binary, active only inside an AllocationCounter scope.
namespace {
std::atomic<bool> g_count_allocations{false};
std::atomic<std::size_t> g_allocations{0};
std::atomic<std::size_t> g_allocated_bytes{0};

void* counted_alloc(std::size_t n) {
  if (g_count_allocations.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    g_allocated_bytes.fetch_add(n, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace listd::protocol {
namespace {

using namespace std::string_literals;
using Argv = std::vector<std::string>;

class AllocationCounter {
 public:
  AllocationCounter() {
    g_allocations = 0;
    g_allocated_bytes = 0;
    g_count_allocations = true;
  }
  ~AllocationCounter() { g_count_allocations = false; }
  std::size_t count() const { return g_allocations.load(); }
  std::size_t bytes() const { return g_allocated_bytes.load(); }
};

Argv to_argv(std::span<const std::string_view> views) { return Argv(views.begin(), views.end()); }

// What a connection sees: the requests in order (with their sizes), then how it stopped.
struct Outcome {
  std::vector<Argv> requests;
  std::vector<std::size_t> sizes;
  ParseStatus last = ParseStatus::kIncomplete;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << o.requests.size() << " requests [";
  for (const auto& r : o.requests) {
    os << "(";
    for (const auto& a : r) os << '"' << a << "\" ";
    os << ")";
  }
  return os << "] last=" << static_cast<int>(o.last) << " error=" << o.error;
}

// Delivers input in chunks ending at `cuts` (ascending, last == input.size()) like a connection:
// append the chunk, parse until kIncomplete, drop consumed bytes. Before every parse the buffer
// is moved to a fresh allocation and the old one poisoned, so any stale pointer shows up.
Outcome run_chunked(std::string_view input, const std::vector<std::size_t>& cuts,
                    ParserLimits limits = {}) {
  RequestParser parser(limits);
  Outcome out;
  std::string buffer;
  std::size_t fed = 0;
  for (std::size_t cut : cuts) {
    buffer.append(input.substr(fed, cut - fed));
    fed = cut;
    for (;;) {
      std::string moved(buffer);
      std::fill(buffer.begin(), buffer.end(), '\xAA');
      buffer.swap(moved);
      const ParseStatus st = parser.parse(buffer);
      out.last = st;
      if (st == ParseStatus::kError) {
        out.error = std::string(parser.error_message());
        return out;
      }
      if (st == ParseStatus::kIncomplete) break;
      EXPECT_GT(parser.consumed(), 0u);
      EXPECT_LE(parser.consumed(), buffer.size());
      out.requests.push_back(to_argv(parser.argv()));
      out.sizes.push_back(parser.consumed());
      buffer.erase(0, parser.consumed());
    }
  }
  return out;
}

Outcome run_whole(std::string_view input, ParserLimits limits = {}) {
  return run_chunked(input, {input.size()}, limits);
}

// Every two-chunk split and the one-byte-at-a-time feed give the same outcome as one read.
void expect_same_at_every_split(std::string_view input, ParserLimits limits = {}) {
  const Outcome whole = run_whole(input, limits);
  for (std::size_t k = 1; k < input.size(); ++k) {
    ASSERT_EQ(run_chunked(input, {k, input.size()}, limits), whole) << "split at " << k;
  }
  std::vector<std::size_t> bytewise(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) bytewise[i] = i + 1;
  ASSERT_EQ(run_chunked(input, bytewise, limits), whole) << "byte by byte";
}

// One request fed through one parser with growing prefixes (each in a new buffer): kIncomplete
// for every proper prefix, then exactly this request.
void expect_incomplete_until_last_byte(std::string_view input, const Argv& expected) {
  RequestParser parser;
  for (std::size_t k = 0; k < input.size(); ++k) {
    const std::string prefix(input.substr(0, k));
    ASSERT_EQ(parser.parse(prefix), ParseStatus::kIncomplete) << "prefix " << k;
    ASSERT_TRUE(parser.argv().empty());
  }
  const std::string all(input);
  ASSERT_EQ(parser.parse(all), ParseStatus::kRequest);
  EXPECT_EQ(to_argv(parser.argv()), expected);
  EXPECT_EQ(parser.consumed(), input.size());
}

ParseStatus parse_once(RequestParser& parser, std::string_view input) {
  return parser.parse(input);
}

std::string error_of(std::string_view input, ParserLimits limits = {}) {
  RequestParser parser(limits);
  if (parser.parse(input) != ParseStatus::kError) return "<no error>";
  return std::string(parser.error_message());
}

std::string multibulk(const Argv& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

bool points_into(std::string_view view, std::string_view buf) {
  return view.data() >= buf.data() && view.data() + view.size() <= buf.data() + buf.size();
}

const std::string kBinary20 = "=kQ\x97=\x9asI\x8b\x13\x8a\x9d)\xbb<\x19\xb2\xf0\xdf\x0c"s;

// ---------------------------------------------------------------- valid multibulk requests

TEST(RequestParserTest, MultibulkRequestGivesViewsIntoTheBuffer) {
  const std::string in = "*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$3\r\nabc\r\n";
  RequestParser parser;
  ASSERT_EQ(parser.parse(in), ParseStatus::kRequest);
  EXPECT_EQ(to_argv(parser.argv()), (Argv{"RPUSH", "k", "abc"}));
  EXPECT_EQ(parser.consumed(), in.size());
  for (std::string_view a : parser.argv()) EXPECT_TRUE(points_into(a, in));
  EXPECT_FALSE(parser.in_progress());
}

TEST(RequestParserTest, BulkIsBinarySafeWithNulAndCrlfInside) {
  const std::string value = "a\0b\r\nc\r\n\n\r"s;
  const std::string in = multibulk({"ECHO", value});
  expect_incomplete_until_last_byte(in, {"ECHO", value});
}

TEST(RequestParserTest, EmptyBulkIsAnEmptyArgument) {
  expect_incomplete_until_last_byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", {"SET", "k", ""});
}

TEST(RequestParserTest, ZeroAndNegativeCountsAreConsumedWithoutACommand) {
  for (std::string in : {"*0\r\n", "*-1\r\n", "*-100\r\n"}) {
    RequestParser parser;
    ASSERT_EQ(parser.parse(in), ParseStatus::kRequest) << in;
    EXPECT_TRUE(parser.argv().empty());
    EXPECT_EQ(parser.consumed(), in.size());
  }
}

TEST(RequestParserTest, EveryValidMultibulkFormSurvivesEverySplit) {
  const std::vector<std::pair<std::string, Argv>> cases = {
      {"*1\r\n$4\r\nPING\r\n", {"PING"}},
      {"*0\r\n", {}},
      {"*-1\r\n", {}},
      {"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", {"ECHO", ""}},
      {multibulk({"LPUSH", "list", "a\0\r\n"s, "\r\n", std::string(300, 'x')}),
       {"LPUSH", "list", "a\0\r\n"s, "\r\n", std::string(300, 'x')}},
      {multibulk({"ECHO", kBinary20}), {"ECHO", kBinary20}},
  };
  for (const auto& [in, argv] : cases) {
    SCOPED_TRACE(in);
    expect_incomplete_until_last_byte(in, argv);
    expect_same_at_every_split(in);
  }
}

// ---------------------------------------------------------------- inline requests

TEST(RequestParserTest, InlineLineEndsWithLfOrCrLf) {
  expect_incomplete_until_last_byte("PING\r\n", {"PING"});
  expect_incomplete_until_last_byte("PING\n", {"PING"});
  expect_incomplete_until_last_byte("  LPUSH \t k   v  \r\n", {"LPUSH", "k", "v"});
}

TEST(RequestParserTest, InlinePlainWordsAreViewsIntoTheBuffer) {
  const std::string in = "RPUSH key value\r\n";
  RequestParser parser;
  ASSERT_EQ(parser.parse(in), ParseStatus::kRequest);
  ASSERT_EQ(parser.argv().size(), 3u);
  for (std::string_view a : parser.argv()) EXPECT_TRUE(points_into(a, in));
}

TEST(RequestParserTest, InlineDoubleQuotesUnescapeLikeSdssplitargs) {
  expect_incomplete_until_last_byte("SET \"a b\" \"\\n\\r\\t\\b\\a\\\\\\\"\\x41\\x7a\\xZZ\\q\"\r\n",
                                    {"SET", "a b", "\n\r\t\b\a\\\"AzxZZq"});
}

TEST(RequestParserTest, InlineSingleQuotesOnlyUnescapeTheQuote) {
  expect_incomplete_until_last_byte("SET 'it\\'s' 'a\\nb \"c\"'\n", {"SET", "it's", "a\\nb \"c\""});
}

TEST(RequestParserTest, InlineQuotedEmptyStringIsAnArgument) {
  expect_incomplete_until_last_byte("SET k \"\" ''\r\n", {"SET", "k", "", ""});
}

TEST(RequestParserTest, InlinePlainPrefixJoinsTheQuotedPart) {
  expect_incomplete_until_last_byte("ECHO ab\"c d\" x'y z'\r\n", {"ECHO", "abc d", "xy z"});
}

TEST(RequestParserTest, InlineQuotedArgumentsLiveInParserStorage) {
  const std::string in = "ECHO \"a b\" plain\r\n";
  RequestParser parser;
  ASSERT_EQ(parser.parse(in), ParseStatus::kRequest);
  ASSERT_EQ(parser.argv().size(), 3u);
  EXPECT_FALSE(points_into(parser.argv()[1], in));
  EXPECT_TRUE(points_into(parser.argv()[2], in));
}

TEST(RequestParserTest, InlineWhitespaceRulesFollowSdssplitargs) {
  // \v and \f are skipped between words but do not end a plain word; a lone \r splits words.
  expect_incomplete_until_last_byte("\vA\vB\f C\rD\n", {"A\vB\f", "C", "D"});
  // A closing quote may be followed by any isspace() byte, \v included.
  expect_incomplete_until_last_byte("\"a\"\vb\n", {"a", "b"});
  // Only one \r before the \n belongs to the terminator; the other one is a separator.
  expect_incomplete_until_last_byte("A\r\r\n", {"A"});
}

TEST(RequestParserTest, InlineBytesAboveAsciiAndNulAreOrdinary) {
  // Redis (C strings) would stall on the NUL; listd treats it as data.
  expect_incomplete_until_last_byte("ECHO \xff\xfe a\0b\r\n"s, {"ECHO", "\xff\xfe", "a\0b"s});
}

TEST(RequestParserTest, EmptyOrBlankInlineLineIsConsumedWithoutACommand) {
  for (std::string in : {"\r\n", "\n", "   \r\n", " \t \n"}) {
    RequestParser parser;
    ASSERT_EQ(parser.parse(in), ParseStatus::kRequest) << in;
    EXPECT_TRUE(parser.argv().empty());
    EXPECT_EQ(parser.consumed(), in.size());
  }
}

TEST(RequestParserTest, BareBulkIsAnInlineCommand) {
  const Outcome o = run_whole("$4\r\nPING\r\n");
  EXPECT_EQ(o.requests, (std::vector<Argv>{{"$4"}, {"PING"}}));
  EXPECT_EQ(o.sizes, (std::vector<std::size_t>{4, 6}));
  EXPECT_EQ(o.last, ParseStatus::kIncomplete);
}

TEST(RequestParserTest, LongInlineLineThatArrivesCompleteIsAccepted) {
  // Redis only rejects a line that is still unterminated past 64 KB.
  const std::string word(100 * 1024, 'a');
  const Outcome o = run_whole("ECHO " + word + "\r\n");
  ASSERT_EQ(o.requests.size(), 1u);
  EXPECT_EQ(o.requests[0], (Argv{"ECHO", word}));
}

// ---------------------------------------------------------------- pipelines

TEST(RequestParserTest, PipelinedRequestsInOneBufferComeOutInOrder) {
  std::string in;
  std::vector<Argv> expected;
  for (int i = 0; i < 50; ++i) {
    const Argv cmd{"RPUSH", "k" + std::to_string(i), std::string(i, 'v')};
    in += multibulk(cmd);
    expected.push_back(cmd);
    if (i % 7 == 0) {
      in += "PING\r\n";
      expected.push_back({"PING"});
    }
  }
  const Outcome o = run_whole(in);
  EXPECT_EQ(o.requests, expected);
  EXPECT_EQ(o.last, ParseStatus::kIncomplete);
}

TEST(RequestParserTest, RedisCliPipeSequenceSwitchesBackToMultibulk) {
  // redis-cli --pipe: user data, an empty inline line, then the ECHO of 20 random bytes.
  const std::string in =
      "RPUSH pl a\r\nRPUSH pl b\r\n\r\n*2\r\n$4\r\nECHO\r\n$20\r\n" + kBinary20 + "\r\n";
  const Outcome o = run_whole(in);
  EXPECT_EQ(o.requests, (std::vector<Argv>{
                            {"RPUSH", "pl", "a"}, {"RPUSH", "pl", "b"}, {}, {"ECHO", kBinary20}}));
  EXPECT_EQ(o.last, ParseStatus::kIncomplete);
  expect_same_at_every_split(in);
}

TEST(RequestParserTest, MixedPipelineSurvivesEverySplit) {
  const std::string in =
      "*1\r\n$4\r\nPING\r\n"
      "*0\r\n"
      "PING\n"
      "\r\n"
      "*-1\r\n"
      "SET \"a\\x00b\" 'c d'\r\n"
      "$4\r\nPING\r\n" +
      multibulk({"ECHO", "x\r\ny"}) + "*2\r\n$3\r\nGET\r\n$1\r\n";
  const Outcome o = run_whole(in);
  EXPECT_EQ(o.requests, (std::vector<Argv>{{"PING"},
                                           {},
                                           {"PING"},
                                           {},
                                           {},
                                           {"SET", "a\0b"s, "c d"},
                                           {"$4"},
                                           {"PING"},
                                           {"ECHO", "x\r\ny"}}));
  EXPECT_EQ(o.last, ParseStatus::kIncomplete);
  expect_same_at_every_split(in);
}

TEST(RequestParserTest, ConsumedCoversOnlyTheFirstRequest) {
  const std::string first = multibulk({"LPUSH", "k", "v"});
  const std::string in = first + "*2\r\n$4\r\nLLEN\r\n$1";
  RequestParser parser;
  ASSERT_EQ(parser.parse(in), ParseStatus::kRequest);
  EXPECT_EQ(parser.consumed(), first.size());
  ASSERT_EQ(parser.parse(std::string_view(in).substr(first.size())), ParseStatus::kIncomplete);
  EXPECT_TRUE(parser.in_progress());
}

// ---------------------------------------------------------------- Redis quirks kept

TEST(RequestParserTest, ByteAfterCrIsNotCheckedLikeRedis) {
  // Redis skips the byte after '\r' in header lines and the two bytes after a payload unchecked.
  EXPECT_EQ(run_whole("*1\rX$4\rYPINGxx").requests, (std::vector<Argv>{{"PING"}}));
}

TEST(RequestParserTest, DollarIsCheckedOnlyOnceTheLineIsComplete) {
  RequestParser parser;
  EXPECT_EQ(parser.parse("*1\r\n+PING"), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.parse("*1\r\n+PING\r"), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.parse("*1\r\n+PING\r\n"), ParseStatus::kError);
}

// ---------------------------------------------------------------- malformed requests

TEST(RequestParserTest, InvalidMultibulkLengthIsRejected) {
  for (std::string in : {"*a\r\n", "*\r\n", "*01\r\n", "*-0\r\n", "*+1\r\n", "* 1\r\n", "*1 \r\n",
                         "*1\n\r\n", "*99999999999999999999\r\n", "*123456789012345678901\r\n",
                         "*2147483648\r\n", "*3000000000\r\n"}) {
    EXPECT_EQ(error_of(in), kProtoErrInvalidMultibulkLength) << in;
  }
}

TEST(RequestParserTest, ExpectedDollarNamesTheByteFound) {
  EXPECT_EQ(error_of("*1\r\n+PING\r\n"), "Protocol error: expected '$', got '+'");
  EXPECT_EQ(error_of("*2\r\n$4\r\nECHO\r\n:1\r\n"), "Protocol error: expected '$', got ':'");
  EXPECT_EQ(error_of("*1\r\nPING\r\n"), "Protocol error: expected '$', got 'P'");
  // CR/LF become spaces (addReplyErrorFormat); a NUL cuts the C string right after "got '".
  EXPECT_EQ(error_of("*1\r\n\r\n"), "Protocol error: expected '$', got ' '");
  EXPECT_EQ(error_of("*1\r\n\n\r\n"), "Protocol error: expected '$', got ' '");
  EXPECT_EQ(error_of("*1\r\n\0x\r\n"s), "Protocol error: expected '$', got '");
  EXPECT_EQ(error_of("*1\r\n\xfe\r\n"), "Protocol error: expected '$', got '\xfe'");
}

TEST(RequestParserTest, InvalidBulkLengthIsRejected) {
  for (std::string in :
       {"*1\r\n$\r\n", "*1\r\n$-1\r\n", "*1\r\n$-0\r\n", "*1\r\n$abc\r\n", "*1\r\n$ 1\r\n",
        "*1\r\n$01\r\n", "*1\r\n$+1\r\n", "*1\r\n$9223372036854775807\r\n",
        "*1\r\n$9223372036854775808\r\n", "*1\r\n$536870913\r\n"}) {
    EXPECT_EQ(error_of(in), kProtoErrInvalidBulkLength) << in;
  }
}

TEST(RequestParserTest, UnbalancedInlineQuotesAreRejected) {
  for (std::string in :
       {"SET k \"abc\r\n", "SET k 'abc\r\n", "SET k \"abc\"def\r\n", "SET k 'a'b\r\n",
        "SET k \"abc\\\"\r\n", "\"\r\n", "ECHO \"a\\\"\n", "ECHO \"\\\r\n"}) {
    EXPECT_EQ(error_of(in), kProtoErrUnbalancedQuotes) << in;
  }
}

TEST(RequestParserTest, ErrorsAreTheSameAtEverySplit) {
  for (std::string in : {"*1\r\n+PING\r\n", "*2\r\n$4\r\nECHO\r\n$-5\r\n", "*x\r\n",
                         "PING\r\nSET \"a\r\n", "*1\r\n$4\r\nPING\r\n*1\r\n$1x\r\n"}) {
    SCOPED_TRACE(in);
    const Outcome o = run_whole(in);
    EXPECT_EQ(o.last, ParseStatus::kError);
    expect_same_at_every_split(in);
  }
}

TEST(RequestParserTest, ErrorIsStickyUntilReset) {
  RequestParser parser;
  ASSERT_EQ(parser.parse("*x\r\n"), ParseStatus::kError);
  EXPECT_EQ(parser.parse("PING\r\n"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrInvalidMultibulkLength);
  EXPECT_TRUE(parser.argv().empty());
  EXPECT_EQ(parser.consumed(), 0u);
  parser.reset();
  EXPECT_TRUE(parser.error_message().empty());
  ASSERT_EQ(parser.parse("PING\r\n"), ParseStatus::kRequest);
  EXPECT_EQ(to_argv(parser.argv()), (Argv{"PING"}));
}

TEST(RequestParserTest, ResetDropsAPartialRequest) {
  RequestParser parser;
  ASSERT_EQ(parser.parse("*2\r\n$3\r\nGET\r\n"), ParseStatus::kIncomplete);
  parser.reset();
  EXPECT_FALSE(parser.in_progress());
  ASSERT_EQ(parser.parse("PING\r\n"), ParseStatus::kRequest);
  EXPECT_EQ(to_argv(parser.argv()), (Argv{"PING"}));
}

TEST(RequestParserTest, RedisProtocolSuiteCasesBehaveLikeRedis) {
  // tests/unit/protocol.tcl in Redis.
  EXPECT_EQ(run_whole("\r\n").requests, (std::vector<Argv>{{}}));
  EXPECT_EQ(run_whole("*-10\r\n").requests, (std::vector<Argv>{{}}));
  EXPECT_EQ(error_of("*3000000000\r\n"), kProtoErrInvalidMultibulkLength);
  EXPECT_EQ(run_whole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n").error,
            "Protocol error: expected '$', got 'f'");
  EXPECT_EQ(run_whole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$-10\r\n").error, kProtoErrInvalidBulkLength);
  EXPECT_EQ(run_whole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$2000000000\r\n").error,
            kProtoErrInvalidBulkLength);
  EXPECT_EQ(run_whole("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$blabla\r\n").error,
            kProtoErrInvalidBulkLength);
  EXPECT_EQ(error_of("*1\r\nfoo\r\n"), "Protocol error: expected '$', got 'f'");
}

TEST(RequestParserTest, DesyncedStreamsEndInAProtocolErrorNotAHang) {
  // Redis "Protocol desync regression": a prefix, then "payload" forever without a newline.
  for (std::string prefix : {"\0"s, "*\0"s, "$\0"s}) {
    std::string stream = prefix;
    RequestParser parser;
    ParseStatus st = ParseStatus::kIncomplete;
    while (st == ParseStatus::kIncomplete && stream.size() < 1'000'000) {
      stream += "payload";
      st = parser.parse(stream);
    }
    ASSERT_EQ(st, ParseStatus::kError);
    EXPECT_LE(stream.size(), 64u * 1024 + 8);
    EXPECT_EQ(parser.error_message(),
              prefix == "*\0"s ? kProtoErrTooBigMbulkCount : kProtoErrTooBigInline);
  }
}

TEST(RequestParserTest, UnauthenticatedClientsGetSmallLimits) {
  RequestParser parser;
  parser.set_auth_required(true);
  ASSERT_EQ(parser.parse(multibulk(Argv(10, "a"))), ParseStatus::kRequest);
  EXPECT_EQ(parser.parse("*11\r\n"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrUnauthenticatedMultibulkLength);

  parser.reset();
  const std::string ok = multibulk({"AUTH", std::string(16384, 'p')});
  ASSERT_EQ(parser.parse(ok), ParseStatus::kRequest);
  EXPECT_EQ(parser.parse("*2\r\n$4\r\nAUTH\r\n$16385\r\n"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrUnauthenticatedBulkLength);

  // Invalid lengths keep their own error; authenticated clients have the normal limits.
  parser.reset();
  EXPECT_EQ(parser.parse("*1\r\n$-1\r\n"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrInvalidBulkLength);
  parser.reset();
  parser.set_auth_required(false);
  EXPECT_EQ(parser.parse("*11\r\n$16385\r\n"), ParseStatus::kIncomplete);
}

// ---------------------------------------------------------------- limits

TEST(RequestParserTest, BulkLongerThanMaxBulkLenIsRejected) {
  EXPECT_EQ(error_of("*1\r\n$536870912\r\n"), "<no error>");  // exactly proto-max-bulk-len
  EXPECT_EQ(error_of("*1\r\n$536870913\r\n"), kProtoErrInvalidBulkLength);
  ParserLimits small;
  small.max_bulk_len = 10;
  EXPECT_EQ(error_of("*1\r\n$10\r\n", small), "<no error>");
  EXPECT_EQ(error_of("*1\r\n$11\r\n", small), kProtoErrInvalidBulkLength);
}

TEST(RequestParserTest, MultibulkCountAboveIntMaxIsRejected) {
  // Redis 7.0 allows up to INT_MAX elements (6.2 stopped at 1M) and waits for them.
  EXPECT_EQ(error_of("*2147483647\r\n"), "<no error>");
  EXPECT_EQ(error_of("*2147483648\r\n"), kProtoErrInvalidMultibulkLength);
  ParserLimits small;
  small.max_multibulk_len = 3;
  EXPECT_EQ(error_of("*3\r\n", small), "<no error>");
  EXPECT_EQ(error_of("*4\r\n", small), kProtoErrInvalidMultibulkLength);
}

TEST(RequestParserTest, InlineLineWithoutNewlinePast64KbIsRejected) {
  const std::string at_limit(64 * 1024, 'a');
  RequestParser parser;
  EXPECT_EQ(parser.parse(at_limit), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.parse(at_limit + "a"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrTooBigInline);
}

TEST(RequestParserTest, MultibulkCountLineWithoutCrPast64KbIsRejected) {
  const std::string at_limit = "*" + std::string(64 * 1024 - 1, '1');
  RequestParser parser;
  EXPECT_EQ(parser.parse(at_limit), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.parse(at_limit + "1"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrTooBigMbulkCount);
}

TEST(RequestParserTest, BulkCountLineWithoutCrPast64KbIsRejected) {
  // Counted from the start of the bulk header, like Redis' qb_pos.
  const std::string head = "*2\r\n$4\r\nECHO\r\n";
  const std::string at_limit = head + "$" + std::string(64 * 1024 - 1, '1');
  RequestParser parser;
  EXPECT_EQ(parser.parse(at_limit), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.parse(at_limit + "1"), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrTooBigBulkCount);
}

TEST(RequestParserTest, LineLimitFollowsSetLimitsMidRequest) {
  RequestParser parser;
  const std::string in = "*1\r\n$" + std::string(100, '1');
  EXPECT_EQ(parser.parse(in), ParseStatus::kIncomplete);
  ParserLimits small;
  small.max_inline_len = 50;
  parser.set_limits(small);
  EXPECT_EQ(parser.parse(in), ParseStatus::kError);
  EXPECT_EQ(parser.error_message(), kProtoErrTooBigBulkCount);
}

TEST(RequestParserTest, HugeDeclaredCountDoesNotAllocateAhead) {
  ParserLimits big;
  big.max_multibulk_len = 2'000'000'000;
  RequestParser parser(big);
  AllocationCounter allocations;
  EXPECT_EQ(parser.parse("*1000000000\r\n"), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.parse("*1000000000\r\n$1\r\na\r\n"), ParseStatus::kIncomplete);
  // At most 1024 argument slots (24 bytes each) were reserved.
  EXPECT_LE(allocations.bytes(), 1024u * 32);
}

TEST(RequestParserTest, HugeDeclaredBulkDoesNotAllocateAhead) {
  RequestParser parser;
  AllocationCounter allocations;
  EXPECT_EQ(parser.parse("*2\r\n$4\r\nECHO\r\n$536870912\r\nabc"), ParseStatus::kIncomplete);
  EXPECT_LE(allocations.bytes(), 1024u);
}

TEST(RequestParserTest, ManyArgumentsBeyondTheReservationStillParse) {
  Argv args(5000);
  for (std::size_t i = 0; i < args.size(); ++i) args[i] = std::to_string(i);
  const Outcome o = run_whole(multibulk(args));
  ASSERT_EQ(o.requests.size(), 1u);
  EXPECT_EQ(o.requests[0], args);
}

// ---------------------------------------------------------------- buffer ownership

TEST(RequestParserTest, PartialRequestSurvivesTheCallerMovingItsBuffer) {
  RequestParser parser;
  auto buffer = std::make_unique<std::string>("*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$5\r\nhel");
  ASSERT_EQ(parser.parse(*buffer), ParseStatus::kIncomplete);
  auto moved = std::make_unique<std::string>(*buffer + "lo\r\n");
  std::fill(buffer->begin(), buffer->end(), '#');
  buffer.reset();
  ASSERT_EQ(parser.parse(*moved), ParseStatus::kRequest);
  EXPECT_EQ(to_argv(parser.argv()), (Argv{"RPUSH", "k", "hello"}));
  for (std::string_view a : parser.argv()) EXPECT_TRUE(points_into(a, *moved));
}

TEST(RequestParserTest, BytesNeededHintSizesTheNextReadForBigBulks) {
  RequestParser parser;
  const std::string head = "*2\r\n$3\r\nSET\r\n$100000\r\n";
  ASSERT_EQ(parser.parse(head + std::string(10, 'x')), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.bytes_needed_hint(), 100000u + 2 - 10);
  ASSERT_EQ(parser.parse(head + std::string(100001, 'x')), ParseStatus::kIncomplete);
  EXPECT_EQ(parser.bytes_needed_hint(), 1u);
  ASSERT_EQ(parser.parse(head + std::string(100000, 'x') + "\r\n"), ParseStatus::kRequest);
  EXPECT_EQ(parser.bytes_needed_hint(), 0u);

  RequestParser small;
  ASSERT_EQ(small.parse("*2\r\n$3\r\nSET\r\n$100\r\nab"), ParseStatus::kIncomplete);
  EXPECT_EQ(small.bytes_needed_hint(), 0u);
}

// ---------------------------------------------------------------- linear work, no allocation

TEST(RequestParserTest, OneMegabyteBulkFedByteByByteExaminesOnlyItsHeaders) {
  const std::string payload(1 << 20, 'p');
  const std::string in =
      "*2\r\n$4\r\nECHO\r\n$" + std::to_string(payload.size()) + "\r\n" + payload + "\r\n";
  RequestParser parser;
  for (std::size_t k = 1; k < in.size(); ++k) {
    ASSERT_EQ(parser.parse(std::string_view(in.data(), k)), ParseStatus::kIncomplete);
  }
  ASSERT_EQ(parser.parse(in), ParseStatus::kRequest);
  ASSERT_EQ(parser.argv().size(), 2u);
  EXPECT_EQ(parser.argv()[1].size(), payload.size());
  // Header bytes, plus at most one re-look at a '\r' per call while waiting for its '\n'.
  EXPECT_LT(parser.bytes_examined(), 64u);
}

TEST(RequestParserTest, LongLinesFedByteByByteAreSearchedOnce) {
  const std::string line = "ECHO " + std::string(60 * 1024, 'a') + "\r\n";
  RequestParser parser;
  for (std::size_t k = 1; k < line.size(); ++k) {
    ASSERT_EQ(parser.parse(std::string_view(line.data(), k)), ParseStatus::kIncomplete);
  }
  ASSERT_EQ(parser.parse(line), ParseStatus::kRequest);
  // One search pass plus one splitting pass.
  EXPECT_LE(parser.bytes_examined(), 2 * line.size() + 2);

  Argv args(3000, "abcdefgh");
  const std::string many = multibulk(args);
  RequestParser mb;
  for (std::size_t k = 1; k < many.size(); ++k) {
    ASSERT_EQ(mb.parse(std::string_view(many.data(), k)), ParseStatus::kIncomplete);
  }
  ASSERT_EQ(mb.parse(many), ParseStatus::kRequest);
  EXPECT_EQ(to_argv(mb.argv()), args);
  EXPECT_LE(mb.bytes_examined(), 2 * many.size());
}

TEST(RequestParserTest, SteadyStateParsingDoesNotAllocate) {
  std::string pipeline;
  for (int i = 0; i < 200; ++i) {
    pipeline += multibulk({"LPUSH", "key:" + std::to_string(i), "value", "value2"});
    pipeline += "PING\r\n";
    pipeline += "SET \"quoted key\" 'v'\r\n";
    pipeline += "*0\r\n\r\n";
  }
  RequestParser parser;
  auto run = [&] {
    std::size_t off = 0, n = 0;
    while (parser.parse(std::string_view(pipeline).substr(off)) == ParseStatus::kRequest) {
      off += parser.consumed();
      ++n;
    }
    return n;
  };
  ASSERT_EQ(run(), 1000u);  // warm-up
  parser.reset();
  AllocationCounter allocations;
  EXPECT_EQ(run(), 1000u);
  EXPECT_EQ(allocations.count(), 0u);
}

TEST(RequestParserTest, SmallRequestsAfterAHugeOneDoNotAllocateOnceWarm) {
  Argv args(5000, "x");
  const std::string big = multibulk(args);
  RequestParser parser;
  ASSERT_EQ(parse_once(parser, big), ParseStatus::kRequest);
  ASSERT_EQ(parser.parse("PING\r\n"), ParseStatus::kRequest);
  // Small requests after that still do not allocate once warmed up again.
  ASSERT_EQ(parser.parse("PING\r\n"), ParseStatus::kRequest);
  AllocationCounter allocations;
  ASSERT_EQ(parser.parse("PING\r\n"), ParseStatus::kRequest);
  EXPECT_EQ(allocations.count(), 0u);
}

}  // namespace
}  // namespace listd::protocol
