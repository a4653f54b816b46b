#include "listd/store/listpack.h"

#include <charconv>
#include <cstring>

#include "listd/base/number.h"
#include "listpack_codec.h"

namespace listd::store {
namespace lp_codec {

std::size_t backlen_size(std::uint64_t l) noexcept {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

// The backlen bytes in memory order: the most significant group first, every byte but the
// first carries the continuation bit (read right to left).
void put_backlen(std::string& out, std::uint64_t l) {
  const std::size_t n = backlen_size(l);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned shift = static_cast<unsigned>(7 * (n - 1 - i));
    unsigned char b = static_cast<unsigned char>((l >> shift) & 127);
    if (i != 0) b |= 128;
    out.push_back(static_cast<char>(b));
  }
}

std::size_t encode_int(std::int64_t v, unsigned char* out) noexcept {
  auto put_le = [&](std::uint64_t u, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[1 + i] = static_cast<unsigned char>(u >> (8 * i));
  };
  if (v >= 0 && v <= 127) {
    out[0] = static_cast<unsigned char>(v);
    return 1;
  }
  if (v >= -4096 && v <= 4095) {
    const std::uint64_t u = v < 0 ? static_cast<std::uint64_t>((1 << 13) + v) : v;
    out[0] = static_cast<unsigned char>((u >> 8) | 0xC0);
    out[1] = static_cast<unsigned char>(u & 0xFF);
    return 2;
  }
  const auto u = static_cast<std::uint64_t>(v);
  if (v >= -32768 && v <= 32767) {
    out[0] = 0xF1;
    put_le(u, 2);
    return 3;
  }
  if (v >= -8388608 && v <= 8388607) {
    out[0] = 0xF2;
    put_le(u, 3);
    return 4;
  }
  if (v >= INT32_MIN && v <= INT32_MAX) {
    out[0] = 0xF3;
    put_le(u, 4);
    return 5;
  }
  out[0] = 0xF4;
  put_le(u, 8);
  return 9;
}

std::uint64_t read_le(const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

std::int64_t sign_extend(std::uint64_t v, unsigned bits) noexcept {
  if (bits < 64 && (v >> (bits - 1)) & 1) v |= ~0ull << bits;
  return static_cast<std::int64_t>(v);
}

// Size of encoding + data of the element starting with `p` (kNone for an unknown encoding);
// `avail` bytes are readable from p.
std::size_t element_size(const unsigned char* p, std::size_t avail) noexcept {
  if (avail == 0) return Listpack::kNone;
  const unsigned char b = p[0];
  if ((b & 0x80) == 0) return 1;
  if ((b & 0xC0) == 0x80) return 1 + (b & 0x3F);
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return avail < 2 ? Listpack::kNone : 2 + (((b & 0xF) << 8) | p[1]);
  switch (b) {
    case 0xF1: return 3;
    case 0xF2: return 4;
    case 0xF3: return 5;
    case 0xF4: return 9;
    case 0xF0: return avail < 5 ? Listpack::kNone : 5 + read_le(p + 1, 4);
    default: return Listpack::kNone;
  }
}

std::size_t encode_string_header(std::size_t len, unsigned char* enc) noexcept {
  if (len < 64) {
    enc[0] = static_cast<unsigned char>(len | 0x80);
    return 1;
  }
  if (len < 4096) {
    enc[0] = static_cast<unsigned char>((len >> 8) | 0xE0);
    enc[1] = static_cast<unsigned char>(len & 0xFF);
    return 2;
  }
  enc[0] = 0xF0;
  for (int i = 0; i < 4; ++i) enc[1 + i] = static_cast<unsigned char>(len >> (8 * i));
  return 5;
}

LpItem decode(const unsigned char* p) noexcept {
  const char* c = reinterpret_cast<const char*>(p);
  const unsigned char b = p[0];
  LpItem it;
  it.is_int = true;
  if ((b & 0x80) == 0) {
    it.integer = b;
  } else if ((b & 0xC0) == 0x80) {
    it.is_int = false;
    it.str = std::string_view(c + 1, b & 0x3F);
  } else if ((b & 0xE0) == 0xC0) {
    it.integer = sign_extend((static_cast<std::uint64_t>(b & 0x1F) << 8) | p[1], 13);
  } else if ((b & 0xF0) == 0xE0) {
    it.is_int = false;
    it.str = std::string_view(c + 2, ((b & 0xF) << 8) | p[1]);
  } else if (b == 0xF1) {
    it.integer = sign_extend(read_le(p + 1, 2), 16);
  } else if (b == 0xF2) {
    it.integer = sign_extend(read_le(p + 1, 3), 24);
  } else if (b == 0xF3) {
    it.integer = sign_extend(read_le(p + 1, 4), 32);
  } else if (b == 0xF4) {
    it.integer = static_cast<std::int64_t>(read_le(p + 1, 8));
  } else {
    it.is_int = false;
    it.str = std::string_view(c + 5, read_le(p + 1, 4));
  }
  return it;
}

void write_header(std::string& buf, std::size_t total, std::size_t count) noexcept {
  const auto t = static_cast<std::uint32_t>(total);
  const auto n = static_cast<std::uint16_t>(count < 65535 ? count : 65535);
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(t >> (8 * i));
  buf[4] = static_cast<char>(n & 0xFF);
  buf[5] = static_cast<char>(n >> 8);
}

}  // namespace lp_codec

using namespace lp_codec;

bool lp_string_to_int64(std::string_view s, std::int64_t& out) noexcept {
  long long v = 0;
  if (!base::parse_strict_integer(s, v)) return false;
  out = v;
  return true;
}

std::string_view LpItem::text(char (&buf)[24]) const noexcept {
  if (!is_int) return str;
  const auto r = std::to_chars(buf, buf + sizeof buf, integer);
  return std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
}

Listpack::Listpack() {
  buf_.assign(kHeader, '\0');
  buf_.push_back(static_cast<char>(kEof));
  write_header();
}

void Listpack::write_header() noexcept { lp_codec::write_header(buf_, buf_.size(), count_); }

void Listpack::append_encoded(const unsigned char* enc, std::size_t enc_len,
                              std::string_view data) {
  buf_.pop_back();  // the terminator
  buf_.append(reinterpret_cast<const char*>(enc), enc_len);
  buf_.append(data);
  put_backlen(buf_, enc_len + data.size());
  buf_.push_back(static_cast<char>(kEof));
  ++count_;
  write_header();
}

void Listpack::append_int(std::int64_t v) {
  unsigned char enc[9];
  append_encoded(enc, encode_int(v, enc), {});
}

void Listpack::append_string(std::string_view s) {
  std::int64_t v = 0;
  if (lp_string_to_int64(s, v)) {
    append_int(v);
    return;
  }
  unsigned char enc[5];
  append_encoded(enc, encode_string_header(s.size(), enc), s);
}

std::size_t Listpack::replace_int(std::size_t pos, std::int64_t v) {
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data()) + pos;
  const std::size_t old_len = element_size(p, buf_.size() - pos);
  const std::size_t old_total = old_len + backlen_size(old_len);
  unsigned char enc[9];
  const std::size_t n = encode_int(v, enc);
  std::string repl(reinterpret_cast<const char*>(enc), n);
  put_backlen(repl, n);
  buf_.replace(pos, old_total, repl);
  write_header();
  return pos;
}

std::size_t Listpack::first() const noexcept { return count_ == 0 ? kNone : kHeader; }

std::size_t Listpack::last() const noexcept {
  if (count_ == 0) return kNone;
  return prev(buf_.size() - 1);
}

std::size_t Listpack::next(std::size_t pos) const noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data());
  const std::size_t len = element_size(p + pos, buf_.size() - pos);
  const std::size_t after = pos + len + backlen_size(len);
  return static_cast<unsigned char>(buf_[after]) == kEof ? kNone : after;
}

std::size_t Listpack::prev(std::size_t pos) const noexcept {
  if (pos <= kHeader) return kNone;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data());
  // Decode the previous element's backlen, which ends just before `pos`.
  std::size_t i = pos - 1;
  std::uint64_t len = 0;
  unsigned shift = 0;
  while (true) {
    len |= static_cast<std::uint64_t>(p[i] & 127) << shift;
    if (!(p[i] & 128)) break;
    shift += 7;
    --i;
  }
  return pos - backlen_size(len) - len;
}

LpItem Listpack::at(std::size_t pos) const noexcept {
  return decode(reinterpret_cast<const unsigned char*>(buf_.data()) + pos);
}

std::int64_t Listpack::int_at(std::size_t pos) const noexcept {
  const LpItem it = at(pos);
  if (it.is_int) return it.integer;
  std::int64_t v = 0;
  return lp_string_to_int64(it.str, v) ? v : 0;
}

std::optional<Listpack> Listpack::from_raw(std::string_view raw) {
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  if (raw.size() < kHeader + 1 || read_le(p, 4) != raw.size() || p[raw.size() - 1] != kEof)
    return std::nullopt;
  const std::size_t declared = read_le(p + 4, 2);
  std::size_t pos = kHeader;
  std::size_t n = 0;
  while (pos < raw.size() - 1) {
    const std::size_t len = element_size(p + pos, raw.size() - 1 - pos);
    if (len == kNone || len > raw.size()) return std::nullopt;
    const std::size_t bl = backlen_size(len);
    if (pos + len + bl > raw.size() - 1) return std::nullopt;
    // The backlen must decode back to the element's size.
    std::uint64_t got = 0;
    unsigned shift = 0;
    for (std::size_t i = pos + len + bl; i-- > pos + len; shift += 7)
      got |= static_cast<std::uint64_t>(p[i] & 127) << shift;
    if (got != len) return std::nullopt;
    pos += len + bl;
    ++n;
  }
  if (declared != 65535 && declared != n) return std::nullopt;
  Listpack lp;
  lp.buf_.assign(raw);
  lp.count_ = n;
  return lp;
}

}  // namespace listd::store
