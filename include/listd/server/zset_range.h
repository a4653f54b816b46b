// Sorted-set ranges, as Redis 7.0 t_zset.c parses and walks them: score ranges (strtod, "("
// for an open bound, "inf" and "0x10" accepted, NaN rejected), lex ranges ("[x", "(x", "-",
// "+"), rank ranges (negative from the end, clamped), and the selections over a ZSetValue that
// ZCOUNT, ZLEXCOUNT, ZRANGE*, ZRANGESTORE and ZREMRANGE* share; the ZRANGE grammar
// (ZRangeRequest) for ZRANGE and ZRANGESTORE. Everything but the parse_* functions taking a
// CommandContext is pure and works without a server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "listd/protocol/reply_writer.h"
#include "listd/store/zset_value.h"

namespace listd::server {

class CommandContext;

struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool gte_min(double v) const noexcept { return minex ? v > min : v >= min; }
  bool lte_max(double v) const noexcept { return maxex ? v < max : v <= max; }
};

/// Redis zslParseRange for one bound: strtod over the C string (so bytes after a NUL are
/// ignored, like Redis), "(" for an open bound, NaN rejected.
bool parse_score_bound(std::string_view text, double& v, bool& ex);
/// argv[min_i], argv[max_i] as a score range; replies "min or max is not a float" and returns
/// false otherwise.
bool parse_score_range(CommandContext& ctx, std::size_t min_i, std::size_t max_i, ScoreRange& r);

struct LexBound {
  enum class Kind : std::uint8_t { kMin, kMax, kValue };
  Kind kind = Kind::kValue;
  std::string_view value;
  bool ex = false;
};

/// Redis zslParseLexRangeItem: "-" / "+" (the infinities), "[x" inclusive, "(x" exclusive.
bool parse_lex_bound(std::string_view s, LexBound& b);
/// Redis sdscmplex of a member against a bound.
int lex_cmp(std::string_view member, const LexBound& b) noexcept;

struct LexRange {
  LexBound min, max;
  bool gte_min(std::string_view m) const noexcept {
    const int c = lex_cmp(m, min);
    return min.ex ? c > 0 : c >= 0;
  }
  bool lte_max(std::string_view m) const noexcept {
    const int c = lex_cmp(m, max);
    return max.ex ? c < 0 : c <= 0;
  }
};

/// argv[min_i], argv[max_i] as a lex range; replies "min or max not valid string range item"
/// and returns false otherwise.
bool parse_lex_range(CommandContext& ctx, std::size_t min_i, std::size_t max_i, LexRange& r);

/// A range as two predicates over (score, member), for score and lex ranges alike.
struct RangeBounds {
  const ScoreRange* score = nullptr;
  const LexRange* lex = nullptr;
  bool gte_min(double s, std::string_view m) const noexcept {
    return score ? score->gte_min(s) : lex->gte_min(m);
  }
  bool lte_max(double s, std::string_view m) const noexcept {
    return score ? score->lte_max(s) : lex->lte_max(m);
  }
  /// Rank of the first element >= min (the skip list finds it in O(log N)).
  std::size_t first(const store::ZSetValue& z) const {
    return z.partition_point([this](double s, std::string_view m) { return !gte_min(s, m); });
  }
  /// One past the rank of the last element <= max.
  std::size_t end(const store::ZSetValue& z) const {
    return z.partition_point([this](double s, std::string_view m) { return lte_max(s, m); });
  }
};

/// One element of a selection; the member views the sorted set's storage.
struct ScoredMember {
  std::string_view member;
  double score;
};

/// The ZRANGE-family reply (also ZUNION, ZINTER, ZDIFF): RESP2 a flat (member, score) list,
/// RESP3 [member, score] pairs; members only without `withscores`.
void reply_scored_members(protocol::ReplyWriter r, const std::vector<ScoredMember>& items,
                          bool withscores);

/// The ZRANGE / ZREMRANGEBYRANK rank rule over `len` elements: negative from the end, start
/// clamped to 0, end to len - 1. False when the range is empty; else the inclusive [from, to].
bool resolve_rank_range(long long start, long long end, std::size_t len, std::size_t& from,
                        std::size_t& to);

/// Ranks from..to (inclusive, resolved) ascending, or counted from the top when `rev`.
void collect_by_rank(const store::ZSetValue& z, std::size_t from, std::size_t to, bool rev,
                     std::vector<ScoredMember>& out);

/// Redis genericZrangebyscoreCommand / genericZrangebylexCommand: from the first element in
/// range (the last one when `rev`), skip `offset` unchecked, then take up to `limit` (< 0 =
/// all) while in range.
void collect_by_bounds(const store::ZSetValue& z, const RangeBounds& b, bool rev, long long offset,
                       long long limit, std::vector<ScoredMember>& out);

/// Number of elements in range: Redis zcount/zlexcount (first in range .. last in range).
std::size_t count_in(const store::ZSetValue& z, const RangeBounds& b);

/// One Z[REV]RANGE[BYSCORE|BYLEX] / ZRANGESTORE request, as Redis zrangeGenericCommand parses
/// it. The fixed forms preset `type` and `dir`; kAuto is left for the option words to decide.
struct ZRangeRequest {
  enum class Type : std::uint8_t { kAuto, kRank, kScore, kLex };
  enum class Direction : std::uint8_t { kAuto, kForward, kReverse };
  Type type = Type::kAuto;
  Direction dir = Direction::kAuto;
  bool withscores = false;
  long long offset = 0, limit = -1;  ///< LIMIT (score and lex ranges)
  long long start = 0, end = 0;      ///< rank range
  ScoreRange score;
  LexRange lex;
};

/// Redis zrangeGenericCommand steps 1 and 2: the options after argv[key_at + 2], their
/// conflicts, then the range at argv[key_at + 1..2] (swapped for a reverse score or lex range).
/// `store` (ZRANGESTORE) refuses WITHSCORES. Returns false after replying the error.
bool parse_zrange_request(CommandContext& ctx, std::size_t key_at, bool store, ZRangeRequest& req);

/// The elements `req` selects from `z`, in reply order.
void collect_zrange(const store::ZSetValue& z, const ZRangeRequest& req,
                    std::vector<ScoredMember>& out);

}  // namespace listd::server
