// The replication backlog: the last `capacity` bytes of the replication stream, as Redis'
// repl_backlog, so that a replica that lost its link can continue (PSYNC → +CONTINUE) from the
// offset it had instead of loading a new RDB.
//
// API: append (stream bytes, in order), first_byte_offset / histlen / end_offset (Redis'
// repl_backlog_first_byte_offset, repl_backlog_histlen, master_repl_offset), contains (can a
// PSYNC offset be served), copy_from (the bytes from an offset to the end), resize.
// Invariant: the bytes held are exactly the stream bytes [first_byte_offset, end_offset], and
// histlen() <= capacity(). Offsets are 1-based stream positions, as Redis counts them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace listd::server {

class ReplicationBacklog {
 public:
  /// An empty backlog whose first byte will be stream byte `end_offset + 1`.
  ReplicationBacklog(std::size_t capacity, long long end_offset);

  /// Appends stream bytes; the oldest are forgotten beyond capacity().
  void append(std::string_view bytes);
  /// Keeps the newest min(histlen, capacity) bytes.
  void resize(std::size_t capacity);

  std::size_t capacity() const noexcept { return ring_.size(); }
  std::size_t histlen() const noexcept { return histlen_; }
  /// The offset of the last byte appended (Redis master_repl_offset).
  long long end_offset() const noexcept { return end_offset_; }
  /// The offset of the oldest byte held (end_offset + 1 while empty).
  long long first_byte_offset() const noexcept {
    return end_offset_ - static_cast<long long>(histlen_) + 1;
  }
  /// True when a replica asking for the stream from `offset` (its next byte) can be served:
  /// first_byte_offset() <= offset <= end_offset() + 1.
  bool contains(long long offset) const noexcept {
    return offset >= first_byte_offset() && offset <= end_offset_ + 1;
  }
  /// Appends to `out` the bytes from `offset` to the end; `offset` must be contains()ed.
  void copy_from(long long offset, std::string& out) const;

 private:
  std::string ring_;      // capacity bytes; the newest byte is just before `next_`
  std::size_t next_ = 0;  // where the next byte goes
  std::size_t histlen_ = 0;
  long long end_offset_ = 0;
};

}  // namespace listd::server
