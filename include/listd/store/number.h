// Number parsing and formatting exactly as Redis 7 does it (util.c string2ll, string2ld,
// ld2string), so that error replies and stored bytes match Redis byte for byte.
#pragma once

#include <string>
#include <string_view>

namespace listd::store {

/// Redis' string2ll: optional '-', digits, no leading zeros (except "0"), no '+', no spaces,
/// fits in a signed 64-bit integer. "007", "+1", " 1", "1.5", "" and "-0" are rejected.
bool parse_strict_integer(std::string_view s, long long& out) noexcept;

/// Redis' string2ld for floats (strtold semantics, no leading/trailing space, not NaN); used for
/// timeouts and scores. Accepts "1e-05", "0x10", "inf".
bool parse_long_double(std::string_view s, long double& out) noexcept;

/// Redis' string2d (strtod-based) for doubles: rejects NaN, leading space.
bool parse_double(std::string_view s, double& out) noexcept;

/// Formats a long double as Redis' ld2string in humanfriendly mode (INCRBYFLOAT replies).
std::string format_long_double_human(long double value);

}  // namespace listd::store
