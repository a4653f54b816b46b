// Eviction past maxmemory (Redis evict.c performEvictions): before each command, while the heap
// (less the AOF buffer) is over `maxmemory`, delete keys chosen by `maxmemory-policy`.
//
// LRU, LFU and volatile-ttl sample `maxmemory-samples` keys of every database into one pool of
// the 16 best candidates kept across calls (ordered by "idle": idle ms, 255 - LFU frequency, or
// the inverse of the deadline), and evict the best that still exists; the random policies pick
// a key of the next database in turn. An eviction is a DEL in the effect stream (unwrapped, at
// once), an `evicted` notification, a WATCH touch and one `evicted_keys`. A cycle stops after
// `maxmemory-eviction-tenacity`'s time limit (checked every 16 keys) and goes on from the
// executor's tick (Redis' eviction time proc) until memory is under the limit.
//
// API: perform() (EvictResult), background_pending() / background_step() (tick),
// start_background() (CONFIG SET maxmemory), evicted_keys().
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "listd/store/dict.h"

namespace listd::store {
class Database;
}

namespace listd::server {

class Executor;

enum class EvictResult {
  kOk,       ///< under the limit (or nothing may be evicted now)
  kRunning,  ///< still over, the cycle goes on from tick()
  kFail,     ///< over the limit and nothing left to evict (or noeviction): -OOM for denyoom
};

class Evictor {
 public:
  /// Watches CONFIG SET maxmemory: a lowered limit starts the background cycle.
  explicit Evictor(Executor& exec);

  /// One eviction cycle (call only with maxmemory set, outside an execution unit).
  EvictResult perform();
  /// Keep evicting from tick() until under the limit (Redis startEvictionTimeProc).
  void start_background() noexcept { background_ = true; }
  bool background_pending() const noexcept { return background_; }
  /// One cycle from tick(); stops the background work once it no longer runs.
  void background_step();
  std::uint64_t evicted_keys() const noexcept { return evicted_keys_; }
  /// INFO stats' eviction-exceeded time, in ms (Redis 7.0): how long the cycles have found the
  /// memory over maxmemory and could not bring it under (the spells ended, plus the current
  /// one), and the current spell alone (0 when under the limit).
  std::uint64_t total_exceeded_ms() const noexcept;
  std::uint64_t current_exceeded_ms() const noexcept;
  void reset_stats() noexcept;

 private:
  struct PoolEntry {
    std::uint64_t idle = 0;
    std::string key;
    int db = 0;
    bool filled = false;
  };
  struct Candidate {
    int db = -1;
    std::string key;
  };
  Candidate pick_from_pool();
  Candidate pick_random();
  void populate(store::Database& db, bool allkeys);
  void insert_into_pool(std::uint64_t idle, std::string_view key, int db);
  std::uint64_t score(const store::Entry& e) const;
  /// Deletes the key and returns the bytes the heap shrank by (may be negative).
  long long evict(const Candidate& victim);
  EvictResult evict_to_limit();
  /// Opens a spell on kFail/kRunning, closes it on kOk (Redis performEvictions' update_metrics).
  void track_exceeded(EvictResult r) noexcept;
  /// The current spell's length so far in µs, 0 when under the limit.
  std::uint64_t current_spell_us() const noexcept;
  /// The executor's clock, for the "eviction-cycle" and "eviction-del" latency events.
  std::uint64_t latency_clock_us() const;

  Executor& exec_;
  std::array<PoolEntry, 16> pool_{};  // ascending idle; Redis EVPOOL_SIZE
  std::vector<store::Entry*> samples_;
  unsigned next_db_ = 0;
  bool background_ = false;
  std::uint64_t evicted_keys_ = 0;
  std::uint64_t exceeded_since_us_ = 0;  // the current spell's start (monotonic); 0: none
  std::uint64_t exceeded_total_us_ = 0;  // the spells ended since start-up or CONFIG RESETSTAT
  std::shared_ptr<bool> alive_;          // the config observer checks it (the Config outlives us)
};

}  // namespace listd::server
