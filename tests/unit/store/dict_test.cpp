#include "listd/store/dict.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "listd/store/database.h"
#include "listd/store/retired_block.h"

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

// ---- incremental rehash ------------------------------------------------------------------------

namespace {

std::string rk(int i) { return "key:" + std::to_string(i); }

// Inserts rk(0), rk(1), ... until at least `min` keys are in and a growth rehash has just begun.
int fill_until_rehashing(Dict& d, int min) {
  int n = 0;
  while (n < min || !d.rehashing()) d.insert(rk(n++), Value::make_string("v"));
  return n;
}

std::size_t count_by_for_each(const Dict& d) {
  std::size_t n = 0;
  d.for_each([&](const Entry&) { ++n; });
  return n;
}

bool is_power_of_two_or_zero(std::size_t n) { return (n & (n - 1)) == 0; }

}  // namespace

TEST(DictRehash, GrowthIsIncrementalAndEveryOperationWorksMidRehash) {
  Dict d;
  const int n = fill_until_rehashing(d, 5000);
  ASSERT_TRUE(d.rehashing());
  // Both tables are allocated: the old one and its double.
  EXPECT_GT(d.bucket_count(), static_cast<std::size_t>(n));
  EXPECT_EQ(count_by_for_each(d), static_cast<std::size_t>(n));
  std::mt19937_64 rng(3);
  std::set<std::string> sampled;
  for (int i = 0; i < 200; ++i) sampled.insert(std::string(d.random_entry(rng)->key()));
  EXPECT_GT(sampled.size(), 100u);
  std::vector<Entry*> all(n + 10);
  EXPECT_EQ(d.sample(rng, all), static_cast<std::size_t>(n));  // whole, no duplicates
  std::set<Entry*> distinct(all.begin(), all.begin() + n);
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(n));
  ASSERT_TRUE(d.rehashing());  // sample, random_entry and for_each take no step
  // A detach and an insert mid-rehash, then a lookup of every key (one step each).
  Entry* e = d.detach(rk(7));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(d.find(rk(7)), nullptr);
  d.insert_entry(e);
  EXPECT_TRUE(d.erase(rk(8)));
  EXPECT_FALSE(d.erase(rk(8)));
  d.insert("extra", Value::make_string("x"));
  for (int i = 0; i < n; ++i) EXPECT_EQ(d.find(rk(i)) != nullptr, i != 8) << i;
  EXPECT_NE(d.find("extra"), nullptr);
  EXPECT_EQ(d.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(count_by_for_each(d), d.size());
}

TEST(DictRehash, EachAccessMovesABoundedAmount) {
  Dict d;
  fill_until_rehashing(d, 100000);
  // One find moves one bucket (or gives up after 10 empty ones): 100 finds cannot finish a
  // rehash of a table of more than 65,536 buckets.
  for (int i = 0; i < 100; ++i) d.find(rk(i));
  EXPECT_TRUE(d.rehashing());
  // Explicit steps finish it.
  while (d.rehash_steps(1000)) {
  }
  EXPECT_FALSE(d.rehashing());
  EXPECT_TRUE(is_power_of_two_or_zero(d.bucket_count()));
  EXPECT_GE(d.bucket_count(), d.size());
}

TEST(DictRehash, MoveAndClearMidRehash) {
  Dict d;
  const int n = fill_until_rehashing(d, 3000);
  Dict moved(std::move(d));
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.bucket_count(), 0u);
  EXPECT_FALSE(d.rehashing());
  EXPECT_TRUE(moved.rehashing());
  for (int i = 0; i < n; ++i) ASSERT_NE(moved.find(rk(i)), nullptr) << i;
  Dict assigned;
  assigned.insert("old", Value::make_string("v"));
  fill_until_rehashing(moved, n + 1);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.find("old"), nullptr);
  EXPECT_NE(assigned.find(rk(0)), nullptr);
  ASSERT_TRUE(assigned.rehashing() || assigned.size() > 0);
  const std::uint64_t destroyed = Entry::destroyed_count();
  const std::size_t size = assigned.size();
  assigned.clear();
  EXPECT_EQ(Entry::destroyed_count() - destroyed, size);
  EXPECT_EQ(assigned.size(), 0u);
  EXPECT_EQ(assigned.bucket_count(), 0u);
  EXPECT_FALSE(assigned.rehashing());
  d.insert("again", Value::make_string("v"));  // a moved-from dict is usable
  EXPECT_NE(d.find("again"), nullptr);
}

TEST(DictRehash, ShrinkIsIncrementalToo) {
  Dict d;
  for (int i = 0; i < 20000; ++i) d.insert(rk(i), Value::make_string("v"));
  while (d.rehash_steps(1000)) {
  }
  const std::size_t big = d.bucket_count();
  int i = 0;
  while (!d.rehashing()) ASSERT_TRUE(d.erase(rk(i++)));
  EXPECT_GT(d.bucket_count(), big);  // the quarter-size table next to the old one
  for (int j = i; j < 20000; ++j) ASSERT_NE(d.find(rk(j)), nullptr) << j;
  while (d.rehash_steps(1000)) {
  }
  EXPECT_EQ(d.bucket_count(), big / 4);
  EXPECT_EQ(count_by_for_each(d), d.size());
}

TEST(DictRehash, NoStepWhileAForkChildRunsUnlessTheLoadIsExtreme) {
  Dict d;
  fill_until_rehashing(d, 4000);
  Dict::set_resize_avoided(true);
  const std::size_t buckets = d.bucket_count();
  for (int i = 0; i < 5000; ++i) d.find(rk(i));
  EXPECT_TRUE(d.rehashing());
  EXPECT_EQ(d.bucket_count(), buckets);
  EXPECT_EQ(d.rehash_for_us(1000000), 0u);
  Dict::set_resize_avoided(false);
  while (d.rehash_steps(1000)) {
  }
  // While avoided, a full table is not grown until the load passes kForceRatio.
  Dict::set_resize_avoided(true);
  const std::size_t table = d.bucket_count();
  int n = static_cast<int>(d.size());
  while (d.size() < table * Dict::kForceRatio) d.insert(rk(n++), Value::make_string("v"));
  EXPECT_FALSE(d.rehashing());
  EXPECT_EQ(d.bucket_count(), table);
  while (!d.rehashing()) d.insert(rk(n++), Value::make_string("v"));
  // Extreme: the new table is at least kForceRatio times larger, and steps are taken.
  EXPECT_GE(d.bucket_count() - table, table * Dict::kForceRatio);
  while (d.rehash_steps(1000)) {
  }
  Dict::set_resize_avoided(false);
  for (int i = 0; i < n; ++i) ASSERT_NE(d.find(rk(i)), nullptr) << i;
}

// SCAN across a rehash in progress: steps and inserts (growth) or erases (shrink) between calls.
TEST(DictRehash, ScanGuaranteeHoldsAcrossRehashSteps) {
  for (int mode = 0; mode < 2; ++mode) {
    Dict d;
    for (int i = 0; i < 1000; ++i) d.insert("stable" + std::to_string(i), str("v"));
    for (int i = 0; i < 30000; ++i) d.insert("temp" + std::to_string(i), str("v"));
    while (d.rehash_steps(1000)) {
    }
    std::multiset<std::string> seen;
    std::uint64_t cursor = 0;
    int step = 0, grown = 0, erased = 0;
    bool saw_rehash = false;
    do {
      cursor = d.scan(cursor, [&](const Entry& e) { seen.insert(std::string(e.key())); });
      ++step;
      saw_rehash |= d.rehashing();
      if (mode == 0 && grown < 40000) {
        for (int j = 0; j < 20; ++j) d.insert("grow" + std::to_string(grown++), str("v"));
      } else if (mode == 1 && erased < 30000) {
        for (int j = 0; j < 20; ++j) d.erase("temp" + std::to_string(erased++));
      }
      if (step % 3 == 0) d.rehash_steps(2);
    } while (cursor != 0);
    EXPECT_TRUE(saw_rehash) << mode;
    for (int i = 0; i < 1000; ++i)
      EXPECT_GE(seen.count("stable" + std::to_string(i)), 1u) << mode << " " << i;
  }
}

// A randomized model test: every operation against std::unordered_map, invariants after each.
TEST(DictRehash, RandomizedAgainstUnorderedMap) {
  Dict d;
  std::unordered_map<std::string, Entry*> model;
  std::mt19937_64 rng(20260);
  bool saw_rehash = false;
  for (int op = 0; op < 200000; ++op) {
    // Phases of growth and shrink so both directions rehash repeatedly.
    const bool growing = (op / 25000) % 2 == 0;
    const std::string k = "m" + std::to_string(rng() % 30000);
    const unsigned r = rng() % 10;
    if (r < (growing ? 6u : 2u)) {
      if (!model.count(k)) model[k] = d.insert(k, str(k));
    } else if (r < 9) {
      const bool had = model.erase(k) == 1;
      ASSERT_EQ(d.erase(k), had) << op;
    } else {
      auto it = model.find(k);
      ASSERT_EQ(d.find(k), it == model.end() ? nullptr : it->second) << op;
    }
    if (rng() % 50 == 0) d.rehash_steps(rng() % 4);
    saw_rehash |= d.rehashing();
    ASSERT_EQ(d.size(), model.size());
    if (op % 5000 == 0) {
      ASSERT_EQ(count_by_for_each(d), model.size());
      for (const auto& [key, entry] : model) ASSERT_EQ(d.find(key), entry) << key;
      if (!d.rehashing()) {
        ASSERT_TRUE(is_power_of_two_or_zero(d.bucket_count()));
      }
      ASSERT_LE(d.size(), d.bucket_count() * Dict::kForceRatio);
    }
  }
  EXPECT_TRUE(saw_rehash);
}

// The old array a large rehash leaves behind is not freed in the step that finishes the rehash
// (a 64 MiB free stalls that command for milliseconds): the cron drops it kReleasePerTickBytes
// at a time, then frees it. A small one is freed at once.
TEST(DictRehash, ALargeOldArrayIsGivenBackOverTicks) {
  Dict d;
  // 300,000 keys: the growth to 524,288 buckets leaves a 262,144-bucket (2 MiB) array behind.
  fill_until_rehashing(d, 300000);
  while (d.rehash_steps(100000)) {
  }
  EXPECT_TRUE(d.old_table_pending());
  int ticks = 0;
  while (d.old_table_pending() && ticks < 100) {
    EXPECT_GT(d.rehash_for_us(1000), 0u);  // counts as the cron's work
    ++ticks;
  }
  EXPECT_FALSE(d.old_table_pending());
  EXPECT_EQ(ticks, 1);  // 2 MiB: one step of 4 MiB drops it all and frees it
  for (int i = 0; i < 300000; i += 997) ASSERT_NE(d.find(rk(i)), nullptr) << i;
  Dict small;
  fill_until_rehashing(small, 5000);
  while (small.rehash_steps(1000)) {
  }
  EXPECT_FALSE(small.old_table_pending());  // 32 KiB: freed in the step
}

TEST(RetiredBlock, DropsPagesInStepsThenFrees) {
  RetiredBlock b;
  void* tiny = std::malloc(4096);
  b.retire(tiny, 4096);  // under kInlineFreeBytes: freed at once (ASan would report a leak)
  EXPECT_FALSE(b.pending());
  const std::size_t bytes = 8 << 20;
  auto* big = static_cast<char*>(std::calloc(bytes, 1));
  for (std::size_t i = 0; i < bytes; i += 4096) big[i] = 1;
  b.retire(big, bytes);
  int steps = 0;
  while (b.release_some(1 << 20)) ++steps;
  EXPECT_FALSE(b.pending());
  EXPECT_EQ(steps, 8);  // eight 1 MiB steps of pages, the last one also frees it
}
