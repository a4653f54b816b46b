// The header of the small packed forms of hashes and sorted sets (HashValue, ZSetValue): the
// bytes in use and the element count, followed by the encoded elements themselves.
#pragma once

#include <cstdint>

namespace listd::store::packed {

struct PackedHeader {
  std::uint32_t used;   // bytes after the header
  std::uint32_t count;  // hash: pairs; sorted set: members
};

inline std::uint8_t* data_of(PackedHeader* h) noexcept {
  return reinterpret_cast<std::uint8_t*>(h + 1);
}
inline const std::uint8_t* data_of(const PackedHeader* h) noexcept {
  return reinterpret_cast<const std::uint8_t*>(h + 1);
}

}  // namespace listd::store::packed
