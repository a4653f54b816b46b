// What INFO memory and the maxmemory check read: listd's own heap count (base::used_memory, the
// counting operator new), the start-up figure and the peak, and Redis getMaxmemoryState's test
// under noeviction. The peak is sampled where the count is read (each check, cron, INFO), as
// Redis samples it in serverCron and INFO.
#pragma once

#include <algorithm>
#include <cstddef>

#include "listd/base/memory_accounting.h"

namespace listd::server {

class MemoryUsage {
 public:
  /// Taken when the executor is built: the server's own start-up heap (used_memory_startup).
  MemoryUsage() noexcept : startup_(base::used_memory()), peak_(startup_) {}

  /// The live heap now (used_memory); raises the peak.
  std::size_t used() noexcept {
    const std::size_t u = base::used_memory();
    peak_ = std::max(peak_, u);
    return u;
  }
  std::size_t peak() const noexcept { return peak_; }
  std::size_t startup() const noexcept { return startup_; }

  /// Redis getMaxmemoryState: over `maxmemory` (0: no limit) once the heap, less the bytes
  /// not counted for eviction (`not_counted`: the AOF buffer), exceeds it.
  bool over_limit(std::size_t maxmemory, std::size_t not_counted) noexcept {
    if (maxmemory == 0) return false;
    const std::size_t u = used();
    if (u <= maxmemory) return false;
    return u - std::min(u, not_counted) > maxmemory;
  }

 private:
  std::size_t startup_;
  std::size_t peak_;
};

}  // namespace listd::server
