// SHA-1 (FIPS 180-4), for script names and redis.sha1hex. Written in the project: a crypto
// library only for this would not earn its place (docs/DEPENDENCIES.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace listd::script {

/// The 20-byte digest of `data`.
std::array<std::uint8_t, 20> sha1(std::string_view data);
/// The digest as 40 lower-case hex digits (Redis' script names).
std::string sha1_hex(std::string_view data);

}  // namespace listd::script
