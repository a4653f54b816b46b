// Keyspace commands: DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN, RANDOMKEY, RENAME, RENAMENX, COPY,
// MOVE, TOUCH, OBJECT, MEMORY USAGE.
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "listd/base/glob.h"
#include "listd/base/number.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/key_access.h"
#include "listd/server/memory_doctor.h"
#include "listd/server/memory_stats.h"
#include "listd/server/scan_args.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// DEL key [key ...]   (UNLINK is the same here: values are freed in O(blocks), not per element)
void cmd_del(CommandContext& ctx) {
  long long removed = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i)
    if (ctx.write(ctx.arg(i)) && ctx.delete_key(ctx.arg(i))) {
      ctx.notify(config::kNotifyGeneric, "del", ctx.arg(i));
      ctx.changed_key(ctx.arg(i));  // only the deleted keys were modified (WATCH, TRACKING)
      ++removed;
    }
  ctx.mark_dirty(removed);
  ctx.reply().integer(removed);
}

// EXISTS key [key ...]
void cmd_exists(CommandContext& ctx) {
  long long n = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i)
    if (ctx.read_no_touch(ctx.arg(i))) ++n;  // Redis EXISTS: LOOKUP_NOTOUCH
  ctx.reply().integer(n);
}

// TOUCH key [key ...]
void cmd_touch(CommandContext& ctx) { cmd_exists(ctx); }

// TYPE key
void cmd_type(CommandContext& ctx) {
  store::Entry* e = ctx.read_no_touch(ctx.arg(1));  // Redis TYPE: LOOKUP_NOTOUCH
  ctx.reply().simple(e ? e->value.type_name() : "none");
}

// KEYS pattern
void cmd_keys(CommandContext& ctx) {
  const std::string_view pattern = ctx.arg(1);
  const bool all = pattern == "*";
  const std::int64_t now = ctx.now_ms();
  std::vector<std::string_view> keys;
  ctx.db().dict().for_each([&](const store::Entry& e) {
    if (store::Database::expired(e, now)) return;
    if (all || base::glob_match(pattern, e.key())) keys.push_back(e.key());
  });
  auto r = ctx.reply();
  r.array_header(keys.size());
  for (std::string_view k : keys) r.bulk(k);
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
void cmd_scan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!parse_scan_cursor(ctx, 1, cursor)) return;
  ScanOptions o;
  if (!parse_scan_options(ctx, 2, true, o)) return;
  const std::int64_t now = ctx.now_ms();
  // Keys are filtered while walking (MATCH, TYPE). A due key that passes MATCH is collected,
  // then deleted before the reply as Redis' scanGenericCommand does (`expired`, its DEL), by
  // the TYPE filter's counted lookup when there is one (`keymiss` too).
  enum class Due : std::uint8_t { kNo, kYes, kYesTyped };
  using Item = std::pair<std::string, Due>;
  const auto step = [&](std::uint64_t at, std::vector<Item>& keys) {
    return ctx.db().dict().scan(at, [&](const store::Entry& e) {
      if (o.use_pattern && !base::glob_match(o.pattern, e.key())) return;
      if (store::Database::expired(e, now)) {
        keys.emplace_back(e.key(), o.type.empty() ? Due::kYes : Due::kYesTyped);
        return;
      }
      if (!o.type.empty() && !base::iequals(o.type, e.value.type_name())) return;
      keys.emplace_back(e.key(), Due::kNo);
    });
  };
  const auto keep = [&](const Item& it) {
    if (it.second == Due::kNo) return true;
    if (it.second == Due::kYes)
      ctx.write(it.first);
    else
      ctx.read_no_touch(it.first);
    return false;
  };
  scan_generic<Item>(ctx, cursor, o.count, 1, step, keep,
                     [](protocol::ReplyWriter& r, const Item& it) { r.bulk(it.first); });
}

// RANDOMKEY
void cmd_randomkey(CommandContext& ctx) {
  store::Database& db = ctx.db();
  for (int tries = 0; tries < 100 && db.size() > 0; ++tries) {
    store::Entry* e = db.dict().random_entry(ctx.exec().rng());
    if (!store::Database::expired(*e, ctx.now_ms())) {
      ctx.reply().bulk(e->key());
      return;
    }
    const std::string key(e->key());
    ctx.write(key);  // deletes it as expired (Redis expireIfNeeded: no stats, no keymiss)
  }
  ctx.reply().null();
}

/// Moves the entry of `src` (in `from`) to `dst` in `to`, keeping value and expiry. Goes
/// through add_key so that a list landing on a waited key wakes its waiters.
void move_entry(Executor& exec, store::Database& from, std::string_view src, store::Database& to,
                std::string_view dst) {
  store::Entry* old = from.detach(src);
  // A stream leaving its key wakes that key's XREADGROUP waiters (-UNBLOCKED), as dbDelete.
  if (old->value.is(store::ValueType::kStream)) exec.blocking().signal_ready(from.index(), src);
  const std::int64_t expire = old->expire_at_ms;
  store::Entry* fresh = exec.add_key(to, dst, std::move(old->value));
  fresh->lru = old->lru;
  store::Entry::destroy(old);
  if (expire >= 0) to.set_expire(*fresh, expire);
  exec.touch_key(from.index(), src);
  exec.touch_key(to.index(), dst);
}

void rename_generic(CommandContext& ctx, bool nx) {
  const std::string_view src = ctx.arg(1), dst = ctx.arg(2);
  if (!ctx.write(src)) {
    ctx.reply().error(kNoSuchKeyErr);
    return;
  }
  if (src == dst) {
    if (nx)
      ctx.reply().integer(0);
    else
      ctx.reply().ok();
    return;
  }
  if (ctx.write(dst)) {
    if (nx) {
      ctx.reply().integer(0);
      return;
    }
    ctx.delete_key(dst);
  }
  move_entry(ctx.exec(), ctx.db(), src, ctx.db(), dst);
  ctx.notify(config::kNotifyGeneric, "rename_from", src);
  ctx.notify(config::kNotifyGeneric, "rename_to", dst);
  ctx.mark_dirty();
  if (nx)
    ctx.reply().integer(1);
  else
    ctx.reply().ok();
}

// RENAME key newkey
void cmd_rename(CommandContext& ctx) { rename_generic(ctx, false); }
// RENAMENX key newkey
void cmd_renamenx(CommandContext& ctx) { rename_generic(ctx, true); }

bool parse_db_index(CommandContext& ctx, std::string_view text, int& out) {
  long long n = 0;
  if (!base::parse_strict_integer(text, n) || n < INT_MIN || n > INT_MAX) {
    ctx.reply().error(kNotIntegerErr);
    return false;
  }
  if (n < 0 || n >= ctx.exec().keyspace().database_count()) {
    ctx.reply().error(kDbIndexOutOfRangeErr);
    return false;
  }
  out = static_cast<int>(n);
  return true;
}

// COPY source destination [DB destination-db] [REPLACE]
void cmd_copy(CommandContext& ctx) {
  const std::string_view src = ctx.arg(1), dst = ctx.arg(2);
  int dbid = ctx.client().db;
  bool replace = false;
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    if (base::iequals(ctx.arg(i), "replace")) {
      replace = true;
    } else if (base::iequals(ctx.arg(i), "db") && i + 1 < ctx.argc()) {
      if (!parse_db_index(ctx, ctx.arg(++i), dbid)) return;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  if (dbid == ctx.client().db && src == dst) {
    ctx.reply().error(kSameObjectErr);
    return;
  }
  store::Entry* e = ctx.read(src);
  if (!e) {
    ctx.reply().integer(0);
    return;
  }
  store::Database& to = ctx.exec().keyspace().db(dbid);
  if (const store::Entry* old = to.lookup(dst, ctx.now_ms())) {
    if (!replace) {
      ctx.reply().integer(0);
      return;
    }
    // A replaced stream wakes its XREADGROUP waiters: -UNBLOCKED, or -NOGROUP from the copy.
    if (old->value.is(store::ValueType::kStream)) ctx.exec().blocking().signal_ready(dbid, dst);
    to.remove(dst);
  }
  const std::int64_t expire = e->expire_at_ms;
  store::Entry* copy = ctx.exec().add_key(to, dst, e->value.clone());
  if (expire >= 0) to.set_expire(*copy, expire);
  ctx.exec().touch_key(dbid, dst);
  ctx.notify(config::kNotifyGeneric, "copy_to", dst, dbid);
  ctx.mark_dirty();
  ctx.reply().integer(1);
}

// MOVE key db
void cmd_move(CommandContext& ctx) {
  int dbid = 0;
  if (!parse_db_index(ctx, ctx.arg(2), dbid)) return;
  if (dbid == ctx.client().db) {
    ctx.reply().error(kSameObjectErr);
    return;
  }
  const std::string_view key = ctx.arg(1);
  store::Database& to = ctx.exec().keyspace().db(dbid);
  if (!ctx.write(key) || to.lookup(key, ctx.now_ms())) {
    ctx.reply().integer(0);
    return;
  }
  move_entry(ctx.exec(), ctx.db(), key, to, key);
  ctx.notify(config::kNotifyGeneric, "move_from", key);
  ctx.notify(config::kNotifyGeneric, "move_to", key, dbid);
  ctx.mark_dirty();
  ctx.reply().integer(1);
}

// OBJECT ENCODING|REFCOUNT|IDLETIME|FREQ key
store::Entry* object_target(CommandContext& ctx) {
  // OBJECT does not count as an access (Redis uses LOOKUP_NOTOUCH), but as a lookup.
  return ctx.read_no_notify(ctx.arg(2));  // Redis: LOOKUP_NOTOUCH|LOOKUP_NONOTIFY
}

void cmd_object_encoding(CommandContext& ctx) {
  store::Entry* e = object_target(ctx);
  if (e)
    ctx.reply().bulk(e->value.encoding_name());
  else
    ctx.reply().null();
}

void cmd_object_refcount(CommandContext& ctx) {
  store::Entry* e = object_target(ctx);
  if (!e) {
    ctx.reply().null();
    return;
  }
  // Redis shares the string objects of the integers 0..9999 (refcount INT_MAX).
  const bool shared =
      e->value.is(store::ValueType::kString) && e->value.as_string().shared_integer();
  ctx.reply().integer(shared ? INT_MAX : 1);
}

void cmd_object_idletime(CommandContext& ctx) {
  store::Entry* e = object_target(ctx);
  if (!e) {
    ctx.reply().null();
    return;
  }
  const config::ServerSettings& s = ctx.exec().config().settings();
  if (config::is_lfu(s.maxmemory_policy)) {
    ctx.reply().error(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
        "switching between policies at runtime LRU and LFU data will take some time to adjust.");
    return;
  }
  ctx.reply().integer(static_cast<long long>(idle_ms(e->lru, ctx.now_ms()) / 1000));
}

void cmd_object_freq(CommandContext& ctx) {
  store::Entry* e = object_target(ctx);
  if (!e) {
    ctx.reply().null();
    return;
  }
  const config::ServerSettings& s = ctx.exec().config().settings();
  if (!config::is_lfu(s.maxmemory_policy)) {
    ctx.reply().error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time "
        "to adjust.");
    return;
  }
  ctx.reply().integer(lfu_frequency(e->lru, ctx.now_ms(), s.lfu_decay_time));
}

// OBJECT HELP
void cmd_object_help(CommandContext& ctx) {
  reply_help(ctx,
             {
                 "ENCODING <key>",
                 "    Return the kind of internal representation used in order to store the value",
                 "    associated with a <key>.",
                 "FREQ <key>",
                 "    Return the access frequency index of the <key>. The returned integer is",
                 "    proportional to the logarithm of the recent access frequency of the key.",
                 "IDLETIME <key>",
                 "    Return the idle time of the <key>, that is the approximated number of",
                 "    seconds elapsed since the last access to the key.",
                 "REFCOUNT <key>",
                 "    Return the number of references of the value associated with the specified",
                 "    <key>.",
             });
}

// MEMORY USAGE key [SAMPLES count]
void cmd_memory_usage(CommandContext& ctx) {
  if (ctx.argc() != 3 && !(ctx.argc() == 5 && base::iequals(ctx.arg(3), "samples"))) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  if (ctx.argc() == 5) {
    long long samples = 0;
    if (!ctx.parse_integer(4, samples)) return;
  }
  store::Entry* e = ctx.read_no_notify(ctx.arg(2));  // Redis: LOOKUP_NOTOUCH|LOOKUP_NONOTIFY
  if (!e) {
    ctx.reply().null();
    return;
  }
  // The entry allocation (key, value slot, expiry) + its bucket slot + the payload.
  ctx.reply().integer(
      static_cast<long long>(e->overhead() + sizeof(void*) + e->value.memory_usage()));
}

// MEMORY HELP
void cmd_memory_help(CommandContext& ctx) {
  reply_help(ctx, {
                      "DOCTOR",
                      "    Return memory problems reports.",
                      "MALLOC-STATS",
                      "    Return internal statistics report from the memory allocator.",
                      "PURGE",
                      "    Attempt to purge dirty pages for reclamation by the allocator.",
                      "STATS",
                      "    Return information about the memory usage of the server.",
                      "USAGE <key> [SAMPLES <count>]",
                      "    Return memory in bytes used by <key> and its value. Nested values are",
                      "    sampled up to <count> times (default: 5, 0 means sample all).",
                  });
}

}  // namespace

void register_keyspace_commands(CommandTable& table) {
  CommandFamily t = table.family("generic");
  CommandFamily server = table.family("server");
  t.add("del", -2, kWrite, kAllKeys, &cmd_del, "1.0.0", "Delete a key");
  t.add("unlink", -2, kWrite | kFast, kAllKeys, &cmd_del, "4.0.0",
        "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non "
        "blocking.");
  t.add("exists", -2, kReadonly | kFast, kAllKeys, &cmd_exists, "1.0.0",
        "Determine if a key exists");
  t.add("touch", -2, kReadonly | kFast, kAllKeys, &cmd_touch, "3.2.1",
        "Alters the last access time of a key(s). Returns the number of existing keys specified.");
  t.add("type", 2, kReadonly | kFast, kFirstKey, &cmd_type, "1.0.0",
        "Determine the type stored at key");
  t.add("keys", 2, kReadonly, kNoKeys, &cmd_keys, "1.0.0",
        "Find all keys matching the given pattern");
  t.add("scan", -2, kReadonly | kTouchesArbitraryKeys, kNoKeys, &cmd_scan, "2.8.0",
        "Incrementally iterate the keys space");
  t.add("randomkey", 1, kReadonly | kTouchesArbitraryKeys, kNoKeys, &cmd_randomkey, "1.0.0",
        "Return a random key from the keyspace");
  t.add("rename", 3, kWrite, kFirstTwoKeys, &cmd_rename, "1.0.0", "Rename a key");
  t.add("renamenx", 3, kWrite | kFast, kFirstTwoKeys, &cmd_renamenx, "1.0.0",
        "Rename a key, only if the new key does not exist");
  t.add("copy", -3, kWrite | kDenyOom, kFirstTwoKeys, &cmd_copy, "6.2.0", "Copy a key");
  t.add("move", 3, kWrite | kFast, kFirstKey, &cmd_move, "1.0.0", "Move a key to another database");

  CommandSpec& object = t.add("object", -2, 0, kNoKeys, nullptr, "2.2.3",
                              "A container for object introspection commands");
  t.add_subcommand(object, "encoding", 3, kReadonly, {2, 2, 1}, &cmd_object_encoding, "2.2.3",
                   "Inspect the internal encoding of a Redis object");
  t.add_subcommand(object, "refcount", 3, kReadonly, {2, 2, 1}, &cmd_object_refcount, "2.2.3",
                   "Get the number of references to the value of the key");
  t.add_subcommand(object, "idletime", 3, kReadonly, {2, 2, 1}, &cmd_object_idletime, "2.2.3",
                   "Get the time since a Redis object was last accessed");
  t.add_subcommand(object, "freq", 3, kReadonly, {2, 2, 1}, &cmd_object_freq, "4.0.0",
                   "Get the logarithmic access frequency counter of a Redis object");
  t.add_subcommand(object, "help", 2, kLoading | kStale, kNoKeys, &cmd_object_help, "6.2.0",
                   "Show helpful text about the different subcommands");

  CommandSpec& memory = server.add("memory", -2, 0, kNoKeys, nullptr, "4.0.0",
                                   "A container for memory diagnostics commands");
  server.add_subcommand(memory, "usage", -3, kReadonly, {2, 2, 1}, &cmd_memory_usage, "4.0.0",
                        "Estimate the memory usage of a key");
  server.add_subcommand(memory, "help", 2, kLoading | kStale, kNoKeys, &cmd_memory_help, "4.0.0",
                        "Show helpful text about the different subcommands");
  server.add_subcommand(memory, "doctor", 2, 0, kNoKeys, &cmd_memory_doctor, "4.0.0",
                        "Outputs memory problems report");
  server.add_subcommand(memory, "malloc-stats", 2, 0, kNoKeys, &cmd_memory_malloc_stats, "4.0.0",
                        "Show allocator internal stats");
  server.add_subcommand(memory, "purge", 2, 0, kNoKeys, &cmd_memory_purge, "4.0.0",
                        "Ask the allocator to release memory");
  server.add_subcommand(memory, "stats", 2, 0, kNoKeys, &cmd_memory_stats, "4.0.0",
                        "Show memory usage details");
}

}  // namespace listd::server
