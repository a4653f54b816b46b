// Redis' deterministic PRNG behind math.random (redis rand.c): POSIX lrand48's 48-bit linear
// congruential generator, a = 0x5DEECE66D, c = 0xB, started at 0x1234ABCD330E, so a script's
// random numbers are the same on every platform and every restart.
#pragma once

#include <cstdint>

namespace listd::script {

class Rand48 {
 public:
  /// The next 31-bit value (X >> 17).
  std::int32_t next() noexcept;
  /// srand48: X = (seed << 16) | 0x330E.
  void seed(std::int32_t seed) noexcept;

 private:
  std::uint64_t x_ = 0x1234ABCD330EULL;
};

}  // namespace listd::script
