// String commands: GET, SET (EX|PX|EXAT|PXAT|NX|XX|KEEPTTL|GET), SETNX, SETEX, PSETEX, GETSET,
// GETDEL, GETEX, MGET, MSET, MSETNX, INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT, APPEND, STRLEN,
// GETRANGE (and its old name SUBSTR), SETRANGE, LCS.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "listd/base/number.h"
#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

constexpr std::string_view kStringTooLongErr =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

/// Stores `bytes` at `key` as a string, replacing any value of any type. Clears the TTL
/// unless `keep_ttl`. Returns the entry.
store::Entry* store_string(CommandContext& ctx, std::string_view key, std::string_view bytes,
                           bool keep_ttl) {
  store::Entry* e = ctx.write(key);
  if (!e) return ctx.add_key(key, store::Value::make_string(bytes));
  // An overwritten stream wakes its XREADGROUP waiters (-UNBLOCKED), as Redis' dbSetValue.
  if (e->value.is(store::ValueType::kStream))
    ctx.exec().blocking().signal_ready(ctx.db().index(), key);
  e->value = store::Value::make_string(bytes);
  if (!keep_ttl) ctx.db().persist(*e);
  return e;
}

enum SetFlag : unsigned {
  kSetNx = 1,
  kSetXx = 2,
  kSetGet = 4,
  kSetKeepTtl = 8,
  kSetPersist = 16,
  kSetEx = 32,
  kSetPx = 64,
  kSetExat = 128,
  kSetPxat = 256,
};
constexpr unsigned kSetAnyExpiry = kSetEx | kSetPx | kSetExat | kSetPxat;

/// The SET/GETEX options: flags, and argv index of the expiry's value (0: none).
struct SetOptions {
  unsigned flags = 0;
  std::size_t expiry_arg = 0;
};

unsigned expiry_keyword(std::string_view a) {
  if (base::iequals(a, "ex")) return kSetEx;
  if (base::iequals(a, "px")) return kSetPx;
  if (base::iequals(a, "exat")) return kSetExat;
  if (base::iequals(a, "pxat")) return kSetPxat;
  return 0;
}

/// Redis 7.0 parseExtendedStringArgumentsOrReply: keywords only, from argv[i]. The expiry's value
/// is read later (expiry_deadline), so a syntax error anywhere wins over a bad value. The same
/// expiry keyword may repeat (the last value counts); two different ones may not.
bool parse_set_options(CommandContext& ctx, std::size_t i, bool getex, SetOptions& o) {
  for (; i < ctx.argc(); ++i) {
    const std::string_view a = ctx.arg(i);
    const unsigned f = o.flags;
    const unsigned expiry = expiry_keyword(a);
    if (!getex && base::iequals(a, "nx") && !(f & kSetXx)) {
      o.flags |= kSetNx;
    } else if (!getex && base::iequals(a, "xx") && !(f & kSetNx)) {
      o.flags |= kSetXx;
    } else if (!getex && base::iequals(a, "get")) {
      o.flags |= kSetGet;
    } else if (!getex && base::iequals(a, "keepttl") && !(f & (kSetPersist | kSetAnyExpiry))) {
      o.flags |= kSetKeepTtl;
    } else if (getex && base::iequals(a, "persist") && !(f & (kSetKeepTtl | kSetAnyExpiry))) {
      o.flags |= kSetPersist;
    } else if (expiry && !(f & (kSetKeepTtl | kSetPersist | (kSetAnyExpiry & ~expiry))) &&
               i + 1 < ctx.argc()) {
      o.flags |= expiry;
      o.expiry_arg = ++i;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

/// Redis getExpireMillisecondsOrReply: the absolute deadline in `at_ms` (-1 without an expiry
/// option). Replies and returns false on a bad value.
bool expiry_deadline(CommandContext& ctx, const SetOptions& o, long long& at_ms) {
  at_ms = -1;
  if (o.expiry_arg == 0) return true;
  long long v = 0;
  if (!ctx.parse_integer(o.expiry_arg, v)) return false;
  const bool seconds = o.flags & (kSetEx | kSetExat);
  const bool relative = o.flags & (kSetEx | kSetPx);
  const std::string invalid = "ERR invalid expire time in '" + ctx.spec().full_name + "' command";
  if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) {
    ctx.reply().error(invalid);
    return false;
  }
  if (seconds) v *= 1000;
  if (relative) {
    if (v > LLONG_MAX - ctx.now_ms()) {
      ctx.reply().error(invalid);
      return false;
    }
    v += ctx.now_ms();
  }
  at_ms = v;
  return true;
}

/// Redis 7.0's effect of SET/SETEX/PSETEX with any expiry: the absolute deadline,
/// `SET key value PXAT <ms>` (the other options dropped, as Redis rewrites them).
void propagate_set_pxat(CommandContext& ctx, std::string_view key, std::string_view value,
                        long long at_ms) {
  if (!ctx.effects_wanted()) return;
  const std::string at = std::to_string(at_ms);
  ctx.propagate_as({"SET", key, value, "PXAT", at});
}

/// SET ... GET without an expiry: logged without the GET words (Redis skips every "GET" from
/// argv[3] on).
void propagate_without_get(CommandContext& ctx) {
  if (!ctx.effects_wanted()) return;
  std::vector<std::string_view> effect;
  for (std::size_t i = 0; i < ctx.argc(); ++i)
    if (i < 3 || !base::iequals(ctx.arg(i), "get")) effect.push_back(ctx.arg(i));
  ctx.propagate_as(effect);
}

/// Applies an absolute expiry; a deadline already past deletes the key (as Redis does).
void apply_expire(CommandContext& ctx, std::string_view key, store::Entry* e, long long at_ms) {
  if (at_ms < 0) return;
  if (at_ms <= ctx.now_ms())
    ctx.delete_key(key);
  else
    ctx.db().set_expire(*e, at_ms);
}

// GET key
void cmd_get(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (e)
    ctx.reply().bulk(e->value.as_string().view());
  else
    ctx.reply().null();
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL]
void cmd_set(CommandContext& ctx) {
  SetOptions o;
  long long expire_at = -1;
  if (!parse_set_options(ctx, 3, false, o) || !expiry_deadline(ctx, o, expire_at)) return;
  const unsigned flags = o.flags;
  const std::string_view key = ctx.arg(1);
  // Redis: SET ... GET reads the old value (a counted lookup); a plain SET only writes.
  store::Entry* e = (flags & kSetGet) ? ctx.read(key) : ctx.write(key);
  if (flags & kSetGet) {
    // Redis getGenericCommand: the old value is the reply, written before the SET runs.
    if (e && !e->value.is(store::ValueType::kString)) {
      ctx.reply().error(kWrongTypeErr);
      return;
    }
    if (e)
      ctx.reply().bulk(e->value.as_string().view());
    else
      ctx.reply().null();
  }
  const bool blocked = ((flags & kSetNx) && e) || ((flags & kSetXx) && !e);
  if (!blocked) {
    e = store_string(ctx, key, ctx.arg(2), flags & kSetKeepTtl);
    ctx.notify(config::kNotifyString, "set", key);
    if (expire_at >= 0) {
      // Redis 7.0 setGenericCommand sets even a deadline already past (the key then expires
      // like any other, with its `expired` event); only GETEX deletes at once.
      ctx.db().set_expire(*e, expire_at);
      ctx.notify(config::kNotifyGeneric, "expire", key);
    }
    ctx.mark_dirty();
    // Redis setGenericCommand: any expiry becomes SET key value PXAT <ms>; without one, the
    // argv without its GET arguments.
    if (expire_at >= 0)
      propagate_set_pxat(ctx, key, ctx.arg(2), expire_at);
    else if (flags & kSetGet)
      propagate_without_get(ctx);
    else
      ctx.propagate_as(ctx.argv());
  }
  if (flags & kSetGet) return;  // replied above
  if (blocked)
    ctx.reply().null();
  else
    ctx.reply().ok();
}

// SETNX key value
void cmd_setnx(CommandContext& ctx) {
  if (ctx.write(ctx.arg(1))) {
    ctx.reply().integer(0);
    return;
  }
  ctx.add_key(ctx.arg(1), store::Value::make_string(ctx.arg(2)));
  ctx.notify(config::kNotifyString, "set", ctx.arg(1));
  ctx.mark_dirty();
  ctx.reply().integer(1);
}

void setex_generic(CommandContext& ctx, bool seconds) {
  long long v = 0;
  if (!ctx.parse_integer(2, v)) return;
  if (v <= 0 || (seconds && v > LLONG_MAX / 1000) ||
      (seconds ? v * 1000 : v) > LLONG_MAX - ctx.now_ms()) {
    ctx.reply().error("ERR invalid expire time in '" + ctx.spec().full_name + "' command");
    return;
  }
  store::Entry* e = store_string(ctx, ctx.arg(1), ctx.arg(3), false);
  const long long at_ms = ctx.now_ms() + (seconds ? v * 1000 : v);
  ctx.notify(config::kNotifyString, "set", ctx.arg(1));
  ctx.db().set_expire(*e, at_ms);
  ctx.notify(config::kNotifyGeneric, "expire", ctx.arg(1));
  ctx.mark_dirty();
  propagate_set_pxat(ctx, ctx.arg(1), ctx.arg(3), at_ms);
  ctx.reply().ok();
}

// SETEX key seconds value
void cmd_setex(CommandContext& ctx) { setex_generic(ctx, true); }
// PSETEX key milliseconds value
void cmd_psetex(CommandContext& ctx) { setex_generic(ctx, false); }

// GETSET key value
void cmd_getset(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (e)
    ctx.reply().bulk(e->value.as_string().view());
  else
    ctx.reply().null();
  store_string(ctx, ctx.arg(1), ctx.arg(2), false);
  ctx.notify(config::kNotifyString, "set", ctx.arg(1));
  ctx.mark_dirty();
  ctx.propagate_as({"SET", ctx.arg(1), ctx.arg(2)});  // Redis: logged as SET key value
}

// GETDEL key
void cmd_getdel(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().null();
    return;
  }
  ctx.reply().bulk(e->value.as_string().view());
  ctx.delete_key(ctx.arg(1));
  ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
  ctx.mark_dirty();
  ctx.propagate_as({"DEL", ctx.arg(1)});
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST]
void cmd_getex(CommandContext& ctx) {
  SetOptions o;
  if (!parse_set_options(ctx, 2, true, o)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (!e) {
    ctx.reply().null();  // before the expiry's value is read, as in Redis 7.0
    return;
  }
  long long expire_at = -1;
  if (!expiry_deadline(ctx, o, expire_at)) return;
  const bool persist = o.flags & kSetPersist;
  ctx.reply().bulk(e->value.as_string().view());
  // Redis getexCommand's effects: a deadline already past is DEL, any other expiry
  // PEXPIREAT key <ms>, PERSIST (when a TTL was removed) PERSIST key.
  if (expire_at >= 0) {
    apply_expire(ctx, ctx.arg(1), e, expire_at);
    ctx.mark_dirty();
    if (expire_at <= ctx.now_ms()) {
      ctx.propagate_as({"DEL", ctx.arg(1)});
      ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
    } else {
      if (ctx.effects_wanted()) {
        const std::string at = std::to_string(expire_at);
        ctx.propagate_as({"PEXPIREAT", ctx.arg(1), at});
      }
      ctx.notify(config::kNotifyGeneric, "expire", ctx.arg(1));
    }
  } else if (persist && ctx.db().persist(*e)) {
    ctx.mark_dirty();
    ctx.propagate_as({"PERSIST", ctx.arg(1)});
    ctx.notify(config::kNotifyGeneric, "persist", ctx.arg(1));
  }
}

// MGET key [key ...]
void cmd_mget(CommandContext& ctx) {
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 1);
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    store::Entry* e = ctx.read(ctx.arg(i));
    if (e && e->value.is(store::ValueType::kString))
      r.bulk(e->value.as_string().view());
    else
      r.null();
  }
}

void mset_generic(CommandContext& ctx, bool nx) {
  if (ctx.argc() % 2 == 0) {
    ctx.reply().error(arity_error(ctx.spec().full_name));
    return;
  }
  if (nx) {
    for (std::size_t i = 1; i < ctx.argc(); i += 2)
      if (ctx.write(ctx.arg(i))) {
        ctx.reply().integer(0);
        return;
      }
  }
  for (std::size_t i = 1; i < ctx.argc(); i += 2) {
    store_string(ctx, ctx.arg(i), ctx.arg(i + 1), false);
    ctx.notify(config::kNotifyString, "set", ctx.arg(i));
  }
  ctx.mark_dirty(static_cast<long long>((ctx.argc() - 1) / 2));
  if (nx)
    ctx.reply().integer(1);
  else
    ctx.reply().ok();
}

// MSET key value [key value ...]
void cmd_mset(CommandContext& ctx) { mset_generic(ctx, false); }
// MSETNX key value [key value ...]
void cmd_msetnx(CommandContext& ctx) { mset_generic(ctx, true); }

void incr_generic(CommandContext& ctx, long long by) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  long long value = 0;
  if (e && !base::parse_strict_integer(e->value.as_string().view(), value)) {
    ctx.reply().error(kNotIntegerErr);
    return;
  }
  if ((by < 0 && value < 0 && by < LLONG_MIN - value) ||
      (by > 0 && value > 0 && by > LLONG_MAX - value)) {
    ctx.reply().error(kOverflowErr);
    return;
  }
  value += by;
  const std::string text = std::to_string(value);
  if (e)
    e->value = store::Value::make_string(text);  // INCR keeps the TTL
  else
    ctx.add_key(ctx.arg(1), store::Value::make_string(text));
  ctx.notify(config::kNotifyString, "incrby", ctx.arg(1));
  ctx.mark_dirty();
  ctx.reply().integer(value);
}

// INCR key
void cmd_incr(CommandContext& ctx) { incr_generic(ctx, 1); }
// DECR key
void cmd_decr(CommandContext& ctx) { incr_generic(ctx, -1); }
// INCRBY key increment
void cmd_incrby(CommandContext& ctx) {
  long long by = 0;
  if (ctx.parse_integer(2, by)) incr_generic(ctx, by);
}
// DECRBY key decrement
void cmd_decrby(CommandContext& ctx) {
  long long by = 0;
  if (!ctx.parse_integer(2, by)) return;
  if (by == LLONG_MIN) {
    ctx.reply().error("ERR decrement would overflow");
    return;
  }
  incr_generic(ctx, -by);
}

// INCRBYFLOAT key increment
void cmd_incrbyfloat(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  long double value = 0, by = 0;
  if ((e && !base::parse_long_double(e->value.as_string().view(), value)) ||
      !base::parse_long_double(ctx.arg(2), by)) {
    ctx.reply().error(kNotFloatErr);
    return;
  }
  value += by;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.reply().error("ERR increment would produce NaN or Infinity");
    return;
  }
  // Formatted text: Redis makes it an embstr/raw object, never "int" (even for "3").
  const std::string text = base::format_long_double_human(value);
  if (e)
    e->value = store::Value::make_string(text, store::StringForm::kFormatted);
  else
    ctx.add_key(ctx.arg(1), store::Value::make_string(text, store::StringForm::kFormatted));
  ctx.notify(config::kNotifyString, "incrbyfloat", ctx.arg(1));
  ctx.mark_dirty();
  // Redis: replayed as the value it produced, so float formatting can never differ on load.
  ctx.propagate_as({"SET", ctx.arg(1), text, "KEEPTTL"});
  ctx.reply().bulk(text);
}

// APPEND key value
void cmd_append(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  if (!e) {
    ctx.add_key(ctx.arg(1), store::Value::make_string(ctx.arg(2)));
    ctx.notify(config::kNotifyString, "append", ctx.arg(1));
    ctx.mark_dirty();
    ctx.reply().integer(static_cast<long long>(ctx.arg(2).size()));
    return;
  }
  const std::string_view old = e->value.as_string().view();
  const auto max = static_cast<std::size_t>(ctx.exec().config().settings().proto_max_bulk_len);
  if (old.size() + ctx.arg(2).size() > max) {
    ctx.reply().error(kStringTooLongErr);
    return;
  }
  std::string joined;
  joined.reserve(old.size() + ctx.arg(2).size());
  joined.append(old).append(ctx.arg(2));
  // Redis appends in place to an unshared raw copy: "raw" whatever the bytes.
  e->value = store::Value::make_string(joined, store::StringForm::kRaw);
  ctx.notify(config::kNotifyString, "append", ctx.arg(1));
  ctx.mark_dirty();
  ctx.reply().integer(static_cast<long long>(joined.size()));
}

// STRLEN key
void cmd_strlen(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  ctx.reply().integer(e ? static_cast<long long>(e->value.as_string().size()) : 0);
}

// GETRANGE key start end
void cmd_getrange(CommandContext& ctx) {
  long long start = 0, end = 0;
  if (!ctx.parse_integer(2, start) || !ctx.parse_integer(3, end)) return;
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  const std::string_view s = e ? e->value.as_string().view() : std::string_view();
  const auto len = static_cast<long long>(s.size());
  // Redis 7.0 getrangeCommand, step by step.
  if (start < 0 && end < 0 && start > end) {
    ctx.reply().bulk("");
    return;
  }
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) {
    ctx.reply().bulk("");
    return;
  }
  ctx.reply().bulk(
      s.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start + 1)));
}

// SETRANGE key offset value
void cmd_setrange(CommandContext& ctx) {
  long long offset = 0;
  if (!ctx.parse_integer(2, offset)) return;
  if (offset < 0) {
    ctx.reply().error("ERR offset is out of range");
    return;
  }
  auto [e, wrong_type] = ctx.write(ctx.arg(1), store::ValueType::kString);
  if (wrong_type) return;
  const std::string_view value = ctx.arg(3);
  const std::string_view old = e ? e->value.as_string().view() : std::string_view();
  if (value.empty()) {
    ctx.reply().integer(static_cast<long long>(old.size()));
    return;
  }
  const auto max =
      static_cast<unsigned long long>(ctx.exec().config().settings().proto_max_bulk_len);
  if (static_cast<unsigned long long>(offset) + value.size() > max) {
    ctx.reply().error(kStringTooLongErr);
    return;
  }
  std::string s(old);
  if (s.size() < static_cast<std::size_t>(offset) + value.size())
    s.resize(static_cast<std::size_t>(offset) + value.size(), '\0');
  s.replace(static_cast<std::size_t>(offset), value.size(), value);
  // Redis edits (or creates) a raw string in place: "raw" whatever the bytes.
  if (e)
    e->value = store::Value::make_string(s, store::StringForm::kRaw);
  else
    ctx.add_key(ctx.arg(1), store::Value::make_string(s, store::StringForm::kRaw));
  ctx.notify(config::kNotifyString, "setrange", ctx.arg(1));
  ctx.mark_dirty();
  ctx.reply().integer(static_cast<long long>(s.size()));
}

/// LCS's options (Redis lcsCommand).
struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  long long min_match_len = 0;
};

bool parse_lcs_options(CommandContext& ctx, LcsOptions& o) {
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view a = ctx.arg(j);
    if (base::iequals(a, "idx")) {
      o.idx = true;
    } else if (base::iequals(a, "len")) {
      o.len = true;
    } else if (base::iequals(a, "withmatchlen")) {
      o.with_match_len = true;
    } else if (base::iequals(a, "minmatchlen") && j + 1 < ctx.argc()) {
      if (!ctx.parse_integer(++j, o.min_match_len)) return false;
      if (o.min_match_len < 0) o.min_match_len = 0;
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  if (o.len && o.idx) {
    ctx.reply().error("ERR If you want both the length and indexes, please just use IDX.");
    return false;
  }
  return true;
}

/// One IDX match: the ranges in a and b (inclusive).
struct LcsMatch {
  std::uint32_t a_start, a_end, b_start, b_end;
};

/// Walks Redis' LCS table back from the end: the LCS string and its matching ranges.
std::string lcs_walk(std::string_view a, std::string_view b, const std::vector<std::uint32_t>& t,
                     long long min_len, std::vector<LcsMatch>& matches) {
  const auto alen = static_cast<std::uint32_t>(a.size());
  const std::size_t w = b.size() + 1;
  std::uint32_t idx = t[a.size() * w + b.size()];
  std::string result(idx, '\0');
  std::uint32_t i = alen, j = static_cast<std::uint32_t>(b.size());
  LcsMatch m{alen, 0, 0, 0};  // a_start == alen: no range open
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (m.a_start == alen) {
        m = {i - 1, i - 1, j - 1, j - 1};
      } else if (m.a_start == i && m.b_start == j) {
        --m.a_start;
        --m.b_start;
      } else {
        emit = true;
      }
      if (m.a_start == 0 || m.b_start == 0) emit = true;
      --idx, --i, --j;
    } else {
      if (t[(i - 1) * w + j] > t[i * w + j - 1])
        --i;
      else
        --j;
      if (m.a_start != alen) emit = true;
    }
    if (emit) {
      if (min_len == 0 || m.a_end - m.a_start + 1 >= min_len) matches.push_back(m);
      m.a_start = alen;
    }
  }
  return result;
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]
void cmd_lcs(CommandContext& ctx) {
  store::Entry* ea = ctx.read(ctx.arg(1));
  store::Entry* eb = ctx.read(ctx.arg(2));
  if ((ea && !ea->value.is(store::ValueType::kString)) ||
      (eb && !eb->value.is(store::ValueType::kString))) {
    ctx.reply().error("ERR The specified keys must contain string values");
    return;
  }
  const std::string_view a = ea ? ea->value.as_string().view() : std::string_view();
  const std::string_view b = eb ? eb->value.as_string().view() : std::string_view();
  LcsOptions o;
  if (!parse_lcs_options(ctx, o)) return;
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    ctx.reply().error("ERR String too long for LCS");
    return;
  }
  const std::size_t w = b.size() + 1;
  const unsigned long long cells = static_cast<unsigned long long>(a.size() + 1) * w;
  if (cells * sizeof(std::uint32_t) >
      static_cast<unsigned long long>(ctx.exec().config().settings().proto_max_bulk_len)) {
    ctx.reply().error(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    return;
  }
  // t[i * w + j]: the LCS length of a[0..i) and b[0..j).
  std::vector<std::uint32_t> t(cells, 0);
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i * w + j] = a[i - 1] == b[j - 1] ? t[(i - 1) * w + j - 1] + 1
                                          : std::max(t[(i - 1) * w + j], t[i * w + j - 1]);
  const long long length = t[a.size() * w + b.size()];
  if (o.len) {
    ctx.reply().integer(length);
    return;
  }
  std::vector<LcsMatch> matches;
  const std::string lcs = lcs_walk(a, b, t, o.min_match_len, matches);
  if (!o.idx) {
    ctx.reply().bulk(lcs);
    return;
  }
  auto r = ctx.reply();
  r.map_header(2);
  r.bulk("matches");
  r.array_header(matches.size());
  for (const LcsMatch& m : matches) {
    r.array_header(o.with_match_len ? 3 : 2);
    r.array_header(2);
    r.integer(m.a_start);
    r.integer(m.a_end);
    r.array_header(2);
    r.integer(m.b_start);
    r.integer(m.b_end);
    if (o.with_match_len) r.integer(m.a_end - m.a_start + 1);
  }
  r.bulk("len");
  r.integer(length);
}

}  // namespace

void register_string_commands(CommandTable& table) {
  CommandFamily t = table.family("string");
  t.add("get", 2, kReadonly | kFast, kFirstKey, &cmd_get, "1.0.0", "Get the value of a key");
  t.add("set", -3, kWrite | kDenyOom | kOwnEffect, kFirstKey, &cmd_set, "1.0.0",
        "Set the string value of a key");
  t.add("setnx", 3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_setnx, "1.0.0",
        "Set the value of a key, only if the key does not exist");
  t.add("setex", 4, kWrite | kDenyOom | kOwnEffect, kFirstKey, &cmd_setex, "2.0.0",
        "Set the value and expiration of a key");
  t.add("psetex", 4, kWrite | kDenyOom | kOwnEffect, kFirstKey, &cmd_psetex, "2.6.0",
        "Set the value and expiration in milliseconds of a key");
  t.add("getset", 3, kWrite | kDenyOom | kFast | kOwnEffect, kFirstKey, &cmd_getset, "1.0.0",
        "Set the string value of a key and return its old value");
  t.add("getdel", 2, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_getdel, "6.2.0",
        "Get the value of a key and delete the key");
  t.add("getex", -2, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_getex, "6.2.0",
        "Get the value of a key and optionally set its expiration");
  t.add("mget", -2, kReadonly | kFast, kAllKeys, &cmd_mget, "1.0.0",
        "Get the values of all the given keys");
  t.add("mset", -3, kWrite | kDenyOom, {1, -1, 2}, &cmd_mset, "1.0.1",
        "Set multiple keys to multiple values");
  t.add("msetnx", -3, kWrite | kDenyOom, {1, -1, 2}, &cmd_msetnx, "1.0.1",
        "Set multiple keys to multiple values, only if none of the keys exist");
  t.add("incr", 2, kWrite | kDenyOom | kFast, kFirstKey, &cmd_incr, "1.0.0",
        "Increment the integer value of a key by one");
  t.add("decr", 2, kWrite | kDenyOom | kFast, kFirstKey, &cmd_decr, "1.0.0",
        "Decrement the integer value of a key by one");
  t.add("incrby", 3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_incrby, "1.0.0",
        "Increment the integer value of a key by the given amount");
  t.add("decrby", 3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_decrby, "1.0.0",
        "Decrement the integer value of a key by the given number");
  t.add("incrbyfloat", 3, kWrite | kDenyOom | kFast | kOwnEffect, kFirstKey, &cmd_incrbyfloat,
        "2.6.0", "Increment the float value of a key by the given amount");
  t.add("append", 3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_append, "2.0.0",
        "Append a value to a key");
  t.add("strlen", 2, kReadonly | kFast, kFirstKey, &cmd_strlen, "2.2.0",
        "Get the length of the value stored in a key");
  t.add("getrange", 4, kReadonly, kFirstKey, &cmd_getrange, "2.4.0",
        "Get a substring of the string stored at a key");
  t.add("substr", 4, kReadonly, kFirstKey, &cmd_getrange, "1.0.0",
        "Get a substring of the string stored at a key");
  t.add("lcs", -3, kReadonly, kFirstTwoKeys, &cmd_lcs, "7.0.0", "Find longest common substring");
  t.add("setrange", 4, kWrite | kDenyOom, kFirstKey, &cmd_setrange, "2.2.0",
        "Overwrite part of a string at key starting at the specified offset");
}

}  // namespace listd::server
