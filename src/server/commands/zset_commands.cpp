// Sorted-set commands: ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZCOUNT,
// ZLEXCOUNT, ZRANGE, ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX,
// ZREMRANGEBYSCORE, ZREMRANGEBYRANK, ZREMRANGEBYLEX, ZPOPMIN, ZPOPMAX, ZMPOP, ZSCAN, the
// blocking BZPOPMIN, BZPOPMAX, BZMPOP, and their serving half, serve_zset_waiter.
//
// Argument checks and reply shapes follow Redis 7.0.15 t_zset.c: options, then ranges, then
// the key. Score ranges are parsed with strtod as Redis does ("(" = exclusive, "", " 1",
// "inf", "0x10" accepted; NaN rejected); lex ranges take "[x", "(x", "-", "+". Scores are
// replied with ReplyWriter::double_value (RESP2 bulk "%.17g", RESP3 double), as Redis 7.0.
// Blocking pops use the list pops' mechanism: serve at once if a key has members, else park
// with CommandContext::block_on; Executor::drain_ready_keys calls serve_zset_waiter once a
// sorted set is created on a waited key (CommandContext::add_key signals it).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "listd/protocol/reply_writer.h"
#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/scan_args.h"
#include "listd/server/text.h"
#include "listd/base/glob.h"
#include "listd/base/number.h"

namespace listd::server {
namespace {

constexpr std::string_view kNanErr = "ERR resulting score is not a number (NaN)";
constexpr std::string_view kScoreRangeErr = "ERR min or max is not a float";
constexpr std::string_view kLexRangeErr = "ERR min or max not valid string range item";

// ---- ranges -------------------------------------------------------------------------------

struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool gte_min(double v) const noexcept { return minex ? v > min : v >= min; }
  bool lte_max(double v) const noexcept { return maxex ? v < max : v <= max; }
};

/// Redis zslParseRange for one bound: strtod over the C string (so bytes after a NUL are
/// ignored, like Redis), "(" for an open bound, NaN rejected.
bool parse_score_bound(std::string_view text, double& v, bool& ex) {
  const std::string buf(text);
  const char* p = buf.c_str();
  ex = *p == '(';
  if (ex) ++p;
  char* end = nullptr;
  v = std::strtod(p, &end);
  return *end == '\0' && !std::isnan(v);
}

bool parse_score_range(CommandContext& ctx, std::size_t min_i, std::size_t max_i, ScoreRange& r) {
  if (!parse_score_bound(ctx.arg(min_i), r.min, r.minex) ||
      !parse_score_bound(ctx.arg(max_i), r.max, r.maxex)) {
    ctx.reply().error(kScoreRangeErr);
    return false;
  }
  return true;
}

struct LexBound {
  enum class Kind : std::uint8_t { kMin, kMax, kValue };
  Kind kind = Kind::kValue;
  std::string_view value;
  bool ex = false;
};

/// Redis zslParseLexRangeItem: "-" / "+" (the infinities), "[x" inclusive, "(x" exclusive.
bool parse_lex_bound(std::string_view s, LexBound& b) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
    case '-':
      if (s.size() > 1 && s[1] != '\0') return false;
      b = {s[0] == '+' ? LexBound::Kind::kMax : LexBound::Kind::kMin, {}, true};
      return true;
    case '(':
    case '[':
      b = {LexBound::Kind::kValue, s.substr(1), s[0] == '('};
      return true;
    default: return false;
  }
}

/// Redis sdscmplex of a member against a bound.
int lex_cmp(std::string_view member, const LexBound& b) noexcept {
  if (b.kind == LexBound::Kind::kMin) return 1;
  if (b.kind == LexBound::Kind::kMax) return -1;
  return member.compare(b.value);
}

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

bool parse_lex_range(CommandContext& ctx, std::size_t min_i, std::size_t max_i, LexRange& r) {
  if (!parse_lex_bound(ctx.arg(min_i), r.min) || !parse_lex_bound(ctx.arg(max_i), r.max)) {
    ctx.reply().error(kLexRangeErr);
    return false;
  }
  return true;
}

/// A range as two predicates over (score, member), for score and lex ranges alike.
struct Bounds {
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

// ---- replies ------------------------------------------------------------------------------

struct Item {
  std::string_view member;
  double score;
};

/// ZRANGE-family reply: RESP2 flat (member, score) list; RESP3 [member, score] pairs.
void reply_items(protocol::ReplyWriter r, const std::vector<Item>& items, bool withscores) {
  r.array_header(withscores && !r.resp3() ? items.size() * 2 : items.size());
  for (const Item& it : items) {
    if (withscores && r.resp3()) r.array_header(2);
    r.bulk(it.member);
    if (withscores) r.double_value(it.score);
  }
}

/// Ranks start..end (sanitized, inclusive) ascending, or counted from the top when `rev`.
void collect_by_rank(const store::ZSetValue& z, long long start, long long end, bool rev,
                     std::vector<Item>& out) {
  long long n = end - start + 1;
  const auto size = static_cast<long long>(z.size());
  store::ZCursor c = z.at_rank(static_cast<std::size_t>(rev ? size - 1 - start : start));
  for (; c.valid() && n-- > 0; rev ? c.prev() : c.next()) out.push_back({c.member(), c.score()});
}

/// Redis genericZrangebyscoreCommand / genericZrangebylexCommand: from the first element in
/// range (the last one when `rev`), skip `offset` unchecked, then take up to `limit` (< 0 =
/// all) while in range.
void collect_by_bounds(const store::ZSetValue& z, const Bounds& b, bool rev, long long offset,
                       long long limit, std::vector<Item>& out) {
  // A negative offset makes Redis walk off the end: nothing.
  if (offset < 0 || (offset > 0 && static_cast<unsigned long long>(offset) >= z.size())) return;
  store::ZCursor c;
  const auto skip = static_cast<std::size_t>(offset);
  if (!rev) {
    const std::size_t first = b.first(z);
    c = z.at_rank(first);
    if (!c.valid() || !b.lte_max(c.score(), c.member())) return;
    // Jump over the offset by rank (O(log N)) where Redis steps through it.
    if (skip > 0) c = z.at_rank(first + skip);
  } else {
    const std::size_t end = b.end(z);
    if (end == 0) return;
    c = z.at_rank(end - 1);
    if (!b.gte_min(c.score(), c.member())) return;
    if (skip > 0) {
      if (skip >= end) return;
      c = z.at_rank(end - 1 - skip);
    }
  }
  for (; c.valid() && limit-- != 0; rev ? c.prev() : c.next()) {
    if (rev ? !b.gte_min(c.score(), c.member()) : !b.lte_max(c.score(), c.member())) break;
    out.push_back({c.member(), c.score()});
  }
}

/// Number of elements in range: Redis zcount/zlexcount (first in range .. last in range).
std::size_t count_in(const store::ZSetValue& z, const Bounds& b) {
  const std::size_t lo = b.first(z);
  store::ZCursor c = z.at_rank(lo);
  if (!c.valid() || !b.lte_max(c.score(), c.member())) return 0;
  const std::size_t hi = b.end(z);
  return hi > lo ? hi - lo : 0;
}

// ---- ZADD / ZINCRBY -----------------------------------------------------------------------

enum ZaddFlag : unsigned { kZaddIncr = 1, kZaddNx = 2, kZaddXx = 4, kZaddGt = 8, kZaddLt = 16 };

/// Redis zaddGenericCommand, ZINCRBY included (`flags` = kZaddIncr).
void zadd_generic(CommandContext& ctx, unsigned flags) {
  std::size_t scoreidx = 2;
  bool ch = false;
  for (; scoreidx < ctx.argc(); ++scoreidx) {
    const std::string_view opt = ctx.arg(scoreidx);
    if (base::iequals(opt, "nx")) flags |= kZaddNx;
    else if (base::iequals(opt, "xx")) flags |= kZaddXx;
    else if (base::iequals(opt, "ch")) ch = true;
    else if (base::iequals(opt, "incr")) flags |= kZaddIncr;
    else if (base::iequals(opt, "gt")) flags |= kZaddGt;
    else if (base::iequals(opt, "lt")) flags |= kZaddLt;
    else break;
  }
  const bool incr = flags & kZaddIncr, nx = flags & kZaddNx, xx = flags & kZaddXx,
             gt = flags & kZaddGt, lt = flags & kZaddLt;
  const std::size_t args = ctx.argc() - scoreidx;
  if (args % 2 != 0 || args == 0) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  const std::size_t elements = args / 2;
  if (nx && xx) {
    ctx.reply().error("ERR XX and NX options at the same time are not compatible");
    return;
  }
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    ctx.reply().error("ERR GT, LT, and/or NX options at the same time are not compatible");
    return;
  }
  if (incr && elements > 1) {
    ctx.reply().error("ERR INCR option supports a single increment-element pair");
    return;
  }
  // Every score is parsed before anything changes: the command applies fully or not at all.
  std::vector<double> scores(elements);
  for (std::size_t j = 0; j < elements; ++j)
    if (!base::parse_double(ctx.arg(scoreidx + 2 * j), scores[j])) {
      ctx.reply().error(kNotFloatErr);
      return;
    }
  const std::string_view key = ctx.arg(1);
  auto [e, wrong_type] = ctx.write(key, store::ValueType::kZSet);
  if (wrong_type) return;
  long long added = 0, updated = 0, processed = 0;
  double score = 0;
  if (!e && !xx)
    e = ctx.add_key(key, store::Value(store::ZSetValue::create(ctx.arg(scoreidx + 1).size())));
  if (e) {
    store::ZSetValue& z = e->value.as_zset();
    for (std::size_t j = 0; j < elements; ++j) {
      const std::string_view member = ctx.arg(scoreidx + 2 * j + 1);
      score = scores[j];
      // Redis zsetAdd.
      if (const auto cur = z.score(member)) {
        if (nx) continue;
        if (incr) {
          score += *cur;
          if (std::isnan(score)) {
            ctx.reply().error(kNanErr);
            ctx.mark_dirty(added + updated);
            return;
          }
        }
        if ((lt && score >= *cur) || (gt && score <= *cur)) continue;
        ++processed;
        if (score != *cur) {
          z.update(member, *cur, score);
          ++updated;
        }
      } else if (!xx) {
        z.insert(member, score);
        ++added;
        ++processed;
      }
    }
  }
  ctx.mark_dirty(added + updated);
  if (incr) {
    if (processed)
      ctx.reply().double_value(score);
    else
      ctx.reply().null();
  } else {
    ctx.reply().integer(ch ? added + updated : added);
  }
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
void cmd_zadd(CommandContext& ctx) { zadd_generic(ctx, 0); }

// ZINCRBY key increment member
void cmd_zincrby(CommandContext& ctx) { zadd_generic(ctx, kZaddIncr); }

// ---- single-member reads and ZREM ----------------------------------------------------------

// ZREM key member [member ...]
void cmd_zrem(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  long long removed = 0;
  if (e) {
    store::ZSetValue& z = e->value.as_zset();
    for (std::size_t i = 2; i < ctx.argc() && !z.empty(); ++i)
      if (z.erase(ctx.arg(i))) ++removed;
    if (z.empty()) ctx.delete_key(ctx.arg(1));
  }
  ctx.mark_dirty(removed);
  ctx.reply().integer(removed);
}

// ZCARD key
void cmd_zcard(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(e->value.as_zset().size()) : 0);
}

// ZSCORE key member
void cmd_zscore(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  const auto s = e ? e->value.as_zset().score(ctx.arg(2)) : std::nullopt;
  if (s)
    ctx.reply().double_value(*s);
  else
    ctx.reply().null();
}

// ZMSCORE key member [member ...]
void cmd_zmscore(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const auto s = e ? e->value.as_zset().score(ctx.arg(i)) : std::nullopt;
    if (s)
      r.double_value(*s);
    else
      r.null();
  }
}

void rank_generic(CommandContext& ctx, bool rev) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  const auto rank = e ? e->value.as_zset().rank(ctx.arg(2)) : std::nullopt;
  if (!rank) {
    ctx.reply().null();
    return;
  }
  const auto n = static_cast<long long>(*rank);
  ctx.reply().integer(rev ? static_cast<long long>(e->value.as_zset().size()) - 1 - n : n);
}

// ZRANK key member
void cmd_zrank(CommandContext& ctx) { rank_generic(ctx, false); }
// ZREVRANK key member
void cmd_zrevrank(CommandContext& ctx) { rank_generic(ctx, true); }

// ZCOUNT key min max
void cmd_zcount(CommandContext& ctx) {
  ScoreRange range;
  if (!parse_score_range(ctx, 2, 3, range)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(count_in(e->value.as_zset(), Bounds{&range, nullptr})) : 0);
}

// ZLEXCOUNT key min max
void cmd_zlexcount(CommandContext& ctx) {
  LexRange range;
  if (!parse_lex_range(ctx, 2, 3, range)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(count_in(e->value.as_zset(), Bounds{nullptr, &range})) : 0);
}

// ---- ZRANGE family ------------------------------------------------------------------------

enum class RangeType : std::uint8_t { kAuto, kRank, kScore, kLex };
enum class Direction : std::uint8_t { kAuto, kForward, kReverse };

/// Redis zrangeGenericCommand (without the STORE form): options, conflicts, range, key.
void zrange_generic(CommandContext& ctx, RangeType type, Direction dir) {
  std::size_t minidx = 2, maxidx = 3;
  bool withscores = false;
  long long offset = 0, limit = -1;
  bool has_limit = false;
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    const std::string_view a = ctx.arg(j);
    const std::size_t left = ctx.argc() - j - 1;
    if (base::iequals(a, "withscores")) {
      withscores = true;
    } else if (base::iequals(a, "limit") && left >= 2) {
      if (!ctx.parse_integer(j + 1, offset) || !ctx.parse_integer(j + 2, limit)) return;
      has_limit = true;
      j += 2;
    } else if (dir == Direction::kAuto && base::iequals(a, "rev")) {
      dir = Direction::kReverse;
    } else if (type == RangeType::kAuto && base::iequals(a, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && base::iequals(a, "byscore")) {
      type = RangeType::kScore;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  if (dir == Direction::kAuto) dir = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  // Redis only rejects a LIMIT whose count is not -1 here (LIMIT 0 -1 passes for ranks).
  if (has_limit && limit != -1 && type == RangeType::kRank) {
    ctx.reply().error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return;
  }
  if (withscores && type == RangeType::kLex) {
    ctx.reply().error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return;
  }
  const bool rev = dir == Direction::kReverse;
  if (rev && type != RangeType::kRank) std::swap(minidx, maxidx);  // given as max min
  long long start = 0, end = 0;
  ScoreRange score_range;
  LexRange lex_range;
  switch (type) {
    case RangeType::kScore:
      if (!parse_score_range(ctx, minidx, maxidx, score_range)) return;
      break;
    case RangeType::kLex:
      if (!parse_lex_range(ctx, minidx, maxidx, lex_range)) return;
      break;
    default:
      if (!ctx.parse_integer(minidx, start) || !ctx.parse_integer(maxidx, end)) return;
      break;
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  std::vector<Item> items;
  if (e) {
    const store::ZSetValue& z = e->value.as_zset();
    if (type == RangeType::kRank) {
      const auto llen = static_cast<long long>(z.size());
      if (start < 0) start += llen;
      if (end < 0) end += llen;
      if (start < 0) start = 0;
      if (start <= end && start < llen) {
        if (end >= llen) end = llen - 1;
        collect_by_rank(z, start, end, rev, items);
      }
    } else {
      const Bounds b{type == RangeType::kScore ? &score_range : nullptr,
                     type == RangeType::kLex ? &lex_range : nullptr};
      collect_by_bounds(z, b, rev, offset, limit, items);
    }
  }
  reply_items(ctx.reply(), items, withscores);
}

// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
void cmd_zrange(CommandContext& ctx) { zrange_generic(ctx, RangeType::kAuto, Direction::kAuto); }
// ZREVRANGE key start stop [WITHSCORES]
void cmd_zrevrange(CommandContext& ctx) { zrange_generic(ctx, RangeType::kRank, Direction::kReverse); }
// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
void cmd_zrangebyscore(CommandContext& ctx) { zrange_generic(ctx, RangeType::kScore, Direction::kForward); }
// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
void cmd_zrevrangebyscore(CommandContext& ctx) { zrange_generic(ctx, RangeType::kScore, Direction::kReverse); }
// ZRANGEBYLEX key min max [LIMIT offset count]
void cmd_zrangebylex(CommandContext& ctx) { zrange_generic(ctx, RangeType::kLex, Direction::kForward); }
// ZREVRANGEBYLEX key max min [LIMIT offset count]
void cmd_zrevrangebylex(CommandContext& ctx) { zrange_generic(ctx, RangeType::kLex, Direction::kReverse); }

/// Redis zremrangeGenericCommand: range first, then the key.
void zremrange_generic(CommandContext& ctx, RangeType type) {
  long long start = 0, end = 0;
  ScoreRange score_range;
  LexRange lex_range;
  if (type == RangeType::kRank) {
    if (!ctx.parse_integer(2, start) || !ctx.parse_integer(3, end)) return;
  } else if (type == RangeType::kScore) {
    if (!parse_score_range(ctx, 2, 3, score_range)) return;
  } else if (!parse_lex_range(ctx, 2, 3, lex_range)) {
    return;
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  store::ZSetValue& z = e->value.as_zset();
  std::size_t lo = 0, hi = 0;
  if (type == RangeType::kRank) {
    const auto llen = static_cast<long long>(z.size());
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start <= end && start < llen) {
      if (end >= llen) end = llen - 1;
      lo = static_cast<std::size_t>(start);
      hi = static_cast<std::size_t>(end) + 1;
    }
  } else {
    const Bounds b{type == RangeType::kScore ? &score_range : nullptr,
                   type == RangeType::kLex ? &lex_range : nullptr};
    if (count_in(z, b) > 0) {
      lo = b.first(z);
      hi = b.end(z);
    }
  }
  const auto removed = static_cast<long long>(hi - lo);
  if (removed > 0) {
    z.erase_ranks(lo, hi);
    if (z.empty()) ctx.delete_key(ctx.arg(1));
  }
  ctx.mark_dirty(removed);
  ctx.reply().integer(removed);
}

// ZREMRANGEBYRANK key start stop
void cmd_zremrangebyrank(CommandContext& ctx) { zremrange_generic(ctx, RangeType::kRank); }
// ZREMRANGEBYSCORE key min max
void cmd_zremrangebyscore(CommandContext& ctx) { zremrange_generic(ctx, RangeType::kScore); }
// ZREMRANGEBYLEX key min max
void cmd_zremrangebylex(CommandContext& ctx) { zremrange_generic(ctx, RangeType::kLex); }

// ---- pops -----------------------------------------------------------------------------------

enum class PopShape : std::uint8_t {
  kFlat,        ///< ZPOPMIN/ZPOPMAX (RESP2, or no count): [member, score, ...]
  kNested,      ///< ZPOPMIN/ZPOPMAX with a count in RESP3: [[member, score], ...]
  kKeyFlat,     ///< BZPOPMIN/BZPOPMAX: [key, member, score]
  kKeyNested,   ///< ZMPOP/BZMPOP: [key, [[member, score], ...]]
};

/// Redis genericZpopCommand once the key is chosen: pops up to `count` elements from the
/// lowest (highest when `max`) end of the non-empty `z`, replying as `shape`. Returns how many.
std::size_t pop_and_reply(protocol::ReplyWriter r, store::ZSetValue& z, std::string_view key,
                          bool max, std::size_t count, PopShape shape) {
  const std::size_t n = std::min(count, z.size());
  switch (shape) {
    case PopShape::kFlat: r.array_header(n * 2); break;
    case PopShape::kNested: r.array_header(n); break;
    case PopShape::kKeyFlat:
      r.array_header(n * 2 + 1);
      r.bulk(key);
      break;
    case PopShape::kKeyNested:
      r.array_header(2);
      r.bulk(key);
      r.array_header(n);
      break;
  }
  const bool nested = shape == PopShape::kNested || shape == PopShape::kKeyNested;
  store::ZCursor c = z.at_rank(max ? z.size() - 1 : 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (nested) r.array_header(2);
    r.bulk(c.member());
    r.double_value(c.score());
    if (max)
      c.prev();
    else
      c.next();
  }
  if (max)
    z.erase_ranks(z.size() - n, z.size());
  else
    z.erase_ranks(0, n);
  return n;
}

/// Pops from the entry `e` of `key` in the handler's database and deletes the key if emptied.
/// Returns the number popped.
std::size_t pop_from(CommandContext& ctx, store::Entry* e, std::string_view key, bool max,
                     std::size_t count, PopShape shape) {
  store::ZSetValue& z = e->value.as_zset();
  const std::size_t n = pop_and_reply(ctx.reply(), z, key, max, count, shape);
  if (z.empty()) ctx.delete_key(key);
  ctx.mark_dirty(static_cast<long long>(n));
  return n;
}

/// The effect of ZMPOP, BZPOPMIN/BZPOPMAX and BZMPOP, served at once or later, as Redis 7.0
/// logs it: `ZPOPMIN|ZPOPMAX key`, or with the number popped for the multi-pop forms.
void emit_zset_pop(Executor& exec, int db, std::string_view key, bool max, bool with_count,
                   std::size_t popped) {
  EffectStream& effects = exec.effects();
  if (!effects.active()) return;
  const std::string_view name = max ? "ZPOPMAX" : "ZPOPMIN";
  if (!with_count) {
    effects.emit(db, {name, key});
    return;
  }
  const std::string n = std::to_string(popped);
  effects.emit(db, {name, key, n});
}

void zpop_generic(CommandContext& ctx, bool max) {
  if (ctx.argc() > 3) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  long long count = -1;
  if (ctx.argc() == 3) {
    if (!ctx.parse_integer(2, count, kMustBePositiveErr)) return;
    if (count < 0) {
      ctx.reply().error(kMustBePositiveErr);
      return;
    }
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e || count == 0) {
    ctx.reply().array_header(0);
    return;
  }
  const bool nested = ctx.reply().resp3() && count != -1;
  pop_from(ctx, e, ctx.arg(1), max, count == -1 ? 1 : static_cast<std::size_t>(count),
           nested ? PopShape::kNested : PopShape::kFlat);
}

// ZPOPMIN key [count]
void cmd_zpopmin(CommandContext& ctx) { zpop_generic(ctx, false); }
// ZPOPMAX key [count]
void cmd_zpopmax(CommandContext& ctx) { zpop_generic(ctx, true); }

/// Redis zmpopGenericCommand's parsing of "numkeys key [key ...] MIN|MAX [COUNT count]" with
/// numkeys at argv[numkeys_idx]. Replies and returns false on error.
bool parse_mpop(CommandContext& ctx, std::size_t numkeys_idx, std::size_t& numkeys, bool& max,
                long long& count) {
  long long n = 0;
  if (!ctx.parse_integer(numkeys_idx, n, kNumkeysErr)) return false;
  if (n < 1) {
    ctx.reply().error(kNumkeysErr);
    return false;
  }
  if (static_cast<unsigned long long>(n) >= ctx.argc() - numkeys_idx - 1) {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  numkeys = static_cast<std::size_t>(n);
  const std::size_t where_idx = numkeys_idx + numkeys + 1;
  if (base::iequals(ctx.arg(where_idx), "min")) {
    max = false;
  } else if (base::iequals(ctx.arg(where_idx), "max")) {
    max = true;
  } else {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  count = -1;
  for (std::size_t j = where_idx + 1; j < ctx.argc(); ++j) {
    if (count == -1 && base::iequals(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      ++j;
      if (!ctx.parse_integer(j, count, kCountGreaterThanZeroErr)) return false;
      if (count < 1) {
        ctx.reply().error(kCountGreaterThanZeroErr);
        return false;
      }
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  if (count == -1) count = 1;
  return true;
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void cmd_zmpop(CommandContext& ctx) {
  std::size_t numkeys = 0;
  bool max = false;
  long long count = 1;
  if (!parse_mpop(ctx, 1, numkeys, max, count)) return;
  for (std::size_t i = 2; i < 2 + numkeys; ++i) {
    auto [e, wrong_type] = ctx.write(ctx.arg(i), store::ValueType::kZSet);
    if (wrong_type) return;
    if (!e) continue;
    const std::size_t n =
        pop_from(ctx, e, ctx.arg(i), max, static_cast<std::size_t>(count), PopShape::kKeyNested);
    emit_zset_pop(ctx.exec(), ctx.db().index(), ctx.arg(i), max, true, n);
    return;
  }
  ctx.reply().null_array();
}

/// Redis blockingGenericZpopCommand once parsed: serve the first key holding a sorted set
/// (WRONGTYPE for a wrong-typed key met before it), else answer nil inside EXEC, else block.
void blocking_zpop_generic(CommandContext& ctx, std::span<const std::string_view> keys, bool max,
                           long long timeout_ms, bool multi, long long count) {
  for (std::string_view key : keys) {
    auto [e, wrong_type] = ctx.write(key, store::ValueType::kZSet);
    if (wrong_type) return;
    if (!e) continue;
    const std::size_t n = pop_from(ctx, e, key, max, static_cast<std::size_t>(count),
                                   multi ? PopShape::kKeyNested : PopShape::kKeyFlat);
    emit_zset_pop(ctx.exec(), ctx.db().index(), key, max, multi, n);
    return;
  }
  if (ctx.in_exec()) {
    ctx.reply().null_array();
    return;
  }
  ctx.block_on(keys, timeout_ms,
               BlockSpec{.kind = multi ? BlockSpec::Kind::kZMultiPop : BlockSpec::Kind::kZPop,
                         .zmax = max,
                         .count = count});
}

void bzpop_generic(CommandContext& ctx, bool max) {
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(ctx.argc() - 1, timeout_ms)) return;
  blocking_zpop_generic(ctx, ctx.argv().subspan(1, ctx.argc() - 2), max, timeout_ms, false, 1);
}

// BZPOPMIN key [key ...] timeout
void cmd_bzpopmin(CommandContext& ctx) { bzpop_generic(ctx, false); }
// BZPOPMAX key [key ...] timeout
void cmd_bzpopmax(CommandContext& ctx) { bzpop_generic(ctx, true); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
void cmd_bzmpop(CommandContext& ctx) {
  // Redis 7.0: numkeys, MIN|MAX and COUNT are checked before the timeout.
  std::size_t numkeys = 0;
  bool max = false;
  long long count = 1;
  if (!parse_mpop(ctx, 2, numkeys, max, count)) return;
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(1, timeout_ms)) return;
  blocking_zpop_generic(ctx, ctx.argv().subspan(3, numkeys), max, timeout_ms, true, count);
}

/// Redis 7.0 d2string, the text a listpack stores for a score: integral values within
/// +-LLONG_MAX/2 (double2ll) as integers, others "%.17g".
std::string listpack_score_text(double v) {
  if (v >= static_cast<double>(-LLONG_MAX / 2) && v <= static_cast<double>(LLONG_MAX / 2)) {
    const auto ll = static_cast<long long>(v);
    if (static_cast<double>(ll) == v) return std::to_string(ll);
  }
  return protocol::format_double(v);
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]
void cmd_zscan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!parse_scan_cursor(ctx, 2, cursor)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e) {
    reply_empty_scan(ctx);
    return;
  }
  ScanOptions o;
  if (!parse_scan_options(ctx, 3, false, o)) return;
  const long long count = o.count;
  const std::string_view pattern = o.pattern;
  const bool use_pattern = o.use_pattern;
  auto r = ctx.reply();
  const store::ZSetValue& z = e->value.as_zset();
  std::vector<Item> items;
  // Like Redis: stop after `count` items (members and scores both count) or count*10 steps.
  long long budget = count * 10;
  do {
    cursor = z.scan(cursor, [&](std::string_view m, double s) { items.push_back({m, s}); });
  } while (cursor != 0 && --budget > 0 && static_cast<long long>(items.size() * 2) < count);
  if (use_pattern)
    std::erase_if(items, [&](const Item& it) { return !base::glob_match(pattern, it.member); });
  const bool packed = z.encoding() == store::ZSetValue::Encoding::kPacked;
  r.array_header(2);
  r.bulk(std::to_string(cursor));
  r.array_header(items.size() * 2);
  for (const Item& it : items) {
    r.bulk(it.member);
    // A bulk string even in RESP3. Redis 7.0 returns a listpack's stored score text (d2string)
    // but formats a skip list's score with "%.17Lg".
    r.bulk(packed ? listpack_score_text(it.score) : protocol::format_double(it.score));
  }
}

}  // namespace

ServeResult serve_zset_waiter(Executor& exec, Client& c, const blocking::BlockKey& key) {
  store::Database& db = exec.keyspace().db(key.db);
  store::Entry* e = db.lookup(key.key, exec.clock().unix_ms());
  // Gone again (popped in the same transaction, expired): nobody can be served.
  if (!e) return ServeResult::kNoData;
  // Re-created as a list: list waiters behind this one may still be served.
  if (!e->value.is(store::ValueType::kZSet)) return ServeResult::kSkip;
  const BlockSpec& spec = c.block;
  const bool multi = spec.kind == BlockSpec::Kind::kZMultiPop;
  store::ZSetValue& z = e->value.as_zset();
  const std::size_t n =
      pop_and_reply(c.reply(), z, key.key, spec.zmax, multi ? static_cast<std::size_t>(spec.count) : 1,
                    multi ? PopShape::kKeyNested : PopShape::kKeyFlat);
  if (z.empty()) db.remove(key.key);
  emit_zset_pop(exec, key.db, key.key, spec.zmax, multi, n);
  exec.stats().dirty += static_cast<long long>(n);
  exec.touch_key(key.db, key.key);
  exec.finish_block(c);
  return ServeResult::kServed;
}

void register_zset_commands(CommandTable& t) {
  const KeySpec one{1, 1, 1};
  auto add = [&](std::string_view name, int arity, std::uint32_t flags, KeySpec keys, Handler h,
                 std::string_view since, std::string_view summary) {
    t.add({name, arity, flags, keys, h, "sorted-set", since, summary});
  };
  add("zadd", -4, kWrite | kDenyOom | kFast, one, &cmd_zadd, "1.2.0", "Add one or more members to a sorted set, or update its score if it already exists");
  add("zincrby", 4, kWrite | kDenyOom | kFast, one, &cmd_zincrby, "1.2.0", "Increment the score of a member in a sorted set");
  add("zrem", -3, kWrite | kFast, one, &cmd_zrem, "1.2.0", "Remove one or more members from a sorted set");
  add("zcard", 2, kReadonly | kFast, one, &cmd_zcard, "1.2.0", "Get the number of members in a sorted set");
  add("zscore", 3, kReadonly | kFast, one, &cmd_zscore, "1.2.0", "Get the score associated with the given member in a sorted set");
  add("zmscore", -3, kReadonly | kFast, one, &cmd_zmscore, "6.2.0", "Get the score associated with the given members in a sorted set");
  add("zrank", 3, kReadonly | kFast, one, &cmd_zrank, "2.0.0", "Determine the index of a member in a sorted set");
  add("zrevrank", 3, kReadonly | kFast, one, &cmd_zrevrank, "2.0.0", "Determine the index of a member in a sorted set, with scores ordered from high to low");
  add("zcount", 4, kReadonly | kFast, one, &cmd_zcount, "2.0.0", "Count the members in a sorted set with scores within the given values");
  add("zlexcount", 4, kReadonly | kFast, one, &cmd_zlexcount, "2.8.9", "Count the number of members in a sorted set between a given lexicographical range");
  add("zrange", -4, kReadonly, one, &cmd_zrange, "1.2.0", "Return a range of members in a sorted set");
  add("zrevrange", -4, kReadonly, one, &cmd_zrevrange, "1.2.0", "Return a range of members in a sorted set, by index, with scores ordered from high to low");
  add("zrangebyscore", -4, kReadonly, one, &cmd_zrangebyscore, "1.0.5", "Return a range of members in a sorted set, by score");
  add("zrevrangebyscore", -4, kReadonly, one, &cmd_zrevrangebyscore, "2.2.0", "Return a range of members in a sorted set, by score, with scores ordered from high to low");
  add("zrangebylex", -4, kReadonly, one, &cmd_zrangebylex, "2.8.9", "Return a range of members in a sorted set, by lexicographical range");
  add("zrevrangebylex", -4, kReadonly, one, &cmd_zrevrangebylex, "2.8.9", "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.");
  add("zremrangebyscore", 4, kWrite, one, &cmd_zremrangebyscore, "1.2.0", "Remove all members in a sorted set within the given scores");
  add("zremrangebyrank", 4, kWrite, one, &cmd_zremrangebyrank, "2.0.0", "Remove all members in a sorted set within the given indexes");
  add("zremrangebylex", 4, kWrite, one, &cmd_zremrangebylex, "2.8.9", "Remove all members in a sorted set between the given lexicographical range");
  add("zpopmin", -2, kWrite | kFast, one, &cmd_zpopmin, "5.0.0", "Remove and return members with the lowest scores in a sorted set");
  add("zpopmax", -2, kWrite | kFast, one, &cmd_zpopmax, "5.0.0", "Remove and return members with the highest scores in a sorted set");
  add("zmpop", -4, kWrite | kOwnEffect, {0, 0, 0, /*numkeys_at*/ 1}, &cmd_zmpop, "7.0.0", "Remove and return members with scores in a sorted set");
  add("bzpopmin", -3, kWrite | kNoScript | kBlocking | kFast | kOwnEffect, {1, -2, 1}, &cmd_bzpopmin, "5.0.0",
      "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available");
  add("bzpopmax", -3, kWrite | kNoScript | kBlocking | kFast | kOwnEffect, {1, -2, 1}, &cmd_bzpopmax, "5.0.0",
      "Remove and return the member with the highest score from one or more sorted sets, or block until one is available");
  add("bzmpop", -5, kWrite | kBlocking | kOwnEffect, {0, 0, 0, /*numkeys_at*/ 2}, &cmd_bzmpop, "7.0.0",
      "Remove and return members with scores in a sorted set or block until one is available");
  add("zscan", -3, kReadonly, one, &cmd_zscan, "2.8.0", "Incrementally iterate sorted sets elements and associated scores");
}

}  // namespace listd::server
