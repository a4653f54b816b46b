// The multi-part AOF's files and the rewrite state machine: Redis' aof_state (off, on, waiting
// for the first rewrite) crossed with what the running rewrite is for (RewriteMode).
//
// Files: `dir/appenddirname/<appendfilename>.<n>.base.rdb`, `...<n>.incr.aof`, `.manifest`.
// The manifest is replaced atomically (temp, fdatasync, rename, directory fsync); files that
// leave it are deleted only after the new manifest is durable. The next manifest is computed
// first (persistence/manifest_transitions.h, pure), the files are made to match, and the
// in-memory manifest changes only once the new one is on disk.
// A rewrite: start() (the parent's preparation, then a child writes the new base to a temporary
// file), finish() once the child is reaped. Every way a rewrite can fail ends in fail_rewrite(),
// which undoes what was installed, records the failure and, for the first AOF after CONFIG SET
// appendonly yes, schedules a retry (as Redis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/config/config.h"
#include "listd/persistence/aof_manifest.h"
#include "listd/persistence/background_child.h"
#include "listd/server/aof_writer.h"
#include "listd/server/clock.h"
#include "listd/server/persistence_log.h"
#include "listd/server/status.h"
#include "listd/store/database.h"

namespace listd::server {

class AofRewrite {
 public:
  /// Redis' aof_state. kWaitRewrite: after CONFIG SET appendonly yes, until the first rewrite's
  /// base holds the data; meanwhile commands go to a temporary incr file that joins the manifest
  /// with that base.
  enum class State { kOff, kOn, kWaitRewrite };
  /// What a rewrite's base is for: compacting the live AOF, the first AOF after CONFIG SET
  /// appendonly yes, or a base-only AOF (BGREWRITEAOF while appendonly is no, as Redis).
  enum class Mode { kCompact, kInitial, kBaseOnly };

  /// The rewrite a state asks for.
  static Mode mode_for(State state) noexcept;
  /// True when the state changed under a running rewrite, so that its base is no longer wanted
  /// (the AOF was switched off, or off and on again).
  static bool is_stale(Mode mode, State now) noexcept;
  /// True when a failed rewrite of `mode` in state `now` is retried from cron.
  static bool retries_after_failure(Mode mode, State now) noexcept;

  AofRewrite(const config::ServerSettings& settings, const Clock& clock,
             const store::Keyspace& keyspace, AofWriter& writer,
             persistence::BackgroundChild& child, const PersistenceLog& log);

  /// Where a base file's FUNCTION libraries come from (their codes; none while unset).
  void set_function_source(std::function<std::vector<std::string>()> source) {
    function_source_ = std::move(source);
  }

  State state() const noexcept { return state_; }
  bool enabled() const noexcept { return state_ != State::kOff; }
  const persistence::AofManifest& manifest() const noexcept { return manifest_; }
  /// The AOF directory and file prefix from the settings (dir/appenddirname, appendfilename).
  const std::string& dir() const noexcept { return dir_; }
  const std::string& prefix() const noexcept { return prefix_; }
  /// Re-reads dir and prefix from the settings.
  void locate();

  // ---- start-up ------------------------------------------------------------------------
  /// The loader replayed the files of `loaded` (`size` bytes): append to its last incr file
  /// (a new one if it has none). The AOF is on.
  Status open_loaded(const persistence::AofManifest& loaded, long long size);
  /// No usable AOF on disk: a base from the current data and an empty incr file; the files of
  /// `on_disk` (the manifest found, if any) become history. The AOF is on.
  Status create_fresh(const persistence::AofManifest& on_disk);

  // ---- CONFIG SET appendonly, shutdown ---------------------------------------------------
  /// appendonly yes: the first base is written in the background (state kWaitRewrite).
  void enable();
  /// appendonly no: stops a rewrite and closes the AOF.
  void disable();
  /// Closes the AOF (shutdown): pending bytes written and fsynced.
  void close();

  // ---- rewrites --------------------------------------------------------------------------
  /// BGREWRITEAOF, an automatic or a scheduled rewrite: prepares the files and forks the child.
  /// The error is the command's reply text ("ERR ...").
  Status start();
  /// The rewrite child ended: installs its base and switches the manifest, or fails.
  void finish(const persistence::BackgroundChild::Exit& exit);
  /// A rewrite waits for the running child (cron starts it).
  void schedule() noexcept { scheduled_ = true; }
  bool scheduled() const noexcept { return scheduled_; }
  /// auto-aof-rewrite-percentage: the growth (%) over the last rewrite's size when it asks for
  /// a rewrite now (the AOF is on, big enough, and no failure in the last minute).
  std::optional<long long> auto_rewrite_growth(std::int64_t now_ms) const;
  /// Redis aofRewriteLimited: after 3 failed rewrites in a row, a scheduled or automatic
  /// rewrite waits 1 minute, then 2, 4, ... up to 60 between attempts (logged as a warning each
  /// time a wait starts); a success or BGREWRITEAOF by hand ends the back-off.
  bool limited(std::int64_t now_ms);
  /// The start failed before the child ran (INFO aof_last_bgrewrite_status).
  void record_start_failure() noexcept { last_ok_ = false; }

  // INFO.
  bool last_ok() const noexcept { return last_ok_; }
  std::int64_t last_secs() const noexcept { return last_secs_; }
  std::uint64_t rewrites() const noexcept { return rewrites_; }
  /// Rewrites in a row whose child failed or whose files could not be installed (Redis
  /// stat_aofrw_consecutive_failures); a success ends the run. A failed fork is not counted.
  std::uint64_t consecutive_failures() const noexcept { return consecutive_failures_; }
  /// BGREWRITEAOF scheduled by hand starts the count again, as Redis' bgrewriteaofCommand.
  void forget_failures() noexcept { consecutive_failures_ = 0; }
  /// CONFIG RESETSTAT (Redis resetServerStats): aof_rewrites and the failure run.
  void reset_stats() noexcept {
    rewrites_ = 0;
    consecutive_failures_ = 0;
  }

 private:
  // How far a finishing rewrite got: what fail_rewrite() must undo.
  struct Installed {
    std::string temp_base;  // the child's file
    std::string base_path;  // the new base, once renamed into place
    std::string incr_path;  // the temporary incr file, once renamed to its manifest name
  };

  std::string temp_incr_path() const;
  Status persist_manifest(const persistence::AofManifest& m) const;
  Status open_last_incr();
  void delete_history_files();
  void adopt_manifest_on_disk();
  Status prepare();
  Status prepare_initial();
  Status prepare_compact();
  Status fork_child();
  Status install(Installed& done);
  void fail_rewrite(std::string_view why, const Installed& done);
  void rewrite_succeeded(const Installed& done);

  const config::ServerSettings& settings_;
  const Clock& clock_;
  const store::Keyspace& keyspace_;
  AofWriter& writer_;
  persistence::BackgroundChild& child_;
  const PersistenceLog& log_;
  std::function<std::vector<std::string>()> function_source_;

  State state_ = State::kOff;
  std::string dir_;
  std::string prefix_;
  persistence::AofManifest manifest_;

  // The running (or next) rewrite.
  Mode mode_ = Mode::kCompact;
  long long base_seq_ = 0;
  std::size_t replaced_incrs_ = 0;  // kCompact: the incr files before the one opened at the fork
  bool scheduled_ = false;

  bool last_ok_ = true;
  std::int64_t last_secs_ = -1;
  std::int64_t last_fail_ms_ = 0;
  std::uint64_t rewrites_ = 0;
  std::uint64_t consecutive_failures_ = 0;
  // limited(): the current wait and when it ends (0: not waiting).
  int backoff_minutes_ = 0;
  std::int64_t backoff_until_ms_ = 0;
};

}  // namespace listd::server
