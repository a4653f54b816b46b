// StreamId: a stream entry id, <ms>-<seq>, ordered as the 128-bit number ms:seq.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace listd::store {

struct StreamId {
  std::uint64_t ms = 0;
  std::uint64_t seq = 0;

  friend auto operator<=>(const StreamId&, const StreamId&) = default;
  static constexpr StreamId max() noexcept { return {UINT64_MAX, UINT64_MAX}; }
  bool is_zero() const noexcept { return ms == 0 && seq == 0; }
  /// "<ms>-<seq>".
  std::string to_string() const;
  /// streamIncrID / streamDecrID: false (id unchanged) at the top / bottom of the id space.
  bool increment() noexcept;
  bool decrement() noexcept;
};

}  // namespace listd::store
