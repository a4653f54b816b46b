// The oracle's argument generators: deterministic randomness (Rng), the key pools and
// vocabularies, TTL sources and the per-argument generators the command table uses. Included by
// oracle_test.cpp only (one translation unit: hence the unnamed namespace). See oracle_test.cpp
// for how the oracle runs and replays.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace listd::testing {
namespace {

using namespace std::chrono_literals;
using Args = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness: SplitMix64, our own reductions (std distributions differ between
// standard libraries, which would make seeds unportable).

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi].
  long long range(long long lo, long long hi) {
    return lo + static_cast<long long>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return range(1, 100) <= percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(range(0, static_cast<long long>(v.size()) - 1))];
  }

 private:
  std::uint64_t state_;
};

// ---------------------------------------------------------------------------------------------
// Argument vocabularies: a small key space (with a binary key), a small element alphabet with
// integer-looking and binary elements, and integers that are valid, out of range or malformed.

const std::vector<std::string> kKeys = {"k0", "k1", "k2", "k3", "k4", std::string("k\0\xff", 3)};

const std::vector<std::string> kElements = {"a",
                                            "b",
                                            "c",
                                            "a",
                                            "b",
                                            "007",
                                            "-0",
                                            "1",
                                            "0",
                                            "-1",
                                            "10",
                                            "9223372036854775808",
                                            "",
                                            "x y",
                                            std::string("\0\xff\r\n", 4),
                                            "\xc3\xa9",
                                            std::string(70, 'L'),
                                            "1.5"};

const std::vector<std::string> kBadIntegers = {"1.5",
                                               "",
                                               "+1",
                                               " 1",
                                               "1 ",
                                               "01",
                                               "abc",
                                               "0x10",
                                               "1e3",
                                               "9223372036854775808",
                                               "-9223372036854775809",
                                               "99999999999999999999"};

const std::vector<std::string> kEdgeIntegers = {"9223372036854775807", "-9223372036854775808",
                                                "-0"};

// Home keys of the hash, set and sorted-set commands (see hkey below); any command reaches them
// now and then, so they too change type, get renamed, expire...
const std::vector<std::string> kHomeKeys = {"kh", "ks", "kzs"};

std::string key(Rng& r) { return r.chance(8) ? r.pick(kHomeKeys) : r.pick(kKeys); }

// Typed pools: keys that only their own type's commands touch (key() never returns them), so a
// list command mostly meets a list that has grown over the sequence and its replies carry data.
// Every type still reaches the shared key() space now and then for WRONGTYPE coverage (and
// FLUSHDB, SWAPDB, SELECT, MOVE reach every key).
const std::vector<std::string> kListKeys = {"l0", "l1", "l2"};
const std::vector<std::string> kStringKeys = {"s0", "s1", "s2"};

std::string lkey(Rng& r) { return r.chance(75) ? r.pick(kListKeys) : key(r); }
std::string strkey(Rng& r) { return r.chance(65) ? r.pick(kStringKeys) : key(r); }
std::string element(Rng& r) {
  if (r.chance(2)) return std::string(static_cast<std::size_t>(r.range(200, 5000)), 'B');
  return r.pick(kElements);
}

/// An integer argument: mostly small (within [lo, hi]), sometimes extreme or malformed.
std::string integer(Rng& r, long long lo, long long hi) {
  const long long roll = r.range(1, 100);
  if (roll <= 6) return r.pick(kBadIntegers);
  if (roll <= 9) return r.pick(kEdgeIntegers);
  if (roll <= 13) return std::to_string(r.range(-200, 200));
  return std::to_string(r.range(lo, hi));
}

std::string index(Rng& r) { return integer(r, -8, 8); }
/// A list index: small, or far enough to land inside lists of hundreds of elements.
std::string list_index(Rng& r) {
  if (r.chance(35)) return std::to_string(r.range(-700, 700));
  return r.chance(50) ? integer(r, -8, 8) : std::to_string(r.range(-40, 40));
}

std::string direction(Rng& r) {
  static const std::vector<std::string> kDirections = {"LEFT", "RIGHT", "left", "Right",
                                                       "LEFT", "RIGHT", "UP"};
  return r.pick(kDirections);
}

// TTLs: unique positive values >= 100,000 s, so no key expires during a run and no two EXPIREs
// set the same instant (GT/LT would then depend on which millisecond each server saw).
class TtlSource {
 public:
  std::string seconds(Rng& r) {
    const long long roll = r.range(1, 100);
    if (roll <= 8) return r.pick(std::vector<std::string>{"0", "-1", "-100"});  // deletes the key
    if (roll <= 14) return r.pick(kBadIntegers);
    if (roll <= 17) return r.pick(kEdgeIntegers);  // overflow: "invalid expire time"
    return std::to_string(unique(r));
  }
  /// Milliseconds: the unique seconds plus a sub-second part (often not a multiple of 1000, so
  /// EXPIRETIME's rounding and PTTL's precision are compared).
  std::string milliseconds(Rng& r) {
    std::string s = seconds(r);
    const bool plain_positive =
        !s.empty() && s[0] != '-' && s != "0" &&
        std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        s.size() < 10;
    return plain_positive ? s + sub_second(r) : s;
  }
  /// An absolute unix time: far future (unique), or in the past (deletes the key).
  std::string unix_seconds(Rng& r) {
    if (r.chance(10)) return r.pick(std::vector<std::string>{"1", "0", "-5"});
    if (r.chance(5)) return r.pick(kBadIntegers);
    return std::to_string(4102444800LL + unique(r));  // after 2100-01-01
  }
  /// The same in milliseconds (PXAT): the past values stay in the past.
  std::string unix_milliseconds(Rng& r) {
    std::string s = unix_seconds(r);
    return s.size() >= 10 && s[0] != '-' ? s + sub_second(r) : s;
  }

 private:
  /// Three digits: 000, 499, 500, 999 (either side of EXPIRETIME's rounding) or any.
  static std::string sub_second(Rng& r) {
    static const std::vector<std::string> kEdges = {"000", "499", "500", "501", "999", "001"};
    if (r.chance(40)) return r.pick(kEdges);
    std::string d = std::to_string(r.range(0, 999));
    return std::string(3 - d.size(), '0') + d;
  }
  long long unique(Rng& r) {
    for (;;) {
      const long long v = 100000 + r.range(0, 9999999);
      if (used_.insert(v).second) return v;
    }
  }
  std::set<long long> used_;
};

std::string expire_flag(Rng& r) {
  static const std::vector<std::string> kFlags = {"NX", "XX", "GT", "LT", "nx", "gt", "FOO"};
  return r.pick(kFlags);
}

// Hashes, sets and sorted sets share the key space above. Fields and members come from small
// alphabets (so collections stay small and mostly in packed encodings); element() now and then
// yields a long string, which converts Redis' collection to a hashtable.
const std::vector<std::string> kFields = {
    "f0", "f1", "f2", "f3", "a", "1", "", "-1", std::string("f\0\xff", 3), "\xc3\xa9"};

std::string field(Rng& r) {
  if (r.chance(2)) return std::string(static_cast<std::size_t>(r.range(70, 300)), 'F');
  return r.pick(kFields);
}

/// A set member: integers (intset) often, other elements otherwise.
std::string set_member(Rng& r) {
  if (r.chance(40)) return std::to_string(r.range(-3, 12));
  return element(r);
}

/// A sorted-set member: a small alphabet (lexicographic ranges need ties on score 0).
std::string zmember(Rng& r) {
  static const std::vector<std::string> kMembers = {
      "a", "b", "c", "d", "e", "aa", "1", "", std::string("m\0\xff", 3), "\xc3\xa9"};
  if (r.chance(2)) return std::string(static_cast<std::size_t>(r.range(70, 300)), 'M');
  return r.pick(kMembers);
}

/// A score argument: integers, decimals, infinities, malformed values.
std::string score(Rng& r) {
  static const std::vector<std::string> kOdd = {"1.5",          "-2.5",  "0.1", "1e3",
                                                "-0",           "0.0",   "inf", "-inf",
                                                "+inf",         "1e308", "3.0", "9007199254740993",
                                                "123456789012", "-1e-5"};
  static const std::vector<std::string> kBad = {"nan", "abc", "", "1.5x", "(1", " 1", "0x10"};
  const long long roll = r.range(1, 100);
  if (roll <= 5) return r.pick(kBad);
  if (roll <= 30) return r.pick(kOdd);
  if (roll <= 45) return "0";
  return std::to_string(r.range(-5, 10));
}

/// A score-range bound: inclusive/exclusive numbers, infinities, malformed values.
std::string score_bound(Rng& r) {
  static const std::vector<std::string> kSpecial = {"-inf", "+inf", "inf", "(-inf", "(+inf", "(1.5",
                                                    "1.5",  "(",    "abc", "nan",   "((1",   ""};
  const long long roll = r.range(1, 100);
  if (roll <= 25) return r.pick(kSpecial);
  const std::string n = std::to_string(r.range(-5, 10));
  return roll <= 50 ? "(" + n : n;
}

/// Half the time a well-ordered score range that holds members (low bound first; swapped for
/// the REV forms), else two random bounds.
void push_score_range(Rng& r, Args& a, bool rev) {
  if (r.chance(50)) {
    a.push_back(score_bound(r));
    a.push_back(score_bound(r));
    return;
  }
  std::string lo = r.chance(30) ? "-inf" : std::to_string(r.range(-5, 1));
  std::string hi = r.chance(30) ? "+inf" : std::to_string(r.range(2, 10));
  if (rev) std::swap(lo, hi);
  a.push_back(lo);
  a.push_back(hi);
}

/// A lexicographic-range bound: [x, (x, -, +, malformed.
std::string lex_bound(Rng& r) {
  static const std::vector<std::string> kSpecial = {"-", "+", "-", "+",  "a",
                                                    "",  "[", "(", "+a", std::string("[m\0", 3)};
  static const std::vector<std::string> kBase = {"a", "aa", "b", "c",       "d",
                                                 "e", "",   "1", "\xc3\xa9"};
  const long long roll = r.range(1, 100);
  if (roll <= 30) return r.pick(kSpecial);
  return (roll <= 65 ? "[" : "(") + r.pick(kBase);
}

// BYLEX ranges are defined only when all members have the same score (Redis walks a mixed-score
// zset in score order, so its answer is arbitrary). The sorted-set commands therefore sometimes
// use one extra key, kLexKey, that only they touch and that only ever gets score 0; BYLEX queries
// use only it. (FLUSHDB, SWAPDB and SELECT reach it too; key() never returns it, so no other
// command writes it.)
const std::string kLexKey = "kz";

// Each of these types prefers its home keys (so its commands mostly meet a value of their type),
// but about half the time any key: wrong types stay common. "khh" and "kss" are written only by
// their own type's commands (key() never returns them), so they hold a hash / a set more often
// than "kh" / "ks", which other commands turn into lists, strings... The random commands mostly
// use them, so that more of their picks are genuinely random.
// `shared` with `shared_pct` percent, `own` with the next `own_pct` percent, else any key.
std::string home_key(Rng& r, const char* shared, const char* own, int shared_pct, int own_pct) {
  const long long roll = r.range(1, 100);
  return roll <= shared_pct ? shared : roll <= shared_pct + own_pct ? own : key(r);
}
std::string hkey(Rng& r) { return home_key(r, "kh", "khh", 20, 60); }
std::string skey(Rng& r) { return home_key(r, "ks", r.chance(50) ? "kss" : "kss2", 20, 60); }
std::string hkey_mostly(Rng& r) { return home_key(r, "kh", "khh", 20, 70); }
std::string skey_mostly(Rng& r) { return home_key(r, "ks", "kss", 20, 70); }
std::string zkey(Rng& r) {
  const long long roll = r.range(1, 100);
  if (roll <= 15) return kLexKey;
  if (roll <= 40) return "kzs";
  if (roll <= 75) return "kzz";  // only the sorted-set commands touch it
  return key(r);
}

/// A key for the expiry commands: often one of the collections that are rarely deleted (so TTLs
/// stick and TTL/PTTL/EXPIRETIME/PEXPIRETIME read them), else any key.
std::string ekey(Rng& r);

/// A ZRANGE-style LIMIT clause, sometimes malformed.
void push_limit(Rng& r, Args& a) {
  a.push_back(r.chance(90) ? "LIMIT" : "limit");
  a.push_back(integer(r, -1, 4));
  if (r.chance(95)) a.push_back(integer(r, -1, 4));
}

void push_skeys(Rng& r, Args& a, int max) {
  const long long n = r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(skey(r));
}
void push_fields(Rng& r, Args& a, int max) {
  const long long n = r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(field(r));
}
void push_set_members(Rng& r, Args& a, int max) {
  if (r.chance(1)) {  // past set-max-intset-entries (512), or just under it
    const long long n = r.range(505, 530);
    for (long long i = 0; i < n; ++i) a.push_back(std::to_string(i));
    return;
  }
  const long long n = r.chance(3) ? r.range(20, 150) : r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(set_member(r));
}
void push_zmembers(Rng& r, Args& a, int max) {
  const long long n = r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(zmember(r));
}

/// A numkeys argument for n keys, sometimes wrong.
std::string numkeys(Rng& r, long long n) {
  const long long roll = r.range(1, 100);
  if (roll <= 4) return "0";
  if (roll <= 6) return "-1";
  if (roll <= 10) return std::to_string(n + 2);  // more than given
  if (roll <= 13) return r.pick(kBadIntegers);
  return std::to_string(n);
}

// ---------------------------------------------------------------------------------------------
// Strings, random picks, SCAN and blocking arguments.

const std::vector<std::string> kFloats = {"1.5",
                                          "-2.25",
                                          "0.1",
                                          "3",
                                          "3.0",
                                          "1e3",
                                          "-0",
                                          "10.50",
                                          ".5",
                                          "5.",
                                          "1e300",
                                          "-1e300",
                                          "123456789.123456789",
                                          "5e-324",
                                          "inf",
                                          "-inf",
                                          "nan",
                                          "abc",
                                          "",
                                          " 1",
                                          "1.5x",
                                          "0x10",
                                          "1e400",
                                          "1e-400"};

/// An INCRBYFLOAT/HINCRBYFLOAT increment: integers, decimals, huge, infinite and malformed.
std::string float_arg(Rng& r) { return r.chance(30) ? integer(r, -10, 10) : r.pick(kFloats); }

/// A string value: elements, integers (OBJECT ENCODING "int"; 0..9999 are Redis' shared
/// integers), floats, and lengths either side of Redis' 44-byte embstr limit.
std::string string_value(Rng& r) {
  const long long roll = r.range(1, 100);
  if (roll <= 20) return integer(r, -20, 20000);
  if (roll <= 28) return r.pick(kFloats);
  if (roll <= 36) return std::string(static_cast<std::size_t>(r.range(42, 47)), 'e');
  return element(r);
}

/// A SET/GETEX expiry option with its value (bad values now and then, from TtlSource).
/// `past_ok`: an EXAT/PXAT in the past may be given. Not to SET: Redis 7.0 stores the key with
/// its past deadline and DBSIZE counts it until the active expiry cycle comes by (GETEX and
/// EXPIREAT delete it at once, as listd does for all three).
void push_expiry(Rng& r, TtlSource& t, Args& a, bool past_ok) {
  static const std::vector<std::vector<std::string>> kNames = {
      {"EX", "ex"}, {"PX", "px"}, {"EXAT", "exat"}, {"PXAT", "pxat"}};
  const auto which = static_cast<std::size_t>(r.range(0, 3));
  a.push_back(kNames[which][r.chance(85) ? 0 : 1]);
  switch (which) {
    case 0: a.push_back(t.seconds(r)); break;
    case 1: a.push_back(t.milliseconds(r)); break;
    case 2: a.push_back(t.unix_seconds(r)); break;
    default: a.push_back(t.unix_milliseconds(r)); break;
  }
  if (!past_ok && which >= 2 && a.back() == "1") a.back() = "0";  // invalid instead
}

/// SET's options: NX/XX/GET/KEEPTTL and expiries in any order, bad combinations included.
void push_set_options(Rng& r, TtlSource& t, Args& a) {
  static const std::vector<std::string> kFlags = {"NX",  "XX",      "GET",     "KEEPTTL", "nx",
                                                  "get", "keepttl", "PERSIST", "FOO"};
  const long long n = r.chance(35) ? 0 : r.range(1, 3);
  for (long long i = 0; i < n; ++i) {
    if (r.chance(45)) {
      push_expiry(r, t, a, false);
    } else {
      std::string f = r.pick(kFlags);
      if ((f == "PERSIST" || f == "FOO") && r.chance(70)) f = "GET";
      a.push_back(f);
    }
  }
}

/// GETEX's options: one expiry or PERSIST, sometimes two or a stray keyword.
void push_getex_options(Rng& r, TtlSource& t, Args& a) {
  const long long n = r.chance(30) ? 0 : (r.chance(90) ? 1 : 2);
  for (long long i = 0; i < n; ++i) {
    if (r.chance(75))
      push_expiry(r, t, a, true);
    else
      a.push_back(
          r.pick(std::vector<std::string>{"PERSIST", "persist", "PERSIST", "KEEPTTL", "NX"}));
  }
}

/// A SETRANGE offset: small (strings stay short), or out of range, or malformed. Never one that
/// makes a valid string of hundreds of megabytes.
std::string setrange_offset(Rng& r) {
  const long long roll = r.range(1, 100);
  if (roll <= 5) return r.pick(kBadIntegers);
  if (roll <= 9) return r.pick(std::vector<std::string>{"-1", "536870912", "9223372036854775807"});
  return std::to_string(r.range(0, 99));
}

/// A count for SPOP, SRANDMEMBER and HRANDFIELD: small of either sign, sometimes malformed or
/// extreme. Never a large negative one (that asks for that many repeated picks).
std::string pick_count(Rng& r) {
  const long long roll = r.range(1, 100);
  if (roll <= 6) return r.pick(kBadIntegers);
  if (roll <= 9)
    return r.pick(std::vector<std::string>{"-9223372036854775808", "9223372036854775807", "-0"});
  return std::to_string(r.range(-6, 12));
}

/// A SCAN-family cursor: 0, or an invalid one. A valid non-zero cursor is left out: what it
/// returns depends on each server's hash tables.
std::string scan_cursor(Rng& r) {
  if (r.chance(92)) return "0";
  return r.pick(
      std::vector<std::string>{"abc", "", " 0", "0 ", "1.5", "18446744073709551616", "0x"});
}

const std::vector<std::string> kKeyPatterns = {"*",    "k?", "k[0-2]", "k[^0]", "*1*",
                                               "\\k*", "k[", "",       "K*",    "k[!1]"};
const std::vector<std::string> kMemberPatterns = {
    "*", "a*", "*a*", "?", "1*", "[0-9]*", "f*", "\\*", "*\xc3\xa9", "[", "B*", "-*", "M*"};

/// SCAN options (MATCH, COUNT, TYPE when allowed), sometimes malformed.
void push_scan_options(Rng& r, Args& a, const std::vector<std::string>& patterns, bool type) {
  static const std::vector<std::string> kCounts = {"1",   "2", "3",  "5",  "10",
                                                   "100", "0", "-1", "abc"};
  static const std::vector<std::string> kTypes = {"string", "list", "hash", "set", "zset",
                                                  "String", "ZSET", "none", "foo"};
  const long long n = r.chance(40) ? 0 : r.range(1, 3);
  for (long long i = 0; i < n; ++i) {
    const long long which = r.range(1, 100);
    if (which <= 40) {
      a.push_back(r.chance(90) ? "MATCH" : "match");
      a.push_back(r.pick(patterns));
    } else if (which <= 75) {
      a.push_back(r.chance(90) ? "COUNT" : "count");
      a.push_back(r.pick(kCounts));
    } else if (which <= 97 && (type || which > 95)) {
      a.push_back(r.chance(90) ? "TYPE" : "type");
      a.push_back(r.pick(kTypes));
    } else {
      a.push_back("FOO");
    }
  }
}

/// A blocking command's timeout: 10-20 ms, under a millisecond (Redis 7.0.15 answers those at
/// once with nil, as listd does), or invalid. Never 0, which means "forever". The 10-20 ms ones
/// cost their time on an empty key: they are a third.
std::string block_timeout(Rng& r) {
  if (r.chance(35)) return r.pick(std::vector<std::string>{"0.01", "0.02", "0.015"});
  if (r.chance(75)) return r.pick(std::vector<std::string>{"0.0001", "1e-05", "0.0009"});
  return r.pick(std::vector<std::string>{"-1", "abc", "", "1e400", "nan", "-0.5"});
}

std::string any_key(Rng& r);
std::string ekey(Rng& r) {
  static const std::vector<std::string> kKept = {"l0", "khh", "kzz", "kss"};
  return r.chance(60) ? r.pick(kKept) : any_key(r);
}

/// Any key, the home keys of every type included.
std::string any_key(Rng& r) {
  switch (r.range(0, 5)) {
    case 0: return hkey(r);
    case 1: return skey(r);
    case 2: {  // never kLexKey: a RENAME or COPY onto it would mix scores (see kLexKey)
      std::string k = zkey(r);
      return k == kLexKey ? "kzz" : k;
    }
    case 3: return lkey(r);
    case 4: return strkey(r);
    default: return key(r);
  }
}

}  // namespace
}  // namespace listd::testing
