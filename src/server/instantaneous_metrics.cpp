#include "listd/server/instantaneous_metrics.h"

namespace listd::server {

void InstantaneousMetrics::sample(std::uint64_t now_ms, const Readings& readings) noexcept {
  for (std::size_t m = 0; m < kMetrics; ++m) {
    Track& t = tracks_[m];
    const std::uint64_t elapsed = now_ms > t.last_ms ? now_ms - t.last_ms : 0;
    // A counter that went back (reset elsewhere) restarts from its new value.
    const std::uint64_t delta = readings[m] >= t.last_reading ? readings[m] - t.last_reading : 0;
    t.samples[t.next] = elapsed > 0 ? delta * 1000 / elapsed : 0;
    t.next = (t.next + 1) % kSamples;
    t.last_ms = now_ms;
    t.last_reading = readings[m];
  }
}

std::uint64_t InstantaneousMetrics::per_second(InstantMetric metric) const noexcept {
  const Track& t = tracks_[static_cast<std::size_t>(metric)];
  std::uint64_t sum = 0;
  for (std::uint64_t s : t.samples) sum += s;
  return sum / kSamples;
}

void InstantaneousMetrics::reset(std::uint64_t now_ms, const Readings& readings) noexcept {
  for (std::size_t m = 0; m < kMetrics; ++m) tracks_[m] = Track{{}, 0, now_ms, readings[m]};
}

}  // namespace listd::server
