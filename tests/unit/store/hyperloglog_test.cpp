// HyperLogLog representation: the empty sparse form, sparse updates (split, merge of equal
// neighbours), promotion to dense (a value above 32, the size limit), the count and its cache,
// corrupt sparse forms, and the self test on a small scale.
#include "listd/store/hyperloglog.h"

#include <gtest/gtest.h>

#include <string>

namespace listd::store::hll {
namespace {

constexpr std::size_t kLimit = 3000;

TEST(Hyperloglog, EmptyIsSparseWithOneXzeroCoveringEveryRegister) {
  const std::string h = empty_hll();
  ASSERT_EQ(h.size(), kHeaderSize + 2);
  EXPECT_EQ(h.substr(0, 4), "HYLL");
  EXPECT_TRUE(valid_header(h));
  EXPECT_TRUE(is_sparse(h));
  EXPECT_EQ(decode_sparse(h), "Z:16384");
  std::uint64_t n = 99;
  EXPECT_TRUE(count(h, n));
  EXPECT_EQ(n, 0u);
}

TEST(Hyperloglog, HeaderChecksMatchRedis) {
  EXPECT_FALSE(valid_header("HYLL"));
  std::string h = empty_hll();
  h[0] = 'X';
  EXPECT_FALSE(valid_header(h));
  h = empty_hll();
  h[4] = 2;  // unknown encoding
  EXPECT_FALSE(valid_header(h));
  h = empty_hll();
  h[4] = 0;  // dense but not 12304 bytes
  EXPECT_FALSE(valid_header(h));
}

TEST(Hyperloglog, SparseSetSplitsAndMergesEqualNeighbours) {
  std::string h = empty_hll();
  EXPECT_EQ(set_register(h, 10, 3, kLimit), Update::kChanged);
  EXPECT_EQ(decode_sparse(h), "z:10 v:3,1 Z:16373");
  EXPECT_EQ(set_register(h, 10, 2, kLimit), Update::kUnchanged);
  EXPECT_EQ(set_register(h, 11, 3, kLimit), Update::kChanged);
  EXPECT_EQ(decode_sparse(h), "z:10 v:3,2 Z:16372");
  EXPECT_EQ(set_register(h, 0, 1, kLimit), Update::kChanged);
  EXPECT_EQ(decode_sparse(h), "v:1,1 z:9 v:3,2 Z:16372");
  EXPECT_FALSE(cache_valid(h));
}

TEST(Hyperloglog, ValueAbove32PromotesToDense) {
  std::string h = empty_hll();
  ASSERT_EQ(set_register(h, 5, 7, kLimit), Update::kChanged);
  ASSERT_EQ(set_register(h, 16383, 40, kLimit), Update::kChanged);
  ASSERT_FALSE(is_sparse(h));
  ASSERT_EQ(h.size(), kDenseSize);
  EXPECT_EQ(dense_register(h, 5), 7);
  EXPECT_EQ(dense_register(h, 16383), 40);
  EXPECT_EQ(dense_register(h, 4), 0);
}

TEST(Hyperloglog, SparseGrowingPastTheLimitPromotes) {
  std::string h = empty_hll();
  for (int i = 0; i < 40; ++i) set_register(h, i * 100, 1 + i % 5, 30);
  EXPECT_FALSE(is_sparse(h));
  std::string s = empty_hll();
  for (int i = 0; i < 40; ++i) set_register(s, i * 100, 1 + i % 5, kLimit);
  ASSERT_TRUE(is_sparse(s));
  ASSERT_TRUE(to_dense(s));
  EXPECT_EQ(s, h);
}

TEST(Hyperloglog, AddCountsDistinctElementsAndBothFormsAgree) {
  std::string sparse = empty_hll();
  std::string dense = empty_hll();
  ASSERT_TRUE(to_dense(dense));
  for (int i = 0; i < 1000; ++i) {
    const std::string e = "element:" + std::to_string(i);
    add(sparse, e, kLimit);
    add(dense, e, kLimit);
  }
  EXPECT_EQ(add(sparse, "element:7", kLimit), Update::kUnchanged);
  std::uint64_t a = 0, b = 0;
  ASSERT_TRUE(count(sparse, a));
  ASSERT_TRUE(count(dense, b));
  EXPECT_EQ(a, b);
  EXPECT_NEAR(static_cast<double>(a), 1000.0, 1000 * 0.05);
  Registers max{};
  ASSERT_TRUE(merge_into(max, sparse));
  EXPECT_EQ(count_registers(max), a);
}

TEST(Hyperloglog, CacheStoresLittleEndianAndInvalidatesWithTheTopBit) {
  std::string h = empty_hll();
  store_cache(h.data(), 0x0102030405ULL);
  EXPECT_TRUE(cache_valid(h));
  EXPECT_EQ(cached_count(h), 0x0102030405ULL);
  EXPECT_EQ(static_cast<unsigned char>(h[8]), 0x05);
  invalidate_cache(h.data());
  EXPECT_FALSE(cache_valid(h));
}

TEST(Hyperloglog, CorruptSparseIsReported) {
  std::string h = empty_hll();
  h += '\x80';  // a VAL past the last register
  Registers max{};
  EXPECT_FALSE(merge_into(max, h));
  std::uint64_t n = 0;
  EXPECT_FALSE(count(h, n));
  EXPECT_FALSE(to_dense(h));
  std::string cut = empty_hll();
  cut.pop_back();  // an XZERO cut in half covers too few registers
  EXPECT_EQ(set_register(cut, 16383, 1, kLimit), Update::kCorrupt);
}

TEST(Hyperloglog, SelfTestPassesOnASmallScale) { EXPECT_EQ(self_test(kLimit, 7, 3, 100000), ""); }

}  // namespace
}  // namespace listd::store::hll
