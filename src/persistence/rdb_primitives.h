// RDB's primitive encodings, shared by the RDB file code (rdb_reader.cpp, rdb_writer.cpp) and
// the value codec (value_codec.cpp, value_decoder.cpp): the type and opcode numbers of Redis 7.0
// rdb.h, rdbSaveLen's lengths, rdbSaveRawString's strings (raw or LZF), and `Reader`, the
// bounds-checked cursor over untrusted bytes (every malformed input throws ParseError, never reads
// past the end). Private to src/persistence.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "listd/store/value.h"

namespace listd::persistence::rdb {

enum : unsigned {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZSet = 3,
  kTypeHash = 4,
  kTypeZSet2 = 5,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZSetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeHashListpack = 16,
  kTypeZSetListpack = 17,
  kTypeListQuicklist2 = 18,
  kTypeStreamListpacks2 = 19,
  kTypeSetListpack = 20,
  kOpFunction2 = 245,
  kOpFunction = 246,
  kOpModuleAux = 247,
  kOpIdle = 248,
  kOpFreq = 249,
  kOpAux = 250,
  kOpResizeDb = 251,
  kOpExpireTimeMs = 252,
  kOpExpireTime = 253,
  kOpSelectDb = 254,
  kOpEof = 255,
};

/// Redis rdbSaveLen: 6-bit, 14-bit, 32-bit or 64-bit big-endian lengths.
void append_len(std::string& buf, std::uint64_t n);
/// Redis rdbSaveRawString without its integer form: with `compress` (rdbcompression yes), a
/// string of more than 20 bytes is written LZF-encoded (RDB_ENC_LZF: 0xC3, the compressed and
/// the original length, the LZF bytes) when that is at most its length - 4 bytes; else as
/// append_len then the bytes.
void append_string(std::string& buf, std::string_view s, bool compress);
/// lzf_decompress of exactly `out_len` bytes; throws ParseError on malformed input.
std::string lzf_decompress(std::string_view in, std::size_t out_len);

struct ParseError {
  std::string message;
};

class Reader {
 public:
  explicit Reader(std::string_view d) : d_(d) {}
  std::size_t pos() const noexcept { return p_; }

  unsigned char byte() {
    need(1);
    return static_cast<unsigned char>(d_[p_++]);
  }
  std::string_view bytes(std::size_t n) {
    need(n);
    std::string_view s = d_.substr(p_, n);
    p_ += n;
    return s;
  }
  std::uint64_t le(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(d_[p_ + i])) << (8 * i);
    p_ += static_cast<std::size_t>(n);
    return v;
  }
  std::uint64_t be(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(d_[p_ + i]);
    p_ += static_cast<std::size_t>(n);
    return v;
  }
  // rdbLoadLenByRef: returns the length, or sets `encoded` with the encoding type.
  std::uint64_t len(bool* encoded = nullptr) {
    const unsigned char b = byte();
    const unsigned type = (b & 0xC0) >> 6;
    if (encoded) *encoded = false;
    switch (type) {
      case 0: return b & 0x3F;
      case 1: return (static_cast<std::uint64_t>(b & 0x3F) << 8) | byte();
      case 2:
        if (b == 0x80) return be(4);
        if (b == 0x81) return be(8);
        throw ParseError{"Unknown length encoding in rdbLoadLen()"};
      default:
        if (!encoded) throw ParseError{"Unexpected encoded length"};
        *encoded = true;
        return b & 0x3F;
    }
  }
  std::string str() {
    bool enc = false;
    const std::uint64_t l = len(&enc);
    if (!enc) return std::string(bytes(static_cast<std::size_t>(l)));
    switch (l) {
      case 0: return std::to_string(static_cast<std::int8_t>(le(1)));
      case 1: return std::to_string(static_cast<std::int16_t>(le(2)));
      case 2: return std::to_string(static_cast<std::int32_t>(le(4)));
      case 3: {
        const std::uint64_t clen = len();
        const std::uint64_t ulen = len();
        const std::string_view c = bytes(static_cast<std::size_t>(clen));
        return lzf_decompress(c, static_cast<std::size_t>(ulen));
      }
      default: throw ParseError{"Unknown RDB string encoding type"};
    }
  }
  double binary_double() {
    const std::uint64_t bits = le(8);
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  // rdbLoadDoubleValue (RDB_TYPE_ZSET): length byte, 253 nan, 254 +inf, 255 -inf.
  double text_double() {
    const unsigned char l = byte();
    if (l == 253) return NAN;
    if (l == 254) return INFINITY;
    if (l == 255) return -INFINITY;
    const std::string s(bytes(l));
    return std::strtod(s.c_str(), nullptr);
  }

 private:
  void need(std::size_t n) const {
    if (d_.size() - p_ < n)
      throw ParseError{"Short read or OOM loading DB. Unrecoverable error, aborting now."};
  }
  std::string_view d_;
  std::size_t p_ = 0;
};

/// An object read from RDB bytes; `empty` for a collection with no elements (Redis' emptykey).
struct Loaded {
  store::Value value;
  bool empty;
};

/// Redis rdbIsObjectType: the type bytes listd can read an object of.
bool is_object_type(unsigned type) noexcept;
/// Redis rdbLoadObject for `type` (value_decoder.cpp). Throws ParseError (or std::out_of_range
/// from a compact encoding) on malformed input.
Loaded read_object(Reader& r, unsigned type);

}  // namespace listd::persistence::rdb
