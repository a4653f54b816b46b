// Per-key queue traffic for the queue view (QUEUES, the metrics endpoint): pushes, pops and
// hand-offs (a blocked client served) of each key, in a ring of 60 one-second buckets, so the
// rates cover the last minute.
//
// API: record_for (the hot path: the key's keyspace entry as its identity, three compares and
// an increment), record (by key bytes: hand-offs, tests), forget_idle (cron), rates /
// for_each_key (readers), set_max_keys (option queue-stats-max-keys).
// Invariants: at most max_keys() keys are tracked (a key seen while full is not tracked until
// cron forgets idle ones: the cost stays O(1) whatever the key count; a lowered bound lets the
// tracked keys run out); a key without traffic for kWindowSeconds is forgotten by the next
// forget_idle. The hot slot names one key's bucket of one second: it is used only while its
// owner (an Entry address), the owner epoch (Entry::destroyed_count), the db and the second
// all match, and is dropped whenever a tracked key is forgotten.
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
  static constexpr std::size_t kDefaultMaxKeys = 1024;

  QueueStats() = default;
  QueueStats(const QueueStats&) = delete;
  QueueStats& operator=(const QueueStats&) = delete;

  /// Counts `n` events of `kind` on (db, key) in second `now_s` (monotonic; never decreases).
  void record(int db, std::string_view key, QueueEvent kind, std::uint32_t n, std::uint64_t now_s) {
    if (std::uint32_t* bucket = bucket_for(db, key, now_s))
      bucket[static_cast<std::size_t>(kind)] += n;
  }
  /// record() at monotonic µs `now_us` for the key whose keyspace entry is `owner` (never null)
  /// while Entry::destroyed_count() is `epoch`: a run of events on one key in one second costs
  /// no key compare and no hash.
  void record_for(const void* owner, std::uint64_t epoch, int db, std::string_view key,
                  QueueEvent kind, std::uint32_t n, std::uint64_t now_us) {
    if (owner == hot_.owner && epoch == hot_.epoch && db == hot_.db &&
        now_us - hot_.second_us < kMicrosPerSecond) {
      hot_.bucket[static_cast<std::size_t>(kind)] += n;
      return;
    }
    record_and_heat(owner, epoch, db, key, kind, n, now_us);
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
  std::size_t max_keys() const noexcept { return max_keys_; }
  void set_max_keys(std::size_t n) noexcept { max_keys_ = n; }
  void clear() noexcept;

 private:
  using Bucket = std::array<std::uint32_t, 3>;  // by QueueEvent
  struct Traffic {
    std::array<Bucket, kWindowSeconds> ring{};
    std::uint64_t last_s = 0;  // the newest second written; older buckets are its 59 before
  };
  // The hot path's one key and second: where record_for adds without a lookup.
  struct HotSlot {
    const void* owner = nullptr;  // never a caller's owner while `bucket` is unset
    std::uint64_t epoch = 0;
    int db = 0;
    std::uint64_t second_us = 0;  // the bucket's second, in µs
    std::uint32_t* bucket = nullptr;
  };
  static constexpr std::uint64_t kMicrosPerSecond = 1'000'000;

  /// The newest bucket of (db, key) at `now_s`, after rolling the ring; null when not tracked.
  std::uint32_t* bucket_for(int db, std::string_view key, std::uint64_t now_s);
  void record_and_heat(const void* owner, std::uint64_t epoch, int db, std::string_view key,
                       QueueEvent kind, std::uint32_t n, std::uint64_t now_us);
  Traffic* find_or_track(int db, std::string_view key, std::uint64_t now_s);
  static void roll(Traffic& t, std::uint64_t now_s) noexcept;
  static QueueRates window_rates(const Traffic& t, std::uint64_t now_s) noexcept;

  std::unordered_map<store::DbKey, Traffic, store::DbKeyHash, store::DbKeyEqual> keys_;
  // The last key recorded: a worker's pushes and pops hit one key in a row, so most records
  // skip the hash. The view points at the map's own key (stable until the entry is erased).
  Traffic* cached_ = nullptr;
  int cached_db_ = 0;
  std::string_view cached_key_;
  HotSlot hot_;
  std::size_t max_keys_ = kDefaultMaxKeys;
};

}  // namespace listd::server
