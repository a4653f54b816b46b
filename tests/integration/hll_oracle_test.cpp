// The HyperLogLog oracle: random PFADD / PFCOUNT (one key and several) / PFMERGE / PFDEBUG,
// GET of the HLL strings (so the bytes, sparse and dense, must be Redis' own), corrupt and
// non-HLL strings, a list for WRONGTYPE, and hll-sparse-max-bytes changes, from fixed seeds, on
// listd and redis-server 7.0; every reply must match byte for byte. A second test moves HLLs
// between the servers with GET/SET and counts them on the other side.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/family_oracle.h"

namespace listd::testing {
namespace {

class HllGenerator {
 public:
  OracleArgs operator()(std::mt19937_64& r) {
    switch (pick(r, 14)) {
      case 0:
      case 1:
      case 2: return pfadd(r, 1 + pick(r, 8));
      case 3: return pfadd(r, pick(r, 6) == 0 ? 1500 : 120);
      case 4: return {"PFCOUNT", key(r)};
      case 5: return {"PFCOUNT", key(r), key(r), key(r)};
      case 6: return {"PFMERGE", key(r), key(r), key(r)};
      case 7: return {"GET", key(r)};
      case 8: {
        static const std::vector<std::string> kSubs = {"encoding", "decode", "todense", "getreg",
                                                       "nope"};
        return {"PFDEBUG", kSubs[pick(r, static_cast<int>(kSubs.size()))], key(r)};
      }
      case 9: return {"CONFIG", "SET", "hll-sparse-max-bytes", pick(r, 2) ? "3000" : "120"};
      case 10: return {"APPEND", key(r), pick(r, 2) ? "x" : std::string(1, '\x7f')};
      case 11: return {"SET", key(r), pick(r, 2) ? "plain" : corrupt_sparse()};
      case 12: return {"PFCOUNT", "list"};
      default: return {"PFADD", "list", "x"};
    }
  }

 private:
  static int pick(std::mt19937_64& r, int n) { return static_cast<int>(r() % n); }
  static std::string key(std::mt19937_64& r) {
    static const std::vector<std::string> kKeys = {"h1", "h2", "h3", "h4", "none"};
    return kKeys[pick(r, static_cast<int>(kKeys.size()))];
  }
  OracleArgs pfadd(std::mt19937_64& r, int n) {
    OracleArgs a{"PFADD", key(r)};
    // Elements drawn from a growing range: repeats (no change) and new ones (a register up).
    for (int i = 0; i < n; ++i) a.push_back("e" + std::to_string(r() % (next_ += 3)));
    return a;
  }
  /// A sparse header whose opcodes cover too few registers: INVALIDOBJ on use.
  static std::string corrupt_sparse() {
    std::string s("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0", 16);
    s += "\x7f\xff";  // XZERO of 16384 ...
    s += "\x80";      // ... and one register too many
    return s;
  }
  long long next_ = 10;
};

TEST(HllOracle, RepliesMatchRedisByteForByte) {
  run_family_oracle(
      {1, 2, 3}, 600, [] { return OracleGenerator(HllGenerator()); }, 30);
}

/// An HLL written by one server, read by the other: GET on one side, SET on the other, then
/// PFCOUNT and a PFADD that must report the same change on both.
TEST(HllOracle, EitherServerReadsTheOthersHll) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  RespClient ours(listd.port());
  RespClient theirs(redis.port());
  for (int n : {5, 300, 5000}) {  // sparse, sparse near its limit, dense
    std::vector<std::string> add{"PFADD", "src"};
    for (int i = 0; i < n; ++i) add.push_back("m" + std::to_string(i * 7919));
    for (RespClient* c : {&ours, &theirs}) {
      ASSERT_EQ(c->call({"DEL", "src", "copy"}).substr(0, 1), ":");
      ASSERT_EQ(c->call(add), ":1\r\n");
    }
    const std::string from_listd = ours.call({"GET", "src"});
    const std::string from_redis = theirs.call({"GET", "src"});
    ASSERT_EQ(from_listd, from_redis) << n << " elements";
    const std::string bytes = from_listd.substr(from_listd.find("\r\n") + 2,
                                                from_listd.size() - from_listd.find("\r\n") - 4);
    ASSERT_EQ(ours.call({"SET", "copy", bytes}), "+OK\r\n");
    ASSERT_EQ(theirs.call({"SET", "copy", bytes}), "+OK\r\n");
    EXPECT_EQ(ours.call({"PFCOUNT", "copy"}), theirs.call({"PFCOUNT", "copy"}));
    EXPECT_EQ(ours.call({"PFADD", "copy", "new-one"}), theirs.call({"PFADD", "copy", "new-one"}));
    EXPECT_EQ(ours.call({"GET", "copy"}), theirs.call({"GET", "copy"}));
  }
}

}  // namespace
}  // namespace listd::testing
