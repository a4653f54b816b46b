#include "listd/base/redis_text.h"

namespace listd::base {
namespace {

// A closing quote must be followed by a space or the end of the line.
bool closes_word(std::string_view line, std::size_t quote_at) noexcept {
  return quote_at + 1 >= line.size() || is_c_space(line[quote_at + 1]);
}

// The body of a "double-quoted" part, from just after the opening quote; `p` ends on the
// closing quote. False on an unterminated quote or a bad closing quote.
bool read_double_quoted(std::string_view line, std::size_t& p, std::string& word) {
  const std::size_t n = line.size();
  for (; p < n; ++p) {
    const char c = line[p];
    if (c == '\\' && p + 3 < n && line[p + 1] == 'x' && is_hex_digit(line[p + 2]) &&
        is_hex_digit(line[p + 3])) {
      word += static_cast<char>(hex_digit_value(line[p + 2]) * 16 + hex_digit_value(line[p + 3]));
      p += 3;
    } else if (c == '\\' && p + 1 < n) {
      word += unescape(line[++p]);
    } else if (c == '"') {
      return closes_word(line, p);
    } else {
      word += c;
    }
  }
  return false;
}

// The body of a 'single-quoted' part: only \' is an escape.
bool read_single_quoted(std::string_view line, std::size_t& p, std::string& word) {
  const std::size_t n = line.size();
  for (; p < n; ++p) {
    const char c = line[p];
    if (c == '\\' && p + 1 < n && line[p + 1] == '\'') {
      word += '\'';
      ++p;
    } else if (c == '\'') {
      return closes_word(line, p);
    } else {
      word += c;
    }
  }
  return false;
}

// One word starting at a non-space `p`; `p` ends past the word's last byte. Only space, \t, \n,
// \r (and NUL in the C form, already cut off) end a plain word; \v and \f do not.
bool read_word(std::string_view line, std::size_t& p, std::string& word) {
  const std::size_t n = line.size();
  while (p < n) {
    const char c = line[p];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return true;
    ++p;
    if (c == '"' || c == '\'') {
      const bool ok =
          c == '"' ? read_double_quoted(line, p, word) : read_single_quoted(line, p, word);
      ++p;  // past the closing quote
      return ok;
    }
    word += c;
  }
  return true;
}

}  // namespace

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = to_lower_ascii(c);
  return out;
}

std::string_view to_lower(std::string_view s, char* out) noexcept {
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = to_lower_ascii(s[i]);
  return {out, s.size()};
}

std::optional<std::vector<std::string>> split_args(std::string_view line, NulByte nul) {
  if (nul == NulByte::kEndsLine) line = line.substr(0, line.find('\0'));
  std::vector<std::string> words;
  std::size_t p = 0;
  for (;;) {
    while (p < line.size() && is_c_space(line[p])) ++p;
    if (p >= line.size()) return words;
    std::string word;
    if (!read_word(line, p, word)) return std::nullopt;
    words.push_back(std::move(word));
  }
}

void append_repr(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (is_c_print(c)) {
          out += c;
        } else {
          const auto byte = static_cast<unsigned char>(c);
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 15];
        }
    }
  }
  out += '"';
}

std::string repr(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_repr(out, s);
  return out;
}

bool needs_repr(std::string_view s) noexcept {
  for (const char c : s)
    if (c == '\\' || c == '"' || !is_c_print(c) || is_c_space(c)) return true;
  return false;
}

}  // namespace listd::base
