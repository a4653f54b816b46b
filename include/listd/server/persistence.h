// The server's durability, as one facade owned by the Executor: the AOF (Redis 7.0 multi-part
// layout, written once per loop turn at the acknowledgement point), RDB snapshots (SAVE,
// BGSAVE, save points), AOF rewrites (BGREWRITEAOF, automatic by size) and loading at start-up.
// It consumes the executor's effect stream (effect_stream.h) and composes the pieces:
//  - AofWriter (aof_writer.h): the turn buffer, flush_turn, the fsync policy and its thread;
//  - AofRewrite (aof_rewrite.h): the AOF's files, manifest and rewrite state machine;
//  - persistence::BackgroundChild (persistence/background_child.h): the one forked child
//    (BGSAVE or rewrite), its reaping and killing;
//  - DataLoader (data_loader.h): dump.rdb or the AOF at start-up.
// What stays here: BGSAVE and SAVE bookkeeping, save points, MISCONF, cron, INFO.
// Commands get a Status (the error's reply text) or a Result, never RESP bytes: the handlers
// in commands/persistence_commands.cpp reply.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "listd/config/config.h"
#include "listd/persistence/background_child.h"
#include "listd/persistence/rdb.h"
#include "listd/server/aof_rewrite.h"
#include "listd/server/aof_writer.h"
#include "listd/server/data_loader.h"
#include "listd/server/effect_stream.h"
#include "listd/server/persistence_log.h"
#include "listd/server/status.h"

namespace listd::server {

class Executor;

/// How BGREWRITEAOF went when it did not fail.
enum class RewriteStart { kStarted, kScheduled };

/// The AOF is the effect stream's first consumer (effect_stream.h).
class Persistence final : public EffectConsumer {
 public:
  explicit Persistence(Executor& exec);
  ~Persistence() override;
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  /// Where messages go (the server part has no logger of its own; main installs spdlog).
  void set_logger(PersistenceLog::Sink log) { log_.set_sink(std::move(log)); }
  const PersistenceLog& log() const noexcept { return log_; }

  // ---- the effect stream and the acknowledgement point -----------------------------------
  /// Effects are logged while the AOF is on and nothing is being loaded.
  bool wants_effects() const noexcept override { return rewrite_.enabled() && !loader_.loading(); }
  void on_effect(int db, std::span<const std::string_view> argv) override;
  /// The bytes not yet written (tests).
  const std::string& pending_bytes() const noexcept { return writer_.pending_bytes(); }
  /// Writes the turn's bytes and, for `always`, fdatasyncs them (see aof_writer.h). Called by
  /// the transport before any reply of the turn.
  void flush_turn() { writer_.flush_turn(); }

  // ---- start-up, cron, shutdown ----------------------------------------------------------
  /// Loads the AOF (appendonly yes: manifest order; dump.rdb ignored) or dump.rdb, then opens
  /// the AOF for appending (creating the directory, a base and an incr file if needed).
  /// False with a message when listd must not start.
  bool load_at_startup(std::string& error);
  /// True while an AOF or RDB is being loaded (FUNCTION LOAD then has no timeout).
  bool loading() const noexcept { return loader_.loading(); }
  /// The loader, which also loads a replica's full-sync payload (data_loader.h).
  DataLoader& loader() noexcept { return loader_; }
  /// After a replica's payload was installed: a CONFIG SET appendonly made while it loaded takes
  /// effect now. True when the AOF was turned on here (its first rewrite is already started).
  bool apply_appendonly_after_load() {
    const bool was_on = rewrite_.enabled();
    on_appendonly_changed();
    return !was_on && rewrite_.enabled();
  }
  /// Once a second: children, save points, automatic rewrite, background fsync errors.
  void cron();
  /// Finishes the BGSAVE or rewrite child if it has exited (Redis checkChildrenDone). Called on
  /// SIGCHLD by the transport, so a replica's full sync or BGSAVE's bookkeeping does not wait
  /// for the cron, which calls it too, as a fallback. True when a child was reaped.
  bool reap_child();
  /// Writes and fsyncs what is pending, stops the fsync thread, kills children.
  void shutdown();
  /// Before exiting (SHUTDOWN, SIGTERM), as Redis prepareForShutdown: tells the supervisor
  /// STOPPING=1, then a synchronous dump.rdb when save points are configured (unless `nosave`)
  /// or `save` asks for it, after any running child finished, with Redis' STATUS messages.
  /// False when that snapshot failed and `force` is off: the caller then stays up.
  bool save_before_exit(bool save, bool nosave, bool force = false);
  /// Where the sd_notify messages of a shutdown go (main, under supervised systemd).
  void set_supervisor_notify(std::function<void(std::string_view)> notify) {
    supervisor_notify_ = std::move(notify);
  }
  /// A shutdown has started (save_before_exit ran): the supervisor heard STOPPING=1.
  bool stopping_announced() const noexcept { return stopping_announced_; }

  // ---- commands (the error texts are the replies, "ERR ...") -----------------------------
  /// SAVE.
  Status save();
  /// BGSAVE.
  Status bgsave();
  /// A BGSAVE for a replica's full sync (Redis startBgsaveForReplication, disk target): the
  /// snapshot carries the repl-* AUX fields. Refused while any child runs.
  Status bgsave_for_replication(const persistence::RdbReplInfo& repl);
  /// Writes this server's snapshot (with the repl-* AUX fields) to a sink, in the child.
  using SnapshotWriter = std::function<bool(const persistence::RdbSink& sink)>;
  /// What a diskless sync's child does with the snapshot; true is success.
  using TransferBody = std::function<bool(const SnapshotWriter& write_snapshot)>;
  /// A BGSAVE whose RDB goes to replicas' sockets, never to disk (Redis rdbSaveToSlavesSockets):
  /// the child runs `transfer`. Refused while any child runs. Its end calls the rdb-done hook
  /// but counts as no BGSAVE (lastsave, dirty and rdb_last_bgsave_status stay as they were).
  /// `filter` leaves keys and/or functions out (the replicas' REPLCONF rdb-filter-only).
  Status start_rdb_transfer(const persistence::RdbReplInfo& repl, TransferBody transfer,
                            const persistence::RdbFilter& filter = {});
  /// Called after every BGSAVE ends (true: dump.rdb at rdb_path() is the new snapshot).
  void set_rdb_done_hook(std::function<void(bool ok)> hook) { rdb_done_hook_ = std::move(hook); }
  /// True while a BGSAVE or an AOF rewrite child runs.
  bool child_running() const noexcept { return child_.running(); }
  /// dir/dbfilename.
  std::string rdb_path() const;
  /// BGREWRITEAOF: started now, or scheduled after the running BGSAVE.
  Result<RewriteStart> bgrewriteaof();
  /// Redis' MISCONF state: save points configured, stop-writes-on-bgsave-error yes, and the last
  /// BGSAVE failed. Write commands (and PING, as in Redis) are refused until a save succeeds.
  bool refusing_writes() const noexcept { return !last_bgsave_ok_ && misconf_configured(); }
  /// The `# Persistence` fields after the header.
  void info(std::string& out) const;
  /// INFO stats' latest_fork_usec and total_forks: every fork (BGSAVE, rewrite, full sync).
  const persistence::ForkStats& fork_stats() const noexcept { return child_.fork_stats(); }
  /// CONFIG RESETSTAT's share (Redis resetServerStats): the fork figures, rdb_saves,
  /// aof_rewrites and aof_rewrites_consecutive_failures.
  void reset_stats() noexcept {
    child_.reset_fork_stats();
    rdb_saves_ = 0;
    rewrite_.reset_stats();
  }

 private:
  void notify_supervisor(std::string_view message) const {
    if (supervisor_notify_) supervisor_notify_(message);
  }
  void aof_info(std::string& out) const;             // the aof_* fields shown while the AOF is on
  void child_progress_info(std::string& out) const;  // current_cow_*, current_save_keys_*
  using ChildKind = persistence::BackgroundChild::Kind;

  /// CONFIG SET appendonly yes|no at run time.
  void on_appendonly_changed();
  bool misconf_configured() const noexcept;  // save points and stop-writes-on-bgsave-error
  /// Blocks until no child runs, then finishes its work.
  void wait_for_child();
  void child_exited(const persistence::BackgroundChild::Exit& exit);
  bool start_save_point_bgsave(std::int64_t now_ms);
  Status start_bgsave(const std::optional<persistence::RdbReplInfo>& repl = std::nullopt);
  void finish_bgsave(const persistence::BackgroundChild::Exit& exit);
  void finish_rdb_transfer(const persistence::BackgroundChild::Exit& exit);
  std::int64_t now_ms() const;

  Executor& exec_;
  const config::ServerSettings& settings_;
  PersistenceLog log_;
  persistence::BackgroundChild child_;
  AofWriter writer_;
  AofRewrite rewrite_;
  DataLoader loader_;
  /// True while load_at_startup replays the AOF: INFO's aof_enabled is 1 then, as in Redis,
  /// whose AOF state is on from start-up although the AOF writer opens only after the load.
  bool loading_aof_ = false;

  // BGSAVE and SAVE (INFO rdb_*).
  long long dirty_at_fork_ = 0;
  bool last_bgsave_ok_ = true;
  std::int64_t last_bgsave_secs_ = -1;
  std::int64_t last_bgsave_try_ms_ = 0;
  std::uint64_t rdb_saves_ = 0;
  // The copy-on-write the last successful child of each kind reported (INFO *_last_cow_size;
  // not zeroed by CONFIG RESETSTAT, as in Redis).
  std::size_t rdb_last_cow_ = 0;
  std::size_t aof_last_cow_ = 0;
  std::function<void(bool ok)> rdb_done_hook_;
  bool rdb_to_sockets_ = false;  // the running kRdb child is a diskless transfer
  std::shared_ptr<bool> alive_;  // the config observer checks it (config::Config outlives us)
  std::function<void(std::string_view)> supervisor_notify_;
  bool stopping_announced_ = false;
};

}  // namespace listd::server
