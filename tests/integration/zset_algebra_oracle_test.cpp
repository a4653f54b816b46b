// The sorted-set algebra oracle: random ZUNION / ZINTER / ZDIFF and their STORE forms (WEIGHTS
// with inf, 0 and negative weights, every AGGREGATE, WITHSCORES, plain sets among the inputs,
// wrong types, bad numkeys), ZRANGESTORE over rank, score and lex ranges, and the deterministic
// ZRANDMEMBER forms (a count of 0 or at least the set's size), from fixed seeds, against
// redis-server 7.0 byte for byte (support/family_oracle.h). The sets they build are read back
// with ZRANGE WITHSCORES and OBJECT ENCODING, so scores (-0, inf) and forms must match too.
// ZRANDMEMBER's random forms are checked by property in tests/unit/server/zset_algebra_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/family_oracle.h"

namespace listd::testing {
namespace {

class ZsetAlgebraGenerator {
 public:
  OracleArgs operator()(std::mt19937_64& r) {
    switch (pick(r, 15)) {
      case 0:
      case 1: return zadd(r);
      case 2: return {"SADD", "s", member(r), member(r)};
      case 3: return algebra(r, pick(r, 3), false);
      case 4:
      case 5: return algebra(r, pick(r, 3), true);
      case 6:
      case 7: return {"ZRANGE", key(r), "0", "-1", "WITHSCORES"};
      case 8: return {"OBJECT", "ENCODING", key(r)};
      case 9: return zrangestore(r);
      case 10: return zrandmember(r);
      case 11: return {"ZREM", key(r), member(r), member(r)};
      case 12: return {"ZSCORE", key(r), member(r)};
      case 13: return pick(r, 4) ? OracleArgs{"ZCARD", key(r)} : OracleArgs{"SET", "str", "v"};
      default: return {"ZADD", "lx", "0", member(r), "0", member(r)};
    }
  }

 private:
  static int pick(std::mt19937_64& r, int n) { return static_cast<int>(r() % n); }
  static std::string key(std::mt19937_64& r) {
    static const std::vector<std::string> kKeys = {"a", "b", "c", "d", "s", "str", "none"};
    return kKeys[pick(r, static_cast<int>(kKeys.size()))];
  }
  static std::string member(std::mt19937_64& r) {
    if (pick(r, 40) == 0) return std::string(70, 'L') + std::to_string(pick(r, 3));
    return pick(r, 5) == 0 ? std::to_string(pick(r, 8)) : "m" + std::to_string(pick(r, 12));
  }
  static std::string score(std::mt19937_64& r) {
    static const std::vector<std::string> kSpecial = {"inf", "-inf",  "-0",    "0",
                                                      "1.5", "-2.25", "1e300", "0.1"};
    if (pick(r, 4) == 0) return kSpecial[pick(r, static_cast<int>(kSpecial.size()))];
    return std::to_string(pick(r, 21) - 10);
  }
  static std::string weight(std::mt19937_64& r) {
    static const std::vector<std::string> kWeights = {"1",   "2",    "-1", "0", "0.5",
                                                      "inf", "-inf", "3",  "x", "nan"};
    return kWeights[pick(r, pick(r, 10) == 0 ? 10 : 8)];
  }
  static OracleArgs zadd(std::mt19937_64& r) {
    OracleArgs a{"ZADD", key(r)};
    const int n = 1 + pick(r, pick(r, 10) == 0 ? 140 : 4);  // sometimes past the listpack
    for (int i = 0; i < n; ++i) {
      a.push_back(score(r));
      a.push_back(n > 10 ? "big" + std::to_string(i) : member(r));
    }
    return a;
  }
  static OracleArgs algebra(std::mt19937_64& r, int op, bool store) {
    static const char* kRead[] = {"ZUNION", "ZINTER", "ZDIFF"};
    static const char* kStore[] = {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"};
    OracleArgs a{store ? kStore[op] : kRead[op]};
    if (store) a.push_back(key(r));
    const int n = 1 + pick(r, 3);
    const int declared = pick(r, 25) == 0 ? pick(r, 6) - 1 : n;
    a.push_back(pick(r, 40) == 0 ? "x" : std::to_string(declared));
    for (int i = 0; i < n; ++i) a.push_back(key(r));
    if (pick(r, 2)) {
      a.push_back(pick(r, 10) ? "WEIGHTS" : "weights");
      const int w = pick(r, 12) == 0 ? n - 1 : n;
      for (int i = 0; i < w; ++i) a.push_back(weight(r));
    }
    if (pick(r, 2)) {
      static const std::vector<std::string> kAgg = {"SUM", "min", "MAX", "max", "avg"};
      a.push_back("AGGREGATE");
      a.push_back(kAgg[pick(r, pick(r, 8) == 0 ? 5 : 4)]);
    }
    if (pick(r, store ? 10 : 2) == 0 || (!store && pick(r, 2))) a.push_back("WITHSCORES");
    return a;
  }
  static std::string bound(std::mt19937_64& r, int type) {
    static const std::vector<std::string> kScores = {"-inf", "+inf", "(0", "1", "(2.5", "-3", "x"};
    static const std::vector<std::string> kLex = {"-", "+", "[m1", "(m5", "[1", "m"};
    if (type == 1) return kScores[pick(r, static_cast<int>(kScores.size()))];
    if (type == 2) return kLex[pick(r, static_cast<int>(kLex.size()))];
    return std::to_string(pick(r, 9) - 4);
  }
  static OracleArgs zrangestore(std::mt19937_64& r) {
    const int type = pick(r, 3);  // rank, score, lex
    // A lex range over mixed scores is undefined in Redis (its skip list's random levels decide
    // where the walk starts): lex ranges read "lx", whose scores are all 0.
    static const std::vector<std::string> kLexSources = {"lx", "lx", "lx", "nolx"};
    const std::string src = type == 2 ? kLexSources[pick(r, 4)] : key(r);
    OracleArgs a{"ZRANGESTORE", key(r), src, bound(r, type), bound(r, type)};
    if (type == 1) a.push_back("BYSCORE");
    if (type == 2) a.push_back("BYLEX");
    if (pick(r, 3) == 0) a.push_back("REV");
    if (pick(r, 3) == 0)
      a.insert(a.end(), {"LIMIT", std::to_string(pick(r, 3)), std::to_string(pick(r, 4) - 1)});
    if (pick(r, 15) == 0) a.push_back("WITHSCORES");
    return a;
  }
  static OracleArgs zrandmember(std::mt19937_64& r) {
    static const std::vector<std::string> kCounts = {"0", "200", "9223372036854775807",
                                                     "-9223372036854775808", "x"};
    OracleArgs a{"ZRANDMEMBER", key(r), kCounts[pick(r, static_cast<int>(kCounts.size()))]};
    if (pick(r, 2)) a.push_back(pick(r, 8) ? "WITHSCORES" : "WITHSCORE");
    return a;
  }
};

TEST(ZsetAlgebraOracle, RepliesMatchRedisByteForByte) {
  run_family_oracle({1, 2, 3}, 1500, [] { return OracleGenerator(ZsetAlgebraGenerator()); });
}

}  // namespace
}  // namespace listd::testing
