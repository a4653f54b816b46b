#include "listd/server/loading_progress.h"

#include <fmt/format.h>

#include <algorithm>

namespace listd::server {

void LoadingProgress::start(std::int64_t unix_s, std::uint64_t total_bytes) {
  active_ = true;
  start_unix_s_ = unix_s;
  total_bytes_ = total_bytes;
  rdb_used_mem_ = 0;
  loaded_bytes_ = 0;
}

void LoadingProgress::info(std::string& out, std::int64_t now_unix_s) const {
  if (!active_) return;
  double perc = 0;
  // Signed, as Redis' off_t: the figures are estimates and may pass the total.
  long long remaining = 1;
  const auto loaded = static_cast<long long>(loaded_bytes_);
  if (total_bytes_ != 0) {
    perc = static_cast<double>(loaded_bytes_) / static_cast<double>(total_bytes_) * 100;
    remaining = static_cast<long long>(total_bytes_) - loaded;
  } else if (rdb_used_mem_ != 0) {
    // The used memory is only a poor estimate of the file's size: never 100 % or more.
    perc = std::min(static_cast<double>(loaded_bytes_) / static_cast<double>(rdb_used_mem_) * 100,
                    99.99);
    remaining = std::max(static_cast<long long>(rdb_used_mem_) - loaded, 1LL);
  }
  const std::int64_t elapsed = now_unix_s - start_unix_s_;
  const long long eta = elapsed == 0 ? 1 : elapsed * remaining / (loaded + 1);  // 1: no figure yet
  out += fmt::format(
      "loading_start_time:{}\r\nloading_total_bytes:{}\r\nloading_rdb_used_mem:{}\r\n"
      "loading_loaded_bytes:{}\r\nloading_loaded_perc:{:.2f}\r\nloading_eta_seconds:{}\r\n",
      start_unix_s_, total_bytes_, rdb_used_mem_, loaded_bytes_, perc, eta);
}

}  // namespace listd::server
