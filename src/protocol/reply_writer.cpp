#include "listd/protocol/reply_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace listd::protocol {

void append_integer(std::string& out, long long value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

namespace {

// Room for a type byte, the digits of any long long, and CRLF.
constexpr std::size_t kHeaderRoom = 1 + 20 + 2;

// Writes `<type><n>\r\n` at `at` and returns its end. Headers are assembled on the stack so that
// a reply element costs one append to the output buffer, not three (LRANGE is mostly this).
char* encode_header(char* at, char type, long long n) {
  *at++ = type;
  at = std::to_chars(at, at + 20, n).ptr;
  *at++ = '\r';
  *at++ = '\n';
  return at;
}

// Bulk payloads up to this size are assembled with their header in one stack buffer.
constexpr std::size_t kInlineBulk = 128;

}  // namespace

void ReplyWriter::header(char type, long long n) {
  char buf[kHeaderRoom];
  const char* end = encode_header(buf, type, n);
  out_->append(buf, static_cast<std::size_t>(end - buf));
}

void ReplyWriter::simple(std::string_view text) {
  out_->push_back('+');
  out_->append(text);
  out_->append("\r\n", 2);
}

void ReplyWriter::error(std::string_view text) {
  out_->push_back('-');
  const std::size_t start = out_->size();
  out_->append(text);
  // Redis replaces newlines inside error messages so the reply stays one line.
  for (std::size_t i = start; i < out_->size(); ++i) {
    char& c = (*out_)[i];
    if (c == '\r' || c == '\n') c = ' ';
  }
  out_->append("\r\n", 2);
}

void ReplyWriter::integer(long long value) { header(':', value); }

void ReplyWriter::bulk(std::string_view bytes) {
  if (bytes.size() <= kInlineBulk) {
    char buf[kHeaderRoom + kInlineBulk + 2];
    char* end = encode_header(buf, '$', static_cast<long long>(bytes.size()));
    if (!bytes.empty()) std::memcpy(end, bytes.data(), bytes.size());  // data() may be null
    end += bytes.size();
    *end++ = '\r';
    *end++ = '\n';
    out_->append(buf, static_cast<std::size_t>(end - buf));
    return;
  }
  header('$', static_cast<long long>(bytes.size()));
  out_->append(bytes);
  out_->append("\r\n", 2);
}

void ReplyWriter::null() {
  if (resp3())
    out_->append("_\r\n", 3);
  else
    out_->append("$-1\r\n", 5);
}

void ReplyWriter::null_array() {
  if (resp3())
    out_->append("_\r\n", 3);
  else
    out_->append("*-1\r\n", 5);
}

void ReplyWriter::array_header(std::size_t count) { header('*', static_cast<long long>(count)); }

void ReplyWriter::map_header(std::size_t pairs) {
  if (resp3())
    header('%', static_cast<long long>(pairs));
  else
    header('*', static_cast<long long>(pairs * 2));
}

void ReplyWriter::set_header(std::size_t count) {
  header(resp3() ? '~' : '*', static_cast<long long>(count));
}

void ReplyWriter::push_header(std::size_t count) {
  header(resp3() ? '>' : '*', static_cast<long long>(count));
}

std::string format_double(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%.17g", value);
  return std::string(buf, static_cast<std::size_t>(n));
}

void ReplyWriter::double_value(double value) {
  const std::string text = format_double(value);
  if (resp3()) {
    out_->push_back(',');
    out_->append(text);
    out_->append("\r\n", 2);
  } else {
    bulk(text);
  }
}

void ReplyWriter::verbatim(std::string_view text) {
  if (!resp3()) {
    bulk(text);
    return;
  }
  header('=', static_cast<long long>(text.size() + 4));
  out_->append("txt:", 4);
  out_->append(text);
  out_->append("\r\n", 2);
}

void ReplyWriter::boolean(bool value) {
  if (resp3())
    out_->append(value ? "#t\r\n" : "#f\r\n", 4);
  else
    integer(value ? 1 : 0);
}

}  // namespace listd::protocol
