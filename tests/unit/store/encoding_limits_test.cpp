// EncodingLimits: the small forms of hashes, sorted sets and sets convert where Redis 7.0
// converts under changed limits (t_hash.c hashTypeSet / hashTypeTryConversion, t_zset.c
// zsetAdd / zaddGenericCommand / zsetConvertToListpackIfNeeded, t_set.c setTypeAdd), a lowered
// limit converts nothing until the next write that checks, and a listpack loaded from an RDB
// blob (load_pair, load_member) keeps members and values of any length.
#include "listd/store/encoding_limits.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "listd/store/hash_value.h"
#include "listd/store/set_value.h"
#include "listd/store/zset_value.h"

using listd::store::EncodingLimits;
using listd::store::HashValue;
using listd::store::SetValue;
using listd::store::ZSetValue;
using Elems = std::vector<std::pair<double, std::string>>;

namespace {

class EncodingLimitsTest : public ::testing::Test {
 protected:
  void TearDown() override { listd::store::set_encoding_limits(EncodingLimits{}); }

  static void set_limits(std::size_t hash_entries, std::size_t hash_value, std::size_t zset_entries,
                         std::size_t zset_value, std::size_t intset_entries) {
    EncodingLimits l;
    l.hash_max_listpack_entries = hash_entries;
    l.hash_max_listpack_value = hash_value;
    l.zset_max_listpack_entries = zset_entries;
    l.zset_max_listpack_value = zset_value;
    l.set_max_intset_entries = intset_entries;
    listd::store::set_encoding_limits(l);
  }
};

TEST_F(EncodingLimitsTest, DefaultsAreRedisOwn) {
  const EncodingLimits& l = listd::store::encoding_limits();
  EXPECT_EQ(l.hash_max_listpack_entries, 512u);
  EXPECT_EQ(l.hash_max_listpack_value, 64u);
  EXPECT_EQ(l.zset_max_listpack_entries, 128u);
  EXPECT_EQ(l.zset_max_listpack_value, 64u);
  EXPECT_EQ(l.set_max_intset_entries, 512u);
  EncodingLimits huge;
  huge.set_max_intset_entries = std::size_t{1} << 40;
  EXPECT_EQ(huge.intset_entries(), std::size_t{1} << 30);  // Redis' cap
}

TEST_F(EncodingLimitsTest, HashConvertsOverEntriesAndValueLength) {
  set_limits(3, 5, 128, 64, 512);
  HashValue h;
  h.set("a", "12345");
  h.set("b", "x");
  h.set("c", "y");
  EXPECT_EQ(h.encoding_name(), "listpack");  // 3 fields, values of 5 bytes: at the limits
  h.set("d", "z");
  EXPECT_EQ(h.encoding_name(), "hashtable");

  HashValue long_value;
  long_value.set("f", "123456");
  EXPECT_EQ(long_value.encoding_name(), "hashtable");
  HashValue long_field;
  long_field.set("123456", "v");
  EXPECT_EQ(long_field.encoding_name(), "hashtable");

  set_limits(0, 64, 128, 64, 512);
  HashValue none;
  none.set("a", "b");
  EXPECT_EQ(none.encoding_name(), "hashtable");
}

TEST_F(EncodingLimitsTest, HashLoweredLimitConvertsOnTheNextSet) {
  HashValue h;
  for (int i = 0; i < 10; ++i) h.set("f" + std::to_string(i), std::string(20, 'v'));
  set_limits(5, 10, 128, 64, 512);
  EXPECT_EQ(h.encoding_name(), "listpack");  // a limit change converts nothing by itself
  EXPECT_TRUE(h.erase("f9"));
  EXPECT_EQ(h.encoding_name(), "listpack");
  h.set("f0", "short");  // an update of a hash over the entries limit converts (hashTypeSet)
  EXPECT_EQ(h.encoding_name(), "hashtable");
  EXPECT_EQ(h.size(), 9u);
  EXPECT_EQ(*h.get("f0"), "short");
  EXPECT_EQ(*h.get("f1"), std::string(20, 'v'));
}

TEST_F(EncodingLimitsTest, HashPrepareSetIsTryConversion) {
  set_limits(512, 8, 128, 64, 512);
  HashValue h;
  h.set("a", "b");
  h.prepare_set(8, 100);
  EXPECT_EQ(h.encoding_name(), "listpack");
  h.prepare_set(9, 9);
  EXPECT_EQ(h.encoding_name(), "hashtable");
  HashValue big;
  big.set("a", "b");
  big.prepare_set(1, listd::store::kPackedSafetyBytes);  // lpSafeToAdd
  EXPECT_EQ(big.encoding_name(), "hashtable");
  EXPECT_EQ(*big.get("a"), "b");
}

TEST_F(EncodingLimitsTest, HashLoadedListpackKeepsLongValues) {
  set_limits(4, 5, 128, 64, 512);
  const std::vector<std::size_t> lengths = {0, 6, 127, 128, 300, 16383, 16384, 70000};
  HashValue h;
  std::map<std::string, std::string> model;
  for (std::size_t i = 0; i < lengths.size(); i += 2) {
    const std::string f(lengths[i], static_cast<char>('a' + i));
    const std::string v(lengths[i + 1], static_cast<char>('A' + i));
    EXPECT_TRUE(h.load_pair(f, v));
    model[f] = v;
  }
  EXPECT_FALSE(h.load_pair("", "dup"));  // the caller's duplicate check
  model[""] = "dup";
  EXPECT_EQ(h.encoding_name(), "listpack");
  std::map<std::string, std::string> seen;
  h.for_each([&](std::string_view f, std::string_view v) { seen.emplace(f, v); });
  EXPECT_EQ(seen, model);
  EXPECT_TRUE(h.erase(std::string(127, 'c')));
  model.erase(std::string(127, 'c'));
  h.set("x", "y");  // short: the listpack stays one, long values and all (as in Redis)
  model["x"] = "y";
  EXPECT_EQ(h.encoding_name(), "listpack");
  for (const auto& [f, v] : model) EXPECT_EQ(*h.get(f), v);
  HashValue copy = h.clone();
  EXPECT_EQ(*copy.get(std::string(300, 'e')), std::string(16383, 'E'));
  h.set("x", std::string(6, 'y'));  // a long value now converts
  EXPECT_EQ(h.encoding_name(), "hashtable");
  EXPECT_FALSE(h.get(std::string(127, 'c')).has_value());
  EXPECT_EQ(*h.get(std::string(16384, 'g')), std::string(70000, 'G'));
}

TEST_F(EncodingLimitsTest, ZSetCreateAndInsertFollowZadd) {
  set_limits(512, 64, 3, 5, 512);
  EXPECT_EQ(ZSetValue::create(5).encoding_name(), "listpack");
  EXPECT_EQ(ZSetValue::create(6).encoding_name(), "skiplist");
  ZSetValue z = ZSetValue::create(1);
  z.insert("a", 1);
  z.insert("b", 2);
  z.insert("12345", 3);
  EXPECT_EQ(z.encoding_name(), "listpack");
  z.insert("c", 4);
  EXPECT_EQ(z.encoding_name(), "skiplist");
  ZSetValue long_member = ZSetValue::create(1);
  long_member.insert("123456", 1);
  EXPECT_EQ(long_member.encoding_name(), "skiplist");

  set_limits(512, 64, 0, 64, 512);
  EXPECT_EQ(ZSetValue::create(0).encoding_name(), "skiplist");
}

TEST_F(EncodingLimitsTest, ZSetLoweredLimitConvertsOnlyOnANewMember) {
  ZSetValue z = ZSetValue::create(1);
  for (int i = 0; i < 10; ++i) z.insert("m" + std::to_string(i), i);
  set_limits(512, 64, 5, 1, 512);
  z.update("m3", 3, 30);  // zsetAdd's update path checks nothing
  EXPECT_EQ(z.encoding_name(), "listpack");
  EXPECT_EQ(z.rank("m3"), 9u);
  z.insert("new", 11);
  EXPECT_EQ(z.encoding_name(), "skiplist");
  EXPECT_EQ(z.size(), 11u);
  EXPECT_EQ(z.rank("new"), 9u);
}

TEST_F(EncodingLimitsTest, ZSetLoadedListpackKeepsLongMembers) {
  set_limits(512, 64, 6, 5, 512);
  EXPECT_EQ(ZSetValue::for_load(7).encoding_name(), "skiplist");
  ZSetValue z = ZSetValue::for_load(6);
  const std::vector<std::pair<std::string, double>> items = {
      {std::string(78, 'a'), 1.5}, {std::string(79, 'b'), -2},     {std::string(80, 'c'), 1e300},
      {std::string(200, 'd'), 7},  {std::string(20000, 'e'), 0.1}, {"", 3}};
  for (const auto& [m, s] : items) z.load_member(m, s);
  EXPECT_EQ(z.encoding_name(), "listpack");
  std::set<std::pair<double, std::string>> model;
  for (const auto& [m, s] : items) model.insert({s, m});
  Elems forward, backward;
  z.for_each([&](std::string_view m, double s) { forward.emplace_back(s, std::string(m)); });
  EXPECT_EQ(forward, Elems(model.begin(), model.end()));
  for (auto c = z.at_rank(z.size() - 1); c.valid(); c.prev())
    backward.emplace_back(c.score(), std::string(c.member()));
  EXPECT_EQ(backward, Elems(model.rbegin(), model.rend()));
  EXPECT_EQ(*z.score(std::string(20000, 'e')), 0.1);
  EXPECT_EQ(z.rank(std::string(200, 'd')), 4u);
  EXPECT_TRUE(z.erase(std::string(79, 'b')));
  z.update(std::string(80, 'c'), 1e300, -5);
  EXPECT_EQ(z.rank(std::string(80, 'c')), 0u);
  EXPECT_EQ(z.encoding_name(), "listpack");
  z.insert("x", 9);  // short, and the sixth member: within both limits
  EXPECT_EQ(z.encoding_name(), "listpack");
  z.insert("y", 10);  // the seventh member converts
  EXPECT_EQ(z.encoding_name(), "skiplist");
  EXPECT_EQ(*z.score(std::string(20000, 'e')), 0.1);
  EXPECT_EQ(z.size(), 7u);
}

TEST_F(EncodingLimitsTest, ZSetConvertsBackToListpackWhenItFits) {
  set_limits(512, 64, 3, 5, 512);
  ZSetValue z = ZSetValue::create_skiplist();
  z.insert("a", 1);
  z.insert("bb", -0.0);
  z.insert("ccc", 2.5);
  z.convert_to_listpack_if_fits();
  EXPECT_EQ(z.encoding_name(), "listpack");
  EXPECT_EQ(z.rank("ccc"), 2u);
  EXPECT_FALSE(std::signbit(*z.score("bb")));  // as zzlInsertAt: -0 is stored as 0

  ZSetValue too_many = ZSetValue::create_skiplist();
  for (const char* m : {"a", "b", "c", "d"}) too_many.insert(m, 1);
  too_many.convert_to_listpack_if_fits();
  EXPECT_EQ(too_many.encoding_name(), "skiplist");
  ZSetValue too_long = ZSetValue::create_skiplist();
  too_long.insert("123456", 1);
  too_long.convert_to_listpack_if_fits();
  EXPECT_EQ(too_long.encoding_name(), "skiplist");
  EXPECT_TRUE(listd::store::encoding_limits().zset_fits_listpack(3, 5, 15));
  EXPECT_FALSE(
      listd::store::encoding_limits().zset_fits_listpack(3, 5, (std::size_t{1} << 30) + 1));
}

TEST_F(EncodingLimitsTest, ZSetLongMembersUnderRaisedLimitsMatchModel) {
  set_limits(512, 64, 400, 100000, 512);
  std::mt19937_64 rng(2026);
  ZSetValue z = ZSetValue::create(0);
  std::map<std::string, double> scores;
  for (int i = 0; i < 300; ++i) {
    const std::size_t len = rng() % 4 == 0 ? 60 + rng() % 200 : rng() % 90;
    std::string m(len, static_cast<char>('a' + rng() % 26));
    m += std::to_string(i);
    const double s = static_cast<double>(rng() % 50) / 4;
    z.insert(m, s);
    scores[m] = s;
    if (i % 7 == 0) {
      const auto victim = scores.begin();
      EXPECT_TRUE(z.erase(victim->first));
      scores.erase(victim);
    }
  }
  EXPECT_EQ(z.encoding_name(), "listpack");
  std::set<std::pair<double, std::string>> model;
  for (const auto& [m, s] : scores) model.insert({s, m});
  Elems got;
  z.for_each([&](std::string_view m, double s) { got.emplace_back(s, std::string(m)); });
  EXPECT_EQ(got, Elems(model.begin(), model.end()));
  std::size_t back = 0;
  for (auto c = z.at_rank(z.size() - 1); c.valid(); c.prev()) ++back;
  EXPECT_EQ(back, model.size());
}

TEST_F(EncodingLimitsTest, SetIntsetFollowsSetMaxIntsetEntries) {
  set_limits(512, 64, 128, 64, 3);
  SetValue s;
  for (const char* m : {"1", "2", "3"}) s.add(m);
  EXPECT_EQ(s.encoding_name(), "intset");
  s.add("4");
  EXPECT_EQ(s.encoding_name(), "hashtable");

  set_limits(512, 64, 128, 64, 0);
  SetValue none;
  none.add("1");
  EXPECT_EQ(none.encoding_name(), "hashtable");

  set_limits(512, 64, 128, 64, 512);
  SetValue lowered;
  for (int i = 0; i < 10; ++i) lowered.add(std::to_string(i));
  set_limits(512, 64, 128, 64, 5);
  EXPECT_FALSE(lowered.add("3"));  // already there: intsetAdd fails, nothing converts
  EXPECT_EQ(lowered.encoding_name(), "intset");
  EXPECT_TRUE(lowered.add("99"));
  EXPECT_EQ(lowered.encoding_name(), "hashtable");
  EXPECT_EQ(lowered.size(), 11u);
}

}  // namespace
