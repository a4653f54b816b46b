#include "listd/store/dict.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "listd/store/database.h"

using namespace listd::store;

namespace {

Value str(std::string_view s) { return Value::make_string(s); }

TEST(Dict, InsertFindDetachAgainstAModel) {
  Dict d;
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 50000; ++i) {
    const std::string k = "k" + std::to_string(rng() % 4000);
    if (rng() % 3 == 0) {
      EXPECT_EQ(d.erase(k), model.erase(k) == 1);
    } else if (!d.find(k)) {
      d.insert(k, str(k + "v"));
      model[k] = k + "v";
    }
    ASSERT_EQ(d.size(), model.size());
  }
  for (const auto& [k, v] : model) {
    Entry* e = d.find(k);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->value.as_string().view(), v);
    EXPECT_EQ(e->key(), k);
  }
}

TEST(Dict, BinaryKeysAreDistinct) {
  Dict d;
  d.insert(std::string_view("a\0b", 3), str("1"));
  d.insert(std::string_view("a\0c", 3), str("2"));
  d.insert("", str("3"));
  EXPECT_EQ(d.find(std::string_view("a\0b", 3))->value.as_string().view(), "1");
  EXPECT_EQ(d.find(std::string_view("a\0c", 3))->value.as_string().view(), "2");
  EXPECT_EQ(d.find("")->value.as_string().view(), "3");
  EXPECT_EQ(d.find("a"), nullptr);
}

// The SCAN guarantee: every key present for the whole scan is returned at least once, even
// when the table grows or shrinks between calls.
TEST(Dict, ScanSurvivesGrowthAndShrink) {
  for (int mode = 0; mode < 2; ++mode) {
    Dict d;
    for (int i = 0; i < 500; ++i) d.insert("stable" + std::to_string(i), str("v"));
    for (int i = 0; i < 3000; ++i) d.insert("temp" + std::to_string(i), str("v"));
    std::multiset<std::string> seen;
    std::uint64_t cursor = 0;
    int step = 0;
    do {
      cursor = d.scan(cursor, [&](const Entry& e) { seen.insert(std::string(e.key())); });
      ++step;
      // Growth is bounded: a table that grows faster than the scan advances never finishes.
      if (mode == 0 && step <= 100) {
        for (int j = 0; j < 50; ++j) d.insert("grow" + std::to_string(step * 50 + j), str("v"));
      } else if (mode == 1 && step * 100 < 3000) {
        for (int j = 0; j < 100; ++j) d.erase("temp" + std::to_string(step * 100 + j));
      }
    } while (cursor != 0);
    for (int i = 0; i < 500; ++i)
      EXPECT_GE(seen.count("stable" + std::to_string(i)), 1u) << mode << " " << i;
  }
}

TEST(Dict, RandomEntryReturnsMembers) {
  Dict d;
  std::mt19937_64 rng(1);
  EXPECT_EQ(d.random_entry(rng), nullptr);
  for (int i = 0; i < 10; ++i) d.insert("k" + std::to_string(i), str("v"));
  std::set<std::string> got;
  for (int i = 0; i < 1000; ++i) got.insert(std::string(d.random_entry(rng)->key()));
  EXPECT_EQ(got.size(), 10u);
}

TEST(Database, LazyAndActiveExpiry) {
  Database db;
  int hooked = 0;
  db.set_expired_hook([&](Database&, std::string_view) { ++hooked; });
  Entry* a = db.add("a", str("1"));
  Entry* b = db.add("b", str("2"));
  db.add("c", str("3"));
  db.set_expire(*a, 100);
  db.set_expire(*b, 200);
  EXPECT_EQ(db.expires_count(), 2u);
  EXPECT_EQ(db.next_expire_hint(), 100);
  EXPECT_NE(db.lookup("a", 99), nullptr);
  EXPECT_EQ(db.lookup("a", 100), nullptr);  // lazy: gone at its deadline
  EXPECT_EQ(hooked, 1);
  EXPECT_EQ(db.expire_cycle(150, 10), 0u);
  EXPECT_EQ(db.expire_cycle(200, 10), 1u);  // active
  EXPECT_EQ(hooked, 2);
  EXPECT_EQ(db.size(), 1u);
  EXPECT_EQ(db.expires_count(), 0u);
}

TEST(Database, ReExpireAndPersistLeaveNoStaleDeletion) {
  Database db;
  Entry* a = db.add("a", str("1"));
  db.set_expire(*a, 100);
  db.set_expire(*a, 500);  // the 100 ms heap item is now stale
  EXPECT_EQ(db.expire_cycle(300, 10), 0u);
  EXPECT_NE(db.peek("a"), nullptr);
  db.persist(*a);
  EXPECT_EQ(db.expire_cycle(1000, 10), 0u);
  EXPECT_NE(db.peek("a"), nullptr);
  // Delete and recreate without a TTL: the old deadline must not delete the new key.
  db.set_expire(*a, 2000);
  db.remove("a");
  db.add("a", str("new"));
  EXPECT_EQ(db.expire_cycle(5000, 10), 0u);
  EXPECT_NE(db.peek("a"), nullptr);
}

TEST(Database, ExpireCycleRespectsItsBudget) {
  Database db;
  for (int i = 0; i < 100; ++i) db.set_expire(*db.add("k" + std::to_string(i), str("v")), 10);
  EXPECT_EQ(db.expire_cycle(20, 30), 30u);
  EXPECT_EQ(db.size(), 70u);
  EXPECT_EQ(db.average_ttl(0), 10);
}

}  // namespace

// The expiry index's byte count: long keys' heap copies enter with their deadlines and leave as
// the deadlines are popped or compacted away, so a drained index holds only its array.
TEST(Database, ExpiryIndexBytesCountTheLongKeysCopies) {
  Database long_keys, short_keys;
  const std::string prefix(60, 'k');
  for (int i = 0; i < 100; ++i) {
    long_keys.set_expire(*long_keys.add(prefix + std::to_string(i), str("v")), 10 + i);
    short_keys.set_expire(*short_keys.add("k" + std::to_string(i), str("v")), 10 + i);
  }
  EXPECT_GE(long_keys.expiry_index_bytes(), short_keys.expiry_index_bytes() + 100 * 61);
  // Re-expiring every key makes half the items stale: compaction drops them (and their copies).
  for (int i = 0; i < 100; ++i) {
    long_keys.set_expire(*long_keys.peek(prefix + std::to_string(i)), 5000 + i);
    short_keys.set_expire(*short_keys.peek("k" + std::to_string(i)), 5000 + i);
  }
  EXPECT_EQ(long_keys.expire_cycle(10000, 1000), 100u);
  EXPECT_EQ(short_keys.expire_cycle(10000, 1000), 100u);
  EXPECT_EQ(long_keys.expiry_index_bytes(), short_keys.expiry_index_bytes());
  long_keys.clear();
  short_keys.clear();
  EXPECT_EQ(long_keys.expiry_index_bytes(), short_keys.expiry_index_bytes());
}
