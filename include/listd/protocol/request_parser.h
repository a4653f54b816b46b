// Server-side request parser: RESP2 multibulk (`*<n>\r\n$<len>\r\n<bytes>\r\n...`) and inline
// commands (`LPUSH k "a b"\r\n`), with Redis 7.0 semantics (networking.c processInlineBuffer /
// processMultibulkBuffer, sds.c sdssplitargs), error texts byte-identical.
//
// API: one RequestParser per connection. parse(buf) looks at the unconsumed bytes and returns
// kRequest (argv() + consumed()), kIncomplete (state kept, call again with more bytes) or kError
// (error_message(); the connection replies `-ERR <msg>` and closes).
//
// Buffer contract (the caller owns one contiguous read buffer, e.g. a std::string):
//  - buf[0] is always the first byte of the current request: the caller passes
//    `buffer.substr(already_consumed)` and never drops bytes of a request still in progress.
//  - Between calls the caller may append to the buffer, move or reallocate it: the parser keeps
//    offsets relative to buf[0] for a partial request, never pointers.
//  - After kRequest, argv() views point into buf (multibulk, plain inline words) or into
//    parser-owned storage (inline words that needed unescaping). They stay valid until the next
//    parse()/reset() call or until the caller changes the bytes they view, whichever comes first.
//    Remove consumed() bytes only after you are done with argv(); then call parse() on the rest.
//  - kRequest with an empty argv() (`*0`, `*-1`, an empty or blank inline line) is still a request
//    of consumed() bytes: drop them and send no reply (redis-cli --pipe relies on this).
//
//   std::size_t off = 0;
//   while (parser.parse(std::string_view(in).substr(off)) == ParseStatus::kRequest) {
//     if (!parser.argv().empty()) execute(parser.argv());
//     off += parser.consumed();
//   }
//   in.erase(0, off);  // kIncomplete: read more (bytes_needed_hint()); kError: reply and close.
//
// Redis quirks kept: the byte after a header's '\r' and the two bytes after a payload are skipped
// unchecked; `*<n>` with n <= 0 is an empty request. Deviation: inline lines are binary safe (a
// NUL byte is data; Redis stalls on it because it scans C strings).
//
// Invariants: every byte is examined O(1) times however the request is fragmented (no rescans of
// completed arguments or of already-searched line bytes); memory never grows with a declared but
// unreceived length (`*<n>` reserves at most 1024 slots); no heap allocation per request once
// the argv vectors have warmed up. The query-buffer limit belongs to the connection, not here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace listd::protocol {

/// Size limits, Redis defaults. May be changed between parse() calls (CONFIG SET).
struct ParserLimits {
  std::size_t max_bulk_len = 512ull << 20;     ///< proto-max-bulk-len: largest `$<len>`.
  std::size_t max_inline_len = 64 * 1024;      ///< PROTO_INLINE_MAX_SIZE: longest unterminated
                                               ///< inline line, `*<n>` line or `$<len>` line.
  std::size_t max_multibulk_len = 2147483647;  ///< Largest `*<n>` element count (Redis 7.0:
                                               ///< INT_MAX; memory still grows only with
                                               ///< the arguments actually received).
};

/// Error texts (the connection sends them as `-ERR <text>\r\n`), byte-identical to Redis 7.0.
inline constexpr std::string_view kProtoErrTooBigInline = "Protocol error: too big inline request";
inline constexpr std::string_view kProtoErrUnbalancedQuotes =
    "Protocol error: unbalanced quotes in request";
inline constexpr std::string_view kProtoErrTooBigMbulkCount =
    "Protocol error: too big mbulk count string";
inline constexpr std::string_view kProtoErrInvalidMultibulkLength =
    "Protocol error: invalid multibulk length";
inline constexpr std::string_view kProtoErrTooBigBulkCount =
    "Protocol error: too big bulk count string";
inline constexpr std::string_view kProtoErrInvalidBulkLength =
    "Protocol error: invalid bulk length";
inline constexpr std::string_view kProtoErrUnauthenticatedMultibulkLength =
    "Protocol error: unauthenticated multibulk length";
inline constexpr std::string_view kProtoErrUnauthenticatedBulkLength =
    "Protocol error: unauthenticated bulk length";
/// Prefix of "Protocol error: expected '$', got 'x'" (x = the byte found).
inline constexpr std::string_view kProtoErrExpectedDollarPrefix =
    "Protocol error: expected '$', got '";

/// While authentication is required (set_auth_required), the largest `*<n>` and `$<len>`.
inline constexpr std::size_t kUnauthenticatedMaxMultibulkLen = 10;
inline constexpr std::size_t kUnauthenticatedMaxBulkLen = 16384;

/// Bulk arguments at least this long get a bytes_needed_hint() (Redis PROTO_MBULK_BIG_ARG).
inline constexpr std::size_t kBigArgThreshold = 32 * 1024;

enum class ParseStatus : std::uint8_t {
  kRequest,     ///< A whole request: argv() and consumed() describe it.
  kIncomplete,  ///< Need more bytes; nothing is consumed, the partial state is kept.
  kError,       ///< Protocol error: error_message(); sticky until reset().
};

class RequestParser {
 public:
  explicit RequestParser(ParserLimits limits = {});

  /// Parses the request starting at buf[0] (the caller's unconsumed bytes, see the file comment).
  /// Resumes a partial request where the previous call stopped; after kRequest the next call
  /// starts a new request, so buf must then begin right after the consumed() bytes.
  ParseStatus parse(std::string_view buf);

  /// The arguments of the request returned by the last parse() == kRequest; empty otherwise.
  std::span<const std::string_view> argv() const noexcept { return argv_; }
  /// Bytes of buf the last returned request occupied (> 0); 0 unless the last status was kRequest.
  std::size_t consumed() const noexcept { return consumed_; }
  /// After kError: the message without the "ERR " code, safe to send (no CR/LF); else empty.
  std::string_view error_message() const noexcept { return error_; }
  /// While a bulk argument of >= kBigArgThreshold bytes is being received: how many more bytes
  /// (beyond the buf given to the last parse()) complete it and its CRLF, so the connection can
  /// size its next read. 0 otherwise.
  std::size_t bytes_needed_hint() const noexcept;
  /// True while a request is partially parsed (the caller must keep its bytes).
  bool in_progress() const noexcept;

  /// Forgets any partial request or error; the next parse() starts a new request.
  void reset() noexcept;
  /// Applies to the checks made from the next parse() on, including a request in progress.
  void set_limits(const ParserLimits& limits) noexcept { limits_ = limits; }
  const ParserLimits& limits() const noexcept { return limits_; }
  /// Redis authRequired(): set by the connection while it still has to AUTH. Then `*<n>` above
  /// 10 and `$<len>` above 16384 are protocol errors, so an unauthenticated client cannot make
  /// the server buffer large requests (CVE-2021-32675). Off by default.
  void set_auth_required(bool required) noexcept { auth_required_ = required; }

  /// Diagnostics: total bytes the parser has examined (searched or decoded) since construction.
  /// Bulk payloads are skipped by length and not counted. Tests use it to prove linear work.
  std::uint64_t bytes_examined() const noexcept { return bytes_examined_; }

 private:
  enum class State : std::uint8_t {
    kIdle,            // No request started; the next byte decides inline vs multibulk.
    kInline,          // Looking for the inline line's '\n'.
    kMultibulkCount,  // Looking for the `*<n>` line's '\r'.
    kBulkHeader,      // Looking for a `$<len>` line's '\r'.
    kBulkData,        // Waiting for bulk_len_ + 2 bytes at pos_.
    kDone,            // Last call returned kRequest; next call starts afresh.
    kError,
  };

  // An argument as an offset, so a partial request survives the caller reallocating its buffer.
  // owned: the bytes are in arena_ (unescaped inline words), not in the caller's buffer.
  struct ArgSpan {
    std::size_t offset;
    std::size_t len;
    bool owned;
  };

  void start_request() noexcept;
  // Finds ch in buf[scan_, size) and advances scan_ (to ch, or to the end if absent).
  bool find_from_scan(std::string_view buf, char ch, std::size_t& at) noexcept;
  ParseStatus parse_inline(std::string_view buf);
  ParseStatus parse_multibulk(std::string_view buf);
  ParseStatus split_inline_args(std::string_view line);
  ParseStatus finish(std::string_view buf, std::size_t consumed);
  ParseStatus fail(std::string_view message) noexcept;
  ParseStatus fail_expected_dollar(char got) noexcept;

  ParserLimits limits_;
  bool auth_required_ = false;
  State state_ = State::kIdle;
  std::size_t pos_ = 0;        // Next unparsed byte of the current request (offset from buf[0]).
  std::size_t scan_ = 0;       // Line search resumes here: [pos_, scan_) holds no terminator.
  std::size_t remaining_ = 0;  // Bulk arguments still expected.
  std::size_t bulk_len_ = 0;   // Length of the bulk being received (kBulkData).
  std::size_t last_size_ = 0;  // buf.size() at the last parse(), for bytes_needed_hint().
  std::size_t consumed_ = 0;
  std::uint64_t bytes_examined_ = 0;
  std::string_view error_;
  char error_buf_[64] = {};  // The formatted "expected '$'" message.
  std::vector<ArgSpan> spans_;
  std::vector<std::string_view> argv_;
  std::string arena_;
};

}  // namespace listd::protocol
