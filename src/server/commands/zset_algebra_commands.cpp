// Sorted-set algebra: ZUNION, ZINTER, ZDIFF, their STORE forms, and ZRANGESTORE.
//
// As Redis 7.0.15 t_zset.c zunionInterDiffGenericCommand: numkeys, then every input key is read
// (a plain set counts as a sorted set whose scores are all 1), then WEIGHTS / AGGREGATE /
// WITHSCORES (the STORE forms have no WITHSCORES, ZDIFF neither WEIGHTS nor AGGREGATE). Union
// and intersection visit the inputs from the smallest to the largest, which fixes the order in
// which a SUM adds its terms; a weight times a score that is NaN (0 * inf) counts as 0, and a SUM
// that reaches NaN (inf + -inf) is 0. A STORE form replaces the destination (any type) with the
// result, or deletes it when the result is empty.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/zset_range.h"
#include "listd/store/encoding_limits.h"

namespace listd::server {
namespace {

enum class AlgebraOp : std::uint8_t { kUnion, kInter, kDiff };
enum class Aggregate : std::uint8_t { kSum, kMin, kMax };

/// One input: a sorted set, a plain set (scores 1), or an absent key.
struct Source {
  const store::ZSetValue* zset = nullptr;
  const store::SetValue* set = nullptr;
  double weight = 1;

  std::size_t size() const { return zset ? zset->size() : set ? set->size() : 0; }
  std::optional<double> score(std::string_view m) const {
    if (zset) return zset->score(m);
    if (set && set->contains(m)) return 1.0;
    return std::nullopt;
  }
  bool same_value(const Source& o) const { return zset == o.zset && set == o.set; }
  /// f(member, score) for every element (a set's member views die after each call).
  template <class F>
  void for_each(F&& f) const {
    if (zset) zset->for_each(f);
    if (set) set->for_each([&](std::string_view m) { f(m, 1.0); });
  }
};

/// Redis zunionInterAggregate.
void aggregate_into(double& target, double val, Aggregate how) {
  switch (how) {
    case Aggregate::kSum:
      target += val;
      if (std::isnan(target)) target = 0;  // inf + -inf
      break;
    case Aggregate::kMin: target = val < target ? val : target; break;
    case Aggregate::kMax: target = val > target ? val : target; break;
  }
}

/// A result element; the member is owned (the inputs' views do not outlive a visit).
using Element = std::pair<std::string, double>;

struct AlgebraRequest {
  AlgebraOp op = AlgebraOp::kUnion;
  bool store = false;
  std::vector<Source> sources;
  Aggregate aggregate = Aggregate::kSum;
  bool withscores = false;
};

/// The options after the keys, from argv[j]; false after replying the error.
bool parse_algebra_options(CommandContext& ctx, std::size_t j, AlgebraRequest& req) {
  const std::size_t n = req.sources.size();
  const bool weighted = req.op != AlgebraOp::kDiff;
  while (j < ctx.argc()) {
    const std::size_t remaining = ctx.argc() - j;
    const std::string_view a = ctx.arg(j);
    if (weighted && remaining >= n + 1 && base::iequals(a, "weights")) {
      for (std::size_t i = 0; i < n; ++i)
        if (!base::parse_double(ctx.arg(j + 1 + i), req.sources[i].weight))
          return ctx.reply().error("ERR weight value is not a float"), false;
      j += n + 1;
    } else if (weighted && remaining >= 2 && base::iequals(a, "aggregate")) {
      const std::string_view how = ctx.arg(j + 1);
      if (base::iequals(how, "sum"))
        req.aggregate = Aggregate::kSum;
      else if (base::iequals(how, "min"))
        req.aggregate = Aggregate::kMin;
      else if (base::iequals(how, "max"))
        req.aggregate = Aggregate::kMax;
      else
        return ctx.reply().error(kSyntaxErr), false;
      j += 2;
    } else if (!req.store && base::iequals(a, "withscores")) {
      req.withscores = true;
      ++j;
    } else {
      return ctx.reply().error(kSyntaxErr), false;
    }
  }
  return true;
}

/// numkeys at argv[numkeys_at], the keys, the options; false after replying the error.
bool parse_algebra(CommandContext& ctx, std::size_t numkeys_at, AlgebraRequest& req) {
  long long numkeys = 0;
  if (!ctx.parse_integer(numkeys_at, numkeys)) return false;
  if (numkeys < 1) {
    std::string err = "ERR at least 1 input key is needed for '";
    err.append(ctx.spec().name).append("' command");
    ctx.reply().error(err);
    return false;
  }
  if (numkeys > static_cast<long long>(ctx.argc() - numkeys_at - 1))
    return ctx.reply().error(kSyntaxErr), false;
  req.sources.resize(static_cast<std::size_t>(numkeys));
  for (std::size_t i = 0; i < req.sources.size(); ++i) {
    store::Entry* e = ctx.read(ctx.arg(numkeys_at + 1 + i));
    if (!e) continue;
    if (e->value.is(store::ValueType::kZSet))
      req.sources[i].zset = &e->value.as_zset();
    else if (e->value.is(store::ValueType::kSet))
      req.sources[i].set = &e->value.as_set();
    else
      return ctx.reply().error(kWrongTypeErr), false;
  }
  return parse_algebra_options(ctx, numkeys_at + 1 + req.sources.size(), req);
}

/// Redis' weighted start value: a NaN product (0 * inf) counts as 0.
double weighted(double score, double weight) {
  const double v = weight * score;
  return std::isnan(v) ? 0 : v;
}

void compute_union(const std::vector<Source>& src, Aggregate how, std::vector<Element>& out) {
  std::unordered_map<std::string, double> acc;
  for (const Source& s : src)
    s.for_each([&](std::string_view m, double score) {
      const double v = weighted(score, s.weight);
      auto [it, added] = acc.try_emplace(std::string(m), v);
      if (!added) aggregate_into(it->second, v, how);
    });
  out.reserve(acc.size());
  for (auto& [m, score] : acc) out.emplace_back(m, score);
}

void compute_inter(const std::vector<Source>& src, Aggregate how, std::vector<Element>& out) {
  src[0].for_each([&](std::string_view m, double score) {
    double total = weighted(score, src[0].weight);
    for (std::size_t j = 1; j < src.size(); ++j) {
      // Redis reads the score again from the set it iterates when an input repeats.
      const std::optional<double> v =
          src[j].same_value(src[0]) ? std::optional<double>(score) : src[j].score(m);
      if (!v) return;
      aggregate_into(total, *v * src[j].weight, how);
    }
    out.emplace_back(std::string(m), total);
  });
}

void compute_diff(const std::vector<Source>& src, std::vector<Element>& out) {
  for (std::size_t j = 1; j < src.size(); ++j)
    if (src[j].same_value(src[0]) && src[0].size() > 0) return;  // removes everything
  src[0].for_each([&](std::string_view m, double score) {
    for (std::size_t j = 1; j < src.size(); ++j)
      if (src[j].score(m)) return;
    out.emplace_back(std::string(m), score);
  });
}

/// The result in sorted-set order: by score, then member bytes.
std::vector<Element> compute(AlgebraRequest& req) {
  std::vector<Element> out;
  if (req.op != AlgebraOp::kDiff)
    std::stable_sort(req.sources.begin(), req.sources.end(),
                     [](const Source& a, const Source& b) { return a.size() < b.size(); });
  if (req.op == AlgebraOp::kUnion)
    compute_union(req.sources, req.aggregate, out);
  else if (req.sources[0].size() > 0)
    req.op == AlgebraOp::kInter ? compute_inter(req.sources, req.aggregate, out)
                                : compute_diff(req.sources, out);
  std::sort(out.begin(), out.end(), [](const Element& a, const Element& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
  return out;
}

/// A sorted set holding `items` (sorted), inserted in order as Redis' zsetAdd would: a listpack
/// that becomes a skip list once it outgrows one, or a skip list from the start when
/// `skiplist_from_start`. The form matters beyond OBJECT ENCODING: a listpack keeps an integral
/// score as an integer, so a -0 that passes through one becomes 0.
store::ZSetValue build_zset(const std::vector<Element>& items, bool skiplist_from_start) {
  store::ZSetValue z = skiplist_from_start
                           ? store::ZSetValue::create_skiplist()
                           : store::ZSetValue::create(items.empty() ? 0 : items[0].first.size());
  for (const Element& it : items) z.insert(it.first, it.second);
  return z;
}

/// Redis builds a union/intersection/difference as a skip list and turns it into a listpack at
/// the end if it fits one (zsetConvertToListpackIfNeeded).
bool fits_listpack(const std::vector<Element>& items) {
  std::size_t max_len = 0, total_len = 0;
  for (const Element& e : items) {
    max_len = std::max(max_len, e.first.size());
    total_len += e.first.size();
  }
  return store::encoding_limits().zset_fits_listpack(items.size(), max_len, total_len);
}

/// Stores `z` (of `size` elements) at `dst` and replies its size, or deletes `dst` for an
/// empty result and replies 0, with Redis' events.
void store_result(CommandContext& ctx, std::string_view dst, store::ZSetValue z,
                  std::string_view event) {
  const auto size = static_cast<long long>(z.size());
  ctx.changed_key(dst);  // the sources are read, never changed: WATCH on them holds
  if (size > 0) {
    ctx.set_key(dst, store::Value(std::move(z)));
    ctx.reply().integer(size);
    ctx.notify(config::kNotifyZset, event, dst);
    ctx.mark_dirty();
    return;
  }
  ctx.reply().integer(0);
  if (ctx.delete_key(dst)) {
    ctx.notify(config::kNotifyGeneric, "del", dst);
    ctx.mark_dirty();
  }
}

void algebra_generic(CommandContext& ctx, AlgebraOp op, bool store) {
  AlgebraRequest req;
  req.op = op;
  req.store = store;
  if (!parse_algebra(ctx, store ? 2 : 1, req)) return;
  const std::vector<Element> result = compute(req);
  if (!store) {
    std::vector<ScoredMember> items;
    items.reserve(result.size());
    for (const Element& e : result) items.push_back({e.first, e.second});
    reply_scored_members(ctx.reply(), items, req.withscores);
    return;
  }
  static constexpr std::string_view kEvents[] = {"zunionstore", "zinterstore", "zdiffstore"};
  store_result(ctx, ctx.arg(1), build_zset(result, !fits_listpack(result)),
               kEvents[static_cast<int>(op)]);
}

// ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
void cmd_zunion(CommandContext& ctx) { algebra_generic(ctx, AlgebraOp::kUnion, false); }
// ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
void cmd_zinter(CommandContext& ctx) { algebra_generic(ctx, AlgebraOp::kInter, false); }
// ZDIFF numkeys key [key ...] [WITHSCORES]
void cmd_zdiff(CommandContext& ctx) { algebra_generic(ctx, AlgebraOp::kDiff, false); }
// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
void cmd_zunionstore(CommandContext& ctx) { algebra_generic(ctx, AlgebraOp::kUnion, true); }
// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
void cmd_zinterstore(CommandContext& ctx) { algebra_generic(ctx, AlgebraOp::kInter, true); }
// ZDIFFSTORE destination numkeys key [key ...]
void cmd_zdiffstore(CommandContext& ctx) { algebra_generic(ctx, AlgebraOp::kDiff, true); }

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
void cmd_zrangestore(CommandContext& ctx) {
  ZRangeRequest req;
  if (!parse_zrange_request(ctx, 2, true, req)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(2), store::ValueType::kZSet);
  if (wrong_type) return;
  std::vector<ScoredMember> items;
  if (e) collect_zrange(e->value.as_zset(), req, items);
  // Copied before the destination (which may be the source) is replaced. Redis sizes its result
  // up front only for a rank range (zrangeResultBeginStore gets -1 for the others).
  std::vector<Element> owned;
  owned.reserve(items.size());
  for (const ScoredMember& it : items) owned.emplace_back(std::string(it.member), it.score);
  const bool sized = req.type == ZRangeRequest::Type::kRank;
  store_result(
      ctx, ctx.arg(1),
      build_zset(owned, sized && owned.size() > store::encoding_limits().zset_max_listpack_entries),
      "zrangestore");
}

}  // namespace

void register_zset_algebra_commands(CommandTable& table) {
  CommandFamily t = table.family("sorted-set");
  t.add("zunion", -3, kReadonly, KeySpec::numkeys(1), &cmd_zunion, "6.2.0",
        "Add multiple sorted sets");
  t.add("zinter", -3, kReadonly, KeySpec::numkeys(1), &cmd_zinter, "6.2.0",
        "Intersect multiple sorted sets");
  t.add("zdiff", -3, kReadonly, KeySpec::numkeys(1), &cmd_zdiff, "6.2.0",
        "Subtract multiple sorted sets");
  t.add("zunionstore", -4, kWrite | kDenyOom, KeySpec::destination_and_numkeys(2), &cmd_zunionstore,
        "2.0.0", "Add multiple sorted sets and store the resulting sorted set in a new key");
  t.add("zinterstore", -4, kWrite | kDenyOom, KeySpec::destination_and_numkeys(2), &cmd_zinterstore,
        "2.0.0", "Intersect multiple sorted sets and store the resulting sorted set in a new key");
  t.add("zdiffstore", -4, kWrite | kDenyOom, KeySpec::destination_and_numkeys(2), &cmd_zdiffstore,
        "6.2.0", "Subtract multiple sorted sets and store the resulting sorted set in a new key");
  t.add("zrangestore", -5, kWrite | kDenyOom, kFirstTwoKeys, &cmd_zrangestore, "6.2.0",
        "Store a range of members from sorted set into another key");
}

}  // namespace listd::server
