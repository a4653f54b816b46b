// LZF: the compression format Redis uses for RDB strings and quicklist nodes (liblzf's
// stream format, no header). listd's own encoder and decoder:
// - a literal run is [000LLLLL] then L+1 bytes (1..32);
// - a back reference is [LLLooooo][oooooooo] when L in 1..6 (length L+2), or
//   [111ooooo][extra][oooooooo] (length extra+9); distance back = o+1 (1..8192), the copy
//   may overlap its own output (a run).
// The encoder hashes 3-byte prefixes into a table it does not clear between calls: a stale
// slot is only a candidate, checked against the bytes before it is used. So the output is
// always valid but its exact bytes may depend on earlier calls (either way it decodes the same).
#pragma once

#include <cstddef>

namespace listd::base {

/// Longest output one input byte can decode to (a 3-byte reference of 264 bytes).
inline constexpr std::size_t kLzfMaxExpansion = 88;

/// Compresses in[0, n) into out[0, out_cap). Returns the compressed size, or 0 when it does
/// not fit in out_cap (or n == 0): the caller keeps the data raw.
std::size_t lzf_compress(const void* in, std::size_t n, void* out, std::size_t out_cap) noexcept;

/// Decodes in[0, n) into exactly out_len bytes at `out`. False on malformed input, on
/// output that would pass out_len, or on output shorter than out_len.
bool lzf_decompress(const void* in, std::size_t n, void* out, std::size_t out_len) noexcept;

}  // namespace listd::base
