// A clock for latency tests: every read() is `step_us` later than the last, so whatever a
// piece of code times between two reads takes exactly step_us, on any machine.
#pragma once

#include <cstdint>

#include "listd/server/clock.h"

namespace listd::testing {

class SteppingClock final : public server::Clock {
 public:
  server::ClockReading read() const override {
    mono_us_ += step_us;
    return {mono_us_, unix_ms()};
  }
  std::uint64_t monotonic_ms() const override { return mono_us_ / 1000; }
  std::int64_t unix_ms() const override {
    return 1'700'000'000'000 + static_cast<std::int64_t>(mono_us_ / 1000);
  }
  std::uint64_t step_us = 0;

 private:
  mutable std::uint64_t mono_us_ = 1'000'000'000;
};

}  // namespace listd::testing
