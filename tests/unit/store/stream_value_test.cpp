// StreamValue against a std::map<id, fields> model; node layout checks against Redis' rules.
#include "listd/store/stream_value.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace listd::store {
namespace {

using Fields = std::vector<std::string>;
using Model = std::map<StreamId, Fields>;

void add(StreamValue& s, Model& m, StreamId id, const Fields& fv) {
  std::vector<std::string_view> views(fv.begin(), fv.end());
  s.append(id, views);
  m[id] = fv;
}

std::vector<std::pair<StreamId, Fields>> walk(const StreamValue& s, StreamId a, StreamId b,
                                              bool rev) {
  std::vector<std::pair<StreamId, Fields>> out;
  StreamIterator it(s, a, b, rev);
  while (it.next()) {
    Fields f;
    it.for_each_field([&](std::string_view k, std::string_view v) {
      f.emplace_back(k);
      f.emplace_back(v);
    });
    EXPECT_EQ(f.size(), 2 * it.field_count());
    out.emplace_back(it.id(), f);
  }
  return out;
}

std::vector<std::pair<StreamId, Fields>> expect(const Model& m, StreamId a, StreamId b, bool rev) {
  std::vector<std::pair<StreamId, Fields>> out;
  for (auto it = m.lower_bound(a); it != m.end() && it->first <= b; ++it)
    out.emplace_back(it->first, it->second);
  if (rev) std::reverse(out.begin(), out.end());
  return out;
}

TEST(StreamValue, AppendsAndWalksBothWays) {
  StreamValue s;
  Model m;
  add(s, m, {1, 0}, {"job", "a", "state", "queued"});
  add(s, m, {1, 1}, {"job", "b", "state", "done"});
  add(s, m, {2, 0}, {"other", "12"});
  EXPECT_EQ(s.length(), 3u);
  EXPECT_EQ(s.first_id(), (StreamId{1, 0}));
  EXPECT_EQ(s.last_id(), (StreamId{2, 0}));
  EXPECT_EQ(s.entries_added(), 3u);
  EXPECT_EQ(walk(s, {}, StreamId::max(), false), expect(m, {}, StreamId::max(), false));
  EXPECT_EQ(walk(s, {}, StreamId::max(), true), expect(m, {}, StreamId::max(), true));
  EXPECT_EQ(walk(s, {1, 1}, {1, 1}, false), expect(m, {1, 1}, {1, 1}, false));
}

// The top entry deleted, the last id set below it (XSETID) and a new entry added: the node's
// ids go down after the tombstone. Redis skips a tombstone before testing the range, so the new
// entry is still found by a bounded range (the random stream oracle found this).
TEST(StreamValue, ABoundedRangeWalksPastATombstoneAboveItsEnd) {
  StreamValue s;
  Model m;
  add(s, m, {1, 0}, {"a", "1"});
  add(s, m, {5, 0}, {"a", "5"});
  ASSERT_TRUE(s.erase({5, 0}));
  m.erase({5, 0});
  s.set_last_id({2, 0});
  add(s, m, {3, 0}, {"a", "3"});
  EXPECT_EQ(walk(s, {}, {4, 0}, false), expect(m, {}, {4, 0}, false));
  EXPECT_EQ(walk(s, {}, {4, 0}, true), expect(m, {}, {4, 0}, true));
  EXPECT_EQ(walk(s, {2, 0}, StreamId::max(), false), expect(m, {2, 0}, StreamId::max(), false));
  EXPECT_EQ(walk(s, {2, 0}, {6, 0}, true), expect(m, {2, 0}, {6, 0}, true));
  // XDEL finds it past the tombstone too.
  EXPECT_TRUE(s.erase({3, 0}));
  EXPECT_EQ(s.length(), 1u);
  EXPECT_FALSE(s.erase({5, 0}));
}

TEST(StreamValue, StartsANodeEveryHundredEntries) {
  StreamValue s;
  Model m;
  for (std::uint64_t i = 1; i <= 250; ++i) add(s, m, {i, 0}, {"f", std::to_string(i)});
  ASSERT_EQ(s.nodes().size(), 3u);
  EXPECT_EQ(s.nodes().begin()->first, (StreamId{1, 0}));
  EXPECT_EQ(std::next(s.nodes().begin())->first, (StreamId{101, 0}));
}

TEST(StreamValue, StartsANodeBeforeTheTailReachesFourKilobytes) {
  StreamValue s;
  Model m;
  const std::string big(1000, 'v');
  for (std::uint64_t i = 1; i <= 5; ++i) add(s, m, {i, 0}, {"f", big});
  EXPECT_EQ(s.nodes().size(), 2u);  // 4 entries of ~1 KB, then the 5th would pass 4096
  EXPECT_EQ(walk(s, {}, StreamId::max(), true), expect(m, {}, StreamId::max(), true));
}

TEST(StreamValue, EraseMarksAndDropsEmptyNodes) {
  StreamValue s;
  Model m;
  for (std::uint64_t i = 1; i <= 150; ++i) add(s, m, {i, 0}, {"f", "v"});
  EXPECT_TRUE(s.erase({1, 0}));
  EXPECT_FALSE(s.erase({1, 0}));
  EXPECT_FALSE(s.erase({999, 0}));
  m.erase({1, 0});
  EXPECT_EQ(s.first_id(), (StreamId{2, 0}));
  EXPECT_EQ(s.max_deleted_id(), (StreamId{1, 0}));
  for (std::uint64_t i = 101; i <= 150; ++i) {
    ASSERT_TRUE(s.erase({i, 0}));
    m.erase({i, 0});
  }
  EXPECT_EQ(s.nodes().size(), 1u);
  EXPECT_EQ(s.length(), 99u);
  EXPECT_EQ(s.last_id(), (StreamId{150, 0}));  // the last id survives deletion
  EXPECT_EQ(walk(s, {}, StreamId::max(), false), expect(m, {}, StreamId::max(), false));
  EXPECT_EQ(s.edge_id(false, false), (StreamId{100, 0}));
}

// edge_id(false) reads the newest node's last entry directly; it must agree with a reverse walk
// when that entry is a tombstone (skipped or not) and when an id below a tombstone follows it.
TEST(StreamValue, LastIdMatchesAReverseWalkAroundTombstones) {
  auto reverse_walk = [](const StreamValue& s, bool skip_tombstones) {
    StreamIterator it(s, StreamId{}, StreamId::max(), true, skip_tombstones);
    return it.next() ? it.id() : StreamId{};
  };
  StreamValue s;
  Model m;
  for (std::uint64_t i = 1; i <= 130; ++i) add(s, m, {i, 0}, {"f", "v"});
  EXPECT_EQ(s.edge_id(false), (StreamId{130, 0}));
  ASSERT_TRUE(s.erase({130, 0}));  // the newest node's last entry becomes a tombstone
  EXPECT_EQ(s.edge_id(false), (StreamId{129, 0}));
  EXPECT_EQ(s.edge_id(false), reverse_walk(s, true));
  EXPECT_EQ(s.edge_id(false, false), reverse_walk(s, false));
  add(s, m, {125, 5}, {"f", "v"});  // below the tombstone, as after XSETID, in the same node
  EXPECT_EQ(s.edge_id(false), (StreamId{125, 5}));
  EXPECT_EQ(s.edge_id(false), reverse_walk(s, true));
  for (std::uint64_t i = 101; i <= 129; ++i) ASSERT_TRUE(s.erase({i, 0}));
  ASSERT_TRUE(s.erase({125, 5}));  // the newest node is now empty and dropped
  EXPECT_EQ(s.edge_id(false), (StreamId{100, 0}));
  EXPECT_EQ(s.edge_id(false), reverse_walk(s, true));
}

TEST(StreamValue, ExactTrimByLengthAndById) {
  StreamValue s;
  Model m;
  for (std::uint64_t i = 1; i <= 250; ++i) add(s, m, {i, 0}, {"f", "v"});
  StreamTrim t;
  t.strategy = StreamTrim::Strategy::kMaxLen;
  t.maxlen = 120;
  EXPECT_EQ(s.trim(t), 130);
  EXPECT_EQ(s.length(), 120u);
  EXPECT_EQ(s.first_id(), (StreamId{131, 0}));
  t.strategy = StreamTrim::Strategy::kMinId;
  t.minid = {200, 0};
  EXPECT_EQ(s.trim(t), 69);
  EXPECT_EQ(s.first_id(), (StreamId{200, 0}));
  for (std::uint64_t i = 1; i < 200; ++i) m.erase({i, 0});
  EXPECT_EQ(walk(s, {}, StreamId::max(), true), expect(m, {}, StreamId::max(), true));
}

TEST(StreamValue, ApproximateTrimRemovesWholeNodesOnly) {
  StreamValue s;
  Model m;
  for (std::uint64_t i = 1; i <= 250; ++i) add(s, m, {i, 0}, {"f", "v"});
  StreamTrim t;
  t.strategy = StreamTrim::Strategy::kMaxLen;
  t.approx = true;
  t.limit = 10000;
  t.maxlen = 120;
  EXPECT_EQ(s.trim(t), 100);
  EXPECT_EQ(s.length(), 150u);
  t.limit = 40;  // less than a node: nothing
  t.maxlen = 0;
  EXPECT_EQ(s.trim(t), 0);
}

TEST(StreamValue, RandomOperationsMatchTheModel) {
  std::mt19937_64 rng(42);
  StreamValue s;
  Model m;
  StreamId next{1, 0};
  for (int step = 0; step < 3000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 7 || m.empty()) {
      next.seq += rng() % 3;
      if (rng() % 4 == 0) next = {next.ms + 1 + rng() % 5, 0};
      Fields f = rng() % 3 ? Fields{"a", std::to_string(rng() % 1000)}
                           : Fields{"b", "x", "c", std::string(rng() % 80, 'z')};
      add(s, m, next, f);
      next.increment();
    } else {
      auto it = m.begin();
      std::advance(it, static_cast<long>(rng() % m.size()));
      ASSERT_TRUE(s.erase(it->first));
      m.erase(it);
    }
  }
  EXPECT_EQ(s.length(), m.size());
  const StreamId a = std::next(m.begin(), 10)->first;
  const StreamId b = std::prev(m.end(), 10)->first;
  EXPECT_EQ(walk(s, a, b, false), expect(m, a, b, false));
  EXPECT_EQ(walk(s, a, b, true), expect(m, a, b, true));
  const StreamValue copy = s.clone();
  EXPECT_EQ(walk(copy, {}, StreamId::max(), false), expect(m, {}, StreamId::max(), false));
}

TEST(StreamGroup, DeliverAckAndConsumerPels) {
  StreamGroup g({0, 0}, 0);
  bool created = false;
  StreamConsumer& alice = g.create_consumer("alice", 100, &created);
  EXPECT_TRUE(created);
  StreamConsumer& bob = g.create_consumer("bob", 100, &created);
  g.create_consumer("alice", 200, &created);
  EXPECT_FALSE(created);
  g.deliver({1, 0}, alice, 100, true);
  g.deliver({2, 0}, alice, 100, true);
  StreamNack& again = g.deliver({1, 0}, bob, 300, true);
  EXPECT_EQ(again.delivery_count, 2u);
  EXPECT_EQ(again.delivery_time, 300);
  EXPECT_EQ(alice.pel.size(), 1u);
  EXPECT_EQ(bob.pel.size(), 1u);
  StreamGroup copy = g.clone();
  EXPECT_EQ(copy.pel.at({1, 0}).consumer, copy.find_consumer("bob"));
  EXPECT_TRUE(g.ack({1, 0}));
  EXPECT_FALSE(g.ack({1, 0}));
  EXPECT_TRUE(bob.pel.empty());
  EXPECT_EQ(g.delete_consumer("alice"), 1u);
  EXPECT_TRUE(g.pel.empty());
  EXPECT_EQ(copy.pel.size(), 2u);
}

}  // namespace
}  // namespace listd::store
