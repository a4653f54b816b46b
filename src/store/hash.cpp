#include "listd/store/hash.h"

#include <chrono>
#include <cstring>

namespace listd::store {
namespace {

std::uint64_t initial_seed() {
  auto t = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return t * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<std::uintptr_t>(&t);
}

std::uint64_t g_seed = initial_seed();

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) noexcept {
  __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

inline std::uint64_t load64(const unsigned char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

void set_hash_seed(std::uint64_t seed) noexcept { g_seed = seed; }

// A wyhash-style construction: 8-byte words folded with 128-bit multiplies.
std::uint64_t hash_bytes(std::string_view bytes) noexcept {
  constexpr std::uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  std::uint64_t h = g_seed ^ mix(n ^ k0, k1);
  while (n >= 16) {
    h = mix(load64(p) ^ k1, load64(p + 8) ^ h);
    p += 16;
    n -= 16;
  }
  std::uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = load64(p);
    b = load64(p + n - 8);
  } else if (n > 0) {
    // Up to 7 bytes: first, middle and last byte plus the length make a unique-enough word.
    a = (static_cast<std::uint64_t>(p[0]) << 16) | (static_cast<std::uint64_t>(p[n >> 1]) << 8) |
        p[n - 1];
    if (n >= 4) {
      std::uint32_t lo, hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      b = (static_cast<std::uint64_t>(lo) << 32) | hi;
    }
  }
  return mix(a ^ k0 ^ h, b ^ k1) ^ h;
}

}  // namespace listd::store
