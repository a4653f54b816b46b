// Number parsing and formatting exactly as Redis 7 does it (util.c string2ll, string2ld,
// ld2string), so that error replies and stored bytes match Redis byte for byte.
// API: parse_strict_integer (string2ll), parse_long_double (string2ld), parse_double (string2d),
// format_long_double_human (ld2string LD_STR_HUMAN).
// Invariants: no allocation, no locale (the "C" rules Redis runs with); a rejected input leaves
// `out` untouched.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace listd::base {

/// Redis' string2ll: optional '-', digits, no leading zeros (except "0"), no '+', no spaces,
/// fits in a signed 64-bit integer. "007", "+1", " 1", "1.5", "" and "-0" are rejected.
/// Inline: the request parser runs it on every `*<n>` and `$<len>` header.
inline bool parse_strict_integer(std::string_view s, long long& out) noexcept {
  const std::size_t n = s.size();
  if (n == 0 || n > 20) return false;  // Redis LONG_STR_SIZE: 21+ characters never fit
  if (n == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative && ++i == n) return false;
  if (s[i] < '1' || s[i] > '9') return false;
  constexpr unsigned long long kMax = ~0ull;
  unsigned long long v = static_cast<unsigned long long>(s[i++] - '0');  // checked just above
  for (; i < n; ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (v > kMax / 10) return false;
    v *= 10;
    if (v > kMax - digit) return false;
    v += digit;
  }
  constexpr unsigned long long kMinMagnitude = 1ull << 63;  // |LLONG_MIN|
  if (negative) {
    if (v > kMinMagnitude) return false;
    out = static_cast<long long>(0ull - v);
  } else {
    if (v >= kMinMagnitude) return false;
    out = static_cast<long long>(v);
  }
  return true;
}

/// Redis' string2ld for floats (strtold semantics, no leading/trailing space, not NaN); used for
/// timeouts and scores. Accepts "1e-05", "0x10", "inf".
bool parse_long_double(std::string_view s, long double& out) noexcept;

/// Redis' string2d (strtod-based) for doubles: rejects NaN, leading space.
bool parse_double(std::string_view s, double& out) noexcept;

/// Formats a long double as Redis' ld2string in humanfriendly mode (INCRBYFLOAT replies).
std::string format_long_double_human(long double value);

}  // namespace listd::base
