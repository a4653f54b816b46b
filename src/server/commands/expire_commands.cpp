// Expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (NX|XX|GT|LT), TTL, PTTL, EXPIRETIME,
// PEXPIRETIME, PERSIST. Deadlines are absolute Unix ms; store::Database keeps the index.
#include <climits>
#include <string>
#include <vector>

#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

bool parse_expire_flags(CommandContext& ctx, unsigned& flags) {
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    const std::string_view a = ctx.arg(i);
    if (base::iequals(a, "nx"))
      flags |= kNx;
    else if (base::iequals(a, "xx"))
      flags |= kXx;
    else if (base::iequals(a, "gt"))
      flags |= kGt;
    else if (base::iequals(a, "lt"))
      flags |= kLt;
    else {
      ctx.reply().error("ERR Unsupported option " + std::string(until_nul(a)));
      return false;
    }
  }
  if ((flags & kNx) && (flags & (kXx | kGt | kLt))) {
    ctx.reply().error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((flags & kGt) && (flags & kLt)) {
    ctx.reply().error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// Redis 7.0 expireGenericCommand: flags, then the number, overflow checks, then the key.
void expire_generic(CommandContext& ctx, long long basetime_ms, bool seconds) {
  unsigned flags = 0;
  if (!parse_expire_flags(ctx, flags)) return;
  long long when = 0;
  if (!ctx.parse_integer(2, when)) return;
  const std::string invalid = "ERR invalid expire time in '" + ctx.spec().full_name + "' command";
  if (seconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
      ctx.reply().error(invalid);
      return;
    }
    when *= 1000;
  }
  if (when > LLONG_MAX - basetime_ms) {
    ctx.reply().error(invalid);
    return;
  }
  when += basetime_ms;
  store::Entry* e = ctx.write(ctx.arg(1));
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  const long long current = e->expire_at_ms;  // -1: none (an infinite TTL for GT/LT)
  if (((flags & kNx) && current != -1) || ((flags & kXx) && current == -1) ||
      ((flags & kGt) && (current == -1 || when <= current)) ||
      ((flags & kLt) && current != -1 && when >= current)) {
    ctx.reply().integer(0);
    return;
  }
  // Redis expireGenericCommand's effects: DEL for a deadline already past, else the command
  // with PEXPIREAT for its name and the absolute deadline for its time (its options kept).
  if (when <= ctx.now_ms()) {
    ctx.delete_key(ctx.arg(1));
    ctx.propagate_as({"DEL", ctx.arg(1)});
    ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
    ctx.mark_dirty();
    ctx.reply().integer(1);
    return;
  }
  {
    ctx.db().set_expire(*e, when);
    if (ctx.effects_wanted()) {
      const std::string at = std::to_string(when);
      std::vector<std::string_view> effect(ctx.argv().begin(), ctx.argv().end());
      effect[0] = "PEXPIREAT";
      effect[2] = at;
      ctx.propagate_as(effect);
    }
  }
  ctx.mark_dirty();
  ctx.reply().integer(1);
  ctx.notify(config::kNotifyGeneric, "expire", ctx.arg(1));  // Redis: after the reply
}

// EXPIRE key seconds [NX|XX|GT|LT]
void cmd_expire(CommandContext& ctx) { expire_generic(ctx, ctx.now_ms(), true); }
// PEXPIRE key milliseconds [NX|XX|GT|LT]
void cmd_pexpire(CommandContext& ctx) { expire_generic(ctx, ctx.now_ms(), false); }
// EXPIREAT key unix-time-seconds [NX|XX|GT|LT]
void cmd_expireat(CommandContext& ctx) { expire_generic(ctx, 0, true); }
// PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT]
void cmd_pexpireat(CommandContext& ctx) { expire_generic(ctx, 0, false); }

enum class TtlKind { kTtl, kPttl, kExpireTime, kPexpireTime };

void ttl_generic(CommandContext& ctx, TtlKind kind) {
  store::Entry* e = ctx.read_no_touch(ctx.arg(1));  // Redis TTL: LOOKUP_NOTOUCH
  if (!e) {
    ctx.reply().integer(-2);
    return;
  }
  const long long at = e->expire_at_ms;
  if (at < 0) {
    ctx.reply().integer(-1);
    return;
  }
  long long ttl = at - ctx.now_ms();
  if (ttl < 0) ttl = 0;
  switch (kind) {
    case TtlKind::kTtl: ctx.reply().integer((ttl + 500) / 1000); break;
    case TtlKind::kPttl: ctx.reply().integer(ttl); break;
    // Redis 7.0 ttlGenericCommand rounds the absolute deadline as it rounds TTL.
    case TtlKind::kExpireTime: ctx.reply().integer((at + 500) / 1000); break;
    case TtlKind::kPexpireTime: ctx.reply().integer(at); break;
  }
}

// TTL key
void cmd_ttl(CommandContext& ctx) { ttl_generic(ctx, TtlKind::kTtl); }
// PTTL key
void cmd_pttl(CommandContext& ctx) { ttl_generic(ctx, TtlKind::kPttl); }
// EXPIRETIME key
void cmd_expiretime(CommandContext& ctx) { ttl_generic(ctx, TtlKind::kExpireTime); }
// PEXPIRETIME key
void cmd_pexpiretime(CommandContext& ctx) { ttl_generic(ctx, TtlKind::kPexpireTime); }

// PERSIST key
void cmd_persist(CommandContext& ctx) {
  store::Entry* e = ctx.write(ctx.arg(1));
  if (e && ctx.db().persist(*e)) {
    ctx.mark_dirty();
    ctx.notify(config::kNotifyGeneric, "persist", ctx.arg(1));
    ctx.reply().integer(1);
  } else {
    ctx.reply().integer(0);
  }
}

}  // namespace

void register_expire_commands(CommandTable& table) {
  CommandFamily t = table.family("generic");
  t.add("expire", -3, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_expire, "1.0.0",
        "Set a key's time to live in seconds");
  t.add("pexpire", -3, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_pexpire, "2.6.0",
        "Set a key's time to live in milliseconds");
  t.add("expireat", -3, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_expireat, "1.2.0",
        "Set the expiration for a key as a UNIX timestamp");
  t.add("pexpireat", -3, kWrite | kFast | kOwnEffect, kFirstKey, &cmd_pexpireat, "2.6.0",
        "Set the expiration for a key as a UNIX timestamp specified in milliseconds");
  t.add("ttl", 2, kReadonly | kFast, kFirstKey, &cmd_ttl, "1.0.0",
        "Get the time to live for a key in seconds");
  t.add("pttl", 2, kReadonly | kFast, kFirstKey, &cmd_pttl, "2.6.0",
        "Get the time to live for a key in milliseconds");
  t.add("expiretime", 2, kReadonly | kFast, kFirstKey, &cmd_expiretime, "7.0.0",
        "Get the expiration Unix timestamp for a key");
  t.add("pexpiretime", 2, kReadonly | kFast, kFirstKey, &cmd_pexpiretime, "7.0.0",
        "Get the expiration Unix timestamp for a key in milliseconds");
  t.add("persist", 2, kWrite | kFast, kFirstKey, &cmd_persist, "2.2.0",
        "Remove the expiration from a key");
}

}  // namespace listd::server
