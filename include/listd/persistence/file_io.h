// Small POSIX file helpers shared by the AOF and RDB code: whole writes, data syncs, directory
// syncs and the atomic "write temp, fsync, rename, fsync the directory" replacement.
//
// Every function reports failure with the strerror text in `err` and never retries a failed
// fsync (after a failed fsync the kernel may have dropped the dirty pages: "fsyncgate").
#pragma once

#include <string>
#include <string_view>

namespace listd::persistence {

/// `dir` + "/" + `name`.
std::string join_path(std::string_view dir, std::string_view name);
/// Writes every byte (retrying short writes and EINTR). False on error, with `err`.
bool write_all(int fd, std::string_view data, std::string& err);
/// fdatasync (Linux) / fsync elsewhere.
bool data_sync(int fd, std::string& err);
/// Opens `dir` and fsyncs it so that created, renamed and removed entries are durable.
bool sync_directory(const std::string& dir, std::string& err);
/// Writes `content` to `dir/temp-<name>`, fdatasyncs it, renames it over `dir/name` and syncs
/// `dir`: readers see the old or the new file, never a mix.
bool replace_file_atomically(const std::string& dir, const std::string& name,
                             std::string_view content, std::string& err);
/// Reads a whole file. False (with `err`) if it cannot be opened or read.
bool read_file(const std::string& path, std::string& out, std::string& err);
/// Size of a file, or -1 if it does not exist.
long long file_size(const std::string& path);
bool file_exists(const std::string& path);
/// mkdir -p for one level (the parent must exist). True if it exists afterwards.
bool ensure_directory(const std::string& path, std::string& err);

}  // namespace listd::persistence
