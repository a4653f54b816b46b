// Redis' text primitives (sds.c, util.c), written once for every part: ASCII case folding and
// comparison, sdssplitargs, sdscatrepr / sdsneedsrepr, hex digits and trimming.
// API: to_lower_ascii / to_lower / iequals (case), split_args (sdssplitargs), repr /
// append_repr / needs_repr (sdscatrepr), is_hex_digit / hex_digit_value, is_c_space, unescape,
// trim. Invariants: the "C" locale only (bytes >= 0x80 are never letters, spaces or printable), as
// Redis runs; split_args reads back exactly what repr writes; nothing here allocates except
// the functions returning std::string or vectors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace listd::base {

// ---- Case ------------------------------------------------------------------------------------

/// tolower() in the "C" locale: only 'A'..'Z' change.
constexpr char to_lower_ascii(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}

/// `s` folded to lower case.
std::string to_lower(std::string_view s);

/// `s` folded to lower case into `out` (at least s.size() bytes), without allocating; returns
/// the view of `out` (the command table looks names up this way).
std::string_view to_lower(std::string_view s, char* out) noexcept;

/// ASCII case-insensitive equality (Redis' strcasecmp() == 0 on equal lengths).
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (to_lower_ascii(a[i]) != to_lower_ascii(b[i])) return false;
  return true;
}

// ---- Character classes -------------------------------------------------------------------------

/// isspace() in the "C" locale: space, \t \n \v \f \r.
constexpr bool is_c_space(char c) noexcept { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// isprint() in the "C" locale: 0x20..0x7e.
constexpr bool is_c_print(char c) noexcept { return c >= 0x20 && c <= 0x7e; }

constexpr bool is_hex_digit(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// The value of a hex digit, -1 for any other byte.
constexpr int hex_digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The byte a backslash escape stands for inside "double quotes" (\n \r \t \b \a; any other
/// byte stands for itself).
constexpr char unescape(char c) noexcept {
  switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return c;
  }
}

// ---- Trimming --------------------------------------------------------------------------------

/// `s` without the leading and trailing bytes found in `chars` (Redis sdstrim).
constexpr std::string_view trim(std::string_view s, std::string_view chars = " \t\r\n") noexcept {
  const std::size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(chars) - b + 1);
}

// ---- sdssplitargs ----------------------------------------------------------------------------

/// What a NUL byte in the line means to split_args.
enum class NulByte {
  kEndsLine,  // Redis' own behaviour: sdssplitargs reads a C string (config files, manifests)
  kIsData,    // binary safe: an ordinary byte (the inline request protocol)
};

/// Redis' sdssplitargs: words separated by C spaces; "double quotes" take \n \r \t \b \a \xHH
/// and \<char> escapes, 'single quotes' take \'; a quoted part joins the plain prefix before it
/// (`ab"c d"` is one word). nullopt on an unterminated quote or a closing quote followed by
/// anything but a space.
std::optional<std::vector<std::string>> split_args(std::string_view line,
                                                   NulByte nul = NulByte::kEndsLine);

// ---- sdscatrepr ------------------------------------------------------------------------------

/// Appends Redis' sdscatrepr of `s` to `out`: double-quoted, with \\ \" \n \r \t \a \b and
/// \xHH (lower case) for other non-printable bytes. split_args reads it back.
void append_repr(std::string& out, std::string_view s);

/// sdscatrepr of `s` as a new string.
std::string repr(std::string_view s);

/// Redis' sdsneedsrepr: true when `s` has a byte split_args would not read back as is
/// (a quote, a backslash, a space or a non-printable byte).
bool needs_repr(std::string_view s) noexcept;

}  // namespace listd::base
