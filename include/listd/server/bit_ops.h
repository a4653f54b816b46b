// Bit arithmetic on byte strings for the bitmap commands (SETBIT, BITCOUNT, BITPOS, BITFIELD):
// bit 0 is the most significant bit of byte 0, as in Redis (bitops.c). Pure functions, no
// keyspace: the commands own lookups, limits and replies.
#pragma once

#include <cstdint>
#include <string_view>

namespace listd::server::bits {

/// Set bits in `bytes`.
long long popcount(std::string_view bytes) noexcept;

/// Position of the first bit equal to `bit` in `bytes`; when there is none, -1 for a 1 and
/// bytes.size() * 8 for a 0 (the string seen as padded with zeros, Redis redisBitpos).
long long first_bit(std::string_view bytes, int bit) noexcept;

/// The `width`-bit big-endian field at bit `offset` of `p` (width 1..64). The bytes it covers
/// must exist.
std::uint64_t get_unsigned(const unsigned char* p, std::uint64_t offset, int width) noexcept;
/// The same field read as two's complement.
std::int64_t get_signed(const unsigned char* p, std::uint64_t offset, int width) noexcept;
/// Writes the low `width` bits of `value` at bit `offset`.
void set_field(unsigned char* p, std::uint64_t offset, int width, std::uint64_t value) noexcept;

/// BITFIELD's OVERFLOW behaviours.
enum class Overflow { kWrap, kSat, kFail };

/// Redis checkUnsignedBitfieldOverflow / checkSignedBitfieldOverflow: 0 when `value + incr`
/// fits `width` bits, else 1 (overflow) or -1 (underflow) and, for kWrap / kSat, the value to
/// store in `limit`.
int unsigned_overflow(std::uint64_t value, std::int64_t incr, int width, Overflow how,
                      std::uint64_t& limit) noexcept;
int signed_overflow(std::int64_t value, std::int64_t incr, int width, Overflow how,
                    std::int64_t& limit) noexcept;

}  // namespace listd::server::bits
