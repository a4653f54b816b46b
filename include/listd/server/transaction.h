// MULTI/EXEC/DISCARD and WATCH, in the shape of Redis' multi.c: queueing a validated command,
// running the queue (EXEC), one discard for every way a transaction ends, and the WATCH table.
//
// A client's transaction state lives on the Client (in_multi, multi_error, queued, watched,
// watch_dirty); this class is the only code that changes it, and the only owner of the
// table from watched keys to their watchers.
#pragma once

#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/server/client.h"
#include "listd/store/db_key.h"

namespace listd::store {
class Database;
}

namespace listd::server {

class Executor;

class Transaction {
 public:
  explicit Transaction(Executor& exec) : exec_(exec) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  /// MULTI: commands are queued from now on.
  void begin(Client& client);
  /// Appends `argv` (already validated) to the queue (Redis queueMultiCommand).
  void queue(Client& client, std::span<const std::string_view> argv);
  /// A command failed to queue: EXEC will answer EXECABORT (Redis flagTransaction).
  static void flag(Client& client) noexcept;
  /// Ends the transaction without running it and forgets every watched key
  /// (DISCARD, RESET, a rejected EXEC, EXEC itself, an AOF's incomplete MULTI).
  void discard(Client& client);
  /// A rejected EXEC (e.g. `EXEC x`): EXECABORT with `error`'s reason, even outside MULTI,
  /// and the transaction is discarded (Redis execCommandAbort).
  void abort_exec(Client& client, std::string_view error);
  /// EXEC: runs the queue and replies the array of its replies, or aborts (EXECABORT, or the
  /// null array when a watched key changed).
  void exec(Client& client);

  /// WATCH: `client`'s EXEC fails if (db, key) is modified before it.
  void watch(Client& client, int db, std::string_view key);
  /// UNWATCH: forgets every key `client` watches.
  void unwatch_all(Client& client);
  /// (db, key) was modified (or deleted / expired): its watchers' EXEC will fail.
  void touch_key(int db, std::string_view key);
  /// `db` is emptied (FLUSHDB, FLUSHALL) or swapped (SWAPDB): its watched keys that exist in
  /// `a` or in `b` (either may be null) were modified; a watched key in neither did not change
  /// (Redis 7.0 touchAllWatchedKeysInDb, without its expired-at-WATCH refinement).
  void touch_existing(int db, const store::Database* a, const store::Database* b);
  bool has_watched_keys() const noexcept { return !watched_.empty(); }

 private:
  Executor& exec_;
  std::unordered_map<store::DbKey, std::vector<Client*>, store::DbKeyHash, store::DbKeyEqual>
      watched_;
};

}  // namespace listd::server
