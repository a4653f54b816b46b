// Time as the executor sees it: injected, so unit tests advance it by hand (no sleeps).
#pragma once

#include <chrono>
#include <cstdint>

namespace listd::server {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic milliseconds (waiter deadlines, idle times).
  virtual std::uint64_t monotonic_ms() const = 0;
  /// Wall-clock Unix time in milliseconds (key expiry, TIME, LASTSAVE).
  virtual std::int64_t unix_ms() const = 0;
  /// Wall-clock Unix time in microseconds (TIME).
  virtual std::int64_t unix_us() const { return unix_ms() * 1000; }
};

class SystemClock final : public Clock {
 public:
  std::uint64_t monotonic_ms() const override {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch()).count());
  }
  std::int64_t unix_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch()).count();
  }
  std::int64_t unix_us() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now().time_since_epoch()).count();
  }
};

/// A clock that moves only when told to; for tests.
class ManualClock final : public Clock {
 public:
  std::uint64_t monotonic_ms() const override { return mono_ms_; }
  std::int64_t unix_ms() const override { return unix_ms_; }
  void advance_ms(std::uint64_t ms) {
    mono_ms_ += ms;
    unix_ms_ += static_cast<std::int64_t>(ms);
  }

 private:
  std::uint64_t mono_ms_ = 1'000'000;
  std::int64_t unix_ms_ = 1'700'000'000'000;
};

}  // namespace listd::server
