// Server commands: INFO, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, TIME, LASTSAVE, SHUTDOWN, MONITOR,
// DEBUG (SLEEP, WAITERS).
#include <chrono>
#include <thread>

#include "listd/base/number.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/info.h"
#include "listd/server/persistence.h"
#include "listd/server/scripting.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// INFO [section [section ...]]
void cmd_info(CommandContext& ctx) {
  ctx.reply().verbatim(build_info(ctx.exec(), ctx.argv().subspan(1)));
}

// DBSIZE
void cmd_dbsize(CommandContext& ctx) {
  ctx.reply().integer(static_cast<long long>(ctx.db().size()));
}

bool parse_flush_mode(CommandContext& ctx) {
  if (ctx.argc() > 2 || (ctx.argc() == 2 && !base::iequals(ctx.arg(1), "async") &&
                         !base::iequals(ctx.arg(1), "sync"))) {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  return true;
}

void flush_db(CommandContext& ctx, store::Database& db) {
  const long long removed = static_cast<long long>(db.size());
  ctx.exec().transactions().touch_existing(db.index(), &db, nullptr);  // before the keys go
  db.clear();
  // The streams gone wake their XREADGROUP waiters with -UNBLOCKED (Redis 7.0
  // scanDatabaseForDeletedStreams); a waiter of any other kind finds no key and waits on.
  ctx.exec().blocking().signal_all_keys(db.index());
  ctx.mark_dirty(removed);
}

// FLUSHDB [ASYNC|SYNC]
void cmd_flushdb(CommandContext& ctx) {
  if (!parse_flush_mode(ctx)) return;
  flush_db(ctx, ctx.db());
  ctx.exec().invalidate_all_tracked();  // Redis signalFlushedDb: tracked keys are not per db
  ctx.reply().ok();
}

// FLUSHALL [ASYNC|SYNC]
void cmd_flushall(CommandContext& ctx) {
  if (!parse_flush_mode(ctx)) return;
  for (int i = 0; i < ctx.exec().keyspace().database_count(); ++i)
    flush_db(ctx, ctx.exec().keyspace().db(i));
  ctx.exec().invalidate_all_tracked();
  ctx.mark_dirty();
  ctx.reply().ok();
}

// SWAPDB index1 index2
void cmd_swapdb(CommandContext& ctx) {
  long long a = 0, b = 0;
  if (!base::parse_strict_integer(ctx.arg(1), a)) {
    ctx.reply().error("ERR invalid first DB index");
    return;
  }
  if (!base::parse_strict_integer(ctx.arg(2), b)) {
    ctx.reply().error("ERR invalid second DB index");
    return;
  }
  const int n = ctx.exec().keyspace().database_count();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    ctx.reply().error(kDbIndexOutOfRangeErr);
    return;
  }
  Executor& exec = ctx.exec();
  exec.keyspace().swap(static_cast<int>(a), static_cast<int>(b));
  store::Database& da = exec.keyspace().db(static_cast<int>(a));
  store::Database& db = exec.keyspace().db(static_cast<int>(b));
  exec.transactions().touch_existing(static_cast<int>(a), &da, &db);
  exec.transactions().touch_existing(static_cast<int>(b), &db, &da);
  // Lists may now exist where clients wait: serve them (Redis scanDatabaseForReadyKeys); a
  // stream gone or replaced wakes its XREADGROUP waiters (scanDatabaseForDeletedStreams).
  exec.blocking().signal_all_keys(static_cast<int>(a));
  exec.blocking().signal_all_keys(static_cast<int>(b));
  ctx.mark_dirty();
  ctx.switch_db(ctx.client().db);
  ctx.reply().ok();
}

// TIME
void cmd_time(CommandContext& ctx) {
  const std::int64_t us = ctx.exec().clock().unix_us();
  auto r = ctx.reply();
  r.array_header(2);
  r.bulk(std::to_string(us / 1000000));
  r.bulk(std::to_string(us % 1000000));
}

// LASTSAVE
void cmd_lastsave(CommandContext& ctx) { ctx.reply().integer(ctx.exec().stats().lastsave_unix_s); }

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]
void cmd_shutdown(CommandContext& ctx) {
  bool save = false, nosave = false, force = false;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const std::string_view a = ctx.arg(i);
    if (base::iequals(a, "nosave")) {
      nosave = true;
    } else if (base::iequals(a, "save")) {
      save = true;
    } else if (base::iequals(a, "force")) {
      force = true;
    } else if (base::iequals(a, "now")) {
      // listd has no replicas to wait for: NOW changes nothing.
    } else if (base::iequals(a, "abort")) {
      ctx.reply().error("ERR No shutdown in progress.");
      return;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  if (save && nosave) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  // Redis: never a snapshot of a half-loaded data set; the load stops (DataLoader).
  if (ctx.exec().persistence().loading()) {
    save = false;
    nosave = true;
  }
  Scripting& scripting = ctx.exec().scripting();
  if (scripting.busy()) {
    // Only SHUTDOWN NOSAVE ends a busy script: a snapshot now would hold half of it.
    if (!nosave) {
      ctx.reply().error(scripting.busy_error());
      return;
    }
    scripting.kill_for_shutdown();
  }
  // Save points (or SAVE) mean a final snapshot; if it fails Redis stays up unless FORCE.
  if (!ctx.exec().persistence().save_before_exit(save, nosave, force)) {
    ctx.reply().error("ERR Errors trying to SHUTDOWN. Check logs.");
    return;
  }
  // No reply: the connection closes when the server stops, as with Redis.
  ctx.exec().request_shutdown();
}

// MONITOR
void cmd_monitor(CommandContext& ctx) {
  ctx.exec().clients().add_monitor(ctx.client());
  ctx.reply().ok();
}

// DEBUG SLEEP seconds | DEBUG WAITERS
void cmd_debug(CommandContext& ctx) {
  const std::string_view sub = ctx.arg(1);
  if (base::iequals(sub, "sleep") && ctx.argc() == 3) {
    long double secs = 0;
    if (!base::parse_long_double(ctx.arg(2), secs) || secs < 0) {
      ctx.reply().error(kNotFloatErr);
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long long>(secs * 1e6L)));
    ctx.reply().ok();
    return;
  }
  if (base::iequals(sub, "waiters") && ctx.argc() == 2) {
    // listd's own introspection: [db, key, waiter count] for every key with waiters, so tests
    // can assert that no waiter leaked.
    std::vector<std::pair<const store::DbKey*, std::size_t>> rows;
    ctx.exec().blocking().waiters().for_each_key(
        [&](const store::DbKey& k, std::size_t n) { rows.emplace_back(&k, n); });
    auto r = ctx.reply();
    r.array_header(rows.size());
    for (const auto& [k, n] : rows) {
      r.array_header(3);
      r.integer(k->db);
      r.bulk(k->key);
      r.integer(static_cast<long long>(n));
    }
    return;
  }
  if (base::iequals(sub, "help")) {
    auto r = ctx.reply();
    r.array_header(3);
    r.simple("DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    r.simple("SLEEP <seconds>: stop the server for <seconds> (a float).");
    r.simple("WAITERS: every key with blocked clients, as [db, key, count].");
    return;
  }
  ctx.reply().error("ERR unknown subcommand or wrong number of arguments for '" +
                    std::string(until_nul(sub)) + "'. Try DEBUG HELP.");
}

}  // namespace

void register_server_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  t.add("info", -1, kLoading | kStale | kSentinel, kNoKeys, &cmd_info, "1.0.0",
        "Get information and statistics about the server");
  t.add("dbsize", 1, kReadonly | kFast, kNoKeys, &cmd_dbsize, "1.0.0",
        "Return the number of keys in the selected database");
  t.add("flushdb", -1, kWrite, kNoKeys, &cmd_flushdb, "1.0.0",
        "Remove all keys from the current database");
  t.add("flushall", -1, kWrite, kNoKeys, &cmd_flushall, "1.0.0",
        "Remove all keys from all databases");
  t.add("swapdb", 3, kWrite | kFast, kNoKeys, &cmd_swapdb, "4.0.0", "Swaps two Redis databases");
  t.add("time", 1, kLoading | kStale | kFast, kNoKeys, &cmd_time, "2.6.0",
        "Return the current server time");
  t.add("lastsave", 1, kLoading | kStale | kFast, kNoKeys, &cmd_lastsave, "1.0.0",
        "Get the UNIX time stamp of the last successful save to disk");
  t.add("shutdown", -1, kAdmin | kNoScript | kLoading | kStale | kNoMulti | kSentinel | kAllowBusy,
        kNoKeys, &cmd_shutdown, "1.0.0",
        "Synchronously save the dataset to disk and then shut down the server");
  t.add("monitor", 1, kAdmin | kNoScript | kLoading | kStale, kNoKeys, &cmd_monitor, "1.0.0",
        "Listen for all requests received by the server in real time");
  t.add("debug", -2, kAdmin | kNoScript | kLoading | kStale, kNoKeys, &cmd_debug, "1.0.0",
        "A container for debugging commands");
}

}  // namespace listd::server
