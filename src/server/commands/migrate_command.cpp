// MIGRATE (Redis 7.0 cluster.c migrateCommand): keys sent to another instance as RESTORE
// commands carrying DUMP payloads, over a kept connection (server/migrate_sockets.h), then
// deleted here unless COPY; the executor waits for the target, as Redis' server does. Its
// effect is a DEL of the keys the target acknowledged.
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/persistence/aof_encoder.h"
#include "listd/persistence/value_codec.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

struct MigrateArgs {
  bool copy = false;
  bool replace = false;
  bool auth = false;  // AUTH password or AUTH2 username password
  bool auth2 = false;
  std::string_view username;
  std::string_view password;
  std::size_t first_key = 3;
  std::size_t key_count = 1;
  long long timeout_ms = 0;
  long long db = 0;
};

// The options after the timeout, in Redis' order of checks; then the timeout and the db.
bool parse_migrate(CommandContext& ctx, MigrateArgs& a) {
  for (std::size_t j = 6; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const std::size_t more = ctx.argc() - 1 - j;
    if (base::iequals(opt, "copy")) {
      a.copy = true;
    } else if (base::iequals(opt, "replace")) {
      a.replace = true;
    } else if (base::iequals(opt, "auth") && more >= 1) {
      a.auth = true;
      a.password = ctx.arg(++j);
      ctx.exec().redact_argument(j);
    } else if (base::iequals(opt, "auth2") && more >= 2) {
      a.auth = a.auth2 = true;
      a.username = ctx.arg(++j);
      ctx.exec().redact_argument(j);
      a.password = ctx.arg(++j);
      ctx.exec().redact_argument(j);
    } else if (base::iequals(opt, "keys")) {
      if (!ctx.arg(3).empty()) {
        ctx.reply().error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
        return false;
      }
      a.first_key = j + 1;
      a.key_count = ctx.argc() - j - 1;
      break;  // the rest are keys
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  if (!ctx.parse_integer(5, a.timeout_ms) || !ctx.parse_integer(4, a.db)) return false;
  if (a.timeout_ms <= 0) a.timeout_ms = 1000;
  return true;
}

// One key to send: its name, payload and remaining TTL (0: none).
struct Outgoing {
  std::string_view key;
  std::string payload;
  long long ttl_ms = 0;
};

// The whole request: AUTH, SELECT when the link's db differs, one RESTORE per key.
std::string migrate_request(const MigrateArgs& a, bool select, std::span<const Outgoing> keys) {
  std::string out;
  if (a.auth2) {
    persistence::append_resp_command(out,
                                     std::vector<std::string_view>{"AUTH", a.username, a.password});
  } else if (a.auth) {
    persistence::append_resp_command(out, std::vector<std::string_view>{"AUTH", a.password});
  }
  const std::string db = std::to_string(a.db);
  if (select) persistence::append_resp_command(out, std::vector<std::string_view>{"SELECT", db});
  for (const Outgoing& k : keys) {
    const std::string ttl = std::to_string(k.ttl_ms);
    std::vector<std::string_view> restore{"RESTORE", k.key, ttl, k.payload};
    if (a.replace) restore.emplace_back("REPLACE");
    persistence::append_resp_command(out, restore);
  }
  return out;
}

// The keys still here, their payloads, and their TTLs (a key that expired since is left out).
std::vector<Outgoing> collect_keys(CommandContext& ctx, const MigrateArgs& a) {
  std::vector<Outgoing> out;
  for (std::size_t j = 0; j < a.key_count; ++j) {
    const std::string_view key = ctx.arg(a.first_key + j);
    const store::Entry* e = ctx.read(key);
    if (!e) continue;
    Outgoing k{key, {}, 0};
    if (e->expire_at_ms >= 0) {
      k.ttl_ms = e->expire_at_ms - ctx.now_ms();
      if (k.ttl_ms < 0) continue;
      if (k.ttl_ms < 1) k.ttl_ms = 1;
    }
    k.payload =
        persistence::encode_dump_payload(e->value, ctx.exec().config().settings().rdbcompression);
    out.push_back(std::move(k));
  }
  return out;
}

enum class Outcome { kDone, kRetry, kSocketError };

// One attempt on the (kept or new) link; kRetry when the link failed before any key was
// acknowledged and not by a timeout, so a fresh connection may do it (a kept link the target
// closed meanwhile).
Outcome migrate_once(CommandContext& ctx, const MigrateArgs& a, std::span<const Outgoing> keys,
                     std::vector<std::string_view>& deleted, bool& write_error) {
  MigrateSockets& sockets = ctx.exec().migrate_sockets();
  const std::string_view host = ctx.arg(1), port = ctx.arg(2);
  MigrateSockets::Link* link = sockets.get(host, port, a.timeout_ms, ctx.now_ms() / 1000);
  if (!link) {
    ctx.reply().error("IOERR error or timeout connecting to the client");
    return Outcome::kDone;
  }
  const bool select = link->last_dbid != a.db;
  bool timed_out = false;
  write_error = false;
  if (!MigrateSockets::write_all(*link, migrate_request(a, select, keys), a.timeout_ms,
                                 timed_out)) {
    write_error = true;
    sockets.close(host, port);
    return timed_out ? Outcome::kSocketError : Outcome::kRetry;
  }
  std::string auth_reply, select_reply, reply;
  if ((a.auth && !MigrateSockets::read_line(*link, auth_reply, a.timeout_ms, timed_out)) ||
      (select && !MigrateSockets::read_line(*link, select_reply, a.timeout_ms, timed_out))) {
    sockets.close(host, port);
    return timed_out ? Outcome::kSocketError : Outcome::kRetry;
  }
  bool target_error = false, socket_error = false;
  std::size_t read = 0;
  for (; read < keys.size(); ++read) {
    if (!MigrateSockets::read_line(*link, reply, a.timeout_ms, timed_out)) {
      socket_error = true;
      break;
    }
    const std::string* error = a.auth && auth_reply.starts_with('-')     ? &auth_reply
                               : select && select_reply.starts_with('-') ? &select_reply
                               : reply.starts_with('-')                  ? &reply
                                                                         : nullptr;
    if (error) {
      if (!target_error) {
        link->last_dbid = -1;  // the target's db is no longer known
        target_error = true;
        ctx.reply().error("ERR Target instance replied with error: " + error->substr(1));
      }
    } else if (!a.copy) {
      // Acknowledged: gone from here at once (its `del` event precedes MIGRATE's reply).
      const std::string_view key = keys[read].key;
      ctx.delete_key(key);
      ctx.changed_key(key);
      ctx.notify(config::kNotifyGeneric, "del", key);
      ctx.mark_dirty();
      deleted.push_back(key);
    }
  }
  if (socket_error) {
    sockets.close(host, port);
    if (!target_error && read == 0 && !timed_out) return Outcome::kRetry;
    if (!target_error) return Outcome::kSocketError;
  }
  if (!target_error) {
    link->last_dbid = a.db;
    ctx.reply().ok();
  }
  return Outcome::kDone;
}

// The effect of the keys the target acknowledged (deleted as their replies came): their DEL.
void propagate_deleted(CommandContext& ctx, std::span<const std::string_view> keys) {
  if (keys.empty()) return;
  std::vector<std::string_view> del{"DEL"};
  del.insert(del.end(), keys.begin(), keys.end());
  ctx.propagate_as(del);
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password |
//         AUTH2 username password] [KEYS key [key ...]]
void cmd_migrate(CommandContext& ctx) {
  MigrateArgs a;
  if (!parse_migrate(ctx, a)) return;
  const std::vector<Outgoing> keys = collect_keys(ctx, a);
  if (keys.empty()) {  // not an error: the keys may just have expired
    ctx.reply().simple("NOKEY");
    return;
  }
  bool write_error = false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<std::string_view> deleted;
    const Outcome outcome = migrate_once(ctx, a, keys, deleted, write_error);
    propagate_deleted(ctx, deleted);
    if (outcome == Outcome::kDone) return;
    if (outcome == Outcome::kSocketError || !deleted.empty()) break;
  }
  ctx.reply().error(std::string("IOERR error or timeout ") + (write_error ? "writing" : "reading") +
                    " to target instance");
}

}  // namespace

void register_migrate_command(CommandTable& table) {
  table.family("generic").add("migrate", -6, kWrite | kOwnEffect, KeySpec{3, 3, 1}, &cmd_migrate,
                              "2.6.0",
                              "Atomically transfer a key from a Redis instance to another one.");
}

}  // namespace listd::server
