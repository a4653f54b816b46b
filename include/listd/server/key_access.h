// A key's access word (store::Entry::lru), as Redis' robj->lru: the 24-bit LRU clock in seconds
// under every policy but the LFU ones, and under an LFU policy the last decrement time in
// minutes (16 bits) above a logarithmic access counter (8 bits) (Redis evict.c).
//
// API: initial_access (a new key), touch_access (a lookup that touches), idle_ms (OBJECT
// IDLETIME, LRU eviction), lfu_frequency (OBJECT FREQ, LFU eviction).
// Invariant: every value fits 24 bits; times come from the running command's Unix ms.
#pragma once

#include <cstdint>
#include <random>

#include "listd/config/config.h"

namespace listd::server {

inline constexpr std::uint32_t kLruClockMax = (1U << 24) - 1;  // Redis LRU_CLOCK_MAX
inline constexpr std::uint32_t kLfuInitValue = 5;              // Redis LFU_INIT_VAL

/// Redis getLRUClock: seconds, wrapping at 24 bits (about 194 days).
constexpr std::uint32_t lru_clock(std::int64_t unix_ms) noexcept {
  return static_cast<std::uint32_t>(unix_ms / 1000) & kLruClockMax;
}

/// Redis LFUGetTimeInMinutes: minutes, wrapping at 16 bits.
constexpr std::uint32_t lfu_minutes(std::int64_t unix_ms) noexcept {
  return static_cast<std::uint32_t>(unix_ms / 60000) & 0xFFFF;
}

/// Redis estimateObjectIdleTime, in ms (second resolution, one wrap of the clock allowed).
constexpr std::uint64_t idle_ms(std::uint32_t lru, std::int64_t unix_ms) noexcept {
  const std::uint32_t now = lru_clock(unix_ms);
  const std::uint64_t s = now >= lru ? now - lru : now + (kLruClockMax - lru);
  return s * 1000;
}

/// Redis LFUDecrAndReturn: the counter after the decay periods elapsed since its last decrement
/// (the word itself is only updated on access).
constexpr std::uint32_t lfu_frequency(std::uint32_t lru, std::int64_t unix_ms,
                                      int decay_time) noexcept {
  const std::uint32_t ldt = lru >> 8;
  const std::uint32_t counter = lru & 255;
  const std::uint32_t now = lfu_minutes(unix_ms);
  const std::uint32_t elapsed = now >= ldt ? now - ldt : 65535 - ldt + now;
  const std::uint32_t periods =
      decay_time > 0 ? elapsed / static_cast<std::uint32_t>(decay_time) : 0;
  return periods > counter ? 0 : counter - periods;
}

/// Redis LFULogIncr: incremented with probability 1 / ((counter - 5) * log_factor + 1).
std::uint32_t lfu_log_increment(std::uint32_t counter, int log_factor, std::mt19937_64& rng);

/// The word of a key just created (Redis createObject).
inline std::uint32_t initial_access(const config::ServerSettings& s, std::int64_t unix_ms) {
  if (config::is_lfu(s.maxmemory_policy)) return (lfu_minutes(unix_ms) << 8) | kLfuInitValue;
  return lru_clock(unix_ms);
}

/// The word after an access (Redis lookupKey: updateLFU, or the LRU clock).
inline std::uint32_t touch_access(std::uint32_t lru, const config::ServerSettings& s,
                                  std::int64_t unix_ms, std::mt19937_64& rng) {
  if (!config::is_lfu(s.maxmemory_policy)) return lru_clock(unix_ms);
  const std::uint32_t counter =
      lfu_log_increment(lfu_frequency(lru, unix_ms, s.lfu_decay_time), s.lfu_log_factor, rng);
  return (lfu_minutes(unix_ms) << 8) | counter;
}

/// Redis objectSetLRUOrLFU (RESTORE's IDLETIME / FREQ, an RDB's IDLE / FREQ records): under an
/// LFU policy a counter `freq` (0-255) stamped now, under the others the LRU clock `idle_s`
/// seconds ago; `word` unchanged when the policy's one is absent (-1).
inline std::uint32_t access_word_from(const config::ServerSettings& s, std::int64_t unix_ms,
                                      long long idle_s, long long freq, std::uint32_t word) {
  if (config::is_lfu(s.maxmemory_policy)) {
    if (freq >= 0) return (lfu_minutes(unix_ms) << 8) | static_cast<std::uint32_t>(freq & 255);
  } else if (idle_s >= 0) {
    long long at = static_cast<long long>(lru_clock(unix_ms)) - idle_s;
    if (at < 0) at += kLruClockMax;  // Redis adds LRU_CLOCK_MAX once, then keeps 24 bits
    return static_cast<std::uint32_t>(at) & kLruClockMax;
  }
  return word;
}

/// What an RDB records of a key's access word under the policy (Redis rdbSaveKeyValuePair's
/// savelru / savelfu): the idle seconds under allkeys-lru / volatile-lru, the decayed LFU
/// counter under the LFU policies.
constexpr bool records_idle(config::MaxmemoryPolicy p) noexcept {
  return p == config::MaxmemoryPolicy::kAllkeysLru || p == config::MaxmemoryPolicy::kVolatileLru;
}

}  // namespace listd::server
