// EncodingLimits: the process-wide size limits of the small forms of hashes, sorted sets and
// sets (Redis 7.0's hash-max-listpack-*, zset-max-listpack-*, set-max-intset-entries), and
// list-compress-depth (read when a list becomes a chain of blocks), read by the store
// wherever Redis checks them. The server sets them from the config at start-up
// and on CONFIG SET; a change converts nothing by itself (a key converts on its next write
// that checks, as in Redis). Defaults are Redis' own.
#pragma once

#include <cstddef>

namespace listd::store {

/// Redis LISTPACK_MAX_SAFETY_SIZE: lpSafeToAdd refuses to grow a listpack past 1 GB, so a
/// packed form converts before its bytes reach it whatever the limits say.
inline constexpr std::size_t kPackedSafetyBytes = std::size_t{1} << 30;
/// Redis caps set-max-intset-entries at 2^30 ("intset internals").
inline constexpr std::size_t kIntsetEntriesCap = std::size_t{1} << 30;

struct EncodingLimits {
  std::size_t hash_max_listpack_entries = 512;
  std::size_t hash_max_listpack_value = 64;
  std::size_t zset_max_listpack_entries = 128;
  std::size_t zset_max_listpack_value = 64;
  std::size_t set_max_intset_entries = 512;
  /// Blocks kept raw at each end of a list; 0 compresses nothing (Redis' default).
  std::size_t list_compress_depth = 0;

  /// Redis zsetConvertToListpackIfNeeded / the RDB load of a plain sorted set: whether `count`
  /// members, the longest `max_len` bytes, `total_len` bytes in all, make a listpack.
  bool zset_fits_listpack(std::size_t count, std::size_t max_len,
                          std::size_t total_len) const noexcept {
    return count <= zset_max_listpack_entries && max_len <= zset_max_listpack_value &&
           total_len <= kPackedSafetyBytes;
  }
  /// The intset limit as Redis applies it (capped at 2^30).
  std::size_t intset_entries() const noexcept {
    return set_max_intset_entries < kIntsetEntriesCap ? set_max_intset_entries : kIntsetEntriesCap;
  }
};

/// The limits in force (one executor thread reads and writes them).
const EncodingLimits& encoding_limits() noexcept;
/// Replaces them (start-up, CONFIG SET, tests).
void set_encoding_limits(const EncodingLimits& limits) noexcept;

}  // namespace listd::store
