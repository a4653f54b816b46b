// zset_range.h without a server: Redis' score and lex bound grammars, the rank rule, and the
// selections ZCOUNT / ZRANGEBYSCORE / ZRANGEBYLEX make over a sorted set.
#include "listd/server/zset_range.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace listd::server;
using listd::store::ZSetValue;

TEST(ZSetRange, ScoreBoundsFollowStrtodWithParenForOpen) {
  double v = 0;
  bool ex = false;
  EXPECT_TRUE(parse_score_bound("1.5", v, ex));
  EXPECT_EQ(v, 1.5);
  EXPECT_FALSE(ex);
  EXPECT_TRUE(parse_score_bound("(2", v, ex));
  EXPECT_EQ(v, 2);
  EXPECT_TRUE(ex);
  EXPECT_TRUE(parse_score_bound("-inf", v, ex));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  EXPECT_TRUE(parse_score_bound("0x10", v, ex));  // strtod reads hex, as in Redis
  EXPECT_EQ(v, 16);
  EXPECT_TRUE(parse_score_bound(std::string("3\0junk", 6), v, ex));  // C string: stops at NUL
  EXPECT_EQ(v, 3);
  EXPECT_FALSE(parse_score_bound("nan", v, ex));
  EXPECT_FALSE(parse_score_bound("1x", v, ex));
  EXPECT_FALSE(parse_score_bound("((1", v, ex));
}

TEST(ZSetRange, LexBoundsAreBracketParenOrAnInfinity) {
  LexBound b;
  ASSERT_TRUE(parse_lex_bound("[abc", b));
  EXPECT_EQ(b.kind, LexBound::Kind::kValue);
  EXPECT_EQ(b.value, "abc");
  EXPECT_FALSE(b.ex);
  ASSERT_TRUE(parse_lex_bound("(a", b));
  EXPECT_TRUE(b.ex);
  ASSERT_TRUE(parse_lex_bound("-", b));
  EXPECT_EQ(b.kind, LexBound::Kind::kMin);
  ASSERT_TRUE(parse_lex_bound("+", b));
  EXPECT_EQ(b.kind, LexBound::Kind::kMax);
  EXPECT_FALSE(parse_lex_bound("", b));
  EXPECT_FALSE(parse_lex_bound("abc", b));
  EXPECT_FALSE(parse_lex_bound("+x", b));
  EXPECT_GT(lex_cmp("anything", LexBound{LexBound::Kind::kMin, {}, true}), 0);
  EXPECT_LT(lex_cmp("anything", LexBound{LexBound::Kind::kMax, {}, true}), 0);
}

TEST(ZSetRange, RankRangesCountFromTheEndAndClamp) {
  std::size_t from = 0, to = 0;
  ASSERT_TRUE(resolve_rank_range(0, -1, 5, from, to));
  EXPECT_EQ(from, 0u);
  EXPECT_EQ(to, 4u);
  ASSERT_TRUE(resolve_rank_range(-100, 100, 5, from, to));
  EXPECT_EQ(from, 0u);
  EXPECT_EQ(to, 4u);
  ASSERT_TRUE(resolve_rank_range(-2, -1, 5, from, to));
  EXPECT_EQ(from, 3u);
  EXPECT_EQ(to, 4u);
  EXPECT_FALSE(resolve_rank_range(3, 2, 5, from, to));
  EXPECT_FALSE(resolve_rank_range(5, 9, 5, from, to));
  EXPECT_FALSE(resolve_rank_range(0, -1, 0, from, to));
}

class ZSetSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* members[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; ++i) z.insert(members[i], i + 1);  // a=1 ... e=5
  }
  static std::string names(const std::vector<ScoredMember>& items) {
    std::string out;
    for (const ScoredMember& it : items) out += it.member;
    return out;
  }
  ZSetValue z = ZSetValue::create(1);
};

TEST_F(ZSetSelection, ScoreRangesCountAndCollectWithOffsetAndLimit) {
  const ScoreRange r{2, 4, false, true};  // [2, 4)
  const RangeBounds b{&r, nullptr};
  EXPECT_EQ(count_in(z, b), 2u);
  std::vector<ScoredMember> out;
  collect_by_bounds(z, b, false, 0, -1, out);
  EXPECT_EQ(names(out), "bc");
  out.clear();
  collect_by_bounds(z, b, true, 0, -1, out);
  EXPECT_EQ(names(out), "cb");
  out.clear();
  collect_by_bounds(z, b, false, 1, 5, out);
  EXPECT_EQ(names(out), "c");
  out.clear();
  collect_by_bounds(z, b, false, -1, 5, out);  // a negative offset selects nothing
  EXPECT_EQ(names(out), "");
}

TEST_F(ZSetSelection, LexRangesAndRanks) {
  LexRange r;
  ASSERT_TRUE(parse_lex_bound("(b", r.min));
  ASSERT_TRUE(parse_lex_bound("+", r.max));
  const RangeBounds b{nullptr, &r};
  EXPECT_EQ(count_in(z, b), 3u);
  std::vector<ScoredMember> out;
  collect_by_bounds(z, b, false, 0, 2, out);
  EXPECT_EQ(names(out), "cd");
  out.clear();
  collect_by_rank(z, 1, 3, true, out);  // ranks counted from the top
  EXPECT_EQ(names(out), "dcb");
}

}  // namespace
