// The AOF writer: the turn buffer (the effects of the loop turn, RESP-encoded), the open incr
// file, the fsync policy and the everysec fsync thread.
//
// The loop contract (docs/ARCHITECTURE.md, docs/DURABILITY.md):
//  - the transport calls flush_turn() before it writes any reply of the turn: one write() of the
//    turn's bytes to the current file and, with appendfsync always, one fdatasync (group commit
//    for every client of the turn). If either fails, listd exits with status 1 without sending
//    a reply;
//  - everysec: the write still precedes the replies; a background thread that touches no data
//    fdatasyncs the file at most once a second, and a failure it saw stops listd at the next
//    flush or cron;
//  - no-appendfsync-on-rewrite: while a child saves, fsyncs wait (the thread does them within
//    a second once the child is gone), as Redis; `always` then promises less.
// Invariant: the thread reads the file descriptor under its mutex only; everything else runs on
// the executor's thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "listd/config/config.h"
#include "listd/persistence/aof_encoder.h"
#include "listd/persistence/background_child.h"
#include "listd/persistence/file_io.h"
#include "listd/server/clock.h"
#include "listd/server/persistence_log.h"

namespace listd::server {

class AofWriter {
 public:
  AofWriter(const config::ServerSettings& settings, const persistence::BackgroundChild& child,
            const PersistenceLog& log);
  /// Stops the thread and closes the file; pending bytes are dropped (close() writes them).
  ~AofWriter();
  AofWriter(const AofWriter&) = delete;
  AofWriter& operator=(const AofWriter&) = delete;

  /// Appends one effect run in `db`, after a "#TS:" annotation when aof-timestamp-enabled is on
  /// and the command's second (`command_unix_ms`) differs from the last annotated one.
  void append(int db, std::span<const std::string_view> argv, std::int64_t command_unix_ms);
  /// The bytes not yet written (tests, INFO aof_buffer_length).
  const std::string& pending_bytes() const noexcept { return encoder_.buffer(); }

  /// The acknowledgement point (see above). No-op when nothing is pending.
  void flush_turn() {
    if (!encoder_.empty() || sync_error_.load(std::memory_order_relaxed) != 0) flush();
  }
  /// Writes what is pending (and fdatasyncs for `always`); exits on failure.
  void flush();
  /// Writes what is pending and fdatasyncs it; exits on failure (before a rewrite, the files it
  /// leaves in place must hold everything logged so far).
  void sync_before_rewrite();
  /// Drops the pending bytes (the base being written will hold their effects).
  void discard_pending() noexcept { encoder_.clear(); }
  /// From now on bytes go to `fd` (the previous file is closed); the next command gets a SELECT.
  void switch_to(persistence::UniqueFd fd);
  /// Writes and fdatasyncs what is pending (a failed fsync is logged), stops the thread, closes
  /// the file.
  void close();
  /// Starts the everysec thread (idempotent).
  void start_syncer();
  /// Held across a fork(): the fsync thread is then parked in its wait and holds no lock, so
  /// the child inherits none locked (ASan's allocator does not reset its locks at fork; a child
  /// forked while that thread allocated deadlocked on its first allocation).
  [[nodiscard]] std::unique_lock<std::mutex> park_syncer() { return std::unique_lock(mu_); }
  /// Exits if the everysec thread's fsync failed (cron, once a second).
  void check_background_fsync() {
    if (sync_error_.load() != 0) flush();
  }
  /// Pauses or resumes the everysec fsyncs as a child starts or ends (cron).
  void refresh_fsync_pause() noexcept;

  /// aof_last_write_status: no background fsync failed.
  bool write_ok() const noexcept { return sync_error_.load() == 0; }
  /// Bytes in the AOF's files, and what they were after the last rewrite (auto-rewrite growth).
  long long current_size() const noexcept { return current_size_; }
  long long base_size() const noexcept { return base_size_; }
  /// The files now hold `total` bytes (after loading or a rewrite): the new growth base.
  void reset_size(long long total) noexcept { current_size_ = base_size_ = total; }
  std::uint64_t fsyncs() const noexcept { return fsyncs_; }

  /// Redis' AOF latency events, timed on `clock` while latency-monitor-threshold is on: each
  /// write is "aof-write" and one of "aof-write-pending-fsync" (the everysec thread is in an
  /// fsync), "aof-write-active-child" or "aof-write-alone"; each appendfsync-always fdatasync is
  /// "aof-fsync-always". `hook(event, ms)` gets every measurement (the monitor applies the
  /// threshold).
  using LatencyHook = std::function<void(std::string_view event, std::uint64_t ms)>;
  void set_latency_hook(const Clock& clock, LatencyHook hook) {
    latency_clock_ = &clock;
    latency_hook_ = std::move(hook);
  }

 private:
  bool timing() const noexcept { return latency_hook_ && settings_.latency_monitor_threshold != 0; }
  std::uint64_t mono_us() const { return latency_clock_->read().mono_us; }
  void report_write(std::uint64_t ms) const;
  bool fsync_paused() const noexcept;
  void stop_syncer();
  void syncer_loop();

  const config::ServerSettings& settings_;
  const persistence::BackgroundChild& child_;
  const PersistenceLog& log_;
  persistence::AofEncoder encoder_;
  long long last_timestamp_s_ = 0;  // the last "#TS:" annotation written
  long long current_size_ = 0;
  long long base_size_ = 0;
  std::uint64_t fsyncs_ = 0;

  // The everysec thread: it touches only fd_ (under mu_) and the atomics.
  persistence::UniqueFd fd_;
  std::thread syncer_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool syncer_stop_ = false;
  bool syncer_started_ = false;  // the thread holds mu_ or waits on cv_: past its start-up
  std::atomic<bool> unsynced_{false};
  std::atomic<int> sync_error_{0};
  std::atomic<bool> fsync_paused_{false};
  std::atomic<bool> syncing_{false};  // the thread is inside an fsync (aof-write-pending-fsync)

  const Clock* latency_clock_ = nullptr;
  LatencyHook latency_hook_;
};

}  // namespace listd::server
