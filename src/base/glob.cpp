#include "listd/base/glob.h"

#include <cstddef>
#include <utility>

namespace listd::base {
namespace {

// Redis returns "no match" once its '*' recursion is deeper than this many levels.
constexpr std::size_t kMaxStarGroups = 1000;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Redis runs tolower() in the "C" locale: only ASCII letters change. Chars are signed (x86)
// and glibc's table maps the negative values -128..-1 to 128..255, which matters only inside
// a nocase range such as "[\xc8-z]".
int fold(int c) noexcept {
  if (c >= 'A' && c <= 'Z') return c + ('a' - 'A');
  return c < 0 ? c + 256 : c;
}

bool same_char(char a, char b, bool nocase) noexcept {
  if (!nocase) return a == b;
  return fold(static_cast<signed char>(a)) == fold(static_cast<signed char>(b));
}

struct Step {
  bool matched;
  std::size_t next;  // pattern index just past the element
};

// `i` is the index just past '['.
Step match_class(std::string_view p, std::size_t i, char c, bool nocase) noexcept {
  const std::size_t n = p.size();
  const bool negate = i < n && p[i] == '^';
  if (negate) ++i;
  bool matched = false;
  while (true) {
    if (i < n && p[i] == '\\' && n - i >= 2) {
      ++i;
      // Redis compares an escaped class member case-sensitively, even with nocase.
      if (p[i] == c) matched = true;
    } else if (i < n && p[i] == ']') {
      break;
    } else if (i >= n) {
      // Unterminated class: it extends to the end of the pattern.
      --i;
      break;
    } else if (n - i >= 3 && p[i + 1] == '-') {
      int lo = static_cast<signed char>(p[i]);
      int hi = static_cast<signed char>(p[i + 2]);
      int x = static_cast<signed char>(c);
      if (lo > hi) std::swap(lo, hi);
      // Redis swaps before folding, so "[Z-a]" and "[a-Z]" differ under nocase; keep that.
      if (nocase) {
        lo = fold(lo);
        hi = fold(hi);
        x = fold(x);
      }
      if (lo <= x && x <= hi) matched = true;
      i += 2;
    } else if (same_char(p[i], c, nocase)) {
      matched = true;
    }
    ++i;
  }
  return {matched != negate, i + 1};
}

// Matches the single-byte element at p[i] (anything but '*') against `c`.
Step match_element(std::string_view p, std::size_t i, char c, bool nocase) noexcept {
  switch (p[i]) {
    case '?': return {true, i + 1};
    case '[': return match_class(p, i + 1, c, nocase);
    case '\\':
      // A trailing backslash is a literal backslash.
      if (p.size() - i >= 2) ++i;
      [[fallthrough]];
    default: return {same_char(p[i], c, nocase), i + 1};
  }
}

// Redis recurses once per '*' group; beyond kMaxStarGroups levels the recursive call fails, so a
// pattern whose group number kMaxStarGroups+1 is followed by anything can never match. A final
// group is fine: Redis returns "match" for a trailing '*' before recursing.
bool exceeds_star_limit(std::string_view p) noexcept {
  // Every group but the last needs a non-star element after it.
  if (p.size() <= 2 * kMaxStarGroups) return false;
  std::size_t groups = 0;
  std::size_t i = 0;
  while (i < p.size()) {
    if (p[i] != '*') {
      i = match_element(p, i, '\0', false).next;
      continue;
    }
    while (i < p.size() && p[i] == '*') ++i;
    if (++groups > kMaxStarGroups && i < p.size()) return true;
  }
  return false;
}

}  // namespace

bool glob_match(std::string_view p, std::string_view s, bool nocase) noexcept {
  // Redis 7 loops "while (patternLen && stringLen)": with an empty subject nothing is consumed,
  // not even a '*', so only the empty pattern matches.
  if (s.empty()) return p.empty();
  if (exceeds_star_limit(p)) return false;

  // Every element other than '*' consumes exactly one byte, so on a mismatch it suffices to let
  // the most recent '*' swallow one more byte (an earlier '*' growing cannot help). This is what
  // Redis' skipLongerMatches achieves, without recursion.
  std::size_t pi = 0;
  std::size_t si = 0;
  std::size_t star_p = kNone;  // pattern index just past the latest '*' group
  std::size_t star_s = 0;      // subject index where that group's match ends
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      if (pi == p.size()) return true;
      star_p = pi;
      star_s = si;
      continue;
    }
    if (pi < p.size()) {
      const Step step = match_element(p, pi, s[si], nocase);
      if (step.matched) {
        pi = step.next;
        ++si;
        continue;
      }
    }
    if (star_p == kNone) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace listd::base
