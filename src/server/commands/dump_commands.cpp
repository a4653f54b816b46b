// DUMP and RESTORE (Redis 7.0 cluster.c dumpCommand / restoreCommand): a value's serialized form
// in Redis' DUMP payload (persistence/value_codec.h), so keys move between listd and Redis.
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/persistence/value_codec.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/key_access.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_replica.h"

namespace listd::server {
namespace {

// DUMP key
void cmd_dump(CommandContext& ctx) {
  const store::Entry* e = ctx.read(ctx.arg(1));
  if (!e) {
    ctx.reply().null();
    return;
  }
  // Redis createDumpPayload writes strings as rdbSaveObject does: LZF under rdbcompression.
  ctx.reply().bulk(
      persistence::encode_dump_payload(e->value, ctx.exec().config().settings().rdbcompression));
}

// RESTORE's options, in Redis' parse order; -1 when not given.
struct RestoreOptions {
  bool replace = false;
  bool absttl = false;
  long long idle_s = -1;
  long long freq = -1;
};

// IDLETIME and FREQ exclude each other: the second one given is a syntax error, as in Redis.
bool parse_restore_options(CommandContext& ctx, RestoreOptions& o) {
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    const std::string_view a = ctx.arg(j);
    const bool has_value = j + 1 < ctx.argc();
    if (base::iequals(a, "replace")) {
      o.replace = true;
    } else if (base::iequals(a, "absttl")) {
      o.absttl = true;
    } else if (base::iequals(a, "idletime") && has_value && o.freq == -1) {
      if (!ctx.parse_integer(++j, o.idle_s)) return false;
      if (o.idle_s < 0) {
        ctx.reply().error("ERR Invalid IDLETIME value, must be >= 0");
        return false;
      }
    } else if (base::iequals(a, "freq") && has_value && o.idle_s == -1) {
      if (!ctx.parse_integer(++j, o.freq)) return false;
      if (o.freq < 0 || o.freq > 255) {
        ctx.reply().error("ERR Invalid FREQ value, must be >= 0 and <= 255");
        return false;
      }
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

// Redis checkAlreadyExpired: a deadline in the past deletes, except while loading the AOF or
// on a replica, which wait for the DEL their source sends.
bool already_expired(CommandContext& ctx, long long when_ms) {
  return when_ms <= ctx.now_ms() && !ctx.exec().persistence().loading() &&
         !ctx.exec().replica_side().active();
}

// The effect of a RESTORE with a relative TTL: the absolute deadline and ABSTTL (Redis
// rewriteClientCommandArgument), so a replay later restores the same deadline.
void propagate_absolute(CommandContext& ctx, long long when_ms) {
  if (!ctx.effects_wanted()) return;
  const std::string at = std::to_string(when_ms);
  std::vector<std::string_view> effect(ctx.argv().begin(), ctx.argv().end());
  effect[2] = at;
  effect.emplace_back("ABSTTL");
  ctx.propagate_as(effect);
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
void cmd_restore(CommandContext& ctx) {
  RestoreOptions o;
  if (!parse_restore_options(ctx, o)) return;
  const std::string_view key = ctx.arg(1);
  if (!o.replace && ctx.write(key)) {
    ctx.reply().error("BUSYKEY Target key name already exists.");
    return;
  }
  long long ttl = 0;
  if (!ctx.parse_integer(2, ttl)) return;
  if (ttl < 0) {
    ctx.reply().error("ERR Invalid TTL value, must be >= 0");
    return;
  }
  persistence::DecodedDump dump = persistence::decode_dump_payload(ctx.arg(3));
  if (dump.error == persistence::DumpPayloadError::kVersionOrChecksum) {
    ctx.reply().error("ERR DUMP payload version or checksum are wrong");
    return;
  }
  if (dump.error != persistence::DumpPayloadError::kNone) {
    ctx.reply().error("ERR Bad data format");
    return;
  }
  const bool deleted = o.replace && ctx.write(key) && ctx.delete_key(key);
  if (ttl && !o.absttl) ttl += ctx.now_ms();
  if (ttl && already_expired(ctx, ttl)) {
    if (deleted) {
      ctx.propagate_as({"DEL", key});
      ctx.notify(config::kNotifyGeneric, "del", key);
      ctx.mark_dirty();
    }
    ctx.reply().ok();
    return;
  }
  store::Entry* e = ctx.add_key(key, std::move(*dump.value));
  if (ttl) {
    ctx.db().set_expire(*e, ttl);
    if (!o.absttl) propagate_absolute(ctx, ttl);
  }
  if (!ttl || o.absttl) ctx.propagate_as(ctx.argv());
  // FREQ counts only under an LFU policy, IDLETIME only under the others (objectSetLRUOrLFU).
  e->lru = access_word_from(ctx.exec().config().settings(), ctx.now_ms(), o.idle_s, o.freq, e->lru);
  ctx.notify(config::kNotifyGeneric, "restore", key);
  ctx.reply().ok();
  ctx.mark_dirty();
}

}  // namespace

void register_dump_commands(CommandTable& table) {
  CommandFamily t = table.family("generic");
  t.add("dump", 2, kReadonly, kFirstKey, &cmd_dump, "2.6.0",
        "Return a serialized version of the value stored at the specified key.");
  t.add("restore", -4, kWrite | kDenyOom | kOwnEffect, kFirstKey, &cmd_restore, "2.6.0",
        "Create a key using the provided serialized value, previously obtained using DUMP.");
  // The form a cluster's MIGRATE sends after an -ASK redirect; on a standalone server, RESTORE.
  table.family("server").add("restore-asking", -4, kWrite | kDenyOom | kOwnEffect, kFirstKey,
                             &cmd_restore, "3.0.0",
                             "An internal command for migrating keys in a cluster");
}

}  // namespace listd::server
