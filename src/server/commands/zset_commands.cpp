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
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "listd/base/glob.h"
#include "listd/base/number.h"
#include "listd/protocol/reply_writer.h"
#include "listd/server/blocking_service.h"
#include "listd/server/command_args.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/scan_args.h"
#include "listd/server/text.h"
#include "listd/server/zset_range.h"
#include "member_removal.h"

namespace listd::server {
namespace {

constexpr std::string_view kNanErr = "ERR resulting score is not a number (NaN)";

// ---- ZADD / ZINCRBY -----------------------------------------------------------------------

enum ZaddFlag : unsigned {
  kZaddIncr = 1,
  kZaddNx = 2,
  kZaddXx = 4,
  kZaddGt = 8,
  kZaddLt = 16,
  kZaddCh = 32,
};

/// Redis zaddGenericCommand's options and their checks, in its order: ORs the option words
/// from argv[2] on into `flags`; returns the index of the first score, or 0 after replying the
/// error.
std::size_t parse_zadd_options(CommandContext& ctx, unsigned& flags) {
  std::size_t scoreidx = 2;
  for (; scoreidx < ctx.argc(); ++scoreidx) {
    const std::string_view opt = ctx.arg(scoreidx);
    if (base::iequals(opt, "nx"))
      flags |= kZaddNx;
    else if (base::iequals(opt, "xx"))
      flags |= kZaddXx;
    else if (base::iequals(opt, "ch"))
      flags |= kZaddCh;
    else if (base::iequals(opt, "incr"))
      flags |= kZaddIncr;
    else if (base::iequals(opt, "gt"))
      flags |= kZaddGt;
    else if (base::iequals(opt, "lt"))
      flags |= kZaddLt;
    else
      break;
  }
  const bool nx = flags & kZaddNx, gt = flags & kZaddGt, lt = flags & kZaddLt;
  const std::size_t args = ctx.argc() - scoreidx;
  std::string_view err;
  if (args % 2 != 0 || args == 0)
    err = kSyntaxErr;
  else if (nx && (flags & kZaddXx))
    err = "ERR XX and NX options at the same time are not compatible";
  else if ((gt && nx) || (lt && nx) || (gt && lt))
    err = "ERR GT, LT, and/or NX options at the same time are not compatible";
  else if ((flags & kZaddIncr) && args > 2)
    err = "ERR INCR option supports a single increment-element pair";
  if (err.empty()) return scoreidx;
  ctx.reply().error(err);
  return 0;
}

/// What one ZADD did so far.
struct ZaddCounts {
  long long added = 0, updated = 0, processed = 0;
  double score = 0;  ///< the last score applied (ZADD INCR replies it)
};

/// Redis zsetAdd for one member under `flags`. Returns false when INCR made the score NaN
/// (nothing changed for this member).
bool zadd_member(store::ZSetValue& z, std::string_view member, double score, unsigned flags,
                 ZaddCounts& n) {
  n.score = score;
  const auto cur = z.score(member);
  if (!cur) {
    if (flags & kZaddXx) return true;
    z.insert(member, score);
    ++n.added;
    ++n.processed;
    return true;
  }
  if (flags & kZaddNx) return true;
  if (flags & kZaddIncr) {
    n.score = score += *cur;
    if (std::isnan(score)) return false;
  }
  if (((flags & kZaddLt) && score >= *cur) || ((flags & kZaddGt) && score <= *cur)) return true;
  ++n.processed;
  if (score != *cur) {
    z.update(member, *cur, score);
    ++n.updated;
  }
  return true;
}

/// Redis zaddGenericCommand, ZINCRBY included (`flags` = kZaddIncr).
void zadd_generic(CommandContext& ctx, unsigned flags) {
  const std::size_t scoreidx = parse_zadd_options(ctx, flags);
  if (scoreidx == 0) return;
  // Every score is parsed before anything changes: the command applies fully or not at all.
  std::vector<double> scores((ctx.argc() - scoreidx) / 2);
  for (std::size_t j = 0; j < scores.size(); ++j)
    if (!base::parse_double(ctx.arg(scoreidx + 2 * j), scores[j])) {
      ctx.reply().error(kNotFloatErr);
      return;
    }
  const std::string_view key = ctx.arg(1);
  auto [e, wrong_type] = ctx.write(key, store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e && !(flags & kZaddXx))
    e = ctx.add_key(key, store::Value(store::ZSetValue::create(ctx.arg(scoreidx + 1).size())));
  ZaddCounts n;
  // Redis notifies after its reply, the NaN error's included, whenever something changed.
  const auto notify_changes = [&] {
    if (n.added + n.updated > 0)
      ctx.notify(config::kNotifyZset, (flags & kZaddIncr) ? "zincr" : "zadd", key);
  };
  for (std::size_t j = 0; e && j < scores.size(); ++j) {
    if (!zadd_member(e->value.as_zset(), ctx.arg(scoreidx + 2 * j + 1), scores[j], flags, n)) {
      ctx.reply().error(kNanErr);
      ctx.mark_dirty(n.added + n.updated);
      notify_changes();
      return;
    }
  }
  ctx.mark_dirty(n.added + n.updated);
  if (!(flags & kZaddIncr))
    ctx.reply().integer(flags & kZaddCh ? n.added + n.updated : n.added);
  else if (n.processed)
    ctx.reply().double_value(n.score);
  else
    ctx.reply().null();
  notify_changes();
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
void cmd_zadd(CommandContext& ctx) { zadd_generic(ctx, 0); }

// ZINCRBY key increment member
void cmd_zincrby(CommandContext& ctx) { zadd_generic(ctx, kZaddIncr); }

// ---- single-member reads and ZREM ----------------------------------------------------------

// ZREM key member [member ...]
void cmd_zrem(CommandContext& ctx) {
  remove_members<&store::ZSetValue::erase>(
      ctx, store::ValueType::kZSet,
      [](store::Value& v) -> store::ZSetValue& { return v.as_zset(); }, config::kNotifyZset,
      "zrem");
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
  const RangeBounds b{&range, nullptr};
  ctx.reply().integer(e ? static_cast<long long>(count_in(e->value.as_zset(), b)) : 0);
}

// ZLEXCOUNT key min max
void cmd_zlexcount(CommandContext& ctx) {
  LexRange range;
  if (!parse_lex_range(ctx, 2, 3, range)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  const RangeBounds b{nullptr, &range};
  ctx.reply().integer(e ? static_cast<long long>(count_in(e->value.as_zset(), b)) : 0);
}

// ---- ZRANGE family ------------------------------------------------------------------------

using RangeType = ZRangeRequest::Type;
using Direction = ZRangeRequest::Direction;

/// Redis zrangeGenericCommand (the reply form; ZRANGESTORE is in zset_algebra_commands.cpp).
void zrange_generic(CommandContext& ctx, RangeType type, Direction dir) {
  ZRangeRequest req;
  req.type = type;
  req.dir = dir;
  if (!parse_zrange_request(ctx, 1, false, req)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  std::vector<ScoredMember> items;
  if (e) collect_zrange(e->value.as_zset(), req, items);
  reply_scored_members(ctx.reply(), items, req.withscores);
}

// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
void cmd_zrange(CommandContext& ctx) { zrange_generic(ctx, RangeType::kAuto, Direction::kAuto); }
// ZREVRANGE key start stop [WITHSCORES]
void cmd_zrevrange(CommandContext& ctx) {
  zrange_generic(ctx, RangeType::kRank, Direction::kReverse);
}
// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
void cmd_zrangebyscore(CommandContext& ctx) {
  zrange_generic(ctx, RangeType::kScore, Direction::kForward);
}
// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
void cmd_zrevrangebyscore(CommandContext& ctx) {
  zrange_generic(ctx, RangeType::kScore, Direction::kReverse);
}
// ZRANGEBYLEX key min max [LIMIT offset count]
void cmd_zrangebylex(CommandContext& ctx) {
  zrange_generic(ctx, RangeType::kLex, Direction::kForward);
}
// ZREVRANGEBYLEX key max min [LIMIT offset count]
void cmd_zrevrangebylex(CommandContext& ctx) {
  zrange_generic(ctx, RangeType::kLex, Direction::kReverse);
}

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
    std::size_t to = 0;
    if (resolve_rank_range(start, end, z.size(), lo, to)) hi = to + 1;
  } else {
    const RangeBounds b{type == RangeType::kScore ? &score_range : nullptr,
                        type == RangeType::kLex ? &lex_range : nullptr};
    if (count_in(z, b) > 0) {
      lo = b.first(z);
      hi = b.end(z);
    }
  }
  const auto removed = static_cast<long long>(hi - lo);
  if (removed > 0) {
    z.erase_ranks(lo, hi);
    static constexpr std::string_view kEvents[] = {"zremrangebyrank", "zremrangebyscore",
                                                   "zremrangebylex"};
    const int which = type == RangeType::kRank ? 0 : type == RangeType::kScore ? 1 : 2;
    ctx.notify(config::kNotifyZset, kEvents[which], ctx.arg(1));
    if (z.empty()) {
      ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
      ctx.delete_key(ctx.arg(1));
    }
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
  kFlat,       ///< ZPOPMIN/ZPOPMAX (RESP2, or no count): [member, score, ...]
  kNested,     ///< ZPOPMIN/ZPOPMAX with a count in RESP3: [[member, score], ...]
  kKeyFlat,    ///< BZPOPMIN/BZPOPMAX: [key, member, score]
  kKeyNested,  ///< ZMPOP/BZMPOP: [key, [[member, score], ...]]
};

/// Redis genericZpopCommand once the key is chosen: pops up to `count` elements from the
/// lowest (highest when `max`) end of the non-empty `z` (the key `key` of database `db`),
/// replying as `shape`. Returns how many. Its `zpopmin`/`zpopmax` event goes where Redis 7.0
/// sends it: inside the reply, after the array header (a RESP3 client subscribed to its own
/// key sees the push there, as with Redis 7.0; 7.2 moved it after the reply).
std::size_t pop_and_reply(protocol::ReplyWriter r, Executor& exec, int db, store::ZSetValue& z,
                          std::string_view key, bool max, std::size_t count, PopShape shape) {
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
  exec.notify(config::kNotifyZset, max ? "zpopmax" : "zpopmin", key, db);
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

/// After a pop from `key` in `db`: the key's deletion, with its `del` event, if it is now empty.
void delete_if_empty(Executor& exec, store::Database& db, std::string_view key) {
  store::Entry* e = db.peek(key);
  if (!e->value.as_zset().empty()) return;
  exec.notify(config::kNotifyGeneric, "del", key, db.index());
  db.remove(key);
}

/// Pops from the entry `e` of `key` in the handler's database and deletes the key if emptied.
/// Returns the number popped.
std::size_t pop_from(CommandContext& ctx, store::Entry* e, std::string_view key, bool max,
                     std::size_t count, PopShape shape) {
  store::ZSetValue& z = e->value.as_zset();
  const std::size_t n =
      pop_and_reply(ctx.reply(), ctx.exec(), ctx.db().index(), z, key, max, count, shape);
  delete_if_empty(ctx.exec(), ctx.db(), key);
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

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void cmd_zmpop(CommandContext& ctx) {
  const std::optional<MpopArgs> args = parse_mpop_args(ctx, 1, kZSetEnds);
  if (!args) return;
  const bool max = args->where == End::kTail;
  for (std::string_view key : args->keys) {
    auto [e, wrong_type] = ctx.write(key, store::ValueType::kZSet);
    if (wrong_type) return;
    if (!e) continue;
    const std::size_t n =
        pop_from(ctx, e, key, max, static_cast<std::size_t>(args->count), PopShape::kKeyNested);
    emit_zset_pop(ctx.exec(), ctx.db().index(), key, max, true, n);
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
  BlockSpec spec;
  spec.kind = multi ? BlockSpec::Kind::kZMultiPop : BlockSpec::Kind::kZPop;
  spec.zmax = max;
  spec.count = count;
  ctx.block_on(keys, timeout_ms, std::move(spec));
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
  const std::optional<MpopArgs> args = parse_mpop_args(ctx, 2, kZSetEnds);
  if (!args) return;
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(1, timeout_ms)) return;
  blocking_zpop_generic(ctx, args->keys, args->where == End::kTail, timeout_ms, true, args->count);
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
  const store::ZSetValue& z = e->value.as_zset();
  const bool packed = z.encoding() == store::ZSetValue::Encoding::kPacked;
  scan_generic<ScoredMember>(
      ctx, cursor, o.count, 2,
      [&](std::uint64_t at, std::vector<ScoredMember>& items) {
        return z.scan(at, [&](std::string_view m, double s) { items.push_back({m, s}); });
      },
      [&](const ScoredMember& it) {
        return !o.use_pattern || base::glob_match(o.pattern, it.member);
      },
      [&](protocol::ReplyWriter& r, const ScoredMember& it) {
        r.bulk(it.member);
        // A bulk string even in RESP3. Redis 7.0 returns a listpack's stored score text
        // (d2string) but formats a skip list's score with "%.17Lg".
        r.bulk(packed ? listpack_score_text(it.score) : protocol::format_double(it.score));
      });
}

/// A ZINTERCARD input: Redis' zsetops read sorted sets and plain sets alike (none: absent).
struct CardSource {
  const store::ZSetValue* zset = nullptr;
  const store::SetValue* set = nullptr;
  std::size_t size() const { return zset ? zset->size() : set ? set->size() : 0; }
  bool contains(std::string_view m) const {
    return zset ? zset->score(m).has_value() : set && set->contains(m);
  }
};

/// ZINTERCARD's LIMIT options after the keys; false after replying an error.
bool parse_card_limit(CommandContext& ctx, std::size_t j, long long& limit) {
  constexpr std::string_view kLimitErr = "ERR LIMIT can't be negative";
  for (; j < ctx.argc(); ++j) {
    if (j + 1 >= ctx.argc() || !base::iequals(ctx.arg(j), "limit")) {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
    if (!ctx.parse_integer(++j, limit, kLimitErr)) return false;
    if (limit < 0) return ctx.reply().error(kLimitErr), false;
  }
  return true;
}

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
void cmd_zintercard(CommandContext& ctx) {
  long long numkeys = 0;
  if (!ctx.parse_integer(1, numkeys)) return;
  if (numkeys < 1)
    return ctx.reply().error("ERR at least 1 input key is needed for 'zintercard' command");
  if (numkeys > static_cast<long long>(ctx.argc()) - 2) return ctx.reply().error(kSyntaxErr);
  const auto n_keys = static_cast<std::size_t>(numkeys);
  std::vector<CardSource> src(n_keys);
  for (std::size_t i = 0; i < n_keys; ++i) {  // Redis reads the keys before the options
    store::Entry* e = ctx.read(ctx.arg(2 + i));
    if (e && e->value.is(store::ValueType::kZSet))
      src[i].zset = &e->value.as_zset();
    else if (e && e->value.is(store::ValueType::kSet))
      src[i].set = &e->value.as_set();
    else if (e)
      return ctx.reply().error(kWrongTypeErr);
  }
  long long limit = 0;
  if (!parse_card_limit(ctx, 2 + n_keys, limit)) return;
  std::stable_sort(src.begin(), src.end(), [](auto& a, auto& b) { return a.size() < b.size(); });
  long long n = 0;
  auto visit = [&](std::string_view m) {
    if (limit && n >= limit) return;
    for (std::size_t j = 1; j < src.size(); ++j)
      if ((src[j].zset != src[0].zset || src[j].set != src[0].set) && !src[j].contains(m)) return;
    ++n;
  };
  if (src[0].zset) src[0].zset->for_each([&](std::string_view m, double) { visit(m); });
  if (src[0].set) src[0].set->for_each(visit);
  ctx.reply().integer(n);
}

}  // namespace

ServeResult serve_zset_waiter(Executor& exec, Client& c, const store::DbKey& key) {
  store::Database& db = exec.keyspace().db(key.db);
  store::Entry* e = db.lookup(key.key, exec.blocking().serving_unix_ms());
  // Gone again (popped in the same transaction, expired): nobody can be served.
  if (!e) return ServeResult::kNoData;
  // Re-created as a list: list waiters behind this one may still be served.
  if (!e->value.is(store::ValueType::kZSet)) return ServeResult::kSkip;
  if (!exec.blocking().claim(c)) return ServeResult::kSkip;
  const BlockSpec& spec = c.block;
  const bool multi = spec.kind == BlockSpec::Kind::kZMultiPop;
  store::ZSetValue& z = e->value.as_zset();
  const std::size_t count = multi ? static_cast<std::size_t>(spec.count) : 1;
  const std::size_t n = pop_and_reply(c.reply(), exec, key.db, z, key.key, spec.zmax, count,
                                      multi ? PopShape::kKeyNested : PopShape::kKeyFlat);
  delete_if_empty(exec, db, key.key);
  emit_zset_pop(exec, key.db, key.key, spec.zmax, multi, n);
  exec.stats().dirty += static_cast<long long>(n);
  exec.touch_key(key.db, key.key);
  exec.blocking().finish(c);
  return ServeResult::kServed;
}

void register_zset_commands(CommandTable& table) {
  CommandFamily t = table.family("sorted-set");
  t.add("zadd", -4, kWrite | kDenyOom | kFast, kFirstKey, &cmd_zadd, "1.2.0",
        "Add one or more members to a sorted set, or update its score if it already exists");
  t.add("zincrby", 4, kWrite | kDenyOom | kFast, kFirstKey, &cmd_zincrby, "1.2.0",
        "Increment the score of a member in a sorted set");
  t.add("zrem", -3, kWrite | kFast, kFirstKey, &cmd_zrem, "1.2.0",
        "Remove one or more members from a sorted set");
  t.add("zintercard", -3, kReadonly, KeySpec::numkeys(1), &cmd_zintercard, "7.0.0",
        "Intersect multiple sorted sets and return the cardinality of the result");
  t.add("zcard", 2, kReadonly | kFast, kFirstKey, &cmd_zcard, "1.2.0",
        "Get the number of members in a sorted set");
  t.add("zscore", 3, kReadonly | kFast, kFirstKey, &cmd_zscore, "1.2.0",
        "Get the score associated with the given member in a sorted set");
  t.add("zmscore", -3, kReadonly | kFast, kFirstKey, &cmd_zmscore, "6.2.0",
        "Get the score associated with the given members in a sorted set");
  t.add("zrank", 3, kReadonly | kFast, kFirstKey, &cmd_zrank, "2.0.0",
        "Determine the index of a member in a sorted set");
  t.add("zrevrank", 3, kReadonly | kFast, kFirstKey, &cmd_zrevrank, "2.0.0",
        "Determine the index of a member in a sorted set, with scores ordered from high to low");
  t.add("zcount", 4, kReadonly | kFast, kFirstKey, &cmd_zcount, "2.0.0",
        "Count the members in a sorted set with scores within the given values");
  t.add("zlexcount", 4, kReadonly | kFast, kFirstKey, &cmd_zlexcount, "2.8.9",
        "Count the number of members in a sorted set between a given lexicographical range");
  t.add("zrange", -4, kReadonly, kFirstKey, &cmd_zrange, "1.2.0",
        "Return a range of members in a sorted set");
  t.add("zrevrange", -4, kReadonly, kFirstKey, &cmd_zrevrange, "1.2.0",
        "Return a range of members in a sorted set, by index, with scores ordered from high to "
        "low");
  t.add("zrangebyscore", -4, kReadonly, kFirstKey, &cmd_zrangebyscore, "1.0.5",
        "Return a range of members in a sorted set, by score");
  t.add("zrevrangebyscore", -4, kReadonly, kFirstKey, &cmd_zrevrangebyscore, "2.2.0",
        "Return a range of members in a sorted set, by score, with scores ordered from high to "
        "low");
  t.add("zrangebylex", -4, kReadonly, kFirstKey, &cmd_zrangebylex, "2.8.9",
        "Return a range of members in a sorted set, by lexicographical range");
  t.add("zrevrangebylex", -4, kReadonly, kFirstKey, &cmd_zrevrangebylex, "2.8.9",
        "Return a range of members in a sorted set, by lexicographical range, ordered from higher "
        "to lower strings.");
  t.add("zremrangebyscore", 4, kWrite, kFirstKey, &cmd_zremrangebyscore, "1.2.0",
        "Remove all members in a sorted set within the given scores");
  t.add("zremrangebyrank", 4, kWrite, kFirstKey, &cmd_zremrangebyrank, "2.0.0",
        "Remove all members in a sorted set within the given indexes");
  t.add("zremrangebylex", 4, kWrite, kFirstKey, &cmd_zremrangebylex, "2.8.9",
        "Remove all members in a sorted set between the given lexicographical range");
  t.add("zpopmin", -2, kWrite | kFast, kFirstKey, &cmd_zpopmin, "5.0.0",
        "Remove and return members with the lowest scores in a sorted set");
  t.add("zpopmax", -2, kWrite | kFast, kFirstKey, &cmd_zpopmax, "5.0.0",
        "Remove and return members with the highest scores in a sorted set");
  t.add("zmpop", -4, kWrite | kOwnEffect, KeySpec::numkeys(1), &cmd_zmpop, "7.0.0",
        "Remove and return members with scores in a sorted set");
  t.add("bzpopmin", -3, kWrite | kNoScript | kBlocking | kFast | kOwnEffect, {1, -2, 1},
        &cmd_bzpopmin, "5.0.0",
        "Remove and return the member with the lowest score from one or more sorted sets, or "
        "block until one is available");
  t.add("bzpopmax", -3, kWrite | kNoScript | kBlocking | kFast | kOwnEffect, {1, -2, 1},
        &cmd_bzpopmax, "5.0.0",
        "Remove and return the member with the highest score from one or more sorted sets, or "
        "block until one is available");
  t.add("bzmpop", -5, kWrite | kBlocking | kOwnEffect, KeySpec::numkeys(2), &cmd_bzmpop, "7.0.0",
        "Remove and return members with scores in a sorted set or block until one is available");
  t.add("zscan", -3, kReadonly, kFirstKey, &cmd_zscan, "2.8.0",
        "Incrementally iterate sorted sets elements and associated scores");
}

}  // namespace listd::server
