#include "listd/server/bit_ops.h"

#include <bit>
#include <cstring>

namespace listd::server::bits {

long long popcount(std::string_view bytes) noexcept {
  long long count = 0;
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, sizeof word);
    count += std::popcount(word);
  }
  for (; i < bytes.size(); ++i) count += std::popcount(static_cast<unsigned char>(bytes[i]));
  return count;
}

long long first_bit(std::string_view bytes, int bit) noexcept {
  const unsigned char skip = bit ? 0x00 : 0xff;
  std::size_t i = 0;
  // Whole words first: a long run of skipped bytes is the common case of a sparse bitmap.
  const std::uint64_t skip_word = bit ? 0 : ~std::uint64_t{0};
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, sizeof word);
    if (word != skip_word) break;
  }
  for (; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == skip) continue;
    const unsigned wanted = bit ? c : static_cast<unsigned char>(~c);
    return static_cast<long long>(i) * 8 + std::countl_zero(static_cast<unsigned char>(wanted));
  }
  return bit ? -1 : static_cast<long long>(bytes.size()) * 8;
}

std::uint64_t get_unsigned(const unsigned char* p, std::uint64_t offset, int width) noexcept {
  std::uint64_t value = 0;
  for (int j = 0; j < width; ++j, ++offset) {
    const unsigned bit = (p[offset >> 3] >> (7 - (offset & 7))) & 1u;
    value = (value << 1) | bit;
  }
  return value;
}

std::int64_t get_signed(const unsigned char* p, std::uint64_t offset, int width) noexcept {
  std::uint64_t u = get_unsigned(p, offset, width);
  // Sign-extend the field's top bit.
  if (width < 64 && (u & (std::uint64_t{1} << (width - 1)))) u |= ~std::uint64_t{0} << width;
  return static_cast<std::int64_t>(u);
}

void set_field(unsigned char* p, std::uint64_t offset, int width, std::uint64_t value) noexcept {
  for (int j = 0; j < width; ++j, ++offset) {
    const unsigned bit = (value >> (width - 1 - j)) & 1u;
    const unsigned shift = 7 - (offset & 7);
    unsigned char& byte = p[offset >> 3];
    byte = static_cast<unsigned char>((byte & ~(1u << shift)) | (bit << shift));
  }
}

int unsigned_overflow(std::uint64_t value, std::int64_t incr, int width, Overflow how,
                      std::uint64_t& limit) noexcept {
  const std::uint64_t max = width == 64 ? UINT64_MAX : (std::uint64_t{1} << width) - 1;
  // As Redis: the distances to the limits as signed 64-bit numbers.
  const auto max_incr = static_cast<std::int64_t>(max - value);
  const auto min_incr = static_cast<std::int64_t>(0 - value);
  int result = 0;
  if (value > max || (incr > 0 && incr > max_incr)) {
    result = 1;
    if (how == Overflow::kSat) limit = max;
  } else if (incr < 0 && incr < min_incr) {
    result = -1;
    if (how == Overflow::kSat) limit = 0;
  }
  if (result != 0 && how == Overflow::kWrap) {
    const std::uint64_t sum = value + static_cast<std::uint64_t>(incr);
    limit = width == 64 ? sum : sum & ~(~std::uint64_t{0} << width);
    return 1;  // Redis reports a wrap as an overflow either way
  }
  return result;
}

int signed_overflow(std::int64_t value, std::int64_t incr, int width, Overflow how,
                    std::int64_t& limit) noexcept {
  const std::int64_t max = width == 64 ? INT64_MAX : (std::int64_t{1} << (width - 1)) - 1;
  const std::int64_t min = -max - 1;
  // These may wrap; they are used only once value's range is known, as in Redis.
  const auto max_incr = static_cast<std::int64_t>(static_cast<std::uint64_t>(max) -
                                                  static_cast<std::uint64_t>(value));
  const auto min_incr = static_cast<std::int64_t>(static_cast<std::uint64_t>(min) -
                                                  static_cast<std::uint64_t>(value));
  int result = 0;
  if (value > max || (width != 64 && incr > max_incr) ||
      (value >= 0 && incr > 0 && incr > max_incr)) {
    result = 1;
    if (how == Overflow::kSat) limit = max;
  } else if (value < min || (width != 64 && incr < min_incr) ||
             (value < 0 && incr < 0 && incr < min_incr)) {
    result = -1;
    if (how == Overflow::kSat) limit = min;
  }
  if (result != 0 && how == Overflow::kWrap) {
    std::uint64_t sum = static_cast<std::uint64_t>(value) + static_cast<std::uint64_t>(incr);
    if (width < 64) {
      const std::uint64_t mask = ~std::uint64_t{0} << width;
      sum = (sum & (std::uint64_t{1} << (width - 1))) ? sum | mask : sum & ~mask;
    }
    limit = static_cast<std::int64_t>(sum);
    return 1;
  }
  return result;
}

}  // namespace listd::server::bits
