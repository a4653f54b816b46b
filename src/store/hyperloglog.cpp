// HyperLogLog in Redis 7.0's representation (see hyperloglog.h). The sparse update follows
// hllSparseSet step by step (locate the opcode, split it, merge equal neighbours), because the
// bytes it leaves, not only the registers, must be Redis' own.
#include "listd/store/hyperloglog.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>

namespace listd::store::hll {
namespace {

constexpr int kBits = 6;
constexpr unsigned kRegisterMax = (1u << kBits) - 1;
constexpr int kP = 14;
constexpr int kQ = 64 - kP;
constexpr std::uint8_t kDense = 0;
constexpr std::uint8_t kSparse = 1;
constexpr int kValMaxValue = 32;
constexpr int kValMaxLen = 4;
constexpr int kZeroMaxLen = 64;
constexpr int kXzeroMaxLen = 16384;
constexpr double kAlphaInf = 0.721347520444481703680;  // 0.5 / ln(2)

using Byte = unsigned char;

bool is_zero(Byte op) noexcept { return (op & 0xc0) == 0; }
bool is_xzero(Byte op) noexcept { return (op & 0xc0) == 0x40; }
bool is_val(Byte op) noexcept { return (op & 0x80) != 0; }
int zero_len(Byte op) noexcept { return (op & 0x3f) + 1; }
// The second byte of an XZERO may be the terminator past the end, as in Redis' sds.
int xzero_len(const Byte* p) noexcept { return (((p[0] & 0x3f) << 8) | p[1]) + 1; }
int val_value(Byte op) noexcept { return ((op >> 2) & 0x1f) + 1; }
int val_len(Byte op) noexcept { return (op & 0x3) + 1; }
Byte val_op(int value, int len) noexcept {
  return static_cast<Byte>(((value - 1) << 2 | (len - 1)) | 0x80);
}
Byte zero_op(int len) noexcept { return static_cast<Byte>(len - 1); }
void xzero_ops(Byte* p, int len) noexcept {
  p[0] = static_cast<Byte>(((len - 1) >> 8) | 0x40);
  p[1] = static_cast<Byte>((len - 1) & 0xff);
}

std::uint8_t get_dense(const Byte* regs, std::size_t size, int index) noexcept {
  const std::size_t byte = static_cast<std::size_t>(index) * kBits / 8;
  const unsigned fb = static_cast<unsigned>(index * kBits) & 7;
  const unsigned long b0 = regs[byte];
  const unsigned long b1 = byte + 1 < size ? regs[byte + 1] : 0;
  return static_cast<std::uint8_t>(((b0 >> fb) | (b1 << (8 - fb))) & kRegisterMax);
}

void set_dense(Byte* regs, std::size_t size, int index, unsigned value) noexcept {
  const std::size_t byte = static_cast<std::size_t>(index) * kBits / 8;
  const unsigned fb = static_cast<unsigned>(index * kBits) & 7;
  regs[byte] = static_cast<Byte>((regs[byte] & ~(kRegisterMax << fb)) | (value << fb));
  if (byte + 1 < size) {
    const unsigned fb8 = 8 - fb;
    regs[byte + 1] = static_cast<Byte>((regs[byte + 1] & ~(kRegisterMax >> fb8)) | (value >> fb8));
  }
}

Byte* registers_of(std::string& hll) noexcept {
  return reinterpret_cast<Byte*>(hll.data()) + kHeaderSize;
}
const Byte* registers_of(std::string_view hll) noexcept {
  return reinterpret_cast<const Byte*>(hll.data()) + kHeaderSize;
}

Update dense_set(std::string& hll, int index, std::uint8_t value) noexcept {
  Byte* regs = registers_of(hll);
  const std::size_t size = hll.size() - kHeaderSize;
  if (value <= get_dense(regs, size, index)) return Update::kUnchanged;
  set_dense(regs, size, index, value);
  return Update::kChanged;
}

/// Redis MurmurHash64A, endian neutral (the blocks are read little endian).
std::uint64_t murmur64a(std::string_view key, std::uint64_t seed) noexcept {
  const std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  const auto len = static_cast<std::uint64_t>(key.size());
  std::uint64_t h = seed ^ (len * m);
  const Byte* data = reinterpret_cast<const Byte*>(key.data());
  const Byte* end = data + (key.size() - (key.size() & 7));
  for (; data != end; data += 8) {
    std::uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = (k << 8) | data[i];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const std::size_t tail = key.size() & 7;
  if (tail) {
    for (std::size_t i = tail; i-- > 0;) h ^= static_cast<std::uint64_t>(data[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

/// Redis hllPatLen: the register an element hashes to and the length of its 000..1 run.
int pattern_length(std::string_view element, int& index) noexcept {
  std::uint64_t hash = murmur64a(element, 0xadc83b19ULL);
  index = static_cast<int>(hash & (kRegisters - 1));
  hash >>= kP;
  hash |= std::uint64_t{1} << kQ;  // the run ends by bit Q at the latest
  int count = 1;
  for (std::uint64_t bit = 1; (hash & bit) == 0; bit <<= 1) ++count;
  return count;
}

/// Visits the sparse opcodes as (value, run length). Returns the number of registers covered,
/// or -1 at a VAL run past the last register (where Redis 7.0.15 stopped and then accepted a
/// form whose runs had reached exactly 16384; its CVE-2025-32023 fix, in Debian's 7.0.15,
/// calls that corrupt).
template <class F>
long walk_sparse(std::string_view hll, F&& on_run) noexcept {
  const Byte* p = registers_of(hll);
  const Byte* end = reinterpret_cast<const Byte*>(hll.data()) + hll.size();
  long idx = 0;
  while (p < end) {
    if (is_zero(*p)) {
      on_run(0, zero_len(*p), idx);
      idx += zero_len(*p);
      ++p;
    } else if (is_xzero(*p)) {
      // An XZERO cut at the end reads the terminator as Redis does; a view has none.
      const Byte pair[2] = {p[0], p + 1 < end ? p[1] : Byte{0}};
      on_run(0, xzero_len(pair), idx);
      idx += xzero_len(pair);
      p += 2;
    } else {
      const int len = val_len(*p);
      if (len + idx > kRegisters) return -1;
      on_run(val_value(*p), len, idx);
      idx += len;
      ++p;
    }
  }
  return idx;
}

double sigma(double x) noexcept {
  if (x == 1.) return INFINITY;
  double z_prime;
  double y = 1;
  double z = x;
  do {
    x *= x;
    z_prime = z;
    z += x * y;
    y += y;
  } while (z_prime != z);
  return z;
}

double tau(double x) noexcept {
  if (x == 0. || x == 1.) return 0.;
  double z_prime;
  double y = 1.0;
  double z = 1 - x;
  do {
    x = std::sqrt(x);
    z_prime = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (z_prime != z);
  return z / 3;
}

/// Ertl's estimator over the register histogram (Redis hllCount's second half).
std::uint64_t estimate(const int (&histo)[64]) noexcept {
  const double m = kRegisters;
  double z = m * tau((m - histo[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += histo[j];
    z *= 0.5;
  }
  z += m * sigma(histo[0] / m);
  return static_cast<std::uint64_t>(std::llround(kAlphaInf * m * m / z));
}

/// Redis hllSparseSet's step 2/3 (case D): the opcode at `p`, covering registers [first,
/// first + span), split around `index`. Returns the new bytes.
std::string split_opcode(Byte op, long first, long span, int index, std::uint8_t value) {
  std::string seq;
  const long last = first + span - 1;
  auto zeros = [&](long len) {
    if (len > kZeroMaxLen) {
      Byte pair[2];
      xzero_ops(pair, static_cast<int>(len));
      seq.append(reinterpret_cast<char*>(pair), 2);
    } else {
      seq.push_back(static_cast<char>(zero_op(static_cast<int>(len))));
    }
  };
  if (!is_val(op)) {
    if (index != first) zeros(index - first);
    seq.push_back(static_cast<char>(val_op(value, 1)));
    if (index != last) zeros(last - index);
  } else {
    const int current = val_value(op);
    if (index != first) seq.push_back(static_cast<char>(val_op(current, index - first)));
    seq.push_back(static_cast<char>(val_op(value, 1)));
    if (index != last) seq.push_back(static_cast<char>(val_op(current, last - index)));
  }
  return seq;
}

/// Redis hllSparseSet's step 4: merges adjacent VAL opcodes of equal value, scanning up to
/// five opcodes from `from`.
void merge_neighbours(std::string& hll, std::size_t from) {
  std::size_t p = from;
  int scanlen = 5;
  while (p < hll.size() && scanlen--) {
    const auto op = static_cast<Byte>(hll[p]);
    if (is_xzero(op)) {
      p += 2;
      continue;
    }
    if (is_zero(op)) {
      ++p;
      continue;
    }
    if (p + 1 < hll.size() && is_val(static_cast<Byte>(hll[p + 1]))) {
      const auto next = static_cast<Byte>(hll[p + 1]);
      const int len = val_len(op) + val_len(next);
      if (val_value(op) == val_value(next) && len <= kValMaxLen) {
        hll[p + 1] = static_cast<char>(val_op(val_value(op), len));
        hll.erase(p, 1);
        continue;  // the merged opcode may merge with its right neighbour too
      }
    }
    ++p;
  }
}

Update promote(std::string& hll, int index, std::uint8_t value) {
  if (!to_dense(hll)) return Update::kCorrupt;
  dense_set(hll, index, value);
  return Update::kChanged;
}

Update sparse_set(std::string& hll, int index, std::uint8_t value, std::size_t max_bytes) {
  if (value > kValMaxValue) return promote(hll, index, value);
  // Locate the opcode covering `index` (hllSparseSet step 1).
  const Byte* base = reinterpret_cast<const Byte*>(hll.c_str());
  std::size_t p = kHeaderSize, prev = 0;
  bool has_prev = false;
  long first = 0, span = 0;
  while (p < hll.size()) {
    std::size_t oplen = 1;
    const Byte op = base[p];
    if (is_zero(op)) {
      span = zero_len(op);
    } else if (is_val(op)) {
      span = val_len(op);
    } else {
      span = xzero_len(base + p);  // c_str(): the terminator stands in past the end
      oplen = 2;
    }
    if (index <= first + span - 1) break;
    prev = p;
    has_prev = true;
    p += oplen;
    first += span;
  }
  if (span == 0 || p >= hll.size()) return Update::kCorrupt;
  const Byte op = base[p];
  const long runlen = is_zero(op) ? zero_len(op) : is_val(op) ? val_len(op) : xzero_len(base + p);
  bool done = false;
  if (is_val(op)) {
    if (val_value(op) >= value) return Update::kUnchanged;  // case A
    done = runlen == 1;                                     // case B
  } else if (is_zero(op)) {
    done = runlen == 1;  // case C
  }
  if (done) {
    hll[p] = static_cast<char>(val_op(value, 1));
  } else {
    const std::string seq = split_opcode(op, first, span, index, value);
    const std::size_t oldlen = is_xzero(op) ? 2 : 1;
    if (seq.size() > oldlen && hll.size() + seq.size() - oldlen > max_bytes)
      return promote(hll, index, value);
    hll.replace(p, std::min(oldlen, hll.size() - p), seq);
  }
  merge_neighbours(hll, has_prev ? prev : kHeaderSize);
  invalidate_cache(hll.data());
  return Update::kChanged;
}

}  // namespace

std::string empty_hll() {
  std::string hll(kHeaderSize + 2, '\0');
  std::memcpy(hll.data(), "HYLL", 4);
  hll[4] = static_cast<char>(kSparse);
  xzero_ops(registers_of(hll), kXzeroMaxLen);
  return hll;
}

bool valid_header(std::string_view bytes) noexcept {
  if (bytes.size() < kHeaderSize || bytes.substr(0, 4) != "HYLL") return false;
  const auto encoding = static_cast<Byte>(bytes[4]);
  if (encoding > kSparse) return false;
  return encoding != kDense || bytes.size() == kDenseSize;
}

bool is_sparse(std::string_view hll) noexcept { return static_cast<Byte>(hll[4]) == kSparse; }

Update add(std::string& hll, std::string_view element, std::size_t sparse_max_bytes) {
  int index = 0;
  const auto value = static_cast<std::uint8_t>(pattern_length(element, index));
  return set_register(hll, index, value, sparse_max_bytes);
}

Update set_register(std::string& hll, int index, std::uint8_t value, std::size_t sparse_max_bytes) {
  if (is_sparse(hll)) return sparse_set(hll, index, value, sparse_max_bytes);
  return dense_set(hll, index, value);
}

bool to_dense(std::string& hll) {
  if (!is_sparse(hll)) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), hll.data(), kHeaderSize);  // magic and cached cardinality
  dense[4] = static_cast<char>(kDense);
  Byte* regs = registers_of(dense);
  const std::size_t size = kDenseSize - kHeaderSize;
  const long covered = walk_sparse(hll, [&](int value, int len, long idx) {
    if (value == 0) return;
    for (int i = 0; i < len; ++i) set_dense(regs, size, static_cast<int>(idx + i), value);
  });
  if (covered != kRegisters) return false;
  hll = std::move(dense);
  return true;
}

bool merge_into(Registers& max, std::string_view hll) noexcept {
  if (!is_sparse(hll)) {
    const Byte* regs = registers_of(hll);
    for (int i = 0; i < kRegisters; ++i) {
      const std::uint8_t v = get_dense(regs, kDenseSize - kHeaderSize, i);
      if (v > max[i]) max[i] = v;
    }
    return true;
  }
  const long covered = walk_sparse(hll, [&](int value, int len, long idx) {
    for (int i = 0; i < len && value; ++i) {
      auto& reg = max[static_cast<std::size_t>(idx + i)];
      if (value > reg) reg = static_cast<std::uint8_t>(value);
    }
  });
  return covered == kRegisters;
}

bool count(std::string_view hll, std::uint64_t& out) noexcept {
  int histo[64] = {0};
  bool valid = true;
  if (!is_sparse(hll)) {
    const Byte* regs = registers_of(hll);
    for (int i = 0; i < kRegisters; ++i) ++histo[get_dense(regs, kDenseSize - kHeaderSize, i)];
  } else {
    // Redis hllSparseRegHisto reads every opcode, VAL runs past the end included.
    const Byte* p = registers_of(hll);
    const Byte* end = reinterpret_cast<const Byte*>(hll.data()) + hll.size();
    long idx = 0;
    while (p < end) {
      if (is_zero(*p)) {
        histo[0] += zero_len(*p);
        idx += zero_len(*p);
        ++p;
      } else if (is_xzero(*p)) {
        const Byte pair[2] = {p[0], p + 1 < end ? p[1] : Byte{0}};
        histo[0] += xzero_len(pair);
        idx += xzero_len(pair);
        p += 2;
      } else {
        histo[val_value(*p)] += val_len(*p);
        idx += val_len(*p);
        ++p;
      }
    }
    valid = idx == kRegisters;
  }
  out = estimate(histo);
  return valid;
}

std::uint64_t count_registers(const Registers& registers) noexcept {
  int histo[64] = {0};
  for (std::uint8_t r : registers) ++histo[r & 63];
  return estimate(histo);
}

bool cache_valid(std::string_view hll) noexcept { return (static_cast<Byte>(hll[15]) & 0x80) == 0; }

std::uint64_t cached_count(std::string_view hll) noexcept {
  std::uint64_t card = 0;
  for (int i = 7; i >= 0; --i) card = (card << 8) | static_cast<Byte>(hll[8 + i]);
  return card;
}

void store_cache(char* header, std::uint64_t card) noexcept {
  for (int i = 0; i < 8; ++i) header[8 + i] = static_cast<char>((card >> (8 * i)) & 0xff);
}

void invalidate_cache(char* header) noexcept {
  header[15] = static_cast<char>(static_cast<Byte>(header[15]) | 0x80);
}

std::uint8_t dense_register(std::string_view dense, int index) noexcept {
  return get_dense(registers_of(dense), dense.size() - kHeaderSize, index);
}

std::string decode_sparse(std::string_view sparse) {
  std::string out;
  const Byte* p = registers_of(sparse);
  const Byte* end = reinterpret_cast<const Byte*>(sparse.data()) + sparse.size();
  while (p < end) {
    if (is_zero(*p)) {
      out += fmt::format("z:{} ", zero_len(*p));
      ++p;
    } else if (is_xzero(*p)) {
      const Byte pair[2] = {p[0], p + 1 < end ? p[1] : Byte{0}};
      out += fmt::format("Z:{} ", xzero_len(pair));
      p += 2;
    } else {
      out += fmt::format("v:{},{} ", val_value(*p), val_len(*p));
      ++p;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string self_test(std::size_t sparse_max_bytes, std::uint64_t seed, int register_cycles,
                      std::uint64_t elements) {
  std::mt19937_64 rng(seed);
  // Test 1: every register keeps its value and leaves its neighbours alone.
  std::string dense(kDenseSize, '\0');
  Byte* regs = registers_of(dense);
  const std::size_t size = kDenseSize - kHeaderSize;
  Registers expected{};
  for (int cycle = 0; cycle < register_cycles; ++cycle) {
    for (int i = 0; i < kRegisters; ++i) {
      expected[i] = static_cast<std::uint8_t>(rng() & kRegisterMax);
      set_dense(regs, size, i, expected[i]);
    }
    for (int i = 0; i < kRegisters; ++i) {
      const std::uint8_t got = get_dense(regs, size, i);
      if (got != expected[i])
        return fmt::format("TESTFAILED Register {} should be {} but is {}", i, expected[i], got);
    }
  }
  // Test 2: a dense and a sparse HLL fed the same elements agree, within 6 standard errors.
  std::memset(regs, 0, size);
  std::memcpy(dense.data(), "HYLL", 4);
  std::string sparse = empty_hll();
  const double relerr = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const std::uint64_t salt = rng();
  std::uint64_t checkpoint = 1;
  for (std::uint64_t j = 1; j <= elements; ++j) {
    const std::uint64_t ele = j ^ salt;
    const std::string_view bytes(reinterpret_cast<const char*>(&ele), sizeof ele);
    add(dense, bytes, sparse_max_bytes);
    add(sparse, bytes, sparse_max_bytes);
    if (j != checkpoint) continue;
    if (j < sparse_max_bytes / 2 && !is_sparse(sparse))
      return "TESTFAILED sparse encoding not used";
    std::uint64_t from_dense = 0, from_sparse = 0;
    count(dense, from_dense);
    count(sparse, from_sparse);
    if (from_dense != from_sparse) return "TESTFAILED dense/sparse disagree";
    const auto abserr = static_cast<std::uint64_t>(
        std::llabs(static_cast<long long>(checkpoint) - static_cast<long long>(from_dense)));
    auto maxerr = static_cast<std::uint64_t>(std::ceil(relerr * 6 * static_cast<double>(j)));
    if (j == 10) maxerr = 1;  // collisions make a larger error likely at 10
    if (abserr > maxerr)
      return fmt::format("TESTFAILED Too big error. card:{} abserr:{}", checkpoint, abserr);
    checkpoint *= 10;
  }
  return {};
}

}  // namespace listd::store::hll
