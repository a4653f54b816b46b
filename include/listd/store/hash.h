// Key hashing for the keyspace dictionary: a fast 64-bit mix with a per-process seed, so that
// bucket order (and hence SCAN order) is not predictable from outside.
#pragma once

#include <cstdint>
#include <string_view>

namespace listd::store {

/// Hashes `bytes` with the process-wide seed. Cheap for short keys (no allocation, no loop
/// over single bytes for keys of 8 bytes or more).
std::uint64_t hash_bytes(std::string_view bytes) noexcept;

/// Replaces the seed; only for tests that need a deterministic bucket order.
void set_hash_seed(std::uint64_t seed) noexcept;

}  // namespace listd::store
