#include "listd/persistence/crc64.h"

#include <array>

namespace listd::persistence {
namespace {

// Slicing-by-8 tables for the reflected polynomial (bit-reversed 0xad93d23594c935a9).
struct Tables {
  std::array<std::array<std::uint64_t, 256>, 8> t{};
  Tables() {
    constexpr std::uint64_t kPoly = 0x95ac9329ac4bc9b5ull;
    for (std::uint64_t i = 0; i < 256; ++i) {
      std::uint64_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      t[0][i] = c;
    }
    for (std::size_t i = 0; i < 256; ++i)
      for (std::size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
};

const Tables& tables() {
  static const Tables kTables;
  return kTables;
}

}  // namespace

std::uint64_t crc64(std::uint64_t crc, std::string_view data) noexcept {
  const auto& t = tables().t;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  while (n >= 8) {
    std::uint64_t v = crc;
    for (int i = 0; i < 8; ++i) v ^= static_cast<std::uint64_t>(p[i]) << (8 * i);
    crc = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
          t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^ t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace listd::persistence
