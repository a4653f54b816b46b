// One command's latency histogram (INFO latencystats, LATENCY HISTOGRAM), bucketed as Redis'
// hdr_histogram(1 ns, 1 s, 2 significant figures): exact below 256 ns, then 128 sub-buckets
// per power of two, so percentiles report the same bucket tops Redis reports (1000 ns is
// reported as 1.003 us).
#pragma once

#include <cstdint>
#include <vector>

namespace listd::server {

class LatencyHistogram {
 public:
  /// Records one duration in nanoseconds (clamped to 1 ns .. 1 s, as hdr_init's range).
  void record(std::uint64_t ns);
  std::uint64_t total() const noexcept { return total_; }
  /// hdr_value_at_percentile: the top of the bucket holding the p-th percentile, in ns.
  std::uint64_t value_at_percentile(double percentile) const noexcept;
  /// hdr's logarithmic iteration (first bucket 1024 ns, base 2) as LATENCY HISTOGRAM prints
  /// it: calls `f(bucket top in us, cumulative count)` where the count grew.
  template <class F>
  void for_each_log_bucket(F&& f) const {
    std::uint64_t previous = 0;
    for (std::uint64_t level = 1024; previous < total_; level *= 2) {
      const std::uint64_t top = highest_equivalent(level);
      const std::uint64_t cumulative = count_up_to(top);
      if (cumulative > previous) f(top / 1000, cumulative);
      previous = cumulative;
    }
  }

  static std::uint64_t highest_equivalent(std::uint64_t ns) noexcept;

 private:
  static std::size_t index_of(std::uint64_t ns) noexcept;
  static std::uint64_t lowest_of(std::size_t index) noexcept;
  std::uint64_t count_up_to(std::uint64_t ns) const noexcept;

  std::vector<std::uint64_t> counts_;  // by index_of, grown on demand
  std::uint64_t total_ = 0;
};

}  // namespace listd::server
