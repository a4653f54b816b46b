// Everything a command handler sees: its argv, the client, the selected database and the reply
// writer, plus helpers that give every handler the same Redis-exact argument errors.
//
// A handler is parse -> store operation -> reply. It never touches a socket and never blocks:
// a blocking command that must wait calls block_on() and returns.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/protocol/reply_writer.h"
#include "listd/server/client.h"
#include "listd/server/keyspace_events.h"
#include "listd/store/database.h"

namespace listd::server {

class Executor;
struct CommandSpec;

class CommandContext {
 public:
  CommandContext(Executor& exec, Client& client, const CommandSpec& spec,
                 std::span<const std::string_view> argv, bool in_exec) noexcept;

  Executor& exec() noexcept { return exec_; }
  Client& client() noexcept { return client_; }
  const CommandSpec& spec() const noexcept { return spec_; }
  /// A writer into the client's output buffer, in the client's current protocol.
  protocol::ReplyWriter reply() noexcept { return client_.reply(); }
  store::Database& db() noexcept { return *db_; }
  /// Unix time in ms, read once when the command started (Redis caches it the same way).
  std::int64_t now_ms() const noexcept { return now_ms_; }
  /// True inside EXEC: blocking commands answer like their non-blocking forms.
  bool in_exec() const noexcept { return in_exec_; }

  std::size_t argc() const noexcept { return argv_.size(); }
  std::string_view arg(std::size_t i) const noexcept { return argv_[i]; }
  std::span<const std::string_view> argv() const noexcept { return argv_; }

  /// Parses argv[i] as Redis' strict integer; on failure replies `err` and returns false.
  bool parse_integer(std::size_t i, long long& out, std::string_view err);
  bool parse_integer(std::size_t i, long long& out);
  /// Parses a blocking timeout (seconds as a float) into milliseconds (0 = forever), with
  /// Redis 7.0's errors. Returns false after replying the error.
  bool parse_timeout_ms(std::size_t i, long long& out_ms);

  /// Redis lookupKeyRead: the live entry for `key` (expired keys vanish here, notifying
  /// `expired`) or null, counted in INFO keyspace_hits / keyspace_misses (a miss notifies
  /// `keymiss`); refreshes the access time.
  store::Entry* read(std::string_view key) { return lookup(key, true); }
  /// Redis LOOKUP_NOTOUCH (EXISTS, TYPE, TTL, OBJECT, MEMORY USAGE): counted, access time kept.
  store::Entry* read_no_touch(std::string_view key) { return lookup(key, true, false); }
  /// Redis LOOKUP_NOTOUCH|LOOKUP_NONOTIFY (OBJECT, MEMORY USAGE): counted, no `keymiss`.
  store::Entry* read_no_notify(std::string_view key) { return lookup(key, true, false, false); }
  /// Redis lookupKeyWrite: the same without the statistics (Redis counts reads only) and
  /// without the `keymiss` event.
  store::Entry* write(std::string_view key) { return lookup(key, false); }
  /// The typed doors (Redis lookupKey* + checkType): absent (entry null), wrong type (WRONGTYPE
  /// already replied: the handler returns), or found.
  struct Typed {
    store::Entry* entry = nullptr;
    bool wrong_type = false;
  };
  Typed read(std::string_view key, store::ValueType type) { return typed(key, type, true); }
  Typed write(std::string_view key, store::ValueType type) { return typed(key, type, false); }

  /// Creates a key. Every path that creates a key goes through here, because creating a list
  /// (or sorted set) is what wakes blocked clients (Redis' signalKeyAsReady rule).
  store::Entry* add_key(std::string_view key, store::Value value);
  /// Redis setKey (no KEEPTTL): stores `value` at `key`, overwriting a live key in place (its
  /// TTL cleared, no `new` event) or creating it through add_key.
  store::Entry* set_key(std::string_view key, store::Value value);
  /// Deletes `key` if present; returns whether it existed.
  bool delete_key(std::string_view key);

  /// Records that the command changed data (`n` changes): drives WATCH, AOF and `dirty`.
  void mark_dirty(long long n = 1) noexcept { dirty_ += n; }
  long long dirty() const noexcept { return dirty_; }
  /// Names a key the command changed, when its key spec lists more keys than it touched
  /// (LMPOP pops one of its keys: only that one invalidates WATCH). Once called, WATCH sees
  /// only the keys named this way.
  void changed_key(std::string_view key) { changed_keys_.emplace_back(key); }
  const std::vector<std::string>& changed_keys() const noexcept { return changed_keys_; }

  /// The command's effect, for handlers flagged kOwnEffect (effect_stream.h): call it where the
  /// handler knows what it did, once per effect (SPOP emits one SREM per member, as Redis).
  void propagate_as(std::span<const std::string_view> effect);
  void propagate_as(std::initializer_list<std::string_view> effect) {
    propagate_as(std::span<const std::string_view>(effect.begin(), effect.size()));
  }
  /// False when nobody consumes effects: a handler may skip building one.
  bool effects_wanted() const noexcept;

  /// Keyspace notification (keyspace_events.h) of `event` on `key` in the selected database,
  /// or in database `db`; costs one bit test when class `type` (config::kNotify*) is off.
  void notify(int type, std::string_view event, std::string_view key) {
    events_.notify(type, event, key, db_->index(), &client_);
  }
  void notify(int type, std::string_view event, std::string_view key, int db) {
    events_.notify(type, event, key, db, &client_);
  }

  /// Parks the client on `keys` until one is ready or `timeout_ms` passes (0 = forever).
  void block_on(std::span<const std::string_view> keys, long long timeout_ms, BlockSpec spec);

  void switch_db(int index);

 private:
  store::Entry* lookup(std::string_view key, bool count_stats, bool touch = true,
                       bool notify_miss = true);
  Typed typed(std::string_view key, store::ValueType type, bool count_stats);

  Executor& exec_;
  KeyspaceEvents& events_;
  Client& client_;
  const CommandSpec& spec_;
  std::span<const std::string_view> argv_;
  store::Database* db_;
  std::int64_t now_ms_;
  long long dirty_ = 0;
  std::vector<std::string> changed_keys_;
  bool in_exec_;
};

/// Redis addReplyHelp: the HELP reply of a container command, one status line each: "<NAME>
/// <subcommand> [<arg> [value] [opt] ...]. Subcommands are:" (NAME is argv[0] upper-cased),
/// then `lines`, then "HELP" / "    Print this help.".
void reply_help(CommandContext& ctx, std::span<const std::string_view> lines);
inline void reply_help(CommandContext& ctx, std::initializer_list<std::string_view> lines) {
  reply_help(ctx, std::span<const std::string_view>(lines.begin(), lines.size()));
}

}  // namespace listd::server
