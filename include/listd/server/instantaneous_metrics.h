// InstantaneousMetrics: INFO's instantaneous_ops_per_sec and *_kbps, as Redis 7.0's
// trackInstantaneousMetric / getInstantaneousMetric compute them: each sample is the rate since
// the previous sample, and the figure is the mean of the last kSamples samples (the ones not yet
// taken count as 0, so a fresh or reset server ramps up as Redis does).
//
// Redis samples every 100 ms and keeps 16 (a 1.6 s window); listd samples from its once-a-second
// cron and keeps 2 (a 2 s window), so the figures follow the same load with a little more lag.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace listd::server {

enum class InstantMetric : std::size_t {
  kCommands,       ///< commands processed
  kNetInput,       ///< bytes read, replication included
  kNetOutput,      ///< bytes written, replication included
  kNetReplInput,   ///< bytes read from our master
  kNetReplOutput,  ///< bytes written to our replicas
  kCount,
};

class InstantaneousMetrics {
 public:
  static constexpr std::size_t kSamples = 2;
  static constexpr std::size_t kMetrics = static_cast<std::size_t>(InstantMetric::kCount);
  using Readings = std::array<std::uint64_t, kMetrics>;

  /// Adds one sample per metric from the counters' current values at monotonic `now_ms`.
  void sample(std::uint64_t now_ms, const Readings& readings) noexcept;
  /// The mean rate per second of the kept samples.
  std::uint64_t per_second(InstantMetric metric) const noexcept;
  /// CONFIG RESETSTAT: no samples, and counting restarts from `readings` at `now_ms`.
  void reset(std::uint64_t now_ms, const Readings& readings) noexcept;

 private:
  struct Track {
    std::array<std::uint64_t, kSamples> samples{};
    std::size_t next = 0;
    std::uint64_t last_ms = 0;
    std::uint64_t last_reading = 0;
  };
  std::array<Track, kMetrics> tracks_{};
};

}  // namespace listd::server
