// Hash commands: HSET, HSETNX, HGET, HMGET, HMSET, HGETALL, HDEL, HLEN, HEXISTS, HINCRBY,
// HINCRBYFLOAT, HKEYS, HVALS, HSTRLEN, HRANDFIELD, HSCAN.
//
// Argument checks follow Redis 7.0.15 t_hash.c in order (e.g. HSET's pair count before the key
// type, HINCRBY's increment before the key type). A hash is created only when a field is about
// to be written, and deleted as soon as its last field goes, so no empty hash is ever visible.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "listd/base/glob.h"
#include "listd/base/number.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/scan_args.h"
#include "listd/server/text.h"
#include "member_removal.h"

namespace listd::server {
namespace {

// Redis 7.0 getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX) for HRANDFIELD/SRANDMEMBER.
/// `e`'s hash, creating the key first when `e` is null.
store::HashValue& hash_for_write(CommandContext& ctx, std::string_view key, store::Entry*& e) {
  if (!e) e = ctx.add_key(key, store::Value::make_hash());
  return e->value.as_hash();
}

void set_pairs(CommandContext& ctx, store::HashValue& h, long long& created) {
  // Redis hashTypeTryConversion: any field or value over the listpack limit converts first.
  std::size_t longest = 0, total = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    longest = std::max(longest, ctx.arg(i).size());
    total += ctx.arg(i).size();
  }
  h.prepare_set(longest, total);
  // One allocation for the whole command rather than one per field.
  std::size_t bytes = 0;
  for (std::size_t i = 2; i + 1 < ctx.argc(); i += 2)
    bytes += 2 + ctx.arg(i).size() + ctx.arg(i + 1).size();
  h.reserve((ctx.argc() - 2) / 2, bytes);
  for (std::size_t i = 2; i + 1 < ctx.argc(); i += 2)
    if (h.set(ctx.arg(i), ctx.arg(i + 1))) ++created;
  h.shrink_to_fit();
}

void hset_generic(CommandContext& ctx, bool hmset) {
  if (ctx.argc() % 2 == 1) {
    ctx.reply().error(arity_error(ctx.spec().full_name));
    return;
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  long long created = 0;
  set_pairs(ctx, hash_for_write(ctx, ctx.arg(1), e), created);
  ctx.mark_dirty(static_cast<long long>((ctx.argc() - 2) / 2));
  if (hmset)
    ctx.reply().ok();
  else
    ctx.reply().integer(created);
  ctx.notify(config::kNotifyHash, "hset", ctx.arg(1));
}

// HSET key field value [field value ...]
void cmd_hset(CommandContext& ctx) { hset_generic(ctx, false); }

// HMSET key field value [field value ...]
void cmd_hmset(CommandContext& ctx) { hset_generic(ctx, true); }

// HSETNX key field value
void cmd_hsetnx(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  if (e && e->value.as_hash().contains(ctx.arg(2))) {
    ctx.reply().integer(0);
    return;
  }
  hash_for_write(ctx, ctx.arg(1), e).set(ctx.arg(2), ctx.arg(3));
  ctx.mark_dirty();
  ctx.reply().integer(1);
  ctx.notify(config::kNotifyHash, "hset", ctx.arg(1));
}

// HGET key field
void cmd_hget(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  const auto v = e ? e->value.as_hash().get(ctx.arg(2)) : std::nullopt;
  if (v)
    ctx.reply().bulk(*v);
  else
    ctx.reply().null();
}

// HMGET key field [field ...]
void cmd_hmget(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const auto v = e ? e->value.as_hash().get(ctx.arg(i)) : std::nullopt;
    if (v)
      r.bulk(*v);
    else
      r.null();
  }
}

enum class Part : std::uint8_t { kKeys = 1, kValues = 2, kBoth = 3 };

void getall_generic(CommandContext& ctx, Part part) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  auto r = ctx.reply();
  const std::size_t n = e ? e->value.as_hash().size() : 0;
  if (part == Part::kBoth)
    r.map_header(n);
  else
    r.array_header(n);
  if (!e) return;
  e->value.as_hash().for_each([&](std::string_view f, std::string_view v) {
    if (part != Part::kValues) r.bulk(f);
    if (part != Part::kKeys) r.bulk(v);
  });
}

// HGETALL key
void cmd_hgetall(CommandContext& ctx) { getall_generic(ctx, Part::kBoth); }
// HKEYS key
void cmd_hkeys(CommandContext& ctx) { getall_generic(ctx, Part::kKeys); }
// HVALS key
void cmd_hvals(CommandContext& ctx) { getall_generic(ctx, Part::kValues); }

// HDEL key field [field ...]
void cmd_hdel(CommandContext& ctx) {
  remove_members<&store::HashValue::erase>(
      ctx, store::ValueType::kHash,
      [](store::Value& v) -> store::HashValue& { return v.as_hash(); }, config::kNotifyHash,
      "hdel");
}

// HLEN key
void cmd_hlen(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(e->value.as_hash().size()) : 0);
}

// HEXISTS key field
void cmd_hexists(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  ctx.reply().integer(e && e->value.as_hash().contains(ctx.arg(2)) ? 1 : 0);
}

// HSTRLEN key field
void cmd_hstrlen(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  const auto v = e ? e->value.as_hash().get(ctx.arg(2)) : std::nullopt;
  ctx.reply().integer(v ? static_cast<long long>(v->size()) : 0);
}

// HINCRBY key field increment
void cmd_hincrby(CommandContext& ctx) {
  long long incr = 0;
  if (!ctx.parse_integer(3, incr)) return;
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  long long value = 0;
  if (e) {
    if (const auto old = e->value.as_hash().get(ctx.arg(2))) {
      if (!base::parse_strict_integer(*old, value)) {
        ctx.reply().error("ERR hash value is not an integer");
        return;
      }
    }
  }
  if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
      (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
    ctx.reply().error(kOverflowErr);
    return;
  }
  value += incr;
  hash_for_write(ctx, ctx.arg(1), e).set(ctx.arg(2), std::to_string(value));
  ctx.mark_dirty();
  ctx.reply().integer(value);
  ctx.notify(config::kNotifyHash, "hincrby", ctx.arg(1));
}

// HINCRBYFLOAT key field increment
void cmd_hincrbyfloat(CommandContext& ctx) {
  long double incr = 0;
  if (!base::parse_long_double(ctx.arg(3), incr)) {
    ctx.reply().error(kNotFloatErr);
    return;
  }
  if (std::isnan(incr) || std::isinf(incr)) {
    ctx.reply().error("ERR value is NaN or Infinity");
    return;
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  long double value = 0;
  if (e) {
    if (const auto old = e->value.as_hash().get(ctx.arg(2))) {
      if (!base::parse_long_double(*old, value)) {
        ctx.reply().error("ERR hash value is not a float");
        return;
      }
    }
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.reply().error("ERR increment would produce NaN or Infinity");
    return;
  }
  const std::string text = base::format_long_double_human(value);
  hash_for_write(ctx, ctx.arg(1), e).set(ctx.arg(2), text);
  ctx.mark_dirty();
  // Redis hincrbyfloatCommand: replayed as the value it produced (HSET key field value).
  ctx.propagate_as({"HSET", ctx.arg(1), ctx.arg(2), text});
  ctx.reply().bulk(text);
  ctx.notify(config::kNotifyHash, "hincrbyfloat", ctx.arg(1));
}

/// One HRANDFIELD element: [field, value] pairs nest in RESP3, lie flat in RESP2.
void reply_field(protocol::ReplyWriter& r, std::string_view f, std::string_view v,
                 bool withvalues) {
  if (withvalues && r.resp3()) r.array_header(2);
  r.bulk(f);
  if (withvalues) r.bulk(v);
}

// HRANDFIELD key [count [WITHVALUES]]
void cmd_hrandfield(CommandContext& ctx) {
  std::mt19937_64& rng = ctx.exec().rng();
  if (ctx.argc() == 2) {
    auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
    if (wrong_type) return;
    if (e)
      ctx.reply().bulk(e->value.as_hash().random_pair(rng).first);
    else
      ctx.reply().null();
    return;
  }
  // Redis 7.0 hrandfieldCommand: count, then the syntax, then the WITHVALUES range, then the key.
  long long l = 0;
  if (!ctx.parse_integer(2, l)) return;
  if (l == LLONG_MIN) {
    ctx.reply().error(kCountRangeErr);
    return;
  }
  if (ctx.argc() > 4 || (ctx.argc() == 4 && !base::iequals(ctx.arg(3), "withvalues"))) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  const bool withvalues = ctx.argc() == 4;
  if (withvalues && (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2)) {
    ctx.reply().error(kOutOfRangeErr);
    return;
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  auto r = ctx.reply();
  if (!e || l == 0) {
    r.array_header(0);
    return;
  }
  const store::HashValue& h = e->value.as_hash();
  const auto size = static_cast<unsigned long long>(h.size());
  const auto count = static_cast<unsigned long long>(l < 0 ? -l : l);
  const auto header = [&](unsigned long long n) {
    r.array_header(withvalues && !r.resp3() ? n * 2 : n);
  };
  if (l < 0 || count == 1) {
    // Repetitions allowed: independent draws.
    header(count);
    for (unsigned long long i = 0; i < count; ++i) {
      const auto [f, v] = h.random_pair(rng);
      reply_field(r, f, v, withvalues);
    }
    return;
  }
  if (count >= size) {
    // The whole hash, in its own order (Redis' CASE 2).
    header(size);
    h.for_each([&](std::string_view f, std::string_view v) { reply_field(r, f, v, withvalues); });
    return;
  }
  // Distinct fields. Many of them: shuffle a list of all; few: draw and skip repeats.
  std::vector<std::pair<std::string_view, std::string_view>> picked;
  if (count * 3 > size) {
    h.for_each([&](std::string_view f, std::string_view v) { picked.emplace_back(f, v); });
    for (std::size_t i = 0; i < count; ++i)
      std::swap(picked[i], picked[i + rng() % (picked.size() - i)]);
    picked.resize(count);
  } else {
    std::unordered_set<std::string_view> seen;
    while (picked.size() < count) {
      const auto pr = h.random_pair(rng);
      if (seen.insert(pr.first).second) picked.push_back(pr);
    }
  }
  header(count);
  for (const auto& [f, v] : picked) reply_field(r, f, v, withvalues);
}

// HSCAN key cursor [MATCH pattern] [COUNT count]
void cmd_hscan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!parse_scan_cursor(ctx, 2, cursor)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kHash);
  if (wrong_type) return;
  if (!e) {
    reply_empty_scan(ctx);
    return;
  }
  ScanOptions o;
  if (!parse_scan_options(ctx, 3, false, o)) return;
  const store::HashValue& h = e->value.as_hash();
  using Pair = std::pair<std::string_view, std::string_view>;
  scan_generic<Pair>(
      ctx, cursor, o.count, 2,
      [&](std::uint64_t at, std::vector<Pair>& items) {
        return h.scan(at,
                      [&](std::string_view f, std::string_view v) { items.emplace_back(f, v); });
      },
      [&](const Pair& p) { return !o.use_pattern || base::glob_match(o.pattern, p.first); },
      [](protocol::ReplyWriter& r, const Pair& p) {
        r.bulk(p.first);
        r.bulk(p.second);
      });
}

}  // namespace

void register_hash_commands(CommandTable& table) {
  CommandFamily t = table.family("hash");
  t.add("hset", -4, kWrite | kDenyOom | kFast, kFirstKey, &cmd_hset, "2.0.0",
        "Set the string value of a hash field");
  t.add("hsetnx", 4, kWrite | kDenyOom | kFast, kFirstKey, &cmd_hsetnx, "2.0.0",
        "Set the value of a hash field, only if the field does not exist");
  t.add("hget", 3, kReadonly | kFast, kFirstKey, &cmd_hget, "2.0.0",
        "Get the value of a hash field");
  t.add("hmget", -3, kReadonly | kFast, kFirstKey, &cmd_hmget, "2.0.0",
        "Get the values of all the given hash fields");
  t.add("hmset", -4, kWrite | kDenyOom | kFast, kFirstKey, &cmd_hmset, "2.0.0",
        "Set multiple hash fields to multiple values");
  t.add("hgetall", 2, kReadonly, kFirstKey, &cmd_hgetall, "2.0.0",
        "Get all the fields and values in a hash");
  t.add("hdel", -3, kWrite | kFast, kFirstKey, &cmd_hdel, "2.0.0",
        "Delete one or more hash fields");
  t.add("hlen", 2, kReadonly | kFast, kFirstKey, &cmd_hlen, "2.0.0",
        "Get the number of fields in a hash");
  t.add("hexists", 3, kReadonly | kFast, kFirstKey, &cmd_hexists, "2.0.0",
        "Determine if a hash field exists");
  t.add("hincrby", 4, kWrite | kDenyOom | kFast, kFirstKey, &cmd_hincrby, "2.0.0",
        "Increment the integer value of a hash field by the given number");
  t.add("hincrbyfloat", 4, kWrite | kDenyOom | kFast | kOwnEffect, kFirstKey, &cmd_hincrbyfloat,
        "2.6.0", "Increment the float value of a hash field by the given amount");
  t.add("hkeys", 2, kReadonly, kFirstKey, &cmd_hkeys, "2.0.0", "Get all the fields in a hash");
  t.add("hvals", 2, kReadonly, kFirstKey, &cmd_hvals, "2.0.0", "Get all the values in a hash");
  t.add("hstrlen", 3, kReadonly | kFast, kFirstKey, &cmd_hstrlen, "3.2.0",
        "Get the length of the value of a hash field");
  t.add("hrandfield", -2, kReadonly, kFirstKey, &cmd_hrandfield, "6.2.0",
        "Get one or multiple random fields from a hash");
  t.add("hscan", -3, kReadonly, kFirstKey, &cmd_hscan, "2.8.0",
        "Incrementally iterate hash fields and associated values");
}

}  // namespace listd::server
