// ZSetValue: both forms against a std::set<(score, member)> + std::map<member, score> model.
#include "listd/store/zset_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

using listd::store::ZSetValue;

namespace {

using Elem = std::pair<double, std::string>;

struct Model {
  std::set<Elem> order;
  std::map<std::string, double> scores;

  void add(const std::string& m, double s) {
    auto it = scores.find(m);
    if (it != scores.end()) order.erase({it->second, m});
    scores[m] = s;
    order.insert({s, m});
  }
  bool erase(const std::string& m) {
    auto it = scores.find(m);
    if (it == scores.end()) return false;
    order.erase({it->second, m});
    scores.erase(it);
    return true;
  }
  std::vector<Elem> vec() const { return {order.begin(), order.end()}; }
};

std::vector<Elem> contents(const ZSetValue& z) {
  std::vector<Elem> out;
  z.for_each([&](std::string_view m, double s) { out.emplace_back(s, std::string(m)); });
  return out;
}

void add(ZSetValue& z, const std::string& m, double s) {
  if (auto old = z.score(m))
    z.update(m, *old, s);
  else
    z.insert(m, s);
}

void check_against(const ZSetValue& z, const Model& ref, std::mt19937_64& rng) {
  const std::vector<Elem> want = ref.vec();
  ASSERT_EQ(z.size(), want.size());
  ASSERT_EQ(contents(z), want);
  // Walking backwards from the end visits the same elements in reverse.
  std::vector<Elem> back;
  if (!want.empty())
    for (auto c = z.at_rank(want.size() - 1); c.valid(); c.prev())
      back.emplace_back(c.score(), std::string(c.member()));
  ASSERT_EQ(std::vector<Elem>(want.rbegin(), want.rend()), back);
  for (int i = 0; i < 20 && !want.empty(); ++i) {
    const std::size_t r = rng() % want.size();
    auto c = z.at_rank(r);
    ASSERT_TRUE(c.valid());
    EXPECT_EQ(c.member(), want[r].second);
    EXPECT_EQ(z.rank(want[r].second), r);
    const double s = want[r].first;
    EXPECT_EQ(z.partition_point([&](double x, std::string_view) { return x < s; }),
              static_cast<std::size_t>(std::lower_bound(want.begin(), want.end(), Elem{s, ""}) -
                                       want.begin()));
  }
  EXPECT_FALSE(z.at_rank(want.size()).valid());
}

TEST(ZSetValue, OrdersByScoreThenMemberBytes) {
  ZSetValue z;
  add(z, "b", 1);
  add(z, "a", 1);
  add(z, "c", 0.5);
  add(z, "\xff", 1);
  add(z, "neg", -std::numeric_limits<double>::infinity());
  const std::vector<Elem> want{{-INFINITY, "neg"}, {0.5, "c"}, {1, "a"}, {1, "b"}, {1, "\xff"}};
  EXPECT_EQ(contents(z), want);
  EXPECT_EQ(z.encoding_name(), "listpack");
  EXPECT_EQ(*z.rank("\xff"), 4u);
  EXPECT_FALSE(z.rank("zz").has_value());
}

TEST(ZSetValue, ListpackKeepsScoresBitExactExceptNegativeZero) {
  ZSetValue z;
  const double scores[] = {1.1,
                           -0.0,
                           0.0,
                           3,
                           -3,
                           2147483647.0,
                           -2147483648.0,
                           2147483648.0,
                           1e300,
                           4503599627370497.0,
                           std::numeric_limits<double>::denorm_min(),
                           1.5,
                           -0.25,
                           1e38,
                           3.4028234663852886e38,
                           1e39,
                           9007199254740992.0,
                           -9007199254740992.0,
                           9007199254740994.0,
                           1732982400123.0,
                           1e-45,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<float>::denorm_min(),
                           0.1f,
                           1e-300};
  int i = 0;
  for (double s : scores) z.insert("m" + std::to_string(i++), s);
  i = 0;
  for (double s : scores) {
    const double got = *z.score("m" + std::to_string(i++));
    const double want = s == 0 ? 0.0 : s;  // Redis' listpack turns -0 into 0
    EXPECT_EQ(std::memcmp(&got, &want, sizeof want), 0) << s;
  }
  // The skip list keeps -0 (Redis 7.0 replies "-0" there).
  ZSetValue big = ZSetValue::create(65);
  big.insert("neg", -0.0);
  EXPECT_TRUE(std::signbit(*big.score("neg")));
}

TEST(ZSetValue, ConvertsToSkiplistAtRedisLimits) {
  ZSetValue z;
  for (int i = 0; i < 128; ++i) z.insert("m" + std::to_string(i), i);
  EXPECT_EQ(z.encoding_name(), "listpack");
  z.insert("m128", 128);
  EXPECT_EQ(z.encoding_name(), "skiplist");
  EXPECT_EQ(z.size(), 129u);
  EXPECT_EQ(*z.rank("m100"), 100u);

  ZSetValue longm;
  longm.insert("a", 1);
  longm.insert(std::string(65, 'x'), 2);
  EXPECT_EQ(longm.encoding_name(), "skiplist");
  EXPECT_EQ(ZSetValue::create(65).encoding_name(), "skiplist");
  EXPECT_EQ(ZSetValue::create(64).encoding_name(), "listpack");
}

TEST(ZSetValue, RandomOperationsMatchModel) {
  for (std::uint64_t seed : {21u, 22u, 23u}) {
    std::mt19937_64 rng(seed);
    ZSetValue z;
    Model ref;
    const unsigned members = seed == 21 ? 60 : 3000;
    for (int step = 0; step < 40000; ++step) {
      const std::string m = "m" + std::to_string(rng() % members);
      // Few distinct scores, so that ties (ordered by member) are common.
      const double s = static_cast<double>(rng() % 50) / (seed == 23 ? 3.0 : 1.0);
      switch (rng() % 8) {
        case 0:
        case 1:
        case 2:
        case 3:
          add(z, m, s);
          ref.add(m, s);
          break;
        case 4:
        case 5: EXPECT_EQ(z.erase(m), ref.erase(m)); break;
        case 6: {
          auto got = z.score(m);
          auto it = ref.scores.find(m);
          ASSERT_EQ(got.has_value(), it != ref.scores.end());
          if (got) {
            EXPECT_EQ(*got, it->second);
          }
          break;
        }
        default: {
          if (ref.order.empty() || rng() % 20 != 0) break;
          const std::size_t n = ref.order.size();
          const std::size_t lo = rng() % n, hi = std::min(n, lo + rng() % 5);
          auto v = ref.vec();
          for (std::size_t i = lo; i < hi; ++i) ref.erase(v[i].second);
          z.erase_ranks(lo, hi);
        }
      }
      ASSERT_EQ(z.size(), ref.order.size()) << "step " << step;
      if (step % 2003 == 0) check_against(z, ref, rng);
    }
    check_against(z, ref, rng);
    ZSetValue copy = z.clone();
    check_against(copy, ref, rng);
    std::map<std::string, double> scanned;
    std::uint64_t cursor = 0;
    do {
      cursor = z.scan(cursor, [&](std::string_view m, double s) { scanned.emplace(m, s); });
    } while (cursor != 0);
    EXPECT_EQ(scanned, ref.scores);
  }
}

// Correctness on a large set only: ZSetValue has no operation counters, so the logarithmic cost of
// rank lookups and pops is not measured here.
TEST(ZSetValue, LargeSetRanksAndPopsAreCorrect) {
  ZSetValue z;
  const int n = 200000;
  for (int i = 0; i < n; ++i) z.insert("member:" + std::to_string(i), (i * 7919) % n);
  EXPECT_EQ(z.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(z.at_rank(0).score(), 0);
  EXPECT_EQ(z.at_rank(n - 1).score(), n - 1);
  // Pop the minimum 1000 times (ZPOPMIN).
  for (int i = 0; i < 1000; ++i) {
    auto c = z.at_rank(0);
    ASSERT_EQ(c.score(), i);
    z.erase_ranks(0, 1);
  }
  EXPECT_EQ(z.size(), static_cast<std::size_t>(n - 1000));
  EXPECT_EQ(z.partition_point([](double s, std::string_view) { return s < 5000; }), 4000u);
  EXPECT_GT(z.memory_usage(), static_cast<std::size_t>(n - 1000) * 40);
}

}  // namespace
