// HashValue: both forms against std::map with fixed seeds.
#include "listd/store/hash_value.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

using listd::store::HashValue;

namespace {

std::map<std::string, std::string> contents(const HashValue& h) {
  std::map<std::string, std::string> out;
  h.for_each([&](std::string_view f, std::string_view v) {
    EXPECT_TRUE(out.emplace(f, v).second) << "duplicate " << f;
  });
  EXPECT_EQ(out.size(), h.size());
  return out;
}

TEST(HashValue, ListpackKeepsInsertionOrderAcrossUpdates) {
  HashValue h;
  EXPECT_TRUE(h.set("a", "1"));
  EXPECT_TRUE(h.set("b", "2"));
  EXPECT_TRUE(h.set("c", "3"));
  EXPECT_FALSE(h.set("a", "a much longer value than before"));
  EXPECT_FALSE(h.set("b", ""));
  std::vector<std::string> order;
  h.for_each([&](std::string_view f, std::string_view v) {
    order.push_back(std::string(f) + "=" + std::string(v));
  });
  EXPECT_EQ(order, (std::vector<std::string>{"a=a much longer value than before", "b=", "c=3"}));
  EXPECT_EQ(h.encoding_name(), "listpack");
  EXPECT_EQ(*h.get("c"), "3");
  EXPECT_FALSE(h.get("zz").has_value());
  EXPECT_TRUE(h.erase("b"));
  EXPECT_FALSE(h.erase("b"));
  EXPECT_EQ(h.size(), 2u);
}

TEST(HashValue, ConvertsAtRedisLimits) {
  HashValue h;
  for (int i = 0; i < 512; ++i) h.set("f" + std::to_string(i), "v");
  EXPECT_EQ(h.encoding_name(), "listpack");  // hash-max-listpack-entries is 512 for hashes
  h.set("f0", std::string(64, 'v'));
  EXPECT_EQ(h.encoding_name(), "listpack");
  h.set("f512", "v");
  EXPECT_EQ(h.encoding_name(), "hashtable");

  HashValue big;
  big.set("f", "v");
  big.set("g", std::string(65, 'v'));
  EXPECT_EQ(big.encoding_name(), "hashtable");
  EXPECT_EQ(big.get("g")->size(), 65u);
  EXPECT_EQ(*big.get("f"), "v");
}

TEST(HashValue, RandomOperationsMatchStdMap) {
  for (std::uint64_t seed : {11u, 12u}) {
    std::mt19937_64 rng(seed);
    HashValue h;
    std::map<std::string, std::string> ref;
    const int fields = seed == 11 ? 90 : 4000;
    for (int step = 0; step < 30000; ++step) {
      const std::string f = "field:" + std::to_string(rng() % static_cast<unsigned>(fields));
      const std::string v(rng() % (rng() % 40 == 0 ? 200 : 20), static_cast<char>('a' + step % 26));
      switch (rng() % 4) {
        case 0:
        case 1: {
          const bool fresh = ref.find(f) == ref.end();
          EXPECT_EQ(h.set(f, v), fresh);
          ref[f] = v;
          break;
        }
        case 2: EXPECT_EQ(h.erase(f), ref.erase(f) == 1); break;
        default: {
          auto it = ref.find(f);
          auto got = h.get(f);
          ASSERT_EQ(got.has_value(), it != ref.end());
          if (got) {
            EXPECT_EQ(*got, it->second);
          }
        }
      }
      ASSERT_EQ(h.size(), ref.size());
    }
    EXPECT_EQ(contents(h), ref);
    EXPECT_EQ(contents(h.clone()), ref);
    std::map<std::string, std::string> scanned;
    std::uint64_t cursor = 0;
    do {
      cursor =
          h.scan(cursor, [&](std::string_view f, std::string_view v) { scanned.emplace(f, v); });
    } while (cursor != 0);
    EXPECT_EQ(scanned, ref);
    if (!ref.empty()) {
      auto [f, v] = h.random_pair(rng);
      EXPECT_EQ(ref.at(std::string(f)), v);
    }
  }
}

TEST(HashValue, ReserveThenShrinkKeepsContentAndGivesBackSlack) {
  HashValue h;
  h.set("a", "1");
  h.reserve(3, 3 * 12);
  h.set("a", "2");  // existed: the reservation over-estimated
  h.set("bbbb", "value");
  h.set("c", "");
  const std::size_t before = h.memory_usage();
  h.shrink_to_fit();
  EXPECT_LE(h.memory_usage(), before);
  EXPECT_EQ(*h.get("a"), "2");
  EXPECT_EQ(*h.get("bbbb"), "value");
  EXPECT_EQ(*h.get("c"), "");
  EXPECT_EQ(h.size(), 3u);
  HashValue big;
  big.reserve(600, 600 * 4);  // beyond the listpack limit: nothing to reserve
  for (int i = 0; i < 600; ++i) big.set("f" + std::to_string(i), "v");
  big.shrink_to_fit();
  EXPECT_EQ(big.encoding_name(), "hashtable");
  EXPECT_EQ(big.size(), 600u);
}

TEST(HashValue, BinarySafeFieldsAndValues) {
  HashValue h;
  const std::string f("a\0b", 3), v("\0\r\n", 3);
  h.set(f, v);
  h.set("a", "x");
  EXPECT_EQ(*h.get(f), v);
  EXPECT_EQ(*h.get("a"), "x");
  h.convert_to_table();
  EXPECT_EQ(h.encoding_name(), "hashtable");
  EXPECT_EQ(*h.get(f), v);
}

}  // namespace
