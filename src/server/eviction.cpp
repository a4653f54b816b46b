#include "listd/server/eviction.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

#include "listd/base/memory_accounting.h"
#include "listd/server/executor.h"
#include "listd/server/key_access.h"
#include "listd/server/persistence.h"

namespace listd::server {
namespace {

using config::MaxmemoryPolicy;

// Redis evictionTimeLimitUs: 0..500 us linearly up to tenacity 10, then 15 % more per step
// (about 2 minutes at 99), no limit at 100.
std::uint64_t time_limit_us(int tenacity) {
  if (tenacity <= 10) return 50ULL * static_cast<std::uint64_t>(tenacity);
  if (tenacity < 100) return static_cast<std::uint64_t>(500.0 * std::pow(1.15, tenacity - 10.0));
  return UINT64_MAX;
}

std::uint64_t monotonic_us() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

bool pooled(MaxmemoryPolicy p) {
  return p != MaxmemoryPolicy::kAllkeysRandom && p != MaxmemoryPolicy::kVolatileRandom;
}

}  // namespace

Evictor::Evictor(Executor& exec) : exec_(exec) {
  auto alive = std::make_shared<bool>(true);
  exec_.config().on_change([this, weak = std::weak_ptr<bool>(alive)](std::string_view name) {
    if (weak.expired()) return;
    if (name == "maxmemory" && exec_.config().settings().maxmemory != 0) start_background();
  });
  alive_ = std::move(alive);
}

EvictResult Evictor::perform() {
  const EvictResult r = evict_to_limit();
  track_exceeded(r);
  return r;
}

void Evictor::track_exceeded(EvictResult r) noexcept {
  if (r != EvictResult::kOk) {
    if (exceeded_since_us_ == 0) exceeded_since_us_ = monotonic_us();
  } else if (exceeded_since_us_ != 0) {
    exceeded_total_us_ += monotonic_us() - exceeded_since_us_;
    exceeded_since_us_ = 0;
  }
}

std::uint64_t Evictor::current_spell_us() const noexcept {
  return exceeded_since_us_ == 0 ? 0 : monotonic_us() - exceeded_since_us_;
}

std::uint64_t Evictor::current_exceeded_ms() const noexcept { return current_spell_us() / 1000; }

std::uint64_t Evictor::total_exceeded_ms() const noexcept {
  return (exceeded_total_us_ + current_spell_us()) / 1000;
}

void Evictor::reset_stats() noexcept {
  evicted_keys_ = 0;
  exceeded_total_us_ = 0;
  exceeded_since_us_ = 0;  // as Redis: a spell under way restarts at the next cycle
}

EvictResult Evictor::evict_to_limit() {
  const config::ServerSettings& s = exec_.config().settings();
  // Redis getMaxmemoryState: the AOF buffer is not counted (evicting would grow it).
  const std::size_t used = exec_.memory().used();
  const std::size_t not_counted = exec_.persistence().pending_bytes().capacity();
  const std::size_t counted = used - std::min(used, not_counted);
  if (s.maxmemory == 0 || used <= s.maxmemory || counted <= s.maxmemory) {
    background_ = false;
    return EvictResult::kOk;
  }
  if (s.maxmemory_policy == MaxmemoryPolicy::kNoeviction) return EvictResult::kFail;

  const auto to_free = static_cast<long long>(counted - s.maxmemory);
  const std::uint64_t limit_us = time_limit_us(s.maxmemory_eviction_tenacity);
  const std::uint64_t start_us = monotonic_us();
  // Redis' "eviction-cycle" latency event: the cycle from here on, whatever its result.
  const std::uint64_t cycle_start_us = exec_.latency_monitoring() ? latency_clock_us() : 0;
  long long freed = 0;
  std::uint64_t keys_freed = 0;
  bool cut_short = false;
  EvictResult result = EvictResult::kFail;
  while (freed < to_free) {
    const Candidate victim = pooled(s.maxmemory_policy) ? pick_from_pool() : pick_random();
    if (victim.db < 0) break;  // nothing left to evict: kFail
    freed += evict(victim);
    if (++keys_freed % 16 == 0 && monotonic_us() - start_us > limit_us) {
      cut_short = true;  // go on from tick(): one command must not evict for too long
      break;
    }
  }
  if (freed >= to_free || cut_short) {
    if (cut_short) background_ = true;
    result = background_ ? EvictResult::kRunning : EvictResult::kOk;
  }
  if (exec_.latency_monitoring())
    exec_.add_latency_sample("eviction-cycle", (latency_clock_us() - cycle_start_us) / 1000);
  return result;
}

std::uint64_t Evictor::latency_clock_us() const { return exec_.clock().read().mono_us; }

void Evictor::background_step() {
  if (exec_.config().settings().maxmemory == 0 || perform() != EvictResult::kRunning)
    background_ = false;
}

Evictor::Candidate Evictor::pick_from_pool() {
  const bool allkeys = config::is_allkeys(exec_.config().settings().maxmemory_policy);
  store::Keyspace& keyspace = exec_.keyspace();
  // A round clears the pool's ghosts and refills it with keys that exist, so the second round
  // finds one; the bound only guards against a sampler that finds nothing.
  for (int round = 0; round < 64; ++round) {
    std::size_t total_keys = 0;
    // Every database feeds the one pool, so the choice is global, not per database.
    for (int i = 0; i < keyspace.database_count(); ++i) {
      store::Database& db = keyspace.db(i);
      const std::size_t keys = allkeys ? db.size() : db.expires_count();
      if (keys == 0) continue;
      populate(db, allkeys);
      total_keys += keys;
    }
    if (total_keys == 0) return {};
    for (auto it = pool_.rbegin(); it != pool_.rend(); ++it) {  // best candidate first
      if (!it->filled) continue;
      Candidate c{it->db, std::move(it->key)};
      *it = PoolEntry{};
      const store::Entry* e = keyspace.db(c.db).peek(c.key);
      if (e && (allkeys || e->has_expire())) return c;  // else a ghost: try the next one
    }
  }
  return {};
}

Evictor::Candidate Evictor::pick_random() {
  const bool allkeys = config::is_allkeys(exec_.config().settings().maxmemory_policy);
  store::Keyspace& keyspace = exec_.keyspace();
  const auto dbs = static_cast<unsigned>(keyspace.database_count());
  for (unsigned i = 0; i < dbs; ++i) {
    const auto j = static_cast<int>(++next_db_ % dbs);  // one database after the other
    store::Database& db = keyspace.db(j);
    store::Entry* e = nullptr;
    if (allkeys)
      e = db.dict().random_entry(exec_.rng());
    else
      db.sample_volatile(exec_.rng(), std::span<store::Entry*>(&e, 1));
    if (e) return {j, std::string(e->key())};
  }
  return {};
}

void Evictor::populate(store::Database& db, bool allkeys) {
  samples_.resize(static_cast<std::size_t>(exec_.config().settings().maxmemory_samples));
  const std::size_t n =
      allkeys ? db.dict().sample(exec_.rng(), samples_) : db.sample_volatile(exec_.rng(), samples_);
  for (std::size_t j = 0; j < n; ++j)
    insert_into_pool(score(*samples_[j]), samples_[j]->key(), db.index());
}

std::uint64_t Evictor::score(const store::Entry& e) const {
  const config::ServerSettings& s = exec_.config().settings();
  const std::int64_t now = exec_.clock().unix_ms();
  if (s.maxmemory_policy == MaxmemoryPolicy::kVolatileTtl)
    return ULLONG_MAX - static_cast<std::uint64_t>(e.expire_at_ms);  // the sooner the better
  if (config::is_lfu(s.maxmemory_policy))
    return 255 - lfu_frequency(e.lru, now, s.lfu_decay_time);  // the rarer the better
  return idle_ms(e.lru, now);
}

// Redis evictionPoolPopulate's insertion: ascending idle; a full pool drops its worst (left)
// entry for a better candidate and refuses one worse than all it holds.
void Evictor::insert_into_pool(std::uint64_t idle, std::string_view key, int db) {
  std::size_t k = 0;
  while (k < pool_.size() && pool_[k].filled && pool_[k].idle < idle) ++k;
  const bool full = pool_.back().filled;
  if (k == 0 && full) return;
  if (k < pool_.size() && !pool_[k].filled) {
    // an empty slot: insert there
  } else if (!full) {
    std::move_backward(pool_.begin() + static_cast<std::ptrdiff_t>(k), pool_.end() - 1,
                       pool_.end());
  } else {
    --k;
    std::move(pool_.begin() + 1, pool_.begin() + static_cast<std::ptrdiff_t>(k) + 1, pool_.begin());
  }
  pool_[k].idle = idle;
  pool_[k].key.assign(key);
  pool_[k].db = db;
  pool_[k].filled = true;
}

long long Evictor::evict(const Candidate& victim) {
  store::Database& db = exec_.keyspace().db(victim.db);
  // Only what deleting the key frees counts: the DEL's own AOF and replication bytes do not.
  const auto before = static_cast<long long>(base::used_memory());
  // An evicted stream wakes its XREADGROUP waiters (-UNBLOCKED), as Redis' dbGenericDelete.
  if (const store::Entry* e = db.dict().find(victim.key);
      e && e->value.is(store::ValueType::kStream))
    exec_.blocking().signal_ready(victim.db, victim.key);
  const std::uint64_t del_start_us = exec_.latency_monitoring() ? latency_clock_us() : 0;
  db.remove(victim.key);
  if (exec_.latency_monitoring())
    exec_.add_latency_sample("eviction-del", (latency_clock_us() - del_start_us) / 1000);
  const long long delta = before - static_cast<long long>(base::used_memory());
  ++evicted_keys_;
  exec_.touch_key(victim.db, victim.key);
  exec_.notify(config::kNotifyEvicted, "evicted", victim.key, victim.db);
  exec_.effects().emit(victim.db, {"DEL", victim.key});
  return delta;
}

}  // namespace listd::server
