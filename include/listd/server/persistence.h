// The server's durability: the AOF (Redis 7.0 multi-part layout, written once per loop turn at
// the acknowledgement point), RDB snapshots (SAVE, BGSAVE, save points), AOF rewrites
// (BGREWRITEAOF, automatic by size) and loading at start-up. Owned by the Executor.
//
// The loop contract (docs/ARCHITECTURE.md):
//  - it consumes the executor's effect stream (effect_stream.h) into the turn buffer;
//  - the transport calls flush_turn() before it writes any reply of the turn: one write() of
//    the turn's bytes to the current incr file and, with appendfsync always, one fdatasync()
//    (group commit for every client of the turn). If either fails, listd logs and exits with
//    status 1 without sending a reply (a failed fsync is never retried);
//  - everysec: the write still precedes the replies; a background thread that touches no data
//    fdatasyncs the file at most once a second;
//  - cron() (once a second) reaps BGSAVE / rewrite children, switches the manifest after a
//    rewrite, triggers save points and automatic rewrites.
// Files: `dir/appenddirname/<appendfilename>.<n>.base.rdb`, `...<n>.incr.aof`, `.manifest`,
// and `dir/dbfilename`. The manifest is replaced atomically (temp, fdatasync, rename, directory
// fsync); files that leave it are deleted only after the new manifest is durable.
// Children are forked: they write one file and _exit; they never touch sockets or the parent's
// state.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "listd/persistence/aof_encoder.h"
#include "listd/persistence/aof_manifest.h"
#include "listd/config/config.h"
#include "listd/server/effect_stream.h"

namespace listd::server {

class Executor;
class CommandTable;


/// The AOF is the effect stream's first consumer (effect_stream.h).
class Persistence final : public EffectConsumer {
 public:
  using LogFn = std::function<void(config::LogLevel, std::string_view)>;

  explicit Persistence(Executor& exec);
  ~Persistence() override;
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  /// Where messages go (the server part has no logger of its own; main installs spdlog).
  void set_logger(LogFn log) { log_ = std::move(log); }
  /// Called instead of exit(1) after a failed AOF write or fsync (tests).
  void set_fatal_handler(std::function<void()> fatal) { fatal_ = std::move(fatal); }

  // ---- propagation --------------------------------------------------------------------
  /// True when effects must be written: appendonly is on and nothing is being loaded.
  bool logging() const noexcept { return aof_state_ != AofState::kOff && !loading_; }
  bool loading() const noexcept { return loading_; }
  bool wants_effects() const noexcept override { return logging(); }
  void on_effect(int db, std::span<const std::string_view> argv) override { append(db, argv); }
  /// Appends one command run in `db` to the turn buffer.
  void append(int db, std::span<const std::string_view> argv) {
    annotate_time();
    encoder_.append(db, argv);
  }
  /// The bytes not yet written (tests, INFO aof_buffer_length).
  const std::string& pending_bytes() const noexcept { return encoder_.buffer(); }

  // ---- the acknowledgement point --------------------------------------------------------
  /// Writes the turn's bytes and, for `always`, fdatasyncs them. No-op when nothing is pending.
  void flush_turn() {
    if (!encoder_.empty() || sync_error_.load(std::memory_order_relaxed) != 0) flush_now();
  }

  // ---- start-up, cron, shutdown ----------------------------------------------------------
  /// Loads the AOF (appendonly yes: manifest order; dump.rdb ignored) or dump.rdb, then opens
  /// the AOF for appending (creating the directory, a base and an incr file if needed).
  /// False with a message when listd must not start.
  bool load_at_startup(std::string& error);
  /// Once a second: children, save points, automatic rewrite, background fsync errors.
  void cron();
  /// Writes and fsyncs what is pending, stops the fsync thread, kills children.
  void shutdown();
  /// Before exiting (SHUTDOWN, SIGTERM), as Redis: a synchronous dump.rdb when save points are
  /// configured (unless `nosave`) or `save` asks for it, after any running child finished.
  /// False when that snapshot failed: the caller then stays up unless forced.
  bool save_before_exit(bool save, bool nosave);

  // ---- commands ------------------------------------------------------------------------
  /// SAVE. Empty on success, else the error reply.
  std::string save();
  /// BGSAVE: the status reply ("+Background saving started") or an error ("-ERR ...").
  std::string bgsave();
  /// BGREWRITEAOF: the status or error reply, RESP-encoded.
  std::string bgrewriteaof();
  /// Blocks until no child runs (DEBUG / tests).
  void wait_for_children();
  /// Redis' MISCONF state: save points configured, stop-writes-on-bgsave-error yes, and the last
  /// BGSAVE failed. Write commands (and PING, as in Redis) are refused until a save succeeds.
  bool refusing_writes() const noexcept { return !last_bgsave_ok_ && misconf_configured(); }
  /// The `# Persistence` fields after the header.
  void info(std::string& out) const;
  /// CONFIG SET appendonly yes|no at run time.
  void on_appendonly_changed();

 private:
  enum class ChildKind { kNone, kRdb, kRewrite };
  // Redis' aof_state. kWaitRewrite: after CONFIG SET appendonly yes, until the first rewrite's
  // base holds the data; meanwhile commands go to a temporary incr file that joins the manifest
  // with that base.
  enum class AofState { kOff, kOn, kWaitRewrite };
  // What the running rewrite child's base is for: compacting the live AOF, the first AOF after
  // CONFIG SET appendonly yes, or a base-only AOF (BGREWRITEAOF while appendonly is no, as Redis).
  enum class RewriteMode { kCompact, kInitial, kBaseOnly };

  void log(config::LogLevel level, std::string_view msg) const;
  [[noreturn]] void fatal(std::string_view msg);
  void flush_now();
  bool load_aof(std::string& error);
  bool load_rdb_file(const std::string& path, std::string& error);
  bool load_one_aof_file(const std::string& name, bool last, std::string& error);
  bool start_fresh_aof(std::string& error);
  void adopt_manifest_on_disk();
  std::string temp_incr_path() const;
  bool open_incr_for_append(std::string& error);
  bool persist_manifest(std::string& error);
  void delete_history_files();
  void stop_aof();
  bool write_rdb_file(const std::string& path, bool aof_base, std::string& error) const;
  bool start_rewrite(std::string& error);
  bool start_compacting_incr(std::string& error);
  bool fork_rewrite_child(std::string& error);
  void finish_rewrite(bool ok);
  bool start_bgsave(std::string& error);
  /// Bookkeeping once the child is reaped (`reaped` from waitpid), then finish_rewrite/bgsave.
  void child_exited(pid_t reaped, int status);
  /// Stops the running child (SIGUSR1), reaps it and removes its temp file.
  void kill_child();
  bool misconf_configured() const noexcept;  // save points and stop-writes-on-bgsave-error
  void finish_bgsave(bool ok);
  void annotate_time();
  void start_syncer();
  void stop_syncer();
  void syncer_loop();
  std::string aof_dir() const;
  std::int64_t now_ms() const;

  Executor& exec_;
  LogFn log_;
  std::function<void()> fatal_;
  persistence::AofEncoder encoder_;
  AofState aof_state_ = AofState::kOff;
  bool loading_ = false;

  // The open AOF.
  std::string aof_dir_path_;
  std::string prefix_;
  persistence::AofManifest manifest_;
  int incr_fd_ = -1;
  long long aof_current_size_ = 0;
  long long aof_base_size_ = 0;  // aof_current_size_ after the last rewrite (auto-rewrite)
  std::uint64_t fsyncs_ = 0;

  // everysec background fsync: the thread reads incr_fd_ under sync_mu_ only.
  std::thread syncer_;
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  bool syncer_stop_ = false;
  std::atomic<bool> unsynced_{false};
  std::atomic<int> sync_error_{0};
  std::atomic<bool> fsync_paused_{false};  // no-appendfsync-on-rewrite while a child saves
  long long last_timestamp_s_ = 0;          // the last "#TS:" annotation written

  // Children.
  ChildKind child_kind_ = ChildKind::kNone;
  pid_t child_pid_ = -1;
  std::string child_temp_;
  std::int64_t child_start_ms_ = 0;
  long long dirty_at_fork_ = 0;
  long long rewrite_base_seq_ = 0;
  std::size_t rewrite_old_incrs_ = 0;
  RewriteMode rewrite_mode_ = RewriteMode::kCompact;
  bool rewrite_scheduled_ = false;

  // INFO.
  bool last_bgsave_ok_ = true;
  bool last_rewrite_ok_ = true;
  std::int64_t last_bgsave_secs_ = -1;
  std::int64_t last_rewrite_secs_ = -1;
  std::int64_t last_bgsave_try_ms_ = 0;
  std::int64_t last_rewrite_fail_ms_ = 0;
  std::uint64_t rdb_saves_ = 0;
  std::uint64_t aof_rewrites_ = 0;
  std::uint64_t rdb_loaded_keys_ = 0;
  std::uint64_t rdb_loaded_expired_ = 0;
  std::shared_ptr<bool> alive_;  // the config observer checks it (config::Config outlives us)
};

}  // namespace listd::server
