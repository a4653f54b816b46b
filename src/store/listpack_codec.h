// listpack.c's element codec, shared by Listpack (Redis' byte format) and StreamPack (the same
// elements without back-lengths): integer and string encodings, element sizes, back-lengths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "listd/store/listpack.h"

namespace listd::store::lp_codec {

constexpr std::size_t kHeader = 6;  // [u32 total bytes][u16 element count]
constexpr unsigned char kEof = 0xFF;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// Bytes the back-length of an element of `l` bytes (encoding + data) takes.
std::size_t backlen_size(std::uint64_t l) noexcept;
/// Appends that back-length in memory order.
void put_backlen(std::string& out, std::uint64_t l);
/// Writes the integer encoding of `v` to `out` (up to 9 bytes); returns its size.
std::size_t encode_int(std::int64_t v, unsigned char* out) noexcept;
/// Writes the string header for `len` bytes to `out` (up to 5 bytes); returns its size.
std::size_t encode_string_header(std::size_t len, unsigned char* out) noexcept;
/// Size of encoding + data of the element at `p`; kNone for an unknown encoding or when more
/// than `avail` bytes would be needed to tell.
std::size_t element_size(const unsigned char* p, std::size_t avail) noexcept;
/// The element at `p` (a well-formed one).
LpItem decode(const unsigned char* p) noexcept;
/// Little-endian header fields.
std::uint64_t read_le(const unsigned char* p, std::size_t n) noexcept;
void write_header(std::string& buf, std::size_t total, std::size_t count) noexcept;

}  // namespace listd::store::lp_codec
