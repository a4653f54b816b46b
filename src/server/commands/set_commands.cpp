// Set commands: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SPOP, SRANDMEMBER, SMOVE,
// SINTER, SUNION, SDIFF, SINTERSTORE, SUNIONSTORE, SDIFFSTORE, SSCAN.
//
// Argument checks follow Redis 7.0.15 t_set.c in order. Reply shapes: SMEMBERS, SPOP with a
// count and the SINTER/SUNION/SDIFF family are sets in RESP3; SRANDMEMBER is always an array.
// The multi-key commands type-check every key before answering (a missing key is an empty set),
// and the STORE forms replace the destination whatever its type, or delete it when the result
// is empty.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "listd/base/glob.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/scan_args.h"
#include "listd/server/text.h"
#include "member_removal.h"

namespace listd::server {
namespace {

// SADD key member [member ...]
void cmd_sadd(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  if (!e) e = ctx.add_key(ctx.arg(1), store::Value::make_set());
  store::SetValue& s = e->value.as_set();
  long long added = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    if (s.add(ctx.arg(i))) ++added;
  if (added != 0) ctx.notify(config::kNotifySet, "sadd", ctx.arg(1));
  ctx.mark_dirty(added);
  ctx.reply().integer(added);
}

// SREM key member [member ...]
void cmd_srem(CommandContext& ctx) {
  remove_members<&store::SetValue::remove>(
      ctx, store::ValueType::kSet, [](store::Value& v) -> store::SetValue& { return v.as_set(); },
      config::kNotifySet, "srem");
}

void reply_members(protocol::ReplyWriter r, const store::SetValue& s) {
  r.set_header(s.size());
  s.for_each([&](std::string_view m) { r.bulk(m); });
}

// SMEMBERS key
void cmd_smembers(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  if (e)
    reply_members(ctx.reply(), e->value.as_set());
  else
    ctx.reply().set_header(0);
}

// SISMEMBER key member
void cmd_sismember(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  ctx.reply().integer(e && e->value.as_set().contains(ctx.arg(2)) ? 1 : 0);
}

// SMISMEMBER key member [member ...]
void cmd_smismember(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    r.integer(e && e->value.as_set().contains(ctx.arg(i)) ? 1 : 0);
}

// SCARD key
void cmd_scard(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(e->value.as_set().size()) : 0);
}

// SPOP key [count]
void cmd_spop(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  long long count = -1;
  if (ctx.argc() == 3) {
    // Redis getPositiveLongFromObjectOrReply: one message for "not a number" and "negative".
    if (!ctx.parse_integer(2, count, kMustBePositiveErr)) return;
    if (count < 0) {
      ctx.reply().error(kMustBePositiveErr);
      return;
    }
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  auto r = ctx.reply();
  if (count == -1) {
    if (!e) {
      r.null();
      return;
    }
    store::SetValue& s = e->value.as_set();
    const std::string member = s.pop_random(ctx.exec().rng());
    ctx.notify(config::kNotifySet, "spop", ctx.arg(1));
    r.bulk(member);
    if (s.empty()) {
      ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
      ctx.delete_key(ctx.arg(1));
    }
    ctx.mark_dirty();
    ctx.propagate_as({"SREM", ctx.arg(1), member});  // randomness is logged as its outcome
    return;
  }
  if (!e || count == 0) {
    r.set_header(0);
    return;
  }
  store::SetValue& s = e->value.as_set();
  const auto size = static_cast<long long>(s.size());
  ctx.notify(config::kNotifySet, "spop", ctx.arg(1));  // Redis: before the reply
  if (count >= size) {
    reply_members(r, s);
    ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
    ctx.delete_key(ctx.arg(1));
    ctx.mark_dirty(size);
    ctx.propagate_as({"DEL", ctx.arg(1)});  // Redis: the whole set went, logged as DEL
    return;
  }
  const long long remaining = size - count;
  if (remaining * 5 <= count) {
    // Redis 7.0 (t_set.c, SPOP "CASE 3"): when few members stay, it draws those into a new set
    // and replies with the old one, so a hashtable whose remaining members are all integers
    // becomes an intset again (OBJECT ENCODING shows it).
    store::SetValue kept;
    for (long long i = 0; i < remaining; ++i) kept.add(s.pop_random(ctx.exec().rng()));
    reply_members(r, s);
    if (ctx.effects_wanted())
      s.for_each([&](std::string_view m) { ctx.propagate_as({"SREM", ctx.arg(1), m}); });
    e->value = store::Value(std::move(kept));
    ctx.mark_dirty(count);
    return;
  }
  // One SREM per popped member, as Redis 7.0 (its unit wraps them in MULTI/EXEC).
  r.set_header(static_cast<std::size_t>(count));
  for (long long i = 0; i < count; ++i) {
    const std::string member = s.pop_random(ctx.exec().rng());
    r.bulk(member);
    ctx.propagate_as({"SREM", ctx.arg(1), member});
  }
  ctx.mark_dirty(count);
}

// SRANDMEMBER key [count]
void cmd_srandmember(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  std::mt19937_64& rng = ctx.exec().rng();
  if (ctx.argc() == 2) {
    auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
    if (wrong_type) return;
    if (e)
      ctx.reply().bulk(e->value.as_set().random_member(rng));
    else
      ctx.reply().null();
    return;
  }
  long long l = 0;
  if (!ctx.parse_integer(2, l)) return;
  if (l == LLONG_MIN) {
    ctx.reply().error(kCountRangeErr);
    return;
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  auto r = ctx.reply();
  if (!e || l == 0) {
    r.array_header(0);
    return;
  }
  const store::SetValue& s = e->value.as_set();
  const auto count = static_cast<unsigned long long>(l < 0 ? -l : l);
  if (l < 0) {
    r.array_header(count);
    for (unsigned long long i = 0; i < count; ++i) r.bulk(s.random_member(rng));
    return;
  }
  if (count >= s.size()) {
    r.array_header(s.size());
    s.for_each([&](std::string_view m) { r.bulk(m); });
    return;
  }
  std::vector<std::string> picked;
  if (count * 3 > s.size()) {
    s.for_each([&](std::string_view m) { picked.emplace_back(m); });
    for (std::size_t i = 0; i < count; ++i)
      std::swap(picked[i], picked[i + rng() % (picked.size() - i)]);
    picked.resize(count);
  } else {
    std::unordered_set<std::string> seen;
    while (picked.size() < count) {
      std::string m = s.random_member(rng);
      if (seen.insert(m).second) picked.push_back(std::move(m));
    }
  }
  r.array_header(picked.size());
  for (const auto& m : picked) r.bulk(m);
}

// SMOVE source destination member
void cmd_smove(CommandContext& ctx) {
  const std::string_view src = ctx.arg(1), dst = ctx.arg(2), member = ctx.arg(3);
  store::Entry* s = ctx.write(src);
  store::Entry* d = ctx.write(dst);
  if (!s) {
    ctx.reply().integer(0);
    return;
  }
  if (!s->value.is(store::ValueType::kSet) || (d && !d->value.is(store::ValueType::kSet))) {
    ctx.reply().error(kWrongTypeErr);
    return;
  }
  if (s == d) {
    ctx.reply().integer(s->value.as_set().contains(member) ? 1 : 0);
    return;
  }
  if (!s->value.as_set().remove(member)) {
    ctx.reply().integer(0);
    return;
  }
  ctx.notify(config::kNotifySet, "srem", src);
  if (s->value.as_set().empty()) {
    ctx.notify(config::kNotifyGeneric, "del", src);
    ctx.delete_key(src);
  }
  if (!d) d = ctx.add_key(dst, store::Value::make_set());
  const bool added = d->value.as_set().add(member);
  if (added) ctx.notify(config::kNotifySet, "sadd", dst);
  ctx.mark_dirty(added ? 2 : 1);
  ctx.reply().integer(1);
}

enum class SetOp : std::uint8_t { kInter, kUnion, kDiff };
constexpr std::string_view kStoreEvents[] = {"sinterstore", "sunionstore", "sdiffstore"};

/// The sets named by argv[first..]: null for a missing key. False after replying WRONGTYPE
/// (every key is checked, as Redis does, even after a missing one).
bool collect_sets(CommandContext& ctx, std::size_t first, std::vector<const store::SetValue*>& out,
                  std::size_t end = 0) {
  if (end == 0) end = ctx.argc();
  for (std::size_t i = first; i < end; ++i) {
    store::Entry* e = ctx.read(ctx.arg(i));
    if (e && !e->value.is(store::ValueType::kSet)) {
      ctx.reply().error(kWrongTypeErr);
      return false;
    }
    out.push_back(e ? &e->value.as_set() : nullptr);
  }
  return true;
}

/// Computes the operation into a fresh set (Redis builds the result the same way, so an
/// all-integer result is an intset).
store::SetValue compute(SetOp op, std::vector<const store::SetValue*> sets) {
  store::SetValue result;
  switch (op) {
    case SetOp::kInter: {
      if (std::find(sets.begin(), sets.end(), nullptr) != sets.end()) break;
      // Iterate the smallest set, probe the others (smallest first, so misses come early).
      const auto smaller = [](const store::SetValue* a, const store::SetValue* b) {
        return a->size() < b->size();
      };
      std::stable_sort(sets.begin(), sets.end(), smaller);
      sets[0]->for_each([&](std::string_view m) {
        for (std::size_t j = 1; j < sets.size(); ++j)
          if (sets[j] != sets[0] && !sets[j]->contains(m)) return;
        result.add(m);
      });
      break;
    }
    case SetOp::kUnion:
      for (const store::SetValue* s : sets)
        if (s) s->for_each([&](std::string_view m) { result.add(m); });
      break;
    case SetOp::kDiff:
      if (!sets[0]) break;
      sets[0]->for_each([&](std::string_view m) {
        for (std::size_t j = 1; j < sets.size(); ++j)
          if (sets[j] && sets[j]->contains(m)) return;
        result.add(m);
      });
      break;
  }
  return result;
}

void setop_generic(CommandContext& ctx, SetOp op, bool store) {
  std::vector<const store::SetValue*> sets;
  if (!collect_sets(ctx, store ? 2 : 1, sets)) return;
  const bool any_missing = std::find(sets.begin(), sets.end(), nullptr) != sets.end();
  store::SetValue result = compute(op, std::move(sets));
  if (!store) {
    reply_members(ctx.reply(), result);
    return;
  }
  const std::string_view dst = ctx.arg(1);
  const auto n = static_cast<long long>(result.size());
  if (n > 0) {
    ctx.set_key(dst, store::Value(std::move(result)));
    ctx.mark_dirty();
    ctx.reply().integer(n);
    ctx.notify(config::kNotifySet, kStoreEvents[static_cast<int>(op)], dst);
    return;
  }
  // An empty result deletes the destination. Redis sinterGenericCommand, when a source key is
  // missing, deletes before its reply; every other empty result replies first.
  const bool missing_source = op == SetOp::kInter && any_missing;
  if (!missing_source) ctx.reply().integer(0);
  if (ctx.write(dst) && ctx.delete_key(dst)) {
    ctx.mark_dirty();
    ctx.notify(config::kNotifyGeneric, "del", dst);
  }
  if (missing_source) ctx.reply().integer(0);
}

// SINTER key [key ...]
void cmd_sinter(CommandContext& ctx) { setop_generic(ctx, SetOp::kInter, false); }
// SUNION key [key ...]
void cmd_sunion(CommandContext& ctx) { setop_generic(ctx, SetOp::kUnion, false); }
// SDIFF key [key ...]
void cmd_sdiff(CommandContext& ctx) { setop_generic(ctx, SetOp::kDiff, false); }
// SINTERSTORE destination key [key ...]
void cmd_sinterstore(CommandContext& ctx) { setop_generic(ctx, SetOp::kInter, true); }
// SUNIONSTORE destination key [key ...]
void cmd_sunionstore(CommandContext& ctx) { setop_generic(ctx, SetOp::kUnion, true); }
// SDIFFSTORE destination key [key ...]
void cmd_sdiffstore(CommandContext& ctx) { setop_generic(ctx, SetOp::kDiff, true); }

/// Members of the intersection of `sets` (none null), counting up to `limit` (0: all), as
/// Redis' SINTERCARD stops early.
long long intersection_size(std::vector<const store::SetValue*> sets, long long limit) {
  const auto smaller = [](const store::SetValue* a, const store::SetValue* b) {
    return a->size() < b->size();
  };
  std::stable_sort(sets.begin(), sets.end(), smaller);
  long long n = 0;
  sets[0]->for_each([&](std::string_view m) {
    if (limit && n >= limit) return;
    for (std::size_t j = 1; j < sets.size(); ++j)
      if (sets[j] != sets[0] && !sets[j]->contains(m)) return;
    ++n;
  });
  return n;
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void cmd_sintercard(CommandContext& ctx) {
  constexpr std::string_view kNumkeysErr = "ERR numkeys should be greater than 0";
  long long numkeys = 0;
  if (!ctx.parse_integer(1, numkeys, kNumkeysErr)) return;
  if (numkeys < 1) {
    ctx.reply().error(kNumkeysErr);
    return;
  }
  if (numkeys > static_cast<long long>(ctx.argc()) - 2) {
    ctx.reply().error("ERR Number of keys can't be greater than number of args");
    return;
  }
  const std::size_t end = 2 + static_cast<std::size_t>(numkeys);
  long long limit = 0;
  for (std::size_t j = end; j < ctx.argc(); ++j) {
    if (base::iequals(ctx.arg(j), "limit") && j + 1 < ctx.argc()) {
      constexpr std::string_view kLimitErr = "ERR LIMIT can't be negative";
      if (!ctx.parse_integer(++j, limit, kLimitErr)) return;
      if (limit < 0) {
        ctx.reply().error(kLimitErr);
        return;
      }
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  std::vector<const store::SetValue*> sets;
  if (!collect_sets(ctx, 2, sets, end)) return;
  if (std::find(sets.begin(), sets.end(), nullptr) != sets.end()) {
    ctx.reply().integer(0);
    return;
  }
  ctx.reply().integer(intersection_size(std::move(sets), limit));
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
void cmd_sscan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!parse_scan_cursor(ctx, 2, cursor)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kSet);
  if (wrong_type) return;
  if (!e) {
    reply_empty_scan(ctx);
    return;
  }
  ScanOptions o;
  if (!parse_scan_options(ctx, 3, false, o)) return;
  const store::SetValue& s = e->value.as_set();
  scan_generic<std::string>(
      ctx, cursor, o.count, 1,
      [&](std::uint64_t at, std::vector<std::string>& items) {
        return s.scan(at, [&](std::string_view m) { items.emplace_back(m); });
      },
      [&](const std::string& m) { return !o.use_pattern || base::glob_match(o.pattern, m); },
      [](protocol::ReplyWriter& r, const std::string& m) { r.bulk(m); });
}

}  // namespace

void register_set_commands(CommandTable& table) {
  CommandFamily t = table.family("set");
  t.add("sadd", -3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_sadd, "1.0.0",
        "Add one or more members to a set");
  t.add("srem", -3, kWrite | kFast, kFirstKey, &cmd_srem, "1.0.0",
        "Remove one or more members from a set");
  t.add("smembers", 2, kReadonly, kFirstKey, &cmd_smembers, "1.0.0",
        "Get all the members in a set");
  t.add("sismember", 3, kReadonly | kFast, kFirstKey, &cmd_sismember, "1.0.0",
        "Determine if a given value is a member of a set");
  t.add("smismember", -3, kReadonly | kFast, kFirstKey, &cmd_smismember, "6.2.0",
        "Returns the membership associated with the given elements for a set");
  t.add("scard", 2, kReadonly | kFast, kFirstKey, &cmd_scard, "1.0.0",
        "Get the number of members in a set");
  t.add("spop", -2, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_spop, "1.0.0",
        "Remove and return one or multiple random members from a set");
  t.add("srandmember", -2, kReadonly, kFirstKey, &cmd_srandmember, "1.0.0",
        "Get one or multiple random members from a set");
  t.add("smove", 4, kWrite | kFast, kFirstTwoKeys, &cmd_smove, "1.0.0",
        "Move a member from one set to another");
  t.add("sinter", -2, kReadonly, kAllKeys, &cmd_sinter, "1.0.0", "Intersect multiple sets");
  t.add("sunion", -2, kReadonly, kAllKeys, &cmd_sunion, "1.0.0", "Add multiple sets");
  t.add("sdiff", -2, kReadonly, kAllKeys, &cmd_sdiff, "1.0.0", "Subtract multiple sets");
  t.add("sintercard", -3, kReadonly, KeySpec::numkeys(1), &cmd_sintercard, "7.0.0",
        "Intersect multiple sets and return the cardinality of the result");
  t.add("sinterstore", -3, kWrite | kDenyOom, kAllKeys, &cmd_sinterstore, "1.0.0",
        "Intersect multiple sets and store the resulting set in a key");
  t.add("sunionstore", -3, kWrite | kDenyOom, kAllKeys, &cmd_sunionstore, "1.0.0",
        "Add multiple sets and store the resulting set in a key");
  t.add("sdiffstore", -3, kWrite | kDenyOom, kAllKeys, &cmd_sdiffstore, "1.0.0",
        "Subtract multiple sets and store the resulting set in a key");
  t.add("sscan", -3, kReadonly, kFirstKey, &cmd_sscan, "2.8.0",
        "Incrementally iterate Set elements");
}

}  // namespace listd::server
