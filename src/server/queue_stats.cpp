#include "listd/server/queue_stats.h"

#include <algorithm>

namespace listd::server {

std::uint32_t* QueueStats::bucket_for(int db, std::string_view key, std::uint64_t now_s) {
  Traffic* t =
      cached_ && cached_db_ == db && cached_key_ == key ? cached_ : find_or_track(db, key, now_s);
  if (!t) return nullptr;
  if (t->last_s < now_s) roll(*t, now_s);
  // Into the newest bucket: a clock that went back (a loading override) never writes into
  // a bucket outside the window.
  return t->ring[t->last_s % kWindowSeconds].data();
}

void QueueStats::record_and_heat(const void* owner, std::uint64_t epoch, int db,
                                 std::string_view key, QueueEvent kind, std::uint32_t n,
                                 std::uint64_t now_us) {
  const std::uint64_t now_s = now_us / kMicrosPerSecond;
  std::uint32_t* bucket = bucket_for(db, key, now_s);
  if (!bucket) {
    hot_ = HotSlot{};
    return;
  }
  bucket[static_cast<std::size_t>(kind)] += n;
  // Hot only when the bucket is this second's (not after a clock that went back).
  if (cached_->last_s == now_s)
    hot_ = HotSlot{owner, epoch, db, now_s * kMicrosPerSecond, bucket};
  else
    hot_ = HotSlot{};
}

QueueStats::Traffic* QueueStats::find_or_track(int db, std::string_view key, std::uint64_t now_s) {
  auto it = keys_.find(store::DbKeyView{db, key});
  if (it == keys_.end()) {
    if (keys_.size() >= max_keys_) return nullptr;
    it = keys_.emplace(store::DbKey{db, std::string(key)}, Traffic{}).first;
    it->second.last_s = now_s;
  }
  cached_ = &it->second;
  cached_db_ = db;
  cached_key_ = it->first.key;
  return cached_;
}

void QueueStats::roll(Traffic& t, std::uint64_t now_s) noexcept {
  // Zero the buckets of the seconds skipped since the last event (all of them after a minute).
  const std::uint64_t gap = std::min(now_s - t.last_s, kWindowSeconds);
  for (std::uint64_t s = now_s - gap + 1; s <= now_s; ++s) t.ring[s % kWindowSeconds] = {};
  t.last_s = now_s;
}

QueueRates QueueStats::window_rates(const Traffic& t, std::uint64_t now_s) noexcept {
  // The buckets hold seconds last_s - 59 .. last_s; only those in (now_s - 60, now_s] count.
  std::uint64_t sums[3] = {0, 0, 0};
  for (std::uint64_t age = 0; age < kWindowSeconds && age <= t.last_s; ++age) {
    const std::uint64_t s = t.last_s - age;
    if (s + kWindowSeconds <= now_s) break;
    const Bucket& b = t.ring[s % kWindowSeconds];
    for (std::size_t i = 0; i < 3; ++i) sums[i] += b[i];
  }
  const double window = static_cast<double>(kWindowSeconds);
  return {static_cast<double>(sums[0]) / window, static_cast<double>(sums[1]) / window,
          static_cast<double>(sums[2]) / window};
}

QueueRates QueueStats::rates(int db, std::string_view key, std::uint64_t now_s) const {
  auto it = keys_.find(store::DbKeyView{db, key});
  return it == keys_.end() ? QueueRates{} : window_rates(it->second, now_s);
}

void QueueStats::forget_idle(std::uint64_t now_s) {
  const std::size_t before = keys_.size();
  std::erase_if(keys_,
                [now_s](const auto& kv) { return kv.second.last_s + kWindowSeconds <= now_s; });
  if (keys_.size() != before) {
    cached_ = nullptr;
    hot_ = HotSlot{};
  }
}

void QueueStats::clear() noexcept {
  keys_.clear();
  cached_ = nullptr;
  hot_ = HotSlot{};
}

}  // namespace listd::server
