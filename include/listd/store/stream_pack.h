// StreamPack: one stream node's elements as StreamValue keeps them in memory, a listpack
// without back-lengths (issue 15's memory target: the back-lengths were 6 of Redis' 32 bytes
// per entry).
//
// API: append_int / append_string (a strict int64 string is stored as an integer, as lpAppend
//   does) / replace_int / first / next / at / int_at / bytes / count / last_entry /
//   mark_last_entry / from_listpack / to_listpack (RDB, DUMP) / memory_usage.
// Layout: [u32 Redis listpack size][u16 Redis element count, 65535 = unknown][elements], each
//   element exactly a listpack element's encoding + data (listpack.c), with no back-length and
//   no 0xFF terminator. The u32 is the size the same node takes as Redis' listpack, kept as
//   elements come and go, so nodes close (stream-node-max-bytes) where Redis closes them;
//   to_listpack() adds the back-lengths and the terminator back, byte for byte Redis' node.
// Walks are forward only: reverse walks (StreamIterator) scan a node forward and keep the
// entries' offsets. Positions are byte offsets; a mutation invalidates views from at().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "listd/store/listpack.h"

namespace listd::store {

class StreamPack {
 public:
  static constexpr std::size_t kNone = Listpack::kNone;

  StreamPack();
  /// The same elements as `lp`, its header kept as it is.
  static StreamPack from_listpack(const Listpack& lp);
  /// The node in Redis' listpack format, byte for byte.
  std::string to_listpack() const;

  void append_int(std::int64_t v);
  void append_string(std::string_view s);
  /// Replaces the element at `pos` with integer `v` (later positions move with its width).
  void replace_int(std::size_t pos, std::int64_t v);

  /// Offset of the first element, kNone when empty; the one after `pos`, kNone at the end.
  std::size_t first() const noexcept { return count_ == 0 ? kNone : kHeaderSize; }
  std::size_t next(std::size_t pos) const noexcept;
  LpItem at(std::size_t pos) const noexcept;
  /// The integer at `pos` (an integer element, or a string holding one; 0 otherwise).
  std::int64_t int_at(std::size_t pos) const noexcept;

  /// The node's size as Redis' listpack (what stream-node-max-bytes compares).
  std::size_t bytes() const noexcept;
  std::size_t count() const noexcept { return count_; }
  /// The offset of the last entry's first element (its flags), kNone before any: set by
  /// mark_last_entry() just before that element is appended, moved by replace_int.
  std::size_t last_entry() const noexcept { return last_entry_; }
  void mark_last_entry() noexcept { last_entry_ = buf_.size(); }
  void set_last_entry(std::size_t pos) noexcept { last_entry_ = pos; }

  std::size_t memory_usage() const noexcept { return buf_.capacity(); }
  void shrink_to_fit() { buf_.shrink_to_fit(); }

 private:
  static constexpr std::size_t kHeaderSize = 6;
  void append_encoded(const unsigned char* enc, std::size_t enc_len, std::string_view data);
  void set_bytes(std::size_t redis_bytes) noexcept;

  std::string buf_;
  std::size_t count_ = 0;
  std::size_t last_entry_ = kNone;
};

}  // namespace listd::store
