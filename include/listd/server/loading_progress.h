// Loading at start-up as Redis 7.0 shows it (server.loading and the loading_* INFO fields):
// while a dump.rdb or an AOF loads, listd already listens; every
// `loading-process-events-interval-bytes` read (RDB) or 1024 commands (AOF) the loader serves
// the clients that are ready (Executor::run_events_while_busy), and commands without the
// kLoading flag get kLoadingErr (Executor::rejection). DataLoader owns one of these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace listd::server {

/// Redis' shared.loadingerr, without the leading '-'.
inline constexpr std::string_view kLoadingErr = "LOADING Redis is loading the dataset in memory";

class LoadingProgress {
 public:
  /// A load of `total_bytes` (0: unknown) begins at `unix_s` (Redis startLoading).
  void start(std::int64_t unix_s, std::uint64_t total_bytes);
  /// Bytes of the load read so far (Redis loadingAbsProgress).
  void set_loaded(std::uint64_t bytes) noexcept { loaded_bytes_ = bytes; }
  /// The RDB's "used-mem" AUX field: the estimate of the total when the size is unknown.
  void set_rdb_used_mem(std::uint64_t bytes) noexcept { rdb_used_mem_ = bytes; }
  void stop() noexcept { active_ = false; }
  bool active() const noexcept { return active_; }
  std::uint64_t loaded_bytes() const noexcept { return loaded_bytes_; }

  /// INFO persistence's loading_* lines (only while active), as 7.0's genRedisInfoString.
  void info(std::string& out, std::int64_t now_unix_s) const;

 private:
  bool active_ = false;
  std::int64_t start_unix_s_ = 0;
  std::uint64_t total_bytes_ = 0;
  std::uint64_t rdb_used_mem_ = 0;
  std::uint64_t loaded_bytes_ = 0;
};

}  // namespace listd::server
