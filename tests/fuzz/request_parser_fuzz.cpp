// Fuzz target for listd::protocol::RequestParser.
//
// Input: byte 0 picks the limits (bit 0: tiny limits so the "too big"/limit paths are reachable;
// bit 1: authentication required),
// bytes 1-2 pick a split point and seed the other cut sets; the rest is the byte stream a client
// sends. Invariants checked for every input:
//  - consumed() is in (0, buf.size()] for every request; multibulk argv views lie inside it;
//    kError is sticky and its message is one of Redis' texts (written out below, not taken
//    from listd's header), without CR/LF.
//  - One read gives the same requests and final status as a plain re-implementation of Redis'
//    processInlineBuffer/processMultibulkBuffer (non-incremental, reference()).
//  - Delivering the stream in chunks (a fuzz-chosen split, pseudo-random cut sets, byte by byte
//    for short inputs; the buffer moved to a new allocation with every chunk) gives the same
//    outcome, except that a chunked delivery may stop earlier with a "too big ... " error (Redis
//    checks the line limits on whatever is buffered when it parses), after a prefix of the
//    same requests.
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() that runs the
// same checks over a fixed pseudo-random corpus (20,000 inputs), for compilers without libFuzzer.
#include "listd/protocol/request_parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

using listd::protocol::ParserLimits;
using listd::protocol::ParseStatus;
using listd::protocol::RequestParser;
using Argv = std::vector<std::string>;

[[noreturn]] void die(const char* what, std::string_view input) {
  std::fprintf(stderr, "request_parser invariant violated: %s\ninput (%zu bytes):", what,
               input.size());
  for (unsigned char c : input.substr(0, 512)) std::fprintf(stderr, " %02x", c);
  std::fprintf(stderr, "\n");
  std::abort();
}

#define CHECK(cond)                   \
  do {                                \
    if (!(cond)) die(#cond, g_input); \
  } while (0)

std::string_view g_input;

// Redis 7.0's texts and limits (networking.c: processInlineBuffer, processMultibulkBuffer),
// written out here instead of taken from request_parser.h, so that a wrong constant in listd
// cannot agree with itself.
namespace redis {
constexpr std::string_view kTooBigInline = "Protocol error: too big inline request";
constexpr std::string_view kUnbalancedQuotes = "Protocol error: unbalanced quotes in request";
constexpr std::string_view kTooBigMbulkCount = "Protocol error: too big mbulk count string";
constexpr std::string_view kInvalidMultibulkLength = "Protocol error: invalid multibulk length";
constexpr std::string_view kTooBigBulkCount = "Protocol error: too big bulk count string";
constexpr std::string_view kInvalidBulkLength = "Protocol error: invalid bulk length";
constexpr std::string_view kUnauthMultibulkLength =
    "Protocol error: unauthenticated multibulk length";
constexpr std::string_view kUnauthBulkLength = "Protocol error: unauthenticated bulk length";
constexpr std::string_view kExpectedDollarPrefix = "Protocol error: expected '$', got '";
constexpr long long kUnauthMaxMultibulk = 10;  // `ll > 10` while unauthenticated
constexpr long long kUnauthMaxBulk = 16384;    // `ll > 16384` while unauthenticated

struct Limits {
  std::size_t inline_max = 1024 * 64;           // PROTO_INLINE_MAX_SIZE
  std::size_t bulk_max = 512ull * 1024 * 1024;  // proto-max-bulk-len default
  std::size_t multibulk_max = 2147483647;       // INT_MAX
};
}  // namespace redis

struct Outcome {
  std::vector<Argv> requests;
  std::vector<std::size_t> sizes;
  ParseStatus last = ParseStatus::kIncomplete;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

bool is_too_big_error(std::string_view e) {
  return e == redis::kTooBigInline || e == redis::kTooBigMbulkCount || e == redis::kTooBigBulkCount;
}

bool is_known_error(std::string_view e) {
  using namespace redis;
  if (is_too_big_error(e) || e == kUnbalancedQuotes || e == kInvalidMultibulkLength ||
      e == kInvalidBulkLength || e == kUnauthMultibulkLength || e == kUnauthBulkLength) {
    return true;
  }
  if (e.substr(0, kExpectedDollarPrefix.size()) != kExpectedDollarPrefix) return false;
  const std::size_t rest = e.size() - kExpectedDollarPrefix.size();
  return rest == 0 || (rest == 2 && e.back() == '\'');
}

// ------------------------------------------------------------------ the parser under test

Outcome run_chunked(std::string_view input, const std::vector<std::size_t>& cuts,
                    const ParserLimits& limits, bool auth_required) {
  RequestParser parser(limits);
  parser.set_auth_required(auth_required);
  Outcome out;
  std::string buffer;
  std::size_t fed = 0;
  for (std::size_t cut : cuts) {
    // Move the unconsumed bytes to a new allocation and poison the old one, as a read into a
    // growing buffer may: the parser must only hold offsets across calls.
    std::string moved;
    moved.reserve(buffer.size() + (cut - fed));
    moved.append(buffer).append(input.substr(fed, cut - fed));
    std::memset(buffer.data(), 0xAA, buffer.size());
    buffer.swap(moved);
    fed = cut;
    for (;;) {
      const ParseStatus st = parser.parse(buffer);
      out.last = st;
      if (st == ParseStatus::kIncomplete) {
        CHECK(parser.argv().empty());
        CHECK(parser.consumed() == 0);
        break;
      }
      if (st == ParseStatus::kError) {
        out.error = std::string(parser.error_message());
        CHECK(is_known_error(out.error));
        CHECK(out.error.find_first_of("\r\n") == std::string::npos);
        CHECK(parser.argv().empty());
        CHECK(parser.parse(buffer) == ParseStatus::kError);  // sticky
        CHECK(parser.error_message() == out.error);
        return out;
      }
      const std::size_t consumed = parser.consumed();
      CHECK(consumed > 0 && consumed <= buffer.size());
      CHECK(!parser.in_progress());
      CHECK(parser.bytes_needed_hint() == 0);
      std::size_t total = 0;
      Argv argv;
      for (std::string_view a : parser.argv()) {
        total += a.size();
        if (buffer[0] == '*') {
          CHECK(a.data() >= buffer.data() && a.data() + a.size() <= buffer.data() + consumed);
        }
        argv.emplace_back(a);
      }
      CHECK(total <= consumed);
      out.requests.push_back(std::move(argv));
      out.sizes.push_back(consumed);
      buffer.erase(0, consumed);
    }
  }
  return out;
}

// ------------------------------------------------------------------ reference model

// Redis util.c string2ll, written independently of the parser's copy.
bool ref_string2ll(std::string_view s, long long& out) {
  if (s.empty() || s.size() >= 21) return false;
  if (s == "0") {
    out = 0;
    return true;
  }
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
    if (s.empty()) return false;
  }
  if (s[0] < '1' || s[0] > '9') return false;
  __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
    if (v > (static_cast<__int128>(1) << 64)) return false;
  }
  if (neg) v = -v;
  if (v > INT64_MAX || v < INT64_MIN) return false;
  out = static_cast<long long>(v);
  return true;
}

bool ref_isspace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool ref_ishex(char c) { return std::strchr("0123456789abcdefABCDEF", c) != nullptr && c != 0; }
int ref_hex(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

// sds.c sdssplitargs transliterated; "*p == 0" becomes "p == end" (binary safe, as listd is).
bool ref_splitargs(std::string_view line, Argv& argv) {
  std::size_t p = 0;
  const std::size_t end = line.size();
  auto at = [&](std::size_t i) { return i < end ? line[i] : '\0'; };
  for (;;) {
    while (p < end && ref_isspace(line[p])) p++;
    if (p >= end) return true;
    bool inq = false, insq = false, done = false;
    std::string current;
    while (!done) {
      if (inq) {
        if (p < end && line[p] == '\\' && p + 1 < end && at(p + 1) == 'x' && p + 2 < end &&
            ref_ishex(at(p + 2)) && p + 3 < end && ref_ishex(at(p + 3))) {
          current.push_back(static_cast<char>(ref_hex(at(p + 2)) * 16 + ref_hex(at(p + 3))));
          p += 3;
        } else if (p < end && line[p] == '\\' && p + 1 < end) {
          p++;
          char c;
          switch (line[p]) {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'b': c = '\b'; break;
            case 'a': c = '\a'; break;
            default: c = line[p]; break;
          }
          current.push_back(c);
        } else if (p < end && line[p] == '"') {
          if (p + 1 < end && !ref_isspace(line[p + 1])) return false;
          done = true;
        } else if (p >= end) {
          return false;
        } else {
          current.push_back(line[p]);
        }
      } else if (insq) {
        if (p < end && line[p] == '\\' && p + 1 < end && line[p + 1] == '\'') {
          p++;
          current.push_back('\'');
        } else if (p < end && line[p] == '\'') {
          if (p + 1 < end && !ref_isspace(line[p + 1])) return false;
          done = true;
        } else if (p >= end) {
          return false;
        } else {
          current.push_back(line[p]);
        }
      } else {
        if (p >= end) {
          done = true;
        } else {
          switch (line[p]) {
            case ' ':
            case '\n':
            case '\r':
            case '\t': done = true; break;
            case '"': inq = true; break;
            case '\'': insq = true; break;
            default: current.push_back(line[p]); break;
          }
        }
      }
      if (p < end) p++;
    }
    argv.push_back(std::move(current));
  }
}

// processInputBuffer + processInlineBuffer + processMultibulkBuffer on the whole input at once.
Outcome reference(std::string_view q, const redis::Limits& limits, bool auth_required) {
  Outcome out;
  std::size_t pos = 0;
  auto error = [&](std::string e) {
    out.last = ParseStatus::kError;
    out.error = std::move(e);
    return out;
  };
  while (pos < q.size()) {
    const std::size_t start = pos;
    Argv argv;
    if (q[pos] != '*') {
      const std::size_t nl = q.find('\n', pos);
      if (nl == std::string_view::npos) {
        if (q.size() - pos > limits.inline_max) {
          return error(std::string(redis::kTooBigInline));
        }
        break;
      }
      std::size_t line_end = nl;
      if (nl != pos && q[nl - 1] == '\r') line_end--;
      if (!ref_splitargs(q.substr(pos, line_end - pos), argv)) {
        return error(std::string(redis::kUnbalancedQuotes));
      }
      pos = nl + 1;
    } else {
      std::size_t cr = q.find('\r', pos);
      if (cr == std::string_view::npos) {
        if (q.size() - pos > limits.inline_max) {
          return error(std::string(redis::kTooBigMbulkCount));
        }
        break;
      }
      if (cr + 2 > q.size()) break;
      long long ll = 0;
      if (!ref_string2ll(q.substr(pos + 1, cr - pos - 1), ll) ||
          ll > static_cast<long long>(limits.multibulk_max)) {
        return error(std::string(redis::kInvalidMultibulkLength));
      }
      if (ll > redis::kUnauthMaxMultibulk && auth_required) {
        return error(std::string(redis::kUnauthMultibulkLength));
      }
      pos = cr + 2;
      bool complete = true;
      for (long long i = 0; i < ll; i++) {
        cr = q.find('\r', pos);
        if (cr == std::string_view::npos) {
          if (q.size() - pos > limits.inline_max) {
            return error(std::string(redis::kTooBigBulkCount));
          }
          complete = false;
          break;
        }
        if (cr + 2 > q.size()) {
          complete = false;
          break;
        }
        if (q[pos] != '$') {
          std::string e = std::string(redis::kExpectedDollarPrefix);
          if (q[pos] != '\0') {
            e.push_back(q[pos] == '\r' || q[pos] == '\n' ? ' ' : q[pos]);
            e.push_back('\'');
          }
          return error(e);
        }
        long long len = 0;
        if (!ref_string2ll(q.substr(pos + 1, cr - pos - 1), len) || len < 0 ||
            static_cast<unsigned long long>(len) > limits.bulk_max) {
          return error(std::string(redis::kInvalidBulkLength));
        }
        if (len > redis::kUnauthMaxBulk && auth_required) {
          return error(std::string(redis::kUnauthBulkLength));
        }
        pos = cr + 2;
        if (q.size() - pos < static_cast<std::size_t>(len) + 2) {
          complete = false;
          break;
        }
        argv.emplace_back(q.substr(pos, static_cast<std::size_t>(len)));
        pos += static_cast<std::size_t>(len) + 2;
      }
      if (!complete) break;
    }
    out.requests.push_back(std::move(argv));
    out.sizes.push_back(pos - start);
  }
  out.last = ParseStatus::kIncomplete;
  return out;
}

// ------------------------------------------------------------------ the checks

std::uint64_t next_random(std::uint64_t& s) {  // splitmix64
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void expect_same_or_earlier_too_big(const Outcome& chunked, const Outcome& whole) {
  if (chunked == whole) return;
  CHECK(chunked.last == ParseStatus::kError && is_too_big_error(chunked.error));
  CHECK(chunked.requests.size() <= whole.requests.size());
  for (std::size_t i = 0; i < chunked.requests.size(); ++i) {
    CHECK(chunked.requests[i] == whole.requests[i]);
    CHECK(chunked.sizes[i] == whole.sizes[i]);
  }
}

void check_input(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return;
  // The parser under test gets listd's defaults, the reference Redis' (or both the same tiny
  // limits).
  ParserLimits limits;
  redis::Limits ref_limits;
  if (data[0] & 1) {
    limits.max_inline_len = ref_limits.inline_max = 24;
    limits.max_bulk_len = ref_limits.bulk_max = 40;
    limits.max_multibulk_len = ref_limits.multibulk_max = 6;
  }
  const bool auth = (data[0] & 2) != 0;
  std::uint64_t seed = data[1] | (static_cast<std::uint64_t>(data[2]) << 8);
  const std::string_view input(reinterpret_cast<const char*>(data) + 3, size - 3);
  g_input = input;
  const std::size_t n = input.size();

  const Outcome whole = run_chunked(input, {n}, limits, auth);
  const Outcome ref = reference(input, ref_limits, auth);
  CHECK(whole == ref);

  if (n < 2) return;
  const std::size_t split = 1 + seed % (n - 1);
  expect_same_or_earlier_too_big(run_chunked(input, {split, n}, limits, auth), whole);

  for (int round = 0; round < 3; ++round) {
    std::vector<std::size_t> cuts;
    std::size_t at = 0;
    while (at < n) {
      at += 1 + next_random(seed) % (round == 0 ? 4 : 32);
      cuts.push_back(std::min(at, n));
    }
    expect_same_or_earlier_too_big(run_chunked(input, cuts, limits, auth), whole);
  }
  if (n <= 128) {
    std::vector<std::size_t> bytewise(n);
    for (std::size_t i = 0; i < n; ++i) bytewise[i] = i + 1;
    expect_same_or_earlier_too_big(run_chunked(input, bytewise, limits, auth), whole);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_input(data, size);
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
// ------------------------------------------------------------------ deterministic corpus

namespace {

using namespace std::string_view_literals;

struct Generator {
  std::uint64_t state;
  std::uint64_t next() { return next_random(state); }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }

  std::string word() {
    static constexpr std::string_view kAlphabet = "abcXYZ019 \t\r\n\"'\\$*x\0\xff:+-"sv;
    std::string w;
    const std::size_t len = chance(10) ? below(80) : below(8);
    for (std::size_t i = 0; i < len; ++i) {
      w.push_back(chance(85) ? static_cast<char>('a' + below(26))
                             : kAlphabet[below(kAlphabet.size())]);
    }
    return w;
  }

  void multibulk(std::string& out) {
    const std::size_t argc = below(6);
    out += '*' + std::to_string(argc) + "\r\n";
    for (std::size_t i = 0; i < argc; ++i) {
      const std::string w = word();
      out += '$' + std::to_string(w.size()) + "\r\n" + w + "\r\n";
    }
  }

  void inline_command(std::string& out) {
    const std::size_t argc = below(5);
    for (std::size_t i = 0; i < argc; ++i) {
      if (i) out += std::string(1 + below(2), chance(80) ? ' ' : '\t');
      switch (below(4)) {
        case 0: out += "\"" + word() + "\""; break;
        case 1: out += "'" + word() + "'"; break;
        case 2: out += "\"\\x" + std::string(1, "0a4fZ"[below(5)]) + "1\\n\\\\\""; break;
        default: {
          std::string w = word();
          for (char& c : w) {
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '"' || c == '\'') c = 'q';
          }
          out += w.empty() ? "w" : w;
        }
      }
    }
    out += chance(70) ? "\r\n" : "\n";
  }

  void fragment(std::string& out) {
    switch (below(12)) {
      case 0: out += "*0\r\n"; break;
      case 1: out += "*-1\r\n"; break;
      case 2: out += "\r\n"; break;
      case 3: out += "$4\r\nPING\r\n"; break;
      case 4: out += '*' + std::to_string(static_cast<long long>(below(20)) - 5) + "\r\n"; break;
      case 5:  // around the unauthenticated bulk limit now and then
        out += "*1\r\n$" + std::to_string(chance(10) ? 16380 + below(10) : below(100)) + "\r\n";
        break;
      case 6:
      case 7: inline_command(out); break;
      default: multibulk(out); break;
    }
  }

  std::string input() {
    std::string payload;
    if (chance(5)) {
      const std::size_t len = below(200);
      for (std::size_t i = 0; i < len; ++i) payload.push_back(static_cast<char>(next()));
    } else {
      const std::size_t count = 1 + below(8);
      for (std::size_t i = 0; i < count; ++i) fragment(payload);
      if (chance(5)) payload += std::string(below(100), chance(50) ? '1' : 'a');  // long lines
      // Mutations: flip, insert, delete or truncate a byte.
      for (std::size_t m = chance(40) ? 1 + below(3) : 0; m > 0 && !payload.empty(); --m) {
        const std::size_t at = below(payload.size());
        switch (below(4)) {
          case 0: payload[at] = static_cast<char>(next()); break;
          case 1:
            payload.insert(payload.begin() + static_cast<std::ptrdiff_t>(at),
                           "\r\n*$\"'\\ 0-"[below(10)]);
            break;
          case 2: payload.erase(at, 1); break;
          default: payload.resize(at); break;
        }
      }
    }
    std::string header(3, '\0');
    // A third with tiny limits, a tenth with authentication required.
    header[0] = static_cast<char>((below(3) == 0 ? 1 : 0) | (below(10) == 0 ? 2 : 0));
    header[1] = static_cast<char>(next());
    header[2] = static_cast<char>(next());
    return header + payload;
  }
};

}  // namespace

int main() {
  constexpr int kInputs = 20000;
  Generator gen{0x6c697374645f7270ull};  // fixed seed: the corpus is the same on every run
  std::size_t bytes = 0;
  // Boundaries of Redis' default limits, which the random corpus never reaches (header byte 0:
  // default limits, no authentication): an unterminated inline line, `*<n>` line and `$<len>`
  // line of 64 KiB (incomplete) and 64 KiB + 1 (too big), the largest `*<n>` and `$<len>` and one
  // more, and the unauthenticated limits.
  std::vector<std::string> edges;
  for (std::size_t extra : {0, 1}) {
    edges.push_back(std::string(3, '\0') + std::string(64 * 1024 + extra, 'a'));
    edges.push_back(std::string(3, '\0') + "*" + std::string(64 * 1024 - 1 + extra, '1'));
    edges.push_back(std::string(3, '\0') + "*1\r\n$" + std::string(64 * 1024 - 1 + extra, '1'));
  }
  for (std::string_view e : {"*2147483647\r\n"sv, "*2147483648\r\n"sv, "*1\r\n$536870912\r\n"sv,
                             "*1\r\n$536870913\r\n"sv}) {
    edges.push_back(std::string(3, '\0') + std::string(e));
  }
  for (std::string_view e :
       {"*10\r\n"sv, "*11\r\n"sv, "*1\r\n$16384\r\n"sv, "*1\r\n$16385\r\n"sv}) {
    edges.push_back(std::string(1, '\2') + std::string(2, '\0') + std::string(e));
  }
  for (const std::string& in : edges) {
    bytes += in.size();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
  }
  for (int i = 0; i < kInputs; ++i) {
    const std::string in = gen.input();
    bytes += in.size();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
  }
  std::printf(
      "request_parser replay: %d inputs + %zu at Redis' limits, %zu bytes, all invariants "
      "held\n",
      kInputs, edges.size(), bytes);
  return 0;
}
#endif
