// The AOF encoder: commands as RESP arrays of bulk strings, exactly what Redis 7.0 writes
// (aof.c catAppendOnlyGenericCommand), with a SELECT whenever the database differs from the
// last command written.
//
// API: append_resp_command (one command into a string), AofEncoder (the turn's buffer: append,
// bytes, clear, reset_selected_db for a new file).
// Invariant: buffer() is always a concatenation of complete commands.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace listd::persistence {

/// Appends `*<argc>\r\n` then `$<len>\r\n<bytes>\r\n` per argument to `out`.
void append_resp_command(std::string& out, std::span<const std::string_view> argv);

class AofEncoder {
 public:
  /// Appends `argv` as run in database `db`, preceded by `SELECT db` when the last command
  /// written (since the last reset_selected_db) ran in another database.
  void append(int db, std::span<const std::string_view> argv);
  /// Redis 7.0's timestamp annotation, "#TS:<unix seconds>\r\n" (aof-timestamp-enabled).
  void annotate_timestamp(long long unix_s);
  /// The next command gets a SELECT (every new AOF file starts with one, as in Redis).
  void reset_selected_db() noexcept { selected_db_ = -1; }
  int selected_db() const noexcept { return selected_db_; }

  const std::string& buffer() const noexcept { return buf_; }
  bool empty() const noexcept { return buf_.empty(); }
  std::size_t size() const noexcept { return buf_.size(); }
  /// Drops the bytes (they were written); keeps the capacity and the selected db.
  void clear() noexcept { buf_.clear(); }

 private:
  std::string buf_;
  int selected_db_ = -1;
};

}  // namespace listd::persistence
