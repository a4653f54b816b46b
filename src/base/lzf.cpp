// LZF encoder and decoder: see listd/base/lzf.h.
#include "listd/base/lzf.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace listd::base {
namespace {

constexpr std::size_t kMaxLiteral = 32;
constexpr std::size_t kMaxDistance = 8192;
constexpr std::size_t kMaxMatch = 264;  // 7 + 255 + 2
constexpr unsigned kHashBits = 13;

// Positions (in the current input) of the last 3-byte prefix with each hash. Never cleared:
// every candidate is verified, so stale slots cost at most a missed match.
thread_local std::uint32_t t_table[1u << kHashBits];

inline unsigned hash3(const std::uint8_t* p) noexcept {
  const std::uint32_t v = std::uint32_t{p[0]} << 16 | std::uint32_t{p[1]} << 8 | p[2];
  return (v * 2654435761u) >> (32 - kHashBits);
}

// Length of the common prefix of a and b, at least `from` and at most `limit` bytes: eight
// bytes a step (the first differing byte from the lowest set bit of the XOR, little-endian).
inline std::size_t match_length(const std::uint8_t* a, const std::uint8_t* b, std::size_t from,
                                std::size_t limit) noexcept {
  std::size_t len = from;
  if constexpr (std::endian::native == std::endian::little) {
    while (len + 8 <= limit) {
      std::uint64_t x, y;
      std::memcpy(&x, a + len, 8);
      std::memcpy(&y, b + len, 8);
      if (x != y) return len + static_cast<std::size_t>(std::countr_zero(x ^ y)) / 8;
      len += 8;
    }
  }
  while (len < limit && a[len] == b[len]) ++len;
  return len;
}

// Writes the literal bytes lit[0, len) as runs of at most 32; false if out_cap is passed.
bool put_literals(const std::uint8_t* lit, std::size_t len, std::uint8_t* out, std::size_t& op,
                  std::size_t out_cap) noexcept {
  while (len != 0) {
    const std::size_t run = len < kMaxLiteral ? len : kMaxLiteral;
    if (op + 1 + run > out_cap) return false;
    out[op++] = static_cast<std::uint8_t>(run - 1);
    std::memcpy(out + op, lit, run);
    op += run;
    lit += run;
    len -= run;
  }
  return true;
}

}  // namespace

std::size_t lzf_compress(const void* in_v, std::size_t n, void* out_v,
                         std::size_t out_cap) noexcept {
  const auto* in = static_cast<const std::uint8_t*>(in_v);
  auto* out = static_cast<std::uint8_t*>(out_v);
  if (n == 0 || n > UINT32_MAX) return 0;
  std::size_t ip = 0, lit = 0, op = 0;
  while (ip + 2 < n) {
    const unsigned h = hash3(in + ip);
    const std::size_t ref = t_table[h];
    t_table[h] = static_cast<std::uint32_t>(ip);
    if (ref >= ip || ip - ref > kMaxDistance || std::memcmp(in + ref, in + ip, 3) != 0) {
      ++ip;
      continue;
    }
    const std::size_t limit = n - ip < kMaxMatch ? n - ip : kMaxMatch;
    const std::size_t len = match_length(in + ref, in + ip, 3, limit);
    if (!put_literals(in + lit, ip - lit, out, op, out_cap)) return 0;
    const std::size_t dist = ip - ref - 1;
    const std::size_t code = len - 2;
    if (op + (code >= 7 ? 3 : 2) > out_cap) return 0;
    if (code < 7) {
      out[op++] = static_cast<std::uint8_t>(code << 5 | dist >> 8);
    } else {
      out[op++] = static_cast<std::uint8_t>(7u << 5 | dist >> 8);
      out[op++] = static_cast<std::uint8_t>(code - 7);
    }
    out[op++] = static_cast<std::uint8_t>(dist & 0xff);
    // Index the positions inside the match too (cheaply: its last two), so the next
    // repetition of what follows is found.
    for (std::size_t k = ip + len - 2; k < ip + len && k + 2 < n; ++k) {
      t_table[hash3(in + k)] = static_cast<std::uint32_t>(k);
    }
    ip += len;
    lit = ip;
  }
  if (!put_literals(in + lit, n - lit, out, op, out_cap)) return 0;
  return op;
}

bool lzf_decompress(const void* in_v, std::size_t n, void* out_v, std::size_t out_len) noexcept {
  const auto* in = static_cast<const std::uint8_t*>(in_v);
  auto* out = static_cast<std::uint8_t*>(out_v);
  std::size_t ip = 0, op = 0;
  while (ip < n) {
    const unsigned ctrl = in[ip++];
    if (ctrl < 32) {
      const std::size_t run = ctrl + 1;
      if (run > n - ip || run > out_len - op) return false;
      std::memcpy(out + op, in + ip, run);
      ip += run;
      op += run;
      continue;
    }
    std::size_t len = ctrl >> 5;
    if (len == 7) {
      if (ip >= n) return false;
      len += in[ip++];
    }
    if (ip >= n) return false;
    const std::size_t back = (std::size_t{ctrl & 0x1fu} << 8 | in[ip++]) + 1;
    len += 2;
    if (back > op || len > out_len - op) return false;
    const std::uint8_t* ref = out + op - back;
    if (back >= len) {
      std::memcpy(out + op, ref, len);
    } else {
      for (std::size_t i = 0; i < len; ++i) out[op + i] = ref[i];  // overlapping: a run
    }
    op += len;
  }
  return op == out_len;
}

}  // namespace listd::base
