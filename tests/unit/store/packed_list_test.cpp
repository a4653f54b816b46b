// Unit tests for listd::store::PackedList: edges of blocks and forms, binary and long
// elements, and a randomized differential test against std::deque<std::string>.
#include "listd/store/packed_list.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace listd::store {
namespace {

// Bytes one entry of `len` bytes takes inside a block (mirrors the encoding in the header).
std::size_t entry_bytes(std::size_t len) {
  std::size_t l = len + detail::varint_size(len);
  return l + detail::varint_size(l);
}
constexpr std::size_t kBlockData = PackedList::kNodeBytes - sizeof(detail::Node);

std::vector<std::string> contents(const PackedList& l) {
  std::vector<std::string> out;
  l.scan_forward([&](std::size_t, std::string_view v) {
    out.emplace_back(v);
    return true;
  });
  return out;
}

std::vector<std::string> to_vec(const std::deque<std::string>& d) { return {d.begin(), d.end()}; }

// Full comparison through every read path: forward scan, backward scan, at(), ranges.
void expect_same(const PackedList& l, const std::deque<std::string>& d) {
  ASSERT_TRUE(l.invariants_hold());
  ASSERT_EQ(l.size(), d.size());
  ASSERT_EQ(l.empty(), d.empty());
  ASSERT_EQ(contents(l), to_vec(d));
  std::vector<std::string> back;
  std::size_t expect_index = d.size();
  l.scan_backward([&](std::size_t i, std::string_view v) {
    EXPECT_EQ(i, expect_index - 1);
    expect_index = i;
    back.emplace_back(v);
    return true;
  });
  ASSERT_EQ(back, std::vector<std::string>(d.rbegin(), d.rend()));
  if (d.empty()) {
    ASSERT_EQ(l.memory_usage(), 0u);
    ASSERT_EQ(l.block_count(), 0u);
    return;
  }
  ASSERT_EQ(l.front(), d.front());
  ASSERT_EQ(l.back(), d.back());
  for (std::size_t i = 0; i < d.size(); i += 1 + d.size() / 50) ASSERT_EQ(l.at(i), d[i]) << i;
  ASSERT_EQ(l.at(d.size() - 1), d.back());
  std::vector<std::string> range;
  const std::size_t a = d.size() / 3, b = d.size() - 1 - d.size() / 5;
  l.for_each_in_range(a, b, [&](std::string_view v) { range.emplace_back(v); });
  ASSERT_EQ(range, std::vector<std::string>(d.begin() + a, d.begin() + b + 1));
}

std::string num(std::size_t i, std::size_t width = 12) {
  std::string s = std::to_string(i);
  return std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

TEST(PackedListTest, EmptyListAllocatesNothingAndVisitsNothing) {
  PackedList l;
  EXPECT_TRUE(l.empty());
  EXPECT_EQ(l.size(), 0u);
  EXPECT_EQ(l.memory_usage(), 0u);
  EXPECT_EQ(l.block_count(), 0u);
  EXPECT_TRUE(l.invariants_hold());
  int calls = 0;
  l.scan_forward([&](std::size_t, std::string_view) { return ++calls, true; });
  l.scan_backward([&](std::size_t, std::string_view) { return ++calls, true; });
  l.for_each_in_range(0, 10, [&](std::string_view) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(l.insert_at_pivot("a", "b", true));
  EXPECT_EQ(l.remove("a", 0), 0u);
  l.erase_front(3);
  l.erase_back(3);
  l.clear();
  EXPECT_TRUE(l.empty());
}

TEST(PackedListTest, SingleElementAtEitherEnd) {
  PackedList l;
  l.push_back("x");
  EXPECT_EQ(l.size(), 1u);
  EXPECT_EQ(l.front(), "x");
  EXPECT_EQ(l.back(), "x");
  EXPECT_EQ(l.at(0), "x");
  EXPECT_EQ(l.block_count(), 1u);
  EXPECT_EQ(l.pop_front(), "x");
  EXPECT_TRUE(l.empty());
  EXPECT_EQ(l.memory_usage(), 0u);
  l.push_front("y");
  EXPECT_EQ(l.pop_back(), "y");
  EXPECT_TRUE(l.empty());
  l.push_front("z");
  l.set(0, "zz");
  EXPECT_EQ(l.front(), "zz");
  EXPECT_EQ(l.remove("zz", 1), 1u);
  EXPECT_TRUE(l.empty());
}

TEST(PackedListTest, PushesKeepOrderAtBothEnds) {
  PackedList l;
  std::deque<std::string> d;
  for (int i = 0; i < 50; ++i) {
    l.push_back("b" + std::to_string(i));
    d.push_back("b" + std::to_string(i));
    l.push_front("f" + std::to_string(i));
    d.push_front("f" + std::to_string(i));
  }
  expect_same(l, d);
}

TEST(PackedListTest, BinaryBytesRoundTrip) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::vector<std::string> values = {std::string("\0", 1),
                                           "\r\n",
                                           "\xff",
                                           std::string("a\0b\r\n\xff", 6),
                                           "",
                                           all,
                                           std::string(300, '\0'),
                                           std::string(200, '\xff'),
                                           "\x80\x7f\x80"};
  PackedList l;
  std::deque<std::string> d;
  for (const auto& v : values) {
    l.push_back(v);
    d.push_back(v);
    l.push_front(v);
    d.push_front(v);
  }
  expect_same(l, d);
  while (!d.empty()) {
    ASSERT_EQ(l.pop_back(), d.back());
    d.pop_back();
    if (d.empty()) break;
    ASSERT_EQ(l.pop_front(), d.front());
    d.pop_front();
  }
  EXPECT_TRUE(l.empty());
}

TEST(PackedListTest, IntegerLookingStringsStayByteIdentical) {
  const std::vector<std::string> values = {"007",
                                           "-0",
                                           "+1",
                                           "0",
                                           "00",
                                           "1e3",
                                           " 1",
                                           "1 ",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "-9223372036854775808",
                                           "-9223372036854775809",
                                           "0x10",
                                           "1.0",
                                           "-",
                                           "12345678901234567890123"};
  PackedList l;
  for (const auto& v : values) l.push_back(v);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(l.at(i), values[i]);
  EXPECT_TRUE(l.insert_at_pivot("-0", "0", true));
  EXPECT_EQ(l.at(2), "0");
  EXPECT_EQ(l.remove("0", 0), 2u);  // "0" only; "00", "-0", "007" untouched
  EXPECT_EQ(l.at(0), "007");
  EXPECT_EQ(l.at(1), "-0");
  EXPECT_EQ(l.at(3), "00");
}

TEST(PackedListTest, LengthsAroundEncodingAndBlockThresholds) {
  std::vector<std::size_t> lengths = {0, 1, 125, 126, 127, 128, 129, 16382, 16383, 16384, 16385};
  for (std::size_t len = 4085; len <= 4100; ++len) lengths.push_back(len);  // large-entry edge
  for (std::size_t len = kBlockData - 20; len <= kBlockData + 4; ++len) lengths.push_back(len);
  PackedList l;
  std::deque<std::string> d;
  std::size_t i = 0;
  for (std::size_t len : lengths) {
    std::string v(len, static_cast<char>('a' + i++ % 26));
    if (len > 0) v[len - 1] = '\xff';
    if (i % 2 != 0) {
      l.push_back(v);
      d.push_back(v);
    } else {
      l.push_front(v);
      d.push_front(v);
    }
    ASSERT_TRUE(l.invariants_hold()) << len;
  }
  expect_same(l, d);
  for (std::size_t k = 0; k < d.size(); k += 3) {
    std::string v(lengths[k], 'S');
    l.set(k, v);
    d[k] = v;
  }
  expect_same(l, d);
  while (!d.empty()) {
    ASSERT_EQ(l.pop_front(), d.front());
    d.pop_front();
    ASSERT_TRUE(l.invariants_hold());
  }
}

TEST(PackedListTest, HugeElementsSitInTheirOwnBlocks) {
  const std::string k100(100 * 1024, 'k');
  std::string m10(10 * 1024 * 1024, 'm');
  m10[0] = '\0';
  m10[m10.size() - 1] = '\xff';
  PackedList l;
  l.push_back("a");
  l.push_back(k100);
  l.push_back("b");
  l.push_front(m10);
  EXPECT_EQ(l.size(), 4u);
  EXPECT_GE(l.block_count(), 4u);  // m10 | a | k100 | b
  EXPECT_GE(l.memory_usage(), m10.size() + k100.size());
  EXPECT_LE(l.memory_usage(), m10.size() + k100.size() + 3 * PackedList::kNodeBytes);
  EXPECT_EQ(l.at(0), m10);
  EXPECT_EQ(l.at(2), k100);
  EXPECT_EQ(l.back(), "b");
  EXPECT_TRUE(l.insert_at_pivot("b", k100, false));
  EXPECT_EQ(l.at(3), k100);
  EXPECT_EQ(l.remove(k100, -1), 1u);
  EXPECT_EQ(l.at(2), k100);
  l.set(1, m10);  // small -> huge
  EXPECT_EQ(l.at(1), m10);
  l.set(0, "tiny");  // huge -> small
  EXPECT_EQ(l.front(), "tiny");
  l.set(1, k100);  // huge -> large
  EXPECT_EQ(l.at(1), k100);
  EXPECT_TRUE(l.invariants_hold());
  EXPECT_EQ(l.pop_back(), "b");
  EXPECT_EQ(l.pop_back(), k100);
  EXPECT_EQ(l.pop_back(), k100);
  EXPECT_EQ(l.size(), 1u);
  EXPECT_EQ(l.block_count(), 1u);
  EXPECT_LT(l.memory_usage(), 64u);  // back to the small form
  PackedList big;
  big.push_front(m10);
  EXPECT_EQ(big.pop_back(), m10);
  EXPECT_TRUE(big.empty());
}

// 10-byte elements take 12 bytes, and 12 divides a block's data (8136) exactly.
TEST(PackedListTest, FillsBlocksExactlyAndPopsAcrossBoundariesFromBothEnds) {
  constexpr std::size_t kLen = 10;
  ASSERT_EQ(kBlockData % entry_bytes(kLen), 0u);
  constexpr std::size_t kPerBlock = kBlockData / 12;
  for (bool front : {false, true}) {
    PackedList l;
    std::deque<std::string> d;
    auto push = [&](std::size_t i) {
      const std::string v = num(i, kLen);
      if (front) {
        l.push_front(v);
        d.push_front(v);
      } else {
        l.push_back(v);
        d.push_back(v);
      }
    };
    for (std::size_t i = 0; i < kPerBlock; ++i) push(i);
    EXPECT_EQ(l.block_count(), 1u);  // exactly one full block, still the small form
    expect_same(l, d);
    push(kPerBlock);
    EXPECT_EQ(l.block_count(), 2u);
    expect_same(l, d);
    for (std::size_t i = kPerBlock + 1; i < 3 * kPerBlock; ++i) push(i);
    EXPECT_EQ(l.block_count(), 3u);  // every block full to the byte
    expect_same(l, d);
    push(3 * kPerBlock);
    EXPECT_EQ(l.block_count(), 4u);
    // Pop across every boundary, alternating ends.
    while (!d.empty()) {
      ASSERT_EQ(l.pop_front(), d.front());
      d.pop_front();
      if (d.size() % 97 == 0) expect_same(l, d);
      if (d.empty()) break;
      ASSERT_EQ(l.pop_back(), d.back());
      d.pop_back();
    }
    EXPECT_TRUE(l.empty());
    EXPECT_EQ(l.memory_usage(), 0u);
  }
}

TEST(PackedListTest, IndexAndSetNearBlockBoundaries) {
  constexpr std::size_t kPerBlock = kBlockData / 12;
  PackedList l;
  std::deque<std::string> d;
  for (std::size_t i = 0; i < 4 * kPerBlock; ++i) {
    l.push_back(num(i, 10));
    d.push_back(num(i, 10));
  }
  for (std::size_t b = 1; b < 4; ++b) {
    for (std::size_t i = b * kPerBlock - 2; i <= b * kPerBlock + 1; ++i) {
      ASSERT_EQ(l.at(i), d[i]);
      const std::string grown(40, static_cast<char>('A' + i % 26));
      l.set(i, grown);  // grows an entry in a full block: split or spill
      d[i] = grown;
      ASSERT_TRUE(l.invariants_hold());
      ASSERT_EQ(l.at(i), grown);
    }
  }
  expect_same(l, d);
  for (std::size_t i = 0; i < d.size(); i += 7) {
    l.set(i, "s");
    d[i] = "s";
  }
  expect_same(l, d);
}

TEST(PackedListTest, InsertAtPivotBeforeAfterAndMissing) {
  PackedList l;
  for (const char* v : {"a", "b", "c", "b"}) l.push_back(v);
  EXPECT_FALSE(l.insert_at_pivot("zz", "x", true));
  EXPECT_EQ(l.size(), 4u);
  EXPECT_TRUE(l.insert_at_pivot("b", "x", false));  // before the first "b"
  EXPECT_TRUE(l.insert_at_pivot("b", "y", true));   // after the first "b"
  EXPECT_TRUE(l.insert_at_pivot("a", "h", false));
  EXPECT_TRUE(l.insert_at_pivot("b", "", true));
  const std::vector<std::string> want = {"h", "a", "x", "b", "", "y", "c", "b"};
  EXPECT_EQ(contents(l), want);
}

TEST(PackedListTest, InsertAtPivotAtEveryPositionOfABigList) {
  constexpr std::size_t kPerBlock = kBlockData / 12;
  PackedList l;
  std::deque<std::string> d;
  for (std::size_t i = 0; i < 3 * kPerBlock; ++i) {
    l.push_back(num(i, 10));
    d.push_back(num(i, 10));
  }
  for (std::size_t i : {std::size_t{0}, kPerBlock - 1, kPerBlock, 2 * kPerBlock - 1, 2 * kPerBlock,
                        3 * kPerBlock - 1, kPerBlock / 2}) {
    const std::string pivot = num(i, 10);
    for (bool after : {false, true}) {
      const std::string v = (after ? "after-" : "before-") + pivot;
      ASSERT_TRUE(l.insert_at_pivot(pivot, v, after));
      auto it = std::find(d.begin(), d.end(), pivot);
      d.insert(after ? it + 1 : it, v);
      ASSERT_TRUE(l.invariants_hold());
    }
    const std::string big(5000, 'L');
    ASSERT_TRUE(l.insert_at_pivot(pivot, big, true));
    d.insert(std::find(d.begin(), d.end(), pivot) + 1, big);
    expect_same(l, d);
  }
}

TEST(PackedListTest, RemoveFollowsLremCountSemantics) {
  auto make = [] {
    PackedList l;
    for (const char* v : {"x", "a", "x", "b", "x", "c", "x"}) l.push_back(v);
    return l;
  };
  {
    PackedList l = make();
    EXPECT_EQ(l.remove("x", 2), 2u);
    EXPECT_EQ(contents(l), (std::vector<std::string>{"a", "b", "x", "c", "x"}));
  }
  {
    PackedList l = make();
    EXPECT_EQ(l.remove("x", -2), 2u);
    EXPECT_EQ(contents(l), (std::vector<std::string>{"x", "a", "x", "b", "c"}));
  }
  {
    PackedList l = make();
    EXPECT_EQ(l.remove("x", 0), 4u);
    EXPECT_EQ(contents(l), (std::vector<std::string>{"a", "b", "c"}));
  }
  {
    PackedList l = make();
    EXPECT_EQ(l.remove("x", LLONG_MIN), 4u);
    EXPECT_EQ(l.remove("x", LLONG_MAX), 0u);
    EXPECT_EQ(l.remove("nope", 0), 0u);
    EXPECT_EQ(l.size(), 3u);
  }
  {
    PackedList l = make();
    EXPECT_EQ(l.remove("x", 1), 1u);
    EXPECT_EQ(l.remove("x", -1), 1u);
    EXPECT_EQ(contents(l), (std::vector<std::string>{"a", "x", "b", "x", "c"}));
  }
}

TEST(PackedListTest, RemoveAcrossBlocksFreesAndMergesBlocks) {
  PackedList l;
  std::deque<std::string> d;
  constexpr std::size_t kN = 6000;
  for (std::size_t i = 0; i < kN; ++i) {
    const std::string v = i % 3 == 0 ? "drop" : num(i);
    l.push_back(v);
    d.push_back(v);
  }
  const std::size_t before_blocks = l.block_count();
  EXPECT_EQ(l.remove("drop", -100), 100u);
  for (int k = 0; k < 100; ++k) d.erase(std::find(d.rbegin(), d.rend(), "drop").base() - 1);
  expect_same(l, d);
  EXPECT_EQ(l.remove("drop", 0), kN / 3 - 100);
  std::erase(d, "drop");
  expect_same(l, d);
  EXPECT_LE(l.block_count(), before_blocks);
  // Remove nearly everything: the survivors fold into few blocks.
  for (std::size_t i = 0; i < kN; ++i) {
    if (i % 3 != 0 && i % 500 != 1) {
      ASSERT_EQ(l.remove(num(i), 1), 1u);
      std::erase(d, num(i));
    }
  }
  expect_same(l, d);
  EXPECT_LE(l.block_count(), 2u);
  EXPECT_LT(l.memory_usage(), 2 * PackedList::kNodeBytes);
}

TEST(PackedListTest, KeepRangeAndEraseEnds) {
  for (std::size_t n : {1u, 2u, 10u, 600u, 700u, 5000u}) {
    for (auto [start, stop_from_end] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, 0}, {1, 0}, {0, 1}, {n / 3, n / 4}, {n - 1, 0}, {0, n - 1}}) {
      if (start + stop_from_end >= n) continue;
      PackedList l;
      std::deque<std::string> d;
      for (std::size_t i = 0; i < n; ++i) {
        l.push_back(num(i));
        d.push_back(num(i));
      }
      const std::size_t stop = n - 1 - stop_from_end;
      l.keep_range(start, stop);
      d = std::deque<std::string>(d.begin() + start, d.begin() + stop + 1);
      expect_same(l, d);
    }
  }
  PackedList l;
  for (std::size_t i = 0; i < 3000; ++i) l.push_front(num(i));
  l.erase_front(1000);
  l.erase_back(1000);
  EXPECT_EQ(l.size(), 1000u);
  EXPECT_EQ(l.front(), num(1999));
  EXPECT_EQ(l.back(), num(1000));
  l.erase_back(5000);
  EXPECT_TRUE(l.empty());
}

TEST(PackedListTest, RangesAndScansStopWhereAsked) {
  PackedList l;
  for (std::size_t i = 0; i < 2000; ++i) l.push_back(num(i));
  std::vector<std::string> got;
  l.for_each_in_range(1990, 5000, [&](std::string_view v) { got.emplace_back(v); });
  ASSERT_EQ(got.size(), 10u);
  EXPECT_EQ(got.front(), num(1990));
  got.clear();
  l.for_each_in_range(500, 500, [&](std::string_view v) { got.emplace_back(v); });
  EXPECT_EQ(got, std::vector<std::string>{num(500)});
  std::size_t seen = 0;
  l.scan_forward([&](std::size_t i, std::string_view v) {
    EXPECT_EQ(v, num(i));
    return ++seen < 700;
  });
  EXPECT_EQ(seen, 700u);
  seen = 0;
  l.scan_backward([&](std::size_t i, std::string_view v) {
    EXPECT_EQ(v, num(i));
    return ++seen < 1500;
  });
  EXPECT_EQ(seen, 1500u);
}

TEST(PackedListTest, CloneIsDeepAndMoveTransfersOwnership) {
  for (std::size_t n : {0u, 5u, 3000u}) {
    PackedList a;
    for (std::size_t i = 0; i < n; ++i) a.push_back(num(i));
    if (n == 3000) a.push_back(std::string(20000, 'L'));
    PackedList b = a.clone();
    EXPECT_EQ(contents(a), contents(b));
    EXPECT_EQ(a.memory_usage(), b.memory_usage());
    EXPECT_TRUE(b.invariants_hold());
    b.push_front("new");
    EXPECT_NE(contents(a), contents(b));
    PackedList c(std::move(b));
    EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_EQ(c.front(), "new");
    c = std::move(a);
    EXPECT_EQ(c.size(), n + (n == 3000 ? 1 : 0));
  }
}

// Randomized differential test against std::deque: each profile keeps the list in a
// different regime (small form, many blocks, large elements).
struct Profile {
  const char* name;
  std::uint32_t seed;
  int ops;
  std::size_t target;  // size the push/pop bias steers toward
};

std::string random_value(std::mt19937& rng, bool allow_large) {
  const int kind = static_cast<int>(rng() % 100);
  if (kind < 45) return std::string(1, static_cast<char>('a' + rng() % 6));  // collisions
  if (kind < 75) return num(rng() % 1000, 12);
  std::size_t len;
  if (kind < 92) {
    len = rng() % 130;
  } else if (kind < 98 || !allow_large) {
    len = 100 + rng() % 3000;
  } else {
    len = 4000 + rng() % 20000;
  }
  std::string v(len, '\0');
  for (auto& c : v) c = static_cast<char>(rng() % 256);
  return v;
}

void run_differential(const Profile& p) {
  std::mt19937 rng(p.seed);
  PackedList l;
  std::deque<std::string> d;
  auto pick_existing = [&](std::string_view fallback) -> std::string {
    return d.empty() || rng() % 4 == 0 ? std::string(fallback) : d[rng() % d.size()];
  };
  for (int op = 0; op < p.ops; ++op) {
    const bool grow = d.size() < p.target;
    const int r = static_cast<int>(rng() % 100);
    const bool allow_large = p.target >= 100;
    if (r < (grow ? 25 : 15)) {
      std::string v = random_value(rng, allow_large);
      l.push_back(v);
      d.push_back(std::move(v));
    } else if (r < (grow ? 50 : 30)) {
      std::string v = random_value(rng, allow_large);
      l.push_front(v);
      d.push_front(std::move(v));
    } else if (r < 45) {
      if (!d.empty()) {
        ASSERT_EQ(l.pop_front(), d.front()) << p.name << " op " << op;
        d.pop_front();
      }
    } else if (r < 60) {
      if (!d.empty()) {
        ASSERT_EQ(l.pop_back(), d.back()) << p.name << " op " << op;
        d.pop_back();
      }
    } else if (r < 68) {
      if (!d.empty()) {
        const std::size_t i = rng() % d.size();
        ASSERT_EQ(l.at(i), d[i]) << p.name << " op " << op;
      }
    } else if (r < 76) {
      if (!d.empty()) {
        const std::size_t i =
            rng() % 3 == 0 ? rng() % std::min<std::size_t>(d.size(), 3) : rng() % d.size();
        std::string v = random_value(rng, allow_large);
        l.set(i, v);
        d[i] = std::move(v);
      }
    } else if (r < 84) {
      const std::string pivot = pick_existing("zz");
      std::string v = random_value(rng, allow_large);
      const bool after = rng() % 2 == 0;
      auto it = std::find(d.begin(), d.end(), pivot);
      ASSERT_EQ(l.insert_at_pivot(pivot, v, after), it != d.end()) << p.name << " op " << op;
      if (it != d.end()) d.insert(after ? it + 1 : it, std::move(v));
    } else if (r < 90) {
      const std::string v = pick_existing("q");
      const long long count = static_cast<long long>(rng() % 7) - 3;
      std::size_t want = 0;
      if (count >= 0) {
        for (auto it = d.begin(); it != d.end();) {
          if (*it == v && (count == 0 || want < static_cast<std::size_t>(count))) {
            it = d.erase(it);
            ++want;
          } else {
            ++it;
          }
        }
      } else {
        for (std::size_t i = d.size(); i-- > 0 && want < static_cast<std::size_t>(-count);) {
          if (d[i] == v) {
            d.erase(d.begin() + static_cast<std::ptrdiff_t>(i));
            ++want;
          }
        }
      }
      ASSERT_EQ(l.remove(v, count), want) << p.name << " op " << op;
    } else if (r < 93) {
      if (!d.empty()) {
        std::size_t a = rng() % d.size(), b = rng() % d.size();
        if (a > b) std::swap(a, b);
        if (rng() % 2 == 0) {  // LTRIM usually trims a little from each end
          a = std::min<std::size_t>(rng() % 4, d.size() - 1);
          b = d.size() - 1 - std::min<std::size_t>(rng() % 4, d.size() - 1 - a);
        }
        l.keep_range(a, b);
        d = std::deque<std::string>(d.begin() + static_cast<std::ptrdiff_t>(a),
                                    d.begin() + static_cast<std::ptrdiff_t>(b) + 1);
      }
    } else if (r < 95) {
      const std::size_t k = rng() % 5;
      l.erase_front(k);
      d.erase(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(std::min(k, d.size())));
      const std::size_t k2 = rng() % 5;
      l.erase_back(k2);
      d.erase(d.end() - static_cast<std::ptrdiff_t>(std::min(k2, d.size())), d.end());
    } else if (r < 98) {
      if (!d.empty()) {
        std::size_t a = rng() % d.size(), b = a + rng() % 50;
        std::vector<std::string> got;
        l.for_each_in_range(a, b, [&](std::string_view v) { got.emplace_back(v); });
        b = std::min(b, d.size() - 1);
        ASSERT_EQ(got, std::vector<std::string>(d.begin() + static_cast<std::ptrdiff_t>(a),
                                                d.begin() + static_cast<std::ptrdiff_t>(b) + 1));
      }
    } else if (r < 99) {
      PackedList copy = l.clone();
      l = std::move(copy);
    } else if (rng() % 20 == 0) {
      l.clear();
      d.clear();
    }
    ASSERT_EQ(l.size(), d.size()) << p.name << " op " << op;
    if (op % 997 == 0 || d.size() < 3) {
      ASSERT_NO_FATAL_FAILURE(expect_same(l, d)) << p.name << " op " << op;
    }
  }
  expect_same(l, d);
}

TEST(PackedListDifferentialTest, SmallListsMatchDeque) {
  run_differential({"small", 1, 120000, 12});
}
TEST(PackedListDifferentialTest, MultiBlockListsMatchDeque) {
  run_differential({"multi-block", 2, 120000, 3000});
}
TEST(PackedListDifferentialTest, ListsAroundOneBlockMatchDeque) {
  run_differential({"one-block", 3, 120000, 400});
}

// Memory: printed for the record; bounds keep the design honest.
TEST(PackedListMemoryTest, MillionTwelveByteElements) {
  for (bool front : {false, true}) {
    PackedList l;
    for (std::size_t i = 0; i < 1000000; ++i) {
      const std::string v = num(i, 12);
      front ? l.push_front(v) : l.push_back(v);
    }
    const double per = static_cast<double>(l.memory_usage()) / 1e6;
    std::printf("[memory] 1,000,000 x 12 B via %s: %zu bytes, %.3f B/element, %zu blocks\n",
                front ? "push_front" : "push_back", l.memory_usage(), per, l.block_count());
    EXPECT_LE(per, 15.0);
    EXPECT_EQ(l.at(500000), num(front ? 499999 : 500000, 12));
  }
}

TEST(PackedListMemoryTest, SmallListsAreOneTightAllocation) {
  EXPECT_EQ(sizeof(PackedList), 8u);
  for (bool front : {false, true}) {
    PackedList l;
    for (std::size_t i = 0; i < 10; ++i) {
      front ? l.push_front(num(i, 12)) : l.push_back(num(i, 12));
    }
    std::printf("[memory] 10 x 12 B via %s: %zu bytes (%zu block)\n",
                front ? "push_front" : "push_back", l.memory_usage(), l.block_count());
    EXPECT_EQ(l.block_count(), 1u);
    EXPECT_LE(l.memory_usage(), 170u);
  }
  for (std::size_t n : {1u, 2u, 5u, 20u, 50u, 100u, 300u}) {
    PackedList l;
    for (std::size_t i = 0; i < n; ++i) l.push_back(num(i, 12));
    std::printf("[memory] %zu x 12 B: %zu bytes, %.1f B/element\n", n, l.memory_usage(),
                static_cast<double>(l.memory_usage()) / static_cast<double>(n));
    EXPECT_LE(l.memory_usage(), n * 14 * 5 / 4 + 48);
  }
}

}  // namespace
}  // namespace listd::store
