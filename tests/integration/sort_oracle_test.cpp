// The SORT oracle: random SORT / SORT_RO over lists, sets and sorted sets (numeric and ALPHA,
// numbers and words, BY weights and hash fields, nosort, LIMIT, GET `#` / keys / fields, ASC /
// DESC, STORE then LRANGE), option errors, and SORT from a script, from fixed seeds, on listd
// and redis-server 7.0; every reply must match byte for byte, except where Redis' own output
// is not deterministic:
//   - ALPHA with a BY pattern: equal (or missing) weights come in qsort's order, which is not
//     stable: compared as a multiset of the reply's elements, or by length under LIMIT (the
//     elements picked among ties differ);
//   - a set not sorted (BY without `*`, no STORE, not from a script): the set's own order;
//     compared the same way.
// Such commands never STORE (the stored list would differ), so later replies stay exact. A
// numeric sort breaks ties by the element's bytes, and ALPHA without BY compares distinct
// elements, so those are exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "support/family_oracle.h"

namespace listd::testing {
namespace {

int pick(std::mt19937_64& r, int n) { return static_cast<int>(r() % static_cast<unsigned>(n)); }
template <class T>
const T& one_of(std::mt19937_64& r, const std::vector<T>& v) {
  return v[static_cast<std::size_t>(pick(r, static_cast<int>(v.size())))];
}

// Elements: integers, floats, strtod's other forms (hex, exponent, leading space) and words.
const std::vector<std::string> kNumbers = {"1",  "2",   "3",    "10",  "-4",   "7",  "0",
                                           "25", "1.5", "-0.5", "1e2", "0x10", " 8", "100"};
const std::vector<std::string> kWords = {"apple", "b", "Banana", "cherry", "a1", "10a", "zz"};
const std::vector<std::string> kWeights = {"5", "-1", "3.25", "", "abc", "9", "2", "0", "inf"};

class SortGenerator {
 public:
  OracleArgs operator()(std::mt19937_64& r) {
    switch (pick(r, 16)) {
      case 0: return fill_list(r);
      case 1: return fill_set(r);
      case 2: return fill_zset(r);
      case 3: return {"SET", "w_" + element(r), one_of(r, kWeights)};
      case 4: return {"HSET", "h_" + element(r), pick(r, 2) ? "f" : "g", one_of(r, kWeights)};
      case 5: return {"LRANGE", "dst", "0", "-1"};
      case 6: return {"DEL", one_of(r, kSources)};
      case 7: return bad_option(r);
      case 8: return script(r);
      default: return sort(r);
    }
  }

 private:
  const std::vector<std::string> kSources = {"l1", "l2", "s1", "s2", "z1", "none", "str", "dst"};

  std::string element(std::mt19937_64& r) const {
    return numbers_only_ ? one_of(r, kNumbers)
           : pick(r, 4)  ? one_of(r, kNumbers)
                         : one_of(r, kWords);
  }
  OracleArgs fill_list(std::mt19937_64& r) {
    numbers_only_ = pick(r, 3) != 0;
    OracleArgs a{"RPUSH", pick(r, 2) ? "l1" : "l2"};
    for (int n = 1 + pick(r, 8); n > 0; --n) a.push_back(element(r));
    return a;
  }
  OracleArgs fill_set(std::mt19937_64& r) {
    numbers_only_ = pick(r, 3) != 0;
    OracleArgs a{"SADD", pick(r, 2) ? "s1" : "s2"};
    for (int n = 1 + pick(r, 8); n > 0; --n) a.push_back(element(r));
    return a;
  }
  OracleArgs fill_zset(std::mt19937_64& r) {
    numbers_only_ = pick(r, 3) != 0;
    OracleArgs a{"ZADD", "z1"};
    for (int n = 1 + pick(r, 6); n > 0; --n) {
      a.push_back(std::to_string(pick(r, 4)));  // equal scores: members order them
      a.push_back(element(r));
    }
    return a;
  }
  static std::string pattern(std::mt19937_64& r) {
    static const std::vector<std::string> kPatterns = {"w_*",    "h_*->f", "h_*->g", "#",
                                                       "nosort", "w_*->",  "x_*_y",  "*"};
    return one_of(r, kPatterns);
  }
  OracleArgs sort(std::mt19937_64& r) {
    const bool ro = pick(r, 4) == 0;
    OracleArgs a{ro ? "SORT_RO" : "SORT", one_of(r, kSources)};
    if (pick(r, 2)) a.insert(a.end(), {"BY", pick(r, 3) ? pattern(r) : "nosort"});
    if (pick(r, 3) == 0) {
      a.insert(a.end(), {"LIMIT", std::to_string(pick(r, 6) - 1), std::to_string(pick(r, 6) - 1)});
    }
    for (int n = pick(r, 4) == 0 ? 1 + pick(r, 2) : 0; n > 0; --n)
      a.insert(a.end(), {"GET", pattern(r)});
    if (pick(r, 2)) a.push_back(pick(r, 2) ? "DESC" : "ASC");
    if (pick(r, 2)) a.push_back("ALPHA");
    if (!ro && pick(r, 4) == 0 && !unordered(a)) a.insert(a.end(), {"STORE", "dst"});
    return a;
  }
  static OracleArgs bad_option(std::mt19937_64& r) {
    static const std::vector<OracleArgs> kBad = {
        {"SORT", "l1", "LIMIT", "x", "1"},
        {"SORT", "l1", "LIMIT", "1"},
        {"SORT", "l1", "BY"},
        {"SORT", "l1", "GET"},
        {"SORT", "l1", "NOPE"},
        {"SORT_RO", "l1", "STORE", "d"},
        {"SORT", "l1", "STORE"},
        {"SORT", "l1", "LIMIT", "0", "1.5"},
        {"SORT", "str"},
        {"SORT", "h_1"},
    };
    return one_of(r, kBad);
  }
  // From a script a set not sorted is ALPHA-sorted (Redis' CLIENT_SCRIPT rule): exact.
  static OracleArgs script(std::mt19937_64& r) {
    return {"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort', 'DESC')", "1",
            pick(r, 2) ? "s1" : "l1"};
  }

 public:
  /// Whether Redis' own reply to `a` depends on qsort's tie order or a set's order.
  static bool unordered(const OracleArgs& a) {
    if (a.empty() || (a[0] != "SORT" && a[0] != "SORT_RO")) return false;
    bool alpha = false, star_by = false, nosort = false, store = false;
    for (std::size_t i = 2; i < a.size(); ++i) {
      if (a[i] == "ALPHA") alpha = true;
      if (a[i] == "STORE") store = true;
      if (a[i] == "BY" && i + 1 < a.size())
        (a[i + 1].find('*') == std::string::npos ? nosort : star_by) = true;
    }
    const bool set = a[1][0] == 's' && a[1] != "str";
    return (!nosort && alpha && star_by) || (set && nosort && !store);
  }

 private:
  bool numbers_only_ = true;
};

bool has_limit(const OracleArgs& a) { return std::find(a.begin(), a.end(), "LIMIT") != a.end(); }

// The elements of a flat array reply, sorted, re-encoded; under LIMIT only the length.
std::string as_multiset(const OracleArgs& cmd, const std::string& reply) {
  if (!SortGenerator::unordered(cmd) || reply.empty() || reply[0] != '*') return reply;
  const std::size_t header = reply.find("\r\n") + 2;
  if (has_limit(cmd)) return reply.substr(0, header);
  std::vector<std::string> items;
  for (std::size_t at = header; at < reply.size();) {
    const std::size_t len = complete_reply_length(reply, at);
    if (len == 0) return reply;
    items.push_back(reply.substr(at, len));
    at += len;
  }
  std::sort(items.begin(), items.end());
  std::string out = reply.substr(0, header);
  for (const std::string& item : items) out += item;
  return out;
}

TEST(SortOracle, RepliesMatchRedis) {
  run_family_oracle(
      {1, 2, 3, 4}, 500, [] { return OracleGenerator(SortGenerator()); }, 40, &as_multiset);
}

// Fixed sequences on both servers: every reply byte for byte.
void expect_same_replies(const std::vector<OracleArgs>& script) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  RespClient ours(listd.port());
  RespClient theirs(redis.port());
  for (const OracleArgs& cmd : script)
    ASSERT_EQ(ours.call(cmd), theirs.call(cmd)) << describe_command(cmd);
}

// BY and GET patterns need read access to every key (Redis 7.0's rule); a constant BY does not;
// the STORE key is checked for write access like any key.
TEST(SortOracle, PatternsNeedAccessToEveryKey) {
  expect_same_replies({
      {"RPUSH", "kl", "2", "1"},
      {"SET", "w_1", "5"},
      {"ACL", "SETUSER", "some", "on", "nopass", "+@all", "~k*"},
      {"ACL", "SETUSER", "reader", "on", "nopass", "+@all", "%R~*", "~d*"},
      {"ACL", "SETUSER", "twosel", "on", "nopass", "+@all", "~k*", "(+sort %R~*)"},
      {"AUTH", "some", "x"},
      {"SORT", "kl"},
      {"SORT", "kl", "BY", "nosort"},
      {"SORT", "kl", "BY", "w_*"},
      {"SORT", "kl", "GET", "#"},
      {"SORT", "kl", "LIMIT", "0", "1", "GET", "w_*", "BY", "w_*"},
      {"SORT_RO", "kl", "BY", "w_*"},
      {"AUTH", "reader", "x"},
      {"SORT", "kl", "BY", "w_*", "GET", "#", "GET", "w_*"},
      {"SORT", "kl", "STORE", "dst"},
      {"SORT", "kl", "STORE", "kdst"},
      {"AUTH", "twosel", "x"},
      {"SORT", "kl", "BY", "w_*"},
      {"SORT_RO", "kl", "BY", "w_*"},
      {"COMMAND", "GETKEYS", "SORT", "kl", "STORE", "a", "LIMIT", "0", "1", "STORE", "b"},
      {"COMMAND", "GETKEYS", "SORT", "kl", "GET", "store", "ALPHA"},
  });
}

// The BY and GET lookups are reads: counted in keyspace_hits / keyspace_misses.
TEST(SortOracle, PatternLookupsAreCountedAsReads) {
  expect_same_replies({
      {"RPUSH", "l", "3", "1", "2"},
      {"SET", "w_1", "5"},
      {"HSET", "h_2", "f", "x"},
      {"CONFIG", "RESETSTAT"},
      {"SORT", "l", "BY", "w_*", "GET", "h_*->f", "GET", "#", "GET", "nosuch"},
      {"SORT", "l", "BY", "nosort", "GET", "w_*"},
      {"EVAL", "return redis.call('INFO', 'stats'):match('keyspace_hits:%d+')", "0"},
      {"EVAL", "return redis.call('INFO', 'stats'):match('keyspace_misses:%d+')", "0"},
  });
}

}  // namespace
}  // namespace listd::testing
