// Per-key queue traffic for the queue view (QUEUES, the metrics endpoint): pushes, pops and
// hand-offs (a blocked client served) of each key, in a ring of 60 one-second buckets, so the
// rates cover the last minute.
//
// API: record (the hot path: one cached key compare and an increment), forget_idle (cron),
// rates / for_each_key (readers).
// Invariants: at most kMaxTrackedKeys keys are tracked (a key seen while full is not tracked
// until cron forgets idle ones: the cost stays O(1) whatever the key count); a key without
// traffic for kWindowSeconds is forgotten by the next forget_idle.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "listd/store/db_key.h"

namespace listd::server {

enum class QueueEvent : std::uint8_t { kPush, kPop, kHandoff };

/// Events per second over the last kWindowSeconds (the running second included).
struct QueueRates {
  double pushes = 0;
  double pops = 0;
  double handoffs = 0;
};

class QueueStats {
 public:
  static constexpr std::uint64_t kWindowSeconds = 60;
  static constexpr std::size_t kMaxTrackedKeys = 1024;

  QueueStats() = default;
  QueueStats(const QueueStats&) = delete;
  QueueStats& operator=(const QueueStats&) = delete;

  /// Counts `n` events of `kind` on (db, key) in second `now_s` (monotonic; never decreases).
  void record(int db, std::string_view key, QueueEvent kind, std::uint32_t n, std::uint64_t now_s) {
    Traffic* t =
        cached_ && cached_db_ == db && cached_key_ == key ? cached_ : find_or_track(db, key, now_s);
    if (!t) return;
    if (t->last_s < now_s) roll(*t, now_s);
    // Into the newest bucket: a clock that went back (a loading override) never writes into
    // a bucket outside the window.
    t->ring[t->last_s % kWindowSeconds][static_cast<std::size_t>(kind)] += n;
  }
  /// Forgets the keys with no event in the window ending at `now_s`.
  void forget_idle(std::uint64_t now_s);
  /// The key's rates at `now_s`, or all zero when it is not tracked.
  QueueRates rates(int db, std::string_view key, std::uint64_t now_s) const;
  /// f(const store::DbKey&) for every tracked key, in no particular order.
  template <class F>
  void for_each_key(F&& f) const {
    for (const auto& [k, t] : keys_) f(k);
  }
  std::size_t tracked_count() const noexcept { return keys_.size(); }
  void clear() noexcept;

 private:
  using Bucket = std::array<std::uint32_t, 3>;  // by QueueEvent
  struct Traffic {
    std::array<Bucket, kWindowSeconds> ring{};
    std::uint64_t last_s = 0;  // the newest second written; older buckets are its 59 before
  };
  Traffic* find_or_track(int db, std::string_view key, std::uint64_t now_s);
  static void roll(Traffic& t, std::uint64_t now_s) noexcept;
  static QueueRates window_rates(const Traffic& t, std::uint64_t now_s) noexcept;

  std::unordered_map<store::DbKey, Traffic, store::DbKeyHash, store::DbKeyEqual> keys_;
  // The last key recorded: a worker's pushes and pops hit one key in a row, so most records
  // skip the hash. The view points at the map's own key (stable until the entry is erased).
  Traffic* cached_ = nullptr;
  int cached_db_ = 0;
  std::string_view cached_key_;
};

}  // namespace listd::server
