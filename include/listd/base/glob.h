// Redis' glob matcher (util.c stringmatchlen, Redis 7), used by KEYS, SCAN MATCH and CONFIG GET.
// API: glob_match(pattern, subject, nocase) -> bool.
// Semantics are Redis 7's, quirks included: `*`, `?`, `[abc]`, `[^a]`, `[a-z]` (reversed ranges
// too), `\` escapes; an unterminated `[` runs to the end of the pattern; an empty subject only
// matches an empty pattern (even "*" fails); a pattern with more than 1000 `*` groups before its
// last non-star element never matches (Redis' recursion limit).
// Invariants: no recursion, no allocation, O(|pattern| * |subject|) worst-case time, so
// pathological patterns such as "a*a*a*a*...b" cannot blow up.
#pragma once

#include <string_view>

namespace listd::base {

/// True when `subject` matches the Redis glob `pattern`. With `nocase`, ASCII letters compare
/// case-insensitively (CONFIG GET uses this). Byte strings may contain NULs.
bool glob_match(std::string_view pattern, std::string_view subject, bool nocase = false) noexcept;

}  // namespace listd::base
