// hdr_histogram's index arithmetic for (lowest 1, highest 1e9, 2 significant figures): unit
// magnitude 0, 256 sub-buckets (half count 128, magnitude 7).
#include "listd/server/latency_histogram.h"

#include <algorithm>
#include <bit>

namespace listd::server {
namespace {

constexpr int kHalfCountMagnitude = 7;
constexpr std::uint64_t kHalfCount = 1u << kHalfCountMagnitude;
constexpr std::uint64_t kSubBucketMask = 255;
constexpr std::uint64_t kMinNs = 1;
constexpr std::uint64_t kMaxNs = 1'000'000'000;

int bucket_of(std::uint64_t ns) noexcept {
  return 64 - std::countl_zero(ns | kSubBucketMask) - (kHalfCountMagnitude + 1);
}

}  // namespace

std::size_t LatencyHistogram::index_of(std::uint64_t ns) noexcept {
  const int bucket = bucket_of(ns);
  const std::uint64_t sub = ns >> bucket;
  return ((static_cast<std::size_t>(bucket) + 1) << kHalfCountMagnitude) + sub - kHalfCount;
}

std::uint64_t LatencyHistogram::lowest_of(std::size_t index) noexcept {
  // hdr_value_at_index
  int bucket = static_cast<int>(index >> kHalfCountMagnitude) - 1;
  std::uint64_t sub = (index & (kHalfCount - 1)) + kHalfCount;
  if (bucket < 0) {
    sub -= kHalfCount;
    bucket = 0;
  }
  return sub << bucket;
}

std::uint64_t LatencyHistogram::highest_equivalent(std::uint64_t ns) noexcept {
  const int bucket = bucket_of(ns);
  const std::uint64_t sub = ns >> bucket;
  const std::uint64_t lowest = sub << bucket;
  const int adjusted = sub >= 2 * kHalfCount ? bucket + 1 : bucket;
  return lowest + (std::uint64_t{1} << adjusted) - 1;
}

void LatencyHistogram::record(std::uint64_t ns) {
  ns = std::clamp(ns, kMinNs, kMaxNs);
  const std::size_t index = index_of(ns);
  if (index >= counts_.size()) counts_.resize(index + 1, 0);
  ++counts_[index];
  ++total_;
}

std::uint64_t LatencyHistogram::value_at_percentile(double percentile) const noexcept {
  const double p = percentile < 100.0 ? percentile : 100.0;
  auto wanted = static_cast<std::int64_t>((p / 100) * static_cast<double>(total_) + 0.5);
  wanted = std::max<std::int64_t>(wanted, 1);
  std::int64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += static_cast<std::int64_t>(counts_[i]);
    if (seen >= wanted) {
      const std::uint64_t value = lowest_of(i);
      return percentile == 0.0 ? value : highest_equivalent(value);
    }
  }
  return 0;
}

std::uint64_t LatencyHistogram::count_up_to(std::uint64_t ns) const noexcept {
  std::uint64_t n = 0;
  const std::size_t last = std::min(index_of(std::min(ns, kMaxNs * 4)) + 1, counts_.size());
  for (std::size_t i = 0; i < last; ++i) n += counts_[i];
  return n;
}

}  // namespace listd::server
