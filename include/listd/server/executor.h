// The executor: runs every command of every client, one at a time, on one thread.
//
// API (called by net): create_client / destroy_client / execute / tick / next_wakeup_ms /
// take_flush_list / take_resume_list. Commands write replies into Client::out; the executor
// lists the clients that got output (flush list) and the clients whose blocking command
// finished (resume list, so their pipelined commands run next). It never touches a socket.
//
// After every command (after EXEC for a transaction) it drains the ready keys: per key, the
// oldest waiters are served first, one element each, through the same pop code as the
// non-blocking commands (see blocking_commands.cpp); a served BLMOVE can make its destination
// ready, so draining repeats until nothing is ready.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/blocking/timer_wheel.h"
#include "listd/blocking/waiter_registry.h"
#include "listd/server/client.h"
#include "listd/server/clock.h"
#include "listd/server/command_table.h"
#include "listd/server/config.h"
#include "listd/server/effect_stream.h"
#include "listd/server/pubsub.h"
#include "listd/store/database.h"

namespace listd::server {

class CommandContext;
class Persistence;

/// Counters behind INFO stats / commandstats.
struct ServerStats {
  std::uint64_t start_ms = 0;              ///< monotonic
  std::int64_t start_unix_ms = 0;
  std::uint64_t total_connections = 0;
  std::uint64_t rejected_connections = 0;
  std::uint64_t total_commands = 0;
  std::uint64_t expired_keys = 0;
  std::uint64_t keyspace_hits = 0;
  std::uint64_t keyspace_misses = 0;
  std::uint64_t total_error_replies = 0;
  std::uint64_t unexpected_error_replies = 0;
  std::uint64_t net_input_bytes = 0;
  std::uint64_t net_output_bytes = 0;
  long long dirty = 0;                     ///< changes since start (Redis rdb_changes_since_last_save)
  std::int64_t lastsave_unix_s = 0;
};

struct CommandStats {
  std::uint64_t calls = 0;
  std::uint64_t usec = 0;
  std::uint64_t rejected = 0;
  std::uint64_t failed = 0;
};

class Executor {
 public:
  Executor(Config& config, Clock& clock);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // ---- called by the transport -------------------------------------------------------
  /// Registers a new connection. The returned client lives until destroy_client().
  Client& create_client(ClientTransport* transport, std::string addr, std::string laddr, int fd);
  /// Forgets a client: leaves every waiting list and watch list, then frees it.
  void destroy_client(Client& client);
  /// Runs one request. `argv` views must stay valid for the call only.
  void execute(Client& client, std::span<const std::string_view> argv);
  /// Brackets requests executed back to back (a connection's pipelined batch): inside, each
  /// command's start time is the previous command's end time, one clock read per command.
  void begin_batch() { in_batch_ = true; now_ = clock().read(); }
  void end_batch() noexcept { in_batch_ = false; }
  /// Unix ms as the running command sees it (key expiry).
  std::int64_t command_unix_ms() const noexcept { return now_.unix_ms; }
  /// Fires due waiter timeouts and runs a bounded step of active expiry. Call when
  /// next_wakeup_ms() is reached, and at least every 100 ms while keys have expiries.
  void tick();
  /// Monotonic ms of the next time tick() has work, or nullopt.
  std::optional<std::uint64_t> next_wakeup_ms() const;
  /// Clients that received output since the last call (each listed once).
  std::vector<Client*> take_flush_list();
  /// Clients whose blocking command completed: the transport runs their buffered commands.
  std::vector<Client*> take_resume_list();
  bool has_resume() const noexcept { return !resume_list_.empty(); }
  bool shutdown_requested() const noexcept { return shutdown_requested_; }
  /// Clients marked for closing by CLIENT KILL (the transport closes them after flushing).
  std::vector<Client*> take_kill_list();

  // ---- used by command handlers ------------------------------------------------------
  Config& config() noexcept { return config_; }
  const Clock& clock() const noexcept { return clock_override_ ? *clock_override_ : clock_; }
  /// Replaces the clock while loading a log (null restores the real one): see Persistence.
  void set_clock_override(const Clock* clock) noexcept { clock_override_ = clock; }
  store::Keyspace& keyspace() noexcept { return keyspace_; }
  const CommandTable& commands() const noexcept { return table_; }
  blocking::WaiterRegistry& waiters() noexcept { return waiters_; }
  const blocking::TimerWheel& timers() const noexcept { return timers_; }
  ServerStats& stats() noexcept { return stats_; }
  std::mt19937_64& rng() noexcept { return rng_; }
  PubSub& pubsub() noexcept { return pubsub_; }

  /// Every connected client, in creation order of ids.
  template <class F>
  void for_each_client(F&& f) {
    for (auto& [id, c] : clients_) f(*c);
  }
  Client* find_client(std::uint64_t id) noexcept;
  std::size_t client_count() const noexcept { return clients_.size(); }

  /// Creates `key` in `db` and signals it ready for waiters (CommandContext::add_key).
  store::Entry* add_key(store::Database& db, std::string_view key, store::Value value);
  /// Marks every waited key of `db` ready (SWAPDB, FLUSH*: keys appear or vanish wholesale).
  void signal_all_waited_keys(int db);
  /// WATCH bookkeeping: the key was modified (or deleted / expired).
  void touch_key(int db, std::string_view key);
  /// Every watched key in `db` was modified (FLUSHDB, SWAPDB).
  void touch_all_watched(int db);
  void watch_key(Client& client, int db, std::string_view key);
  void unwatch_all(Client& client);

  /// Parks `client` (see CommandContext::block_on).
  void block_client(Client& client, std::span<const std::string_view> keys, long long timeout_ms,
                    BlockSpec spec);
  /// Ends a block without serving it: replies the timeout null (or `error` if not empty).
  void unblock_with_timeout(Client& client, std::string_view error = {});
  /// Ends a block after the waiter was served (the reply is already in client.out).
  void finish_block(Client& client);

  /// Marks output for flushing; handlers writing to *another* client must call it.
  void queue_flush(Client& client);
  void request_kill(Client& client);
  void request_shutdown() noexcept { shutdown_requested_ = true; }

  /// Per-command counters, keyed by the command's spec (a pointer hash on the hot path).
  /// Per command, indexed by CommandSpec::slot (commands().by_slot() names them).
  const std::vector<CommandStats>& command_stats() const noexcept {
    return command_stats_;
  }
  void reset_stats();
  /// Monitors receive every executed command (MONITOR).
  void add_monitor(Client& client);

  /// EXEC: runs the queued commands (or aborts), replying the array of their replies.
  void run_transaction(Client& client);

  /// The requirepass currently in force (empty = no auth).
  const std::string& requirepass() const;

  // ---- durability (Persistence, effect_stream.h) ---------------------------------------
  Persistence& persistence() noexcept { return *persistence_; }
  /// What commands wrote, in execution units; the AOF subscribes to it, so can a test.
  EffectStream& effects() noexcept { return effects_; }
  /// Runs one command read from the AOF on the loading client `c`: queued inside MULTI,
  /// otherwise dispatched as inside EXEC (a blocking command never blocks). Returns false with
  /// `error` only for an unknown command; a command error is left in c.out.
  bool replay(Client& c, std::span<const std::string_view> argv, std::string& error);

 private:
  friend class CommandContext;
  void dispatch(Client& client, const CommandSpec& spec, std::span<const std::string_view> argv,
                bool in_exec);
  void drain_ready_keys();
  void feed_monitors(const Client& client, std::span<const std::string_view> argv);
  /// Why `argv` cannot run (unknown command or subcommand, arity, NOAUTH), or "" if it can.
  /// Resolves `spec` to the subcommand when there is one.
  std::string rejection(const Client& client, std::span<const std::string_view> argv,
                        const CommandSpec*& spec) const;

  Config& config_;
  Clock& clock_;
  store::Keyspace keyspace_;
  CommandTable table_;
  blocking::WaiterRegistry waiters_;
  blocking::TimerWheel timers_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Client>> clients_;
  std::uint64_t next_client_id_ = 1;
  std::unordered_map<blocking::BlockKey, std::vector<Client*>, blocking::BlockKeyHash,
                     blocking::BlockKeyEqual>
      watched_;
  std::vector<Client*> flush_list_;
  std::vector<Client*> resume_list_;
  std::vector<Client*> kill_list_;
  std::vector<Client*> monitors_;
  std::vector<CommandStats> command_stats_;  // by CommandSpec::slot
  ServerStats stats_;
  std::mt19937_64 rng_;
  bool draining_ = false;
  bool shutdown_requested_ = false;
  int expire_db_cursor_ = 0;
  const Clock* clock_override_ = nullptr;
  ClockReading now_;      // the running command's start time
  const CommandSpec* last_found_ = nullptr;  // execute()'s one-entry lookup cache
  bool in_batch_ = false;
  EffectStream effects_;
  std::unique_ptr<Persistence> persistence_;
  PubSub pubsub_{[this](Client& c) { queue_flush(c); }};
};

}  // namespace listd::server
