// Small POSIX file helpers shared by the AOF and RDB code: whole writes, data syncs, directory
// syncs, the atomic "write temp, fsync, rename, fsync the directory" replacement, and the few
// other file operations the durability code needs (open for append, truncate, list, remove).
// Nothing above this file calls open/read/unlink/rename/truncate itself.
//
// Every function reports failure with the strerror text in `err` and never retries a failed
// fsync (after a failed fsync the kernel may have dropped the dirty pages: "fsyncgate").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace listd::persistence {

/// An open file descriptor, closed when the object goes (or is assigned another one).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Gives the descriptor up without closing it.
  int release() noexcept;
  /// Closes the descriptor now (if any).
  void reset() noexcept;

 private:
  int fd_ = -1;
};

/// `dir` + "/" + `name`.
std::string join_path(std::string_view dir, std::string_view name);
/// Writes every byte (retrying short writes and EINTR). False on error, with `err`.
bool write_all(int fd, std::string_view data, std::string& err);
/// fdatasync (Linux) / fsync elsewhere.
bool data_sync(int fd, std::string& err);
/// data_sync for a thread that keeps the error code rather than its text: 0 or the errno.
int data_sync_errno(int fd) noexcept;
/// Opens `dir` and fsyncs it so that created, renamed and removed entries are durable.
bool sync_directory(const std::string& dir, std::string& err);
/// Writes `content` to `dir/temp-<name>`, fdatasyncs it, renames it over `dir/name` and syncs
/// `dir`: readers see the old or the new file, never a mix.
bool replace_file_atomically(const std::string& dir, const std::string& name,
                             std::string_view content, std::string& err);
/// Renames `temp` over `path` and syncs `path`'s directory (the last step of a snapshot).
/// When the rename fails, `temp` is removed.
bool install_file(const std::string& temp, const std::string& path, std::string& err);
/// Reads a whole file. False (with `err`) if it cannot be opened or read.
bool read_file(const std::string& path, std::string& out, std::string& err);
/// True when the file begins with `prefix` (false if it is shorter or cannot be read).
bool file_starts_with(const std::string& path, std::string_view prefix);
/// Size of a file, or -1 if it does not exist.
long long file_size(const std::string& path);
bool file_exists(const std::string& path);
/// mkdir -p for one level (the parent must exist). True if it exists afterwards.
bool ensure_directory(const std::string& path, std::string& err);
/// The names in `dir` ("." and ".." excluded); empty if it cannot be read.
std::vector<std::string> list_directory(const std::string& dir);

/// Opens `path` for appending, creating it (0644) if needed. An invalid fd (and `err`) on error.
UniqueFd open_for_append(const std::string& path, std::string& err);
/// Creates `path` or empties it, then opens it for appending.
UniqueFd open_empty_for_append(const std::string& path, std::string& err);
/// Creates `path` or empties it, opened for writing.
UniqueFd create_file(const std::string& path, std::string& err);
/// Creates `path` if it does not exist, leaving an existing file as it is.
bool touch_file(const std::string& path, std::string& err);
/// Removes a file; a missing file is not an error (the caller is cleaning up).
void remove_file(const std::string& path) noexcept;
bool rename_file(const std::string& from, const std::string& to, std::string& err);
/// Cuts the file to `size` bytes.
bool truncate_file(const std::string& path, long long size, std::string& err);
/// Opens the file and fdatasyncs it (a truncation must be durable before appending after it).
bool sync_file(const std::string& path, std::string& err);

}  // namespace listd::persistence
