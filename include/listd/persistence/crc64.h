// CRC-64/Jones as Redis computes it for the RDB trailer: reflected, polynomial
// 0xad93d23594c935a9, init 0, no final xor. crc64(0, "123456789") == 0xe9c6d914c4b8d9ca.
#pragma once

#include <cstdint>
#include <string_view>

namespace listd::persistence {

/// Continues `crc` over `data` (start with 0).
std::uint64_t crc64(std::uint64_t crc, std::string_view data) noexcept;

}  // namespace listd::persistence
