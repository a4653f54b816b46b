// HyperLogLog in Redis 7.0's string representation (hyperloglog.c), so that an HLL written by
// listd is read by redis-server and the reverse, byte for byte.
//
// Layout: a 16-byte header "HYLL" [encoding: 0 dense, 1 sparse] [3 zero bytes] [cached
// cardinality, 8 bytes little endian, MSB of the last byte set = stale], then the registers:
//   dense:  16384 six-bit registers packed LSB first (12288 bytes, 12304 in all);
//   sparse: run-length opcodes ZERO (00xxxxxx: 1..64 zero registers), XZERO (01xxxxxx
//           xxxxxxxx: 1..16384 zeros), VAL (1vvvvvxx: 1..4 registers of value 1..32).
// A new HLL is sparse; it becomes dense when a register needs a value above 32 or when the
// sparse form would outgrow hll-sparse-max-bytes (header included), as in Redis.
// API: empty_hll, valid_header, is_sparse, add, set_register, to_dense, merge_into, count,
// count_registers, the cache helpers, dense_register, decode_sparse, self_test.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace listd::store::hll {

inline constexpr int kRegisters = 16384;
inline constexpr std::size_t kHeaderSize = 16;
inline constexpr std::size_t kDenseSize = kHeaderSize + (kRegisters * 6 + 7) / 8;

/// One byte per register: the union PFCOUNT (several keys) and PFMERGE compute.
using Registers = std::array<std::uint8_t, kRegisters>;

/// What an update did: Redis' 0 / 1 / -1 (a corrupt sparse form).
enum class Update { kUnchanged, kChanged, kCorrupt };

/// Redis createHLLObject: an empty sparse HLL (the header and one XZERO opcode).
std::string empty_hll();
/// Redis isHLLObjectOrReply's checks past the type: long enough for the header, "HYLL", a
/// known encoding, and exactly kDenseSize bytes when dense.
bool valid_header(std::string_view bytes) noexcept;
bool is_sparse(std::string_view hll) noexcept;

/// Redis hllAdd: hashes `element` (MurmurHash64A, seed 0xadc83b19) and raises its register.
/// Does not touch the cache: the caller invalidates it once per command, as PFADD does.
Update add(std::string& hll, std::string_view element, std::size_t sparse_max_bytes);
/// Raises register `index` to `value` if it is lower (hllDenseSet / hllSparseSet).
Update set_register(std::string& hll, int index, std::uint8_t value, std::size_t sparse_max_bytes);
/// Redis hllSparseToDense; false (hll untouched) for a corrupt sparse form.
bool to_dense(std::string& hll);

/// Redis hllMerge: max[i] = max(max[i], register i); false for a corrupt sparse form.
bool merge_into(Registers& max, std::string_view hll) noexcept;
/// Redis hllCount over the HLL's registers; false when the sparse form does not cover exactly
/// kRegisters registers (the estimate is still computed).
bool count(std::string_view hll, std::uint64_t& out) noexcept;
/// Redis hllCount for the one-byte registers (HLL_RAW).
std::uint64_t count_registers(const Registers& registers) noexcept;

bool cache_valid(std::string_view hll) noexcept;
std::uint64_t cached_count(std::string_view hll) noexcept;
/// Writes `card` into the header of `header` (at least kHeaderSize bytes), marking it valid.
void store_cache(char* header, std::uint64_t card) noexcept;
void invalidate_cache(char* header) noexcept;

/// Register `index` of a dense HLL.
std::uint8_t dense_register(std::string_view dense, int index) noexcept;
/// PFDEBUG DECODE's text of a sparse HLL: "Z:16384", "z:3 v:2,1 ...".
std::string decode_sparse(std::string_view sparse);
/// PFSELFTEST (Redis runs 1000 cycles and 10,000,000 elements): the register packing over
/// `register_cycles` random fillings, then a dense and a sparse HLL fed `elements` elements
/// agreeing within six standard errors at 1, 10, 100, ... Empty on success, else the error
/// text ("TESTFAILED ...").
std::string self_test(std::size_t sparse_max_bytes, std::uint64_t seed, int register_cycles,
                      std::uint64_t elements);

}  // namespace listd::store::hll
