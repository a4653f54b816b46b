// The executor: runs every command of every client, one at a time, on one thread. It
// validates a request (rejection), queues it inside MULTI, or dispatches it to its handler and
// accounts for it (stats, the default effect, WATCH); the other concerns have their own class:
//   ClientRegistry   ids, the flush / resume / kill lists net drains each turn, monitors
//   BlockingService  block, serve, time out (owns the waiter registry and the timer wheel)
//   Transaction      MULTI/EXEC/DISCARD and the WATCH table
//   Tracking         CLIENT TRACKING: the tracked keys and BCAST prefixes, invalidations
//   Persistence      the AOF and RDB files (subscribed to effects())
//   ReplicationMaster  replicas and the replication stream (subscribed to effects())
//   ReplicationReplica our master, when we are a replica (REPLICAOF, the applied stream)
//
// API (called by net): create_client / destroy_client / begin_batch / execute / end_batch /
// tick / next_wakeup_ms / cron, and clients().take_*_list(); replay (called by the AOF loader).
// Commands write replies into Client::out and the executor never touches a socket.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/config/config.h"
#include "listd/server/blocking_service.h"
#include "listd/server/client.h"
#include "listd/server/client_eviction.h"
#include "listd/server/client_pause.h"
#include "listd/server/client_registry.h"
#include "listd/server/clock.h"
#include "listd/server/command_table.h"
#include "listd/server/effect_stream.h"
#include "listd/server/error_stats.h"
#include "listd/server/eviction.h"
#include "listd/server/expire_cycle_stats.h"
#include "listd/server/failover.h"
#include "listd/server/instantaneous_metrics.h"
#include "listd/server/keyspace_events.h"
#include "listd/server/latency_histogram.h"
#include "listd/server/latency_monitor.h"
#include "listd/server/memory_usage.h"
#include "listd/server/migrate_sockets.h"
#include "listd/server/output_buffer_limits.h"
#include "listd/server/pubsub.h"
#include "listd/server/queue_stats.h"
#include "listd/server/slowlog.h"
#include "listd/server/sync_replication.h"
#include "listd/server/tracking.h"
#include "listd/server/transaction.h"
#include "listd/store/database.h"

namespace listd::server {

enum class AclDenial : std::uint8_t;  // acl_user.h

class Acl;
class AclUser;
enum class AclLogReason : std::uint8_t;
class CommandContext;
class EventLoopYield;
class Persistence;
class ReplicationMaster;
class ReplicationReplica;
class Scripting;

/// Counters behind INFO stats / commandstats.
struct ServerStats {
  std::uint64_t start_ms = 0;  ///< monotonic
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
  std::uint64_t net_repl_input_bytes = 0;   ///< read from our master (Redis counts them apart)
  std::uint64_t net_repl_output_bytes = 0;  ///< written to our replicas
  /// Read and write events on connections (Redis: readQueryFromClient / writeToClient calls):
  /// one per socket read or completed receive, one per send or completed send.
  std::uint64_t total_reads_processed = 0;
  std::uint64_t total_writes_processed = 0;
  ExpireCycleStats expire_cycle;  ///< the active expiry step's figures
  /// INFO's total_net_*_bytes: the replication bytes included, as Redis reports them.
  std::uint64_t total_net_input_bytes() const noexcept {
    return net_input_bytes + net_repl_input_bytes;
  }
  std::uint64_t total_net_output_bytes() const noexcept {
    return net_output_bytes + net_repl_output_bytes;
  }
  const char* multiplexing_api = "epoll";  ///< the I/O backend net chose (INFO server)
  long long dirty = 0;  ///< changes since start (Redis rdb_changes_since_last_save)
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
  Executor(config::Config& config, Clock& clock);
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
  void begin_batch() {
    in_batch_ = true;
    now_ = clock().read();
  }
  void end_batch() noexcept { in_batch_ = false; }
  /// Fires due waiter timeouts and runs a bounded step of active expiry. Call when
  /// next_wakeup_ms() is reached, and at least every 100 ms while keys have expiries.
  void tick();
  /// Monotonic ms of the next time tick() has work, or nullopt.
  std::optional<std::uint64_t> next_wakeup_ms() const;
  /// Once a second (Redis serverCron): persistence housekeeping, and the clients the transport
  /// closes now: those over their output-buffer limit, and those idle past config `timeout`
  /// at monotonic `now_ms`.
  std::vector<Client*> cron(std::uint64_t now_ms);
  bool shutdown_requested() const noexcept { return shutdown_requested_; }
  /// The transport's "run events now" for busy scripts (null: a busy script only answers the
  /// kill checks, nobody else runs). net::Server installs itself.
  void set_event_loop_yield(EventLoopYield* yield) noexcept { yield_ = yield; }
  /// A script runs past busy-reply-threshold: the transport runs only what is safe then
  /// (Server::run_events_while_busy), and tick() / cron() must not be called.
  bool busy_script() const noexcept;

  // ---- used by command handlers ------------------------------------------------------
  config::Config& config() noexcept { return config_; }
  const Clock& clock() const noexcept { return clock_override_ ? *clock_override_ : clock_; }
  /// Replaces the clock while loading a log (null restores the real one): see Persistence.
  void set_clock_override(const Clock* clock) noexcept { clock_override_ = clock; }
  /// Unix ms as the running command sees it (key expiry).
  std::int64_t command_unix_ms() const noexcept { return now_.unix_ms; }
  store::Keyspace& keyspace() noexcept { return keyspace_; }
  const CommandTable& commands() const noexcept { return table_; }
  ClientRegistry& clients() noexcept { return clients_; }
  BlockingService& blocking() noexcept { return blocking_; }
  Transaction& transactions() noexcept { return transactions_; }
  ServerStats& stats() noexcept { return stats_; }
  std::mt19937_64& rng() noexcept { return rng_; }
  /// The requirepass currently in force (empty = no auth).
  const std::string& requirepass() const;
  /// The ACL users and log (acl.h).
  Acl& acl() noexcept { return *acl_; }
  /// Files a denial (or a failed AUTH) of `c` in ACL LOG, with `c`'s CLIENT LIST line;
  /// `username` defaults to c's user (acl_enforcement.cpp).
  void acl_log(const Client& c, AclLogReason reason, std::string object,
               std::string username = {}) const;
  /// After ACL SETUSER changed `user`: its subscribers to channels it may no longer use are
  /// disconnected (Redis ACLKillPubsubClientsIfNeeded).
  void acl_user_changed(const AclUser& user);
  /// Before `user` is deleted: its clients become `default`, unauthenticated, and are closed.
  void acl_user_deleted(const AclUser& user);
  void request_shutdown() noexcept { shutdown_requested_ = true; }
  PubSub& pubsub() noexcept { return pubsub_; }
  /// Keyspace notifications (keyspace_events.h): `event` on `key` of `db`, published with the
  /// running client (if any) as publisher. One bit test when the class is off.
  void notify(int type, std::string_view event, std::string_view key, int db) {
    events_.notify(type, event, key, db, running_client_);
  }
  KeyspaceEvents& keyspace_events() noexcept { return events_; }
  /// EVAL's script cache and Lua engine (scripting.h).
  Scripting& scripting() noexcept { return *scripting_; }
  /// While a script runs, every command it calls sees the run's start time (Redis
  /// scriptTimeSnapshot): the clock is not advanced between them.
  void freeze_time(bool frozen) noexcept { time_frozen_ = frozen; }
  /// The running command's error reply repeats an error already counted in INFO's
  /// total_error_replies (a script re-raising redis.call's error): count it once.
  void error_already_counted() noexcept { error_counted_ = true; }
  /// From a busy script's hook: lets the transport run other clients' events, keeping the
  /// script's own command state (its frozen time, the running client, the batch) intact.
  void run_events_while_busy();
  /// SLOWLOG's entries (slowlog.h); dispatch files each command while the log is on.
  SlowLog& slowlog() noexcept { return slowlog_; }
  MigrateSockets& migrate_sockets() noexcept { return migrate_sockets_; }
  Failover& failover() noexcept { return failover_; }
  /// Once per turn, before its replies (Redis beforeSleep's updateFailoverStatus): the ACKs the
  /// turn brought may let a FAILOVER switch; a switch's effects (clients unblocked, resumed)
  /// are written in the same turn.
  void update_failover() {
    if (failover_.active()) failover_.update(clock_.unix_ms());
  }
  const Failover& failover() const noexcept { return failover_; }
  /// sync-replicas: replies held until replicas acknowledged them (sync_replication.h).
  SyncReplication& sync_replication() noexcept { return sync_replication_; }
  const SyncReplication& sync_replication() const noexcept { return sync_replication_; }
  /// INFO errorstats: every error reply counted by its code.
  ErrorStats& error_stats() noexcept { return error_stats_; }
  /// The latency monitor's events (LATENCY; fed when latency-monitor-threshold is set).
  LatencyMonitor& latency_monitor() noexcept { return latency_monitor_; }
  /// latency-monitor-threshold is set: the parts that time themselves for the monitor do.
  bool latency_monitoring() const noexcept;
  /// One measurement of `event` for the monitor (kept when at or over the threshold), at the
  /// clock's current second.
  void add_latency_sample(std::string_view event, std::uint64_t ms);
  /// Per-command latency histograms by CommandSpec::slot (INFO latencystats, LATENCY
  /// HISTOGRAM), fed while latency-tracking is on.
  std::vector<LatencyHistogram>& latency_histograms() noexcept { return latency_histograms_; }
  /// The running command's argument `index` reads "(redacted)" in the slow log (Redis
  /// redactClientCommandArgument: AUTH and HELLO passwords, sensitive CONFIG SET values).
  void redact_argument(std::size_t index) { redacted_args_.push_back(index); }
  /// client-output-buffer-limit enforcement (checked by ClientRegistry::queue_flush and cron).
  OutputBufferGuard& output_buffer_guard() noexcept { return output_buffer_guard_; }
  /// The heap count, its start-up figure and peak (INFO memory, the maxmemory check).
  MemoryUsage& memory() noexcept { return memory_; }
  /// Over `maxmemory` when the running command started (Redis pre_command_oom_state): what
  /// EVAL's shebang check and redis.call's first write test.
  bool pre_command_oom() const noexcept { return pre_command_oom_; }
  /// Eviction past maxmemory (eviction.h), run before each command and from tick().
  Evictor& evictor() noexcept { return evictor_; }
  /// Client eviction past maxmemory-clients (client_eviction.h), before each command and in cron.
  ClientEvictor& client_evictor() noexcept { return client_evictor_; }
  const InstantaneousMetrics& instantaneous() const noexcept { return instantaneous_; }
  /// Per-key pushes, pops and hand-offs of the last minute (queue_stats.h, the queue view).
  QueueStats& queue_stats() noexcept { return queue_stats_; }
  /// Counts a queue event on (db, key) at the running command's time; AOF replay is not traffic.
  void count_queue_event(int db, std::string_view key, QueueEvent kind, std::uint32_t n) {
    if (!replaying_) queue_stats_.record(db, key, kind, n, now_.mono_us / 1'000'000);
  }
  /// CLIENT PAUSE (client_pause.h): pauses `mode` for `timeout_ms` from the running command's
  /// time (0: no new pause), or widens the pause on.
  void pause_clients(PauseMode mode, long long timeout_ms);
  /// Pauses writes for `purpose` until unpause_clients(purpose) (FAILOVER's pause).
  void pause_writes_until_resumed(PausePurpose purpose);
  /// Ends `purpose`'s pause (CLIENT UNPAUSE; a failover's end); once nothing is paused the
  /// postponed clients resume. A purpose's timeout ends it in tick().
  void unpause_clients(PausePurpose purpose = PausePurpose::kClientCommand);
  const ClientPause& client_pause() const noexcept { return client_pause_; }
  /// The same for the key of `entry` in `db`, the entry standing for the key on the hot path.
  void count_queue_event(const store::Entry& entry, int db, QueueEvent kind, std::uint32_t n) {
    if (!replaying_)
      queue_stats_.record_for(&entry, store::Entry::destroyed_count(), db, entry.key(), kind, n,
                              now_.mono_us);
  }
  /// Monotonic ms as the running command sees it (a waiter's blocking time).
  std::uint64_t command_mono_ms() const noexcept { return now_.mono_ms(); }

  /// Creates `key` in `db` and signals it ready for waiters (CommandContext::add_key).
  store::Entry* add_key(store::Database& db, std::string_view key, store::Value value);
  /// The key was modified (or deleted) outside the default bookkeeping: its WATCHers' EXEC
  /// fails and its trackers are told, the running client as the writer (Redis
  /// signalModifiedKey).
  void touch_key(int db, std::string_view key) {
    transactions_.touch_key(db, key);
    if (tracking_.has_state()) tracking_.invalidate(key, running_client_, tracking_context());
  }
  /// CLIENT TRACKING's tables (tracking.h).
  Tracking& tracking() noexcept { return tracking_; }
  /// Where an invalidation happens now: the client whose request runs, and whether its
  /// command is running (then its own invalidations wait for its reply).
  TrackingContext tracking_context() const noexcept {
    return {executing_client_, running_client_ != nullptr};
  }
  /// FLUSHDB, FLUSHALL, a replica's full sync: every tracker is told all its keys are gone.
  void invalidate_all_tracked() { tracking_.invalidate_all(tracking_context()); }
  /// The end of a loop turn (Redis beforeSleep): BCAST clients get the keys modified since.
  void broadcast_invalidations() { tracking_.broadcast(); }

  /// Per-command counters, indexed by CommandSpec::slot (commands().by_slot() names them).
  const std::vector<CommandStats>& command_stats() const noexcept { return command_stats_; }
  void reset_stats();

  // ---- durability (Persistence, effect_stream.h) ---------------------------------------
  Persistence& persistence() noexcept { return *persistence_; }
  /// Replicas of this server (replication_master.h), the effect stream's second consumer.
  ReplicationMaster& replication() noexcept { return *replication_; }
  /// Our own master, when we are a replica (replication_replica.h): REPLICAOF, the link's
  /// protocol, the stream applied through execute() by the master client.
  ReplicationReplica& replica_side() noexcept { return *replica_side_; }
  /// What commands wrote, in execution units; the AOF subscribes to it, so can a test.
  EffectStream& effects() noexcept { return effects_; }
  /// Runs one command read from the AOF on the loading client `c`: queued inside MULTI,
  /// otherwise dispatched as inside EXEC (a blocking command never blocks). Returns false with
  /// `error` only for an unknown command; a command error is left in c.out.
  bool replay(Client& c, std::span<const std::string_view> argv, std::string& error);

 private:
  friend class CommandContext;
  friend class Transaction;   // EXEC runs the queue through run_queued
  friend class ScriptRunner;  // redis.call dispatches as inside EXEC
  void dispatch(Client& client, const CommandSpec& spec, std::span<const std::string_view> argv,
                bool in_exec);
  /// One command of an EXEC's queue (validated when it was queued).
  void run_queued(Client& client, std::span<const std::string_view> argv);
  void feed_monitors(const Client& client, std::span<const std::string_view> argv);
  /// After a read-only command: the keys it read are remembered for its tracking caller (a
  /// script's caller: the keys the script declared, as 7.0 does).
  void track_read_keys(const Client& client, const CommandSpec& spec,
                       std::span<const std::string_view> argv);
  /// Files the command dispatch just ran into the slow log (parked if it blocked).
  void log_slow(const Client& client, const CommandSpec& spec,
                std::span<const std::string_view> argv, std::size_t redacted_from,
                std::uint64_t duration_us, const ClockReading& end);
  /// Why `argv` cannot run (unknown command or subcommand, arity, NOAUTH), or "" if it can.
  /// Resolves `spec` to the subcommand when there is one.
  std::string rejection(const Client& client, std::span<const std::string_view> argv,
                        const CommandSpec*& spec) const;
  /// Why `c`'s ACL rules refuse `argv` (logged in ACL LOG when they do), or kNone. At the
  /// command's arrival and again when EXEC runs it (the errors differ: acl.h).
  AclDenial acl_refusal(const Client& c, const CommandSpec& spec,
                        std::span<const std::string_view> argv) const;
  void active_expire_step();
  /// Adds a random sample of `db`'s keys with a TTL to `sampled`, the expired ones to `stale`.
  void sample_stale(const store::Database& db, std::int64_t now_unix, std::size_t& sampled,
                    std::size_t& stale);
  /// True while some db's expiry index holds a deadline at or before `now_unix`.
  bool expiry_due(std::int64_t now_unix) const noexcept;
  void rehash_step();
  /// The counters INFO's instantaneous figures are rates of.
  InstantaneousMetrics::Readings instant_readings() const noexcept;
  /// Parks `c`'s request if the pause covers it (client_pause.cpp); true if it did.
  void resume_postponed(std::vector<Client*> resumed);
  void after_pause_change();
  bool postpone_if_paused(Client& c, const CommandSpec& spec,
                          std::span<const std::string_view> argv);
  /// Redis processCommand's maxmemory rule: a denyoom command (EXEC: one queued; a script:
  /// its shebang's), or any command but EXEC, DISCARD, QUIT and RESET inside MULTI.
  bool denied_on_oom(const Client& client, const CommandSpec& spec,
                     std::span<const std::string_view> argv) const;

  config::Config& config_;
  Clock& clock_;
  store::Keyspace keyspace_;
  CommandTable table_;
  ClientRegistry clients_;
  OutputBufferGuard output_buffer_guard_{config_, clock_};
  BlockingService blocking_;
  ClientPause client_pause_;
  Transaction transactions_;
  std::vector<CommandStats> command_stats_;  // by CommandSpec::slot
  ServerStats stats_;
  std::mt19937_64 rng_;
  std::mt19937_64 expire_rng_;  // the expiry step's stale-share samples (its own: rng_ unchanged)
  bool shutdown_requested_ = false;
  int expire_db_cursor_ = 0;
  int rehash_db_cursor_ = 0;  // the db the cron rehashes (Redis: rehash_db)
  const Clock* clock_override_ = nullptr;
  ClockReading now_;                         // the running command's start time
  const CommandSpec* last_found_ = nullptr;  // execute()'s one-entry lookup cache
  bool in_batch_ = false;
  bool time_frozen_ = false;
  bool error_counted_ = false;
  bool replaying_ = false;  // an AOF command runs (Redis logs nothing while loading)
  SlowLog slowlog_;
  MigrateSockets migrate_sockets_;
  Failover failover_{*this};
  SyncReplication sync_replication_{*this};
  ErrorStats error_stats_;
  LatencyMonitor latency_monitor_;
  std::vector<LatencyHistogram> latency_histograms_;  // by CommandSpec::slot
  std::vector<std::size_t> redacted_args_;            // redact_argument() of the running commands
  EffectStream effects_;
  std::unique_ptr<Persistence> persistence_;
  std::unique_ptr<ReplicationMaster> replication_;
  std::unique_ptr<ReplicationReplica> replica_side_;
  std::unique_ptr<Scripting> scripting_;
  std::unique_ptr<Acl> acl_;
  // Messages are fire-and-forget, never durable: sync-replicas does not hold them (Sentinel's
  // hello channel must flow on a master whose writes wait for replicas).
  PubSub pubsub_{[this](Client& c) { clients_.queue_flush(c, false); }};
  KeyspaceEvents events_{config_.settings(), pubsub_};
  const Client* running_client_ = nullptr;  // the client whose command runs (dispatch)
  Client* executing_client_ = nullptr;      // the client whose request execute() runs
  // The innermost command of a client that is not a script's (whose keys a script's reads
  // are tracked by: Redis' script_caller with its c->cmd and c->argv).
  struct CallerCommand {
    const Client* client = nullptr;
    const CommandSpec* spec = nullptr;
    std::span<const std::string_view> argv;
  };
  CallerCommand caller_command_;
  Tracking tracking_{clients_, [this](Client& c, std::size_t begin) {
                       if (&c == running_client_) note_silenced_push(c, begin);
                       clients_.queue_flush(c);
                     }};
  EventLoopYield* yield_ = nullptr;
  bool pre_command_oom_ = false;
  Evictor evictor_{*this};
  ClientEvictor client_evictor_{config_, clock_, clients_};
  InstantaneousMetrics instantaneous_;
  QueueStats queue_stats_;
  MemoryUsage memory_;  // last: its start-up figure includes everything the executor built
};

}  // namespace listd::server
