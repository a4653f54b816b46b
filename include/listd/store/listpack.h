// Listpack: Redis 7.0's listpack byte format (listpack.c), owned in one buffer.
//
// API: append_int / append_string (a string that is a strict int64 is stored as an integer, as
//   lpAppend does) / first / next / prev / last / at / replace_int / bytes / count / raw /
//   from_raw (validating).
// Layout: [u32 total bytes][u16 element count, 65535 = unknown][elements][0xFF]; each element
//   is [encoding + data][backlen: size of encoding + data, 1-5 bytes read right to left]. The
//   stream stores its nodes in this form so that node boundaries (hence `~` trims) and RDB
//   blobs are Redis' own.
// Positions are byte offsets; any mutation invalidates views handed out by at().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace listd::store {

/// One element: an integer or a string (the view lives until the listpack changes).
struct LpItem {
  bool is_int = false;
  std::int64_t integer = 0;
  std::string_view str;
  /// The element as text: the string itself, or the integer formatted into `buf`.
  std::string_view text(char (&buf)[24]) const noexcept;
};

class Listpack {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  Listpack();
  /// Checks `raw` element by element (header, encodings, backlens, terminator); nullopt if bad.
  static std::optional<Listpack> from_raw(std::string_view raw);

  void append_int(std::int64_t v);
  void append_string(std::string_view s);
  /// Replaces the element at `pos` with integer `v`; returns the (unchanged) position.
  std::size_t replace_int(std::size_t pos, std::int64_t v);

  /// Offset of the first / last element, kNone when empty.
  std::size_t first() const noexcept;
  std::size_t last() const noexcept;
  /// The element after / before `pos`, kNone past either end.
  std::size_t next(std::size_t pos) const noexcept;
  std::size_t prev(std::size_t pos) const noexcept;
  LpItem at(std::size_t pos) const noexcept;
  /// The integer at `pos` (an integer element, or a string holding one; 0 otherwise).
  std::int64_t int_at(std::size_t pos) const noexcept;

  std::size_t bytes() const noexcept { return buf_.size(); }
  std::size_t count() const noexcept { return count_; }
  std::string_view raw() const noexcept { return buf_; }
  std::size_t memory_usage() const noexcept { return buf_.capacity(); }
  void shrink_to_fit() { buf_.shrink_to_fit(); }

 private:
  void append_encoded(const unsigned char* enc, std::size_t enc_len, std::string_view data);
  void write_header() noexcept;

  std::string buf_;
  std::size_t count_ = 0;
};

/// lpStringToInt64: `s` is exactly the decimal form of an int64 (no '+', no leading zeros).
bool lp_string_to_int64(std::string_view s, std::int64_t& out) noexcept;

}  // namespace listd::store
