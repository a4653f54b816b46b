// Unit tests for PackedList with list-compress-depth (Redis quicklist compression): which
// blocks are compressed, memory, the depth fixed per list, and a randomized property test
// at depths 1, 2, 3 against std::deque<std::string> with compressible and random payloads.
// invariants_hold() checks after every step that the d blocks at each end are raw and every
// inner block is compressed, or raw because compression does not pay for its bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "listd/store/encoding_limits.h"
#include "listd/store/packed_list.h"

namespace listd::store {
namespace {

// Sets list-compress-depth for the test's lifetime.
class DepthGuard {
 public:
  explicit DepthGuard(std::size_t depth) : saved_(encoding_limits()) {
    EncodingLimits l = saved_;
    l.list_compress_depth = depth;
    set_encoding_limits(l);
  }
  ~DepthGuard() { set_encoding_limits(saved_); }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  EncodingLimits saved_;
};

// A Celery-like job: about 120 bytes, the keys repeated in every one.
std::string job(std::size_t i) {
  return R"({"id":")" + std::to_string(1000000 + i * 7919) +
         R"(","task":"tasks.send_email","args":["user)" + std::to_string(i % 1000) +
         R"(@example.com"],"kwargs":{},"retries":0,"eta":null})";
}

std::vector<std::string> contents(const PackedList& l) {
  std::vector<std::string> out;
  l.scan_forward([&](std::size_t, std::string_view v) { out.emplace_back(v); });
  return out;
}

TEST(PackedListCompressionTest, InnerBlocksCompressEndBlocksStayRaw) {
  for (std::size_t depth : {1u, 2u, 3u}) {
    DepthGuard guard(depth);
    PackedList l;
    for (std::size_t i = 0; i < 20000; ++i) l.push_back(job(i));
    ASSERT_TRUE(l.invariants_hold());
    EXPECT_EQ(l.compress_depth(), depth);
    ASSERT_GT(l.block_count(), 2 * depth);
    // JSON jobs always compress: every inner block is, no end block is.
    EXPECT_EQ(l.compressed_block_count(), l.block_count() - 2 * depth);
    for (std::size_t i = 0; i < 20000; i += 997) ASSERT_EQ(l.at(i), job(i));
    std::size_t k = 0;
    l.scan_backward([&](std::size_t i, std::string_view v) {
      EXPECT_EQ(v, job(i));
      ++k;
    });
    EXPECT_EQ(k, 20000u);
  }
}

TEST(PackedListCompressionTest, CompressedListUsesMuchLessMemory) {
  std::size_t raw = 0, packed = 0;
  {
    DepthGuard guard(0);
    PackedList l;
    for (std::size_t i = 0; i < 20000; ++i) l.push_front(job(i));
    raw = l.memory_usage();
    EXPECT_EQ(l.compressed_block_count(), 0u);
  }
  {
    DepthGuard guard(1);
    PackedList l;
    for (std::size_t i = 0; i < 20000; ++i) l.push_front(job(i));
    packed = l.memory_usage();
    EXPECT_TRUE(l.invariants_hold());
  }
  EXPECT_LT(packed * 2, raw) << packed << " vs " << raw;
}

TEST(PackedListCompressionTest, IncompressibleBlocksStayRawAndAreNotRetried) {
  DepthGuard guard(1);
  std::mt19937_64 rng(1);
  PackedList l;
  for (int i = 0; i < 3000; ++i) {
    std::string s(100, '\0');
    for (char& ch : s) ch = static_cast<char>(rng());
    l.push_back(s);
  }
  EXPECT_GT(l.block_count(), 3u);
  EXPECT_EQ(l.compressed_block_count(), 0u);
  EXPECT_TRUE(l.invariants_hold());  // inner blocks raw, marked tried, really incompressible
}

TEST(PackedListCompressionTest, QueueTrafficLeavesInnerBlocksCompressed) {
  DepthGuard guard(1);
  PackedList l;
  std::deque<std::string> model;
  std::size_t next = 0;
  for (; next < 5000; ++next) {
    l.push_front(job(next));
    model.push_front(job(next));
  }
  // LPUSH at the head, RPOP at the tail: the queue moves through its blocks.
  for (int round = 0; round < 20000; ++round, ++next) {
    l.push_front(job(next));
    model.push_front(job(next));
    ASSERT_EQ(l.pop_back(), model.back());
    model.pop_back();
    if (round % 1000 == 0) {
      ASSERT_TRUE(l.invariants_hold());
      ASSERT_EQ(l.compressed_block_count(), l.block_count() - 2);
    }
  }
  EXPECT_EQ(contents(l), std::vector<std::string>(model.begin(), model.end()));
  while (!model.empty()) {
    ASSERT_EQ(l.pop_back(), model.back());
    model.pop_back();
  }
  EXPECT_TRUE(l.empty());
}

TEST(PackedListCompressionTest, DepthIsFixedWhenTheListBecomesAChain) {
  PackedList a;
  {
    DepthGuard guard(1);
    for (std::size_t i = 0; i < 5000; ++i) a.push_back(job(i));
  }
  DepthGuard guard(0);
  // The depth in force changed; `a` keeps its own, as a Redis quicklist does.
  a.push_back(job(5000));
  a.set(2500, job(1));
  EXPECT_EQ(a.compress_depth(), 1u);
  EXPECT_GT(a.compressed_block_count(), 0u);
  EXPECT_TRUE(a.invariants_hold());
  PackedList b;
  for (std::size_t i = 0; i < 5000; ++i) b.push_back(job(i));
  EXPECT_EQ(b.compress_depth(), 0u);
  EXPECT_EQ(b.compressed_block_count(), 0u);
  // COPY keeps the source's depth and its compressed blocks.
  const PackedList c = a.clone();
  EXPECT_EQ(c.compress_depth(), 1u);
  EXPECT_EQ(c.compressed_block_count(), a.compressed_block_count());
  EXPECT_EQ(c.memory_usage(), a.memory_usage());
  EXPECT_EQ(contents(c), contents(a));
  EXPECT_TRUE(c.invariants_hold());
}

TEST(PackedListCompressionTest, TheDepthIsTakenWhenTheSmallFormBecomesAChain) {
  PackedList l;
  {
    DepthGuard guard(0);
    for (std::size_t i = 0; i < 10; ++i) l.push_back(job(i));  // one small block
  }
  DepthGuard guard(1);
  for (std::size_t i = 10; i < 3000; ++i) l.push_back(job(i));
  EXPECT_EQ(l.compress_depth(), 1u);
  EXPECT_EQ(l.compressed_block_count(), l.block_count() - 2);
  EXPECT_TRUE(l.invariants_hold());
}

TEST(PackedListCompressionTest, DeepDepthsCompressOnlyBetweenTheirEnds) {
  DepthGuard guard(1000000);  // Redis caps it at COMPRESS_MAX, 65535
  PackedList l;
  for (std::size_t i = 0; i < 3000; ++i) l.push_back(job(i));
  EXPECT_EQ(l.compress_depth(), 65535u);
  EXPECT_EQ(l.compressed_block_count(), 0u);  // every block is within 65535 of an end
  EXPECT_TRUE(l.invariants_hold());
  DepthGuard two(2);
  PackedList m;
  for (std::size_t i = 0; i < 3000; ++i) {
    m.push_front(job(i));
    ASSERT_EQ(m.compressed_block_count(),
              m.block_count() > 4 ? m.block_count() - 4 : std::size_t{0})
        << i;
  }
  while (m.size() > 1) {
    m.pop_back();
    ASSERT_EQ(m.compressed_block_count(),
              m.block_count() > 4 ? m.block_count() - 4 : std::size_t{0})
        << m.size();
  }
  EXPECT_TRUE(m.invariants_hold());
}

TEST(PackedListCompressionTest, ShrinksBackToTheSmallForm) {
  DepthGuard guard(1);
  PackedList l;
  for (std::size_t i = 0; i < 3000; ++i) l.push_back(job(i));
  ASSERT_GT(l.compressed_block_count(), 0u);
  l.keep_range(1400, 1409);  // the survivors sat in a compressed block
  ASSERT_TRUE(l.invariants_hold());
  EXPECT_EQ(l.block_count(), 1u);
  std::vector<std::string> want;
  for (std::size_t i = 1400; i < 1410; ++i) want.push_back(job(i));
  EXPECT_EQ(contents(l), want);
}

// ---- Randomized property test ----

enum class Payload { kJson, kRandom, kMixed };

struct Harness {
  std::mt19937_64 rng;
  Payload payload;
  PackedList list;
  std::deque<std::string> model;
  std::vector<std::string> pool;  // values drawn again, so LREM/LINSERT find matches

  Harness(std::uint64_t seed, Payload p) : rng(seed), payload(p) {
    for (std::size_t i = 0; i < 40; ++i) pool.push_back(fresh(i));
  }

  std::string noise(std::size_t n) {
    std::string s(n, '\0');
    for (char& ch : s) ch = static_cast<char>(rng());
    return s;
  }
  std::string fresh(std::size_t i) {
    const bool json = payload == Payload::kJson || (payload == Payload::kMixed && rng() % 2);
    if (rng() % 200 == 0) {  // now and then an entry too large for a shared block
      return json ? std::string(5000, '{') + job(i) : noise(4200 + rng() % 1000);
    }
    return json ? job(i) : noise(1 + rng() % 180);
  }
  std::string value() { return rng() % 3 == 0 ? pool[rng() % pool.size()] : fresh(rng()); }
  std::size_t index() { return static_cast<std::size_t>(rng() % model.size()); }

  void step() {
    const unsigned op = static_cast<unsigned>(rng() % 100);
    // Keep the list between a few hundred and a couple of thousand elements: 5-30 blocks.
    const bool grow = model.size() < 300 || (model.size() < 2500 && op < 45);
    if (grow || model.empty()) {
      std::string v = value();
      if (rng() % 2) {
        list.push_front(v);
        model.push_front(std::move(v));
      } else {
        list.push_back(v);
        model.push_back(std::move(v));
      }
      return;
    }
    if (op < 60) {
      if (op % 2) {
        ASSERT_EQ(list.pop_front(), model.front());
        model.pop_front();
      } else {
        ASSERT_EQ(list.pop_back(), model.back());
        model.pop_back();
      }
    } else if (op < 68) {
      const std::size_t i = index();
      ASSERT_EQ(list.at(i), model[i]);
    } else if (op < 76) {
      const std::size_t i = index();
      std::string v = value();
      list.set(i, v);
      model[i] = std::move(v);
    } else if (op < 83) {
      insert();
    } else if (op < 88) {
      remove();
    } else if (op < 91) {
      const std::size_t a = rng() % 40, b = rng() % 40;
      if (a + b + 1 >= model.size()) return;
      list.keep_range(a, model.size() - 1 - b);
      model.erase(model.end() - static_cast<std::ptrdiff_t>(b), model.end());
      model.erase(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(a));
    } else if (op < 94) {
      const std::size_t k = rng() % 200;
      if (rng() % 2) {
        list.erase_front(k);
        model.erase(model.begin(),
                    model.begin() + static_cast<std::ptrdiff_t>(std::min(k, model.size())));
      } else {
        list.erase_back(k);
        model.erase(model.end() - static_cast<std::ptrdiff_t>(std::min(k, model.size())),
                    model.end());
      }
    } else {
      visit_range();
    }
  }

  void insert() {
    const bool after = rng() % 2;
    std::string pivot = rng() % 4 == 0 ? "absent pivot" : model[index()];
    std::string v = value();
    auto it = std::find(model.begin(), model.end(), pivot);
    ASSERT_EQ(list.insert_at_pivot(pivot, v, after), it != model.end());
    if (it != model.end()) model.insert(after ? it + 1 : it, std::move(v));
  }

  void remove() {
    const std::string v = rng() % 2 ? pool[rng() % pool.size()] : model[index()];
    const long long count = static_cast<long long>(rng() % 7) - 3;
    std::size_t want = 0;
    const std::size_t limit = count == 0 ? SIZE_MAX : static_cast<std::size_t>(std::llabs(count));
    if (count >= 0) {
      for (auto it = model.begin(); it != model.end() && want < limit;) {
        it = *it == v ? (++want, model.erase(it)) : it + 1;
      }
    } else {
      for (std::size_t i = model.size(); i-- > 0 && want < limit;) {
        if (model[i] == v) {
          model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
          ++want;
        }
      }
    }
    ASSERT_EQ(list.remove(v, count), want);
  }

  void visit_range() {
    const std::size_t a = index();
    const std::size_t b = a + rng() % 300;
    std::vector<std::string> got;
    list.for_each_in_range(a, b, [&](std::string_view v) { got.emplace_back(v); });
    const std::size_t end = std::min(b + 1, model.size());
    ASSERT_EQ(got, std::vector<std::string>(model.begin() + static_cast<std::ptrdiff_t>(a),
                                            model.begin() + static_cast<std::ptrdiff_t>(end)));
    // A backward scan that stops early.
    const std::size_t stop = index();
    list.scan_backward([&](std::size_t i, std::string_view v) {
      EXPECT_EQ(v, model[i]);
      return i > stop;
    });
  }

  void check(std::size_t depth) {
    ASSERT_TRUE(list.invariants_hold());
    ASSERT_EQ(list.size(), model.size());
    ASSERT_EQ(contents(list), std::vector<std::string>(model.begin(), model.end()));
    if (list.block_count() > 1) {
      ASSERT_EQ(list.compress_depth(), depth);
    }
  }
};

void run_property(std::size_t depth, Payload payload, std::uint64_t seed, int steps) {
  DepthGuard guard(depth);
  Harness h(seed, payload);
  std::size_t saw_compressed = 0, saw_blocks = 0;
  for (int i = 0; i < steps; ++i) {
    ASSERT_NO_FATAL_FAILURE(h.step()) << "step " << i;
    ASSERT_NO_FATAL_FAILURE(h.check(depth)) << "step " << i;
    saw_compressed = std::max(saw_compressed, h.list.compressed_block_count());
    saw_blocks = std::max(saw_blocks, h.list.block_count());
    if (i % 500 == 0) {
      const PackedList copy = h.list.clone();
      ASSERT_TRUE(copy.invariants_hold());
      ASSERT_EQ(contents(copy), contents(h.list));
    }
  }
  // Random payloads compress only where pool values repeat within a block; which blocks do
  // is what invariants_hold() checks exactly (a raw inner block must really not compress).
  std::printf("[compression] depth %zu, payload %d: up to %zu blocks, %zu compressed\n", depth,
              static_cast<int>(payload), saw_blocks, saw_compressed);
  if (payload == Payload::kJson) {
    EXPECT_GT(saw_compressed, 0u);
  }
}

TEST(PackedListCompressionPropertyTest, Depth1) {
  run_property(1, Payload::kJson, 101, 4000);
  run_property(1, Payload::kRandom, 102, 2000);
  run_property(1, Payload::kMixed, 103, 3000);
}

TEST(PackedListCompressionPropertyTest, Depth2) {
  run_property(2, Payload::kJson, 201, 4000);
  run_property(2, Payload::kRandom, 202, 2000);
  run_property(2, Payload::kMixed, 203, 3000);
}

TEST(PackedListCompressionPropertyTest, Depth3) {
  run_property(3, Payload::kJson, 301, 4000);
  run_property(3, Payload::kRandom, 302, 2000);
  run_property(3, Payload::kMixed, 303, 3000);
}

}  // namespace
}  // namespace listd::store
