// SetValue and BlockSet: every form against std::set with fixed seeds.
#include "listd/store/set_value.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

using listd::store::SetValue;

namespace {

std::set<std::string> contents(const SetValue& s) {
  std::set<std::string> out;
  s.for_each([&](std::string_view m) { EXPECT_TRUE(out.emplace(m).second) << "duplicate " << m; });
  EXPECT_EQ(out.size(), s.size());
  return out;
}

std::vector<std::string> ordered(const SetValue& s) {
  std::vector<std::string> out;
  s.for_each([&](std::string_view m) { out.emplace_back(m); });
  return out;
}

TEST(SetValue, CanonicalIntegersMakeAnIntsetIteratedInOrder) {
  SetValue s;
  for (const char* m : {"5", "-3", "100000", "0", "5"}) s.add(m);
  EXPECT_EQ(s.encoding_name(), "intset");
  EXPECT_EQ(ordered(s), (std::vector<std::string>{"-3", "0", "5", "100000"}));
  EXPECT_TRUE(s.contains("100000"));
  EXPECT_FALSE(s.contains("007"));
  // Wider values upgrade the width without losing anything.
  s.add("9223372036854775807");
  s.add("-9223372036854775808");
  EXPECT_EQ(s.encoding_name(), "intset");
  EXPECT_EQ(ordered(s).front(), "-9223372036854775808");
  EXPECT_EQ(ordered(s).back(), "9223372036854775807");
}

TEST(SetValue, NonCanonicalIntegersAreStrings) {
  SetValue s;
  s.add("1");
  s.add("007");                               // string2ll rejects it: stays the bytes "007"
  EXPECT_EQ(s.encoding_name(), "hashtable");  // Redis 7.0: no listpack sets
  EXPECT_TRUE(s.contains("007"));
  EXPECT_FALSE(s.contains("7"));
  EXPECT_EQ(contents(s), (std::set<std::string>{"1", "007"}));
}

TEST(SetValue, ConvertsAtRedisLimits) {
  SetValue ints;
  for (int i = 0; i < 512; ++i) ints.add(std::to_string(i));
  EXPECT_EQ(ints.encoding_name(), "intset");
  ints.add("512");
  EXPECT_EQ(ints.encoding_name(), "hashtable");
  EXPECT_EQ(ints.size(), 513u);

  SetValue strs;
  strs.add("m0");
  EXPECT_EQ(strs.encoding_name(), "hashtable");
  for (int i = 1; i < 200; ++i) strs.add("m" + std::to_string(i));
  EXPECT_EQ(strs.size(), 200u);

  SetValue longm;
  longm.add("a");
  longm.add(std::string(65, 'x'));
  EXPECT_EQ(longm.encoding_name(), "hashtable");
  EXPECT_TRUE(longm.contains(std::string(65, 'x')));
}

TEST(SetValue, RandomOperationsMatchStdSet) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    SetValue s;
    std::set<std::string> ref;
    for (int step = 0; step < 20000; ++step) {
      const int kind = static_cast<int>(rng() % 10);
      std::string m = (seed == 1) ? std::to_string(static_cast<long long>(rng() % 2000) - 1000)
                                  : "k" + std::to_string(rng() % (seed == 2 ? 100 : 3000));
      if (seed == 3 && rng() % 50 == 0) m.append(70, 'z');
      if (kind < 6) {
        EXPECT_EQ(s.add(m), ref.insert(m).second);
      } else if (kind < 9) {
        EXPECT_EQ(s.remove(m), ref.erase(m) == 1);
      } else if (!ref.empty()) {
        const std::string r = s.pop_random(rng);
        EXPECT_EQ(ref.erase(r), 1u);
      }
      ASSERT_EQ(s.size(), ref.size());
      if (step % 997 == 0) {
        ASSERT_EQ(contents(s), ref);
      }
    }
    EXPECT_EQ(contents(s), ref);
    SetValue copy = s.clone();
    EXPECT_EQ(contents(copy), ref);
    EXPECT_GT(s.memory_usage(), 0u);
  }
}

TEST(SetValue, ScanReturnsEveryMemberDespiteRemovalsAndResizes) {
  SetValue s;
  for (int i = 0; i < 5000; ++i) s.add("member:" + std::to_string(i));
  ASSERT_EQ(s.encoding_name(), "hashtable");
  std::set<std::string> seen;
  std::uint64_t cursor = 0;
  int round = 0;
  do {
    cursor = s.scan(cursor, [&](std::string_view m) { seen.emplace(m); });
    // Remove members >= 2500 as the scan goes, so the table shrinks under it.
    for (int k = 0; k < 40; ++k) s.remove("member:" + std::to_string(2500 + round * 40 + k));
    ++round;
  } while (cursor != 0);
  for (int i = 0; i < 2500; ++i) EXPECT_TRUE(seen.count("member:" + std::to_string(i))) << i;
}

TEST(SetValue, RandomMemberIsRoughlyUniform) {
  std::mt19937_64 rng(7);
  for (int n : {5, 300}) {
    SetValue s;
    for (int i = 0; i < n; ++i) s.add("x" + std::to_string(i));
    std::vector<int> hits(static_cast<std::size_t>(n));
    const int draws = n * 200;
    for (int i = 0; i < draws; ++i)
      ++hits[static_cast<std::size_t>(std::stoi(s.random_member(rng).substr(1)))];
    for (int h : hits) {
      EXPECT_GT(h, 100);
      EXPECT_LT(h, 300);
    }
  }
}

}  // namespace
