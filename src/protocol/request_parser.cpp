#include "listd/protocol/request_parser.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"

namespace listd::protocol {
namespace {

using base::hex_digit_value;
using base::is_c_space;
using base::is_hex_digit;
using base::unescape;

// `*<n>` never reserves more argv slots than this before the arguments arrive (Redis does the
// same: argv_len = min(multibulklen, 1024)). It is also the capacity kept between requests.
constexpr std::size_t kMaxReservedArgs = 1024;
constexpr std::size_t kRetainedArenaBytes = 4096;

}  // namespace

RequestParser::RequestParser(ParserLimits limits) : limits_(limits) {}

std::size_t RequestParser::bytes_needed_hint() const noexcept {
  if (state_ != State::kBulkData || bulk_len_ < kBigArgThreshold) return 0;
  const std::size_t end = pos_ + bulk_len_ + 2;
  return end > last_size_ ? end - last_size_ : 0;
}

bool RequestParser::in_progress() const noexcept {
  return state_ == State::kInline || state_ == State::kMultibulkCount ||
         state_ == State::kBulkHeader || state_ == State::kBulkData;
}

void RequestParser::reset() noexcept {
  start_request();
  error_ = {};
}

void RequestParser::start_request() noexcept {
  state_ = State::kIdle;
  pos_ = scan_ = remaining_ = bulk_len_ = consumed_ = 0;
  // Keep small vectors for reuse (no allocation per request); give back what one huge request
  // grew, so an idle connection does not pin it.
  if (spans_.capacity() > kMaxReservedArgs) {
    std::vector<ArgSpan>().swap(spans_);
  } else {
    spans_.clear();
  }
  if (argv_.capacity() > kMaxReservedArgs) {
    std::vector<std::string_view>().swap(argv_);
  } else {
    argv_.clear();
  }
  if (arena_.capacity() > kRetainedArenaBytes) {
    std::string().swap(arena_);
  } else {
    arena_.clear();
  }
}

ParseStatus RequestParser::parse(std::string_view buf) {
  if (state_ == State::kError) return ParseStatus::kError;
  if (state_ == State::kDone) start_request();
  last_size_ = buf.size();
  if (state_ == State::kIdle) {
    if (buf.empty()) return ParseStatus::kIncomplete;
    // Redis decides per request on its first byte; anything but '*' is inline, so `$4\r\n`
    // alone is the inline command "$4" and the empty line of redis-cli --pipe is inline too.
    if (buf[0] == '*') {
      state_ = State::kMultibulkCount;
      scan_ = 1;
    } else {
      state_ = State::kInline;
      scan_ = 0;
    }
  }
  // The caller dropped bytes of a partial request: a contract violation. Do not read past buf.
  assert(pos_ <= buf.size() && scan_ <= buf.size());
  if (pos_ > buf.size() || scan_ > buf.size()) return ParseStatus::kIncomplete;
  return state_ == State::kInline ? parse_inline(buf) : parse_multibulk(buf);
}

bool RequestParser::find_from_scan(std::string_view buf, char ch, std::size_t& at) noexcept {
  const std::size_t from = scan_;
  const std::size_t size = buf.size();
  const void* hit = from < size ? std::memchr(buf.data() + from, ch, size - from) : nullptr;
  if (hit == nullptr) {
    bytes_examined_ += size - from;
    scan_ = size;
    return false;
  }
  at = static_cast<std::size_t>(static_cast<const char*>(hit) - buf.data());
  bytes_examined_ += at + 1 - from;
  scan_ = at;  // A terminator without its next byte yet is found again in O(1).
  return true;
}

ParseStatus RequestParser::parse_inline(std::string_view buf) {
  std::size_t newline = 0;
  if (!find_from_scan(buf, '\n', newline)) {
    // Redis checks the whole unconsumed length, not the line, and only while no '\n' is there:
    // a longer line that arrives complete in one read is accepted.
    if (buf.size() > limits_.max_inline_len) return fail(kProtoErrTooBigInline);
    return ParseStatus::kIncomplete;
  }
  std::size_t line_end = newline;
  if (line_end > 0 && buf[line_end - 1] == '\r') --line_end;
  if (split_inline_args(buf.substr(0, line_end)) == ParseStatus::kError) {
    return ParseStatus::kError;
  }
  return finish(buf, newline + 1);
}

// sds.c sdssplitargs, binary safe: Redis stops at a NUL byte (it works on C strings; a NUL in an
// inline line leaves the request pending forever), here NUL is an ordinary byte.
// Plain words are views into buf; a word with a quoted part is unescaped into arena_.
ParseStatus RequestParser::split_inline_args(std::string_view line) {
  const char* d = line.data();
  const std::size_t end = line.size();
  bytes_examined_ += end;
  std::size_t i = 0;
  for (;;) {
    while (i < end && is_c_space(d[i])) ++i;
    if (i >= end) return ParseStatus::kRequest;

    enum class Mode : std::uint8_t { kPlain, kDouble, kSingle };
    Mode mode = Mode::kPlain;
    const std::size_t start = i;
    std::size_t word_end = 0;
    bool owned = false;
    std::size_t arena_start = 0;
    for (bool done = false; !done;) {
      const bool at_end = i >= end;
      const char c = at_end ? '\0' : d[i];
      if (mode == Mode::kDouble) {
        if (c == '\\' && i + 3 < end && d[i + 1] == 'x' && is_hex_digit(d[i + 2]) &&
            is_hex_digit(d[i + 3])) {
          arena_.push_back(
              static_cast<char>(hex_digit_value(d[i + 2]) * 16 + hex_digit_value(d[i + 3])));
          i += 3;
        } else if (c == '\\' && i + 1 < end) {
          ++i;
          arena_.push_back(unescape(d[i]));
        } else if (c == '"') {
          // A closing quote must be followed by a space or the end of the line.
          if (i + 1 < end && !is_c_space(d[i + 1])) return fail(kProtoErrUnbalancedQuotes);
          done = true;
        } else if (at_end) {
          return fail(kProtoErrUnbalancedQuotes);
        } else {
          arena_.push_back(c);
        }
      } else if (mode == Mode::kSingle) {
        if (c == '\\' && i + 1 < end && d[i + 1] == '\'') {
          ++i;
          arena_.push_back('\'');
        } else if (c == '\'') {
          if (i + 1 < end && !is_c_space(d[i + 1])) return fail(kProtoErrUnbalancedQuotes);
          done = true;
        } else if (at_end) {
          return fail(kProtoErrUnbalancedQuotes);
        } else {
          arena_.push_back(c);
        }
      } else if (at_end || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        // Only these end a plain word (not \v or \f, which are skipped between words).
        word_end = i;
        done = true;
      } else if (c == '"' || c == '\'') {
        // `ab"c d"` is the single word "abc d": the plain prefix joins the quoted part.
        arena_start = arena_.size();
        arena_.append(d + start, i - start);
        owned = true;
        mode = c == '"' ? Mode::kDouble : Mode::kSingle;
      }
      if (!at_end) ++i;
    }
    if (owned) {
      spans_.push_back({arena_start, arena_.size() - arena_start, true});
    } else {
      spans_.push_back({start, word_end - start, false});
    }
  }
}

ParseStatus RequestParser::parse_multibulk(std::string_view buf) {
  const char* data = buf.data();
  const std::size_t size = buf.size();
  std::size_t cr = 0;
  if (state_ == State::kMultibulkCount) {
    if (!find_from_scan(buf, '\r', cr)) {
      if (size > limits_.max_inline_len) return fail(kProtoErrTooBigMbulkCount);
      return ParseStatus::kIncomplete;
    }
    // Redis wants one byte after '\r' and skips it unchecked (`*1\rX` is accepted).
    if (cr + 1 >= size) return ParseStatus::kIncomplete;
    long long count = 0;
    if (!base::parse_strict_integer(std::string_view(data + 1, cr - 1), count) ||
        (count > 0 && static_cast<unsigned long long>(count) > limits_.max_multibulk_len)) {
      return fail(kProtoErrInvalidMultibulkLength);
    }
    if (auth_required_ && count > static_cast<long long>(kUnauthenticatedMaxMultibulkLen)) {
      return fail(kProtoErrUnauthenticatedMultibulkLength);
    }
    pos_ = scan_ = cr + 2;
    if (count <= 0) return finish(buf, pos_);  // `*0`, `*-1`: consumed, no command.
    remaining_ = static_cast<std::size_t>(count);
    spans_.reserve(std::min(remaining_, kMaxReservedArgs));
    state_ = State::kBulkHeader;
  }

  for (;;) {
    if (state_ == State::kBulkHeader) {
      if (!find_from_scan(buf, '\r', cr)) {
        if (size - pos_ > limits_.max_inline_len) return fail(kProtoErrTooBigBulkCount);
        return ParseStatus::kIncomplete;
      }
      if (cr + 1 >= size) return ParseStatus::kIncomplete;
      // Checked only once the whole line is there, as Redis does (`+PING` alone waits).
      if (data[pos_] != '$') return fail_expected_dollar(data[pos_]);
      long long len = 0;
      const std::string_view digits(data + pos_ + 1, cr - pos_ - 1);
      if (!base::parse_strict_integer(digits, len) || len < 0 ||
          static_cast<unsigned long long>(len) > limits_.max_bulk_len) {
        return fail(kProtoErrInvalidBulkLength);
      }
      if (auth_required_ && static_cast<std::size_t>(len) > kUnauthenticatedMaxBulkLen) {
        return fail(kProtoErrUnauthenticatedBulkLength);
      }
      pos_ = cr + 2;
      bulk_len_ = static_cast<std::size_t>(len);
      state_ = State::kBulkData;
    }
    // The payload is skipped by length, never scanned; its trailing two bytes are not checked
    // to be CRLF (Redis skips them too).
    if (size - pos_ < bulk_len_ + 2) return ParseStatus::kIncomplete;
    spans_.push_back({pos_, bulk_len_, false});
    pos_ += bulk_len_ + 2;
    scan_ = pos_;
    if (--remaining_ == 0) return finish(buf, pos_);
    state_ = State::kBulkHeader;
  }
}

ParseStatus RequestParser::finish(std::string_view buf, std::size_t consumed) {
  // Views are made only now: until the request is complete the caller may move its buffer.
  argv_.resize(spans_.size());
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    const ArgSpan& s = spans_[i];
    const char* base = s.owned ? arena_.data() : buf.data();
    argv_[i] = std::string_view(base + s.offset, s.len);
  }
  consumed_ = consumed;
  state_ = State::kDone;
  return ParseStatus::kRequest;
}

ParseStatus RequestParser::fail(std::string_view message) noexcept {
  state_ = State::kError;
  error_ = message;
  argv_.clear();
  consumed_ = 0;
  return ParseStatus::kError;
}

// Redis formats this one with addReplyErrorFormat("...got '%c'"): CR and LF become spaces, and a
// NUL byte ends the C string, so the reply is cut right after "got '".
ParseStatus RequestParser::fail_expected_dollar(char got) noexcept {
  static_assert(kProtoErrExpectedDollarPrefix.size() + 2 <= sizeof(error_buf_));
  std::size_t n = kProtoErrExpectedDollarPrefix.size();
  std::memcpy(error_buf_, kProtoErrExpectedDollarPrefix.data(), n);
  if (got != '\0') {
    error_buf_[n++] = (got == '\r' || got == '\n') ? ' ' : got;
    error_buf_[n++] = '\'';
  }
  return fail(std::string_view(error_buf_, n));
}

}  // namespace listd::protocol
