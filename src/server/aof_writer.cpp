#include "listd/server/aof_writer.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstring>

namespace listd::server {

namespace ps = listd::persistence;

AofWriter::AofWriter(const config::ServerSettings& settings, const ps::BackgroundChild& child,
                     const PersistenceLog& log)
    : settings_(settings), child_(child), log_(log) {}

AofWriter::~AofWriter() { stop_syncer(); }

void AofWriter::append(int db, std::span<const std::string_view> argv,
                       std::int64_t command_unix_ms) {
  if (settings_.aof_timestamp_enabled) {
    const long long now_s = command_unix_ms / 1000;
    if (now_s > last_timestamp_s_) {
      encoder_.annotate_timestamp(now_s);
      last_timestamp_s_ = now_s;
    }
  }
  encoder_.append(db, argv);
}

bool AofWriter::fsync_paused() const noexcept {
  return settings_.no_appendfsync_on_rewrite && child_.running();
}

void AofWriter::flush() {
  if (const int e = sync_error_.load(); e != 0)
    log_.fatal(
        fmt::format("Can't persist AOF for fsync error when the AOF fsync policy is "
                    "'everysec': {}. Exiting...",
                    std::strerror(e)));
  if (encoder_.empty()) return;
  if (!fd_) {  // AOF switched off with bytes pending: nothing to write them to
    encoder_.clear();
    return;
  }
  std::string err;
  const bool timed = timing();
  std::uint64_t start_us = timed ? mono_us() : 0;
  if (!ps::write_all(fd_.get(), encoder_.buffer(), err))
    log_.fatal(fmt::format("Error writing to the AOF file: {}. Exiting...", err));
  if (timed) report_write((mono_us() - start_us) / 1000);
  current_size_ += static_cast<long long>(encoder_.size());
  encoder_.clear();
  const bool paused = fsync_paused();
  fsync_paused_.store(paused, std::memory_order_relaxed);
  switch (settings_.appendfsync) {
    case config::AppendFsync::kAlways:
      if (paused) {
        unsynced_.store(true, std::memory_order_release);
        break;
      }
      if (timed) start_us = mono_us();
      if (!ps::data_sync(fd_.get(), err))
        log_.fatal(
            fmt::format("Can't persist AOF for fsync error when the AOF fsync policy is "
                        "'always': {}. Exiting...",
                        err));
      if (timed) latency_hook_("aof-fsync-always", (mono_us() - start_us) / 1000);
      ++fsyncs_;
      break;
    case config::AppendFsync::kEverysec: unsynced_.store(true, std::memory_order_release); break;
    case config::AppendFsync::kNo: break;
  }
}

// Redis flushAppendOnlyFile's classification of a write: what it may have waited behind.
void AofWriter::report_write(std::uint64_t ms) const {
  if (syncing_.load(std::memory_order_relaxed))
    latency_hook_("aof-write-pending-fsync", ms);
  else if (child_.running())
    latency_hook_("aof-write-active-child", ms);
  else
    latency_hook_("aof-write-alone", ms);
  latency_hook_("aof-write", ms);
}

void AofWriter::sync_before_rewrite() {
  flush();
  std::string err;
  if (fd_ && !ps::data_sync(fd_.get(), err))
    log_.fatal(fmt::format("Can't persist AOF before a rewrite: fsync error {}. Exiting...", err));
}

void AofWriter::switch_to(ps::UniqueFd fd) {
  {
    std::lock_guard lk(mu_);
    fd_ = std::move(fd);
  }
  encoder_.reset_selected_db();
}

void AofWriter::close() {
  flush();
  std::string err;
  if (fd_ && !ps::data_sync(fd_.get(), err))
    log_.warning(fmt::format("Fail to fsync the AOF file: {}", err));
  stop_syncer();
  std::lock_guard lk(mu_);
  fd_.reset();
}

void AofWriter::refresh_fsync_pause() noexcept {
  fsync_paused_.store(fsync_paused(), std::memory_order_relaxed);
}

void AofWriter::start_syncer() {
  if (syncer_.joinable()) return;
  {
    std::lock_guard lk(mu_);
    syncer_stop_ = false;
    syncer_started_ = false;
  }
  syncer_ = std::thread([this] { syncer_loop(); });
  // Returns once the thread is in its loop: a fork right after (CONFIG SET appendonly yes
  // starts this thread, then the first rewrite) must not catch it inside its start-up, where
  // ASan's runtime holds the allocator and thread-registry locks park_syncer cannot see.
  std::unique_lock lk(mu_);
  cv_.wait(lk, [this] { return syncer_started_; });
}

void AofWriter::stop_syncer() {
  if (!syncer_.joinable()) return;
  {
    std::lock_guard lk(mu_);
    syncer_stop_ = true;
  }
  cv_.notify_all();
  syncer_.join();
}

void AofWriter::syncer_loop() {
  // Signals are the event loop's business (asio's signal_set); this thread never takes one.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::unique_lock lk(mu_);
  syncer_started_ = true;
  cv_.notify_all();  // start_syncer waits for this
  while (!syncer_stop_) {
    cv_.wait_for(lk, std::chrono::seconds(1), [this] { return syncer_stop_; });
    if (syncer_stop_) break;
    if (fsync_paused_.load(std::memory_order_relaxed)) continue;  // unsynced_ stays set
    if (!unsynced_.exchange(false, std::memory_order_acq_rel)) continue;
    if (!fd_) continue;
    syncing_.store(true, std::memory_order_relaxed);
    if (const int e = ps::data_sync_errno(fd_.get()); e != 0) sync_error_.store(e);
    syncing_.store(false, std::memory_order_relaxed);
  }
}

}  // namespace listd::server
