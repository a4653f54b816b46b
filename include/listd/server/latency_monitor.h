// The latency monitor (Redis latency.c): per event class ("command", "fast-command", "fork",
// ...) the last 160 seconds that had a sample at or above latency-monitor-threshold, one
// sample per second (the worst), and the all-time maximum. LATENCY LATEST / HISTORY / RESET /
// GRAPH / DOCTOR read it (src/server/commands/latency_commands.cpp).
//
// API: add_if_needed (the threshold test callers make on every command), add, reset, find,
// events.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace listd::server {

class LatencyMonitor {
 public:
  static constexpr std::size_t kSamples = 160;  ///< Redis LATENCY_TS_LEN

  struct Sample {
    std::int64_t time_s = 0;  ///< unix seconds; 0 = unused slot
    std::uint64_t latency_ms = 0;
  };
  struct Series {
    std::array<Sample, kSamples> samples{};
    std::size_t next = 0;  ///< the slot the next new second goes to (a ring)
    std::uint64_t max_ms = 0;
    /// The newest sample (Redis' ts->idx - 1, wrapped).
    const Sample& latest() const noexcept { return samples[(next + kSamples - 1) % kSamples]; }
  };

  /// Redis latencyAddSampleIfNeeded: records when the threshold is on and reached.
  void add_if_needed(std::string_view event, long long threshold_ms, std::uint64_t latency_ms,
                     std::int64_t now_s) {
    if (threshold_ms && latency_ms >= static_cast<std::uint64_t>(threshold_ms))
      add(event, latency_ms, now_s);
  }
  /// Redis latencyAddSample: a second already sampled keeps the worse of the two.
  void add(std::string_view event, std::uint64_t latency_ms, std::int64_t now_s);
  /// Forgets `event`; returns 1 if it had data (LATENCY RESET event ...).
  int reset(std::string_view event);
  /// Forgets every event; returns how many there were.
  int reset_all();
  const Series* find(std::string_view event) const;
  const std::map<std::string, Series, std::less<>>& events() const noexcept { return events_; }

 private:
  std::map<std::string, Series, std::less<>> events_;
};

}  // namespace listd::server
