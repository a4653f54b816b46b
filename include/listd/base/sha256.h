// SHA-256 (FIPS 180-4), for ACL passwords: Redis stores and prints a password as the lowercase
// hex of its SHA-256 (acl.c ACLHashPassword). API: sha256_hex(data) -> 64 lowercase hex digits.
// Invariants: no allocation beyond the returned string; byte strings may contain NULs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace listd::base {

/// The 32-byte SHA-256 digest of `data`.
std::array<std::uint8_t, 32> sha256(std::string_view data) noexcept;
/// The digest as 64 lowercase hex digits (the form ACL GETUSER shows).
std::string sha256_hex(std::string_view data);

}  // namespace listd::base
