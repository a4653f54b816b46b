#include "listd/script/rand48.h"

namespace listd::script {

namespace {
constexpr std::uint64_t kMask48 = (std::uint64_t{1} << 48) - 1;
}

std::int32_t Rand48::next() noexcept {
  x_ = (x_ * 0x5DEECE66DULL + 0xB) & kMask48;
  return static_cast<std::int32_t>(x_ >> 17);
}

void Rand48::seed(std::int32_t seed) noexcept {
  x_ = ((static_cast<std::uint64_t>(static_cast<std::uint32_t>(seed)) << 16) | 0x330E) & kMask48;
}

}  // namespace listd::script
