#include "listd/persistence/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace listd::persistence {
namespace {

UniqueFd open_with(const std::string& path, int flags, std::string& err) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) err = std::strerror(errno);
  return UniqueFd(fd);
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

int UniqueFd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string p(dir);
  if (!p.empty() && p.back() != '/') p += '/';
  p.append(name);
  return p;
}

bool write_all(int fd, std::string_view data, std::string& err) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = std::strerror(errno);
      return false;
    }
    if (n == 0) {
      err = "write returned 0";
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

int data_sync_errno(int fd) noexcept {
#ifdef __linux__
  const int rc = ::fdatasync(fd);
#else
  const int rc = ::fsync(fd);
#endif
  return rc == 0 ? 0 : (errno ? errno : EIO);
}

bool data_sync(int fd, std::string& err) {
  if (const int e = data_sync_errno(fd); e != 0) {
    err = std::strerror(e);
    return false;
  }
  return true;
}

bool sync_directory(const std::string& dir, std::string& err) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    err = std::strerror(errno);
    return false;
  }
  const bool ok = ::fsync(fd) == 0;
  if (!ok) err = std::strerror(errno);
  ::close(fd);
  return ok;
}

bool replace_file_atomically(const std::string& dir, const std::string& name,
                             std::string_view content, std::string& err) {
  const std::string tmp = join_path(dir, "temp-" + name);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    err = std::strerror(errno);
    return false;
  }
  bool ok = write_all(fd, content, err) && data_sync(fd, err);
  ::close(fd);
  if (ok && ::rename(tmp.c_str(), join_path(dir, name).c_str()) != 0) {
    err = std::strerror(errno);
    ok = false;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  return sync_directory(dir, err);
}

bool install_file(const std::string& temp, const std::string& path, std::string& err) {
  if (!rename_file(temp, path, err)) {
    remove_file(temp);
    return false;
  }
  return sync_directory(parent_directory(path), err);
}

bool read_file(const std::string& path, std::string& out, std::string& err) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    err = std::strerror(errno);
    return false;
  }
  out.clear();
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return true;
}

bool file_starts_with(const std::string& path, std::string_view prefix) {
  std::string err;
  const UniqueFd fd = open_with(path, O_RDONLY, err);
  if (!fd) return false;
  std::string head(prefix.size(), '\0');
  const ssize_t n = ::read(fd.get(), head.data(), head.size());
  return n == static_cast<ssize_t>(prefix.size()) && head == prefix;
}

long long file_size(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<long long>(st.st_size);
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool ensure_directory(const std::string& path, std::string& err) {
  if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return true;
    err = "exists and is not a directory";
    return false;
  }
  err = std::strerror(errno);
  return false;
}

std::vector<std::string> list_directory(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(d);
  return names;
}

UniqueFd open_for_append(const std::string& path, std::string& err) {
  return open_with(path, O_WRONLY | O_APPEND | O_CREAT, err);
}

UniqueFd open_empty_for_append(const std::string& path, std::string& err) {
  return open_with(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, err);
}

UniqueFd create_file(const std::string& path, std::string& err) {
  return open_with(path, O_WRONLY | O_CREAT | O_TRUNC, err);
}

bool touch_file(const std::string& path, std::string& err) {
  return static_cast<bool>(open_for_append(path, err));
}

void remove_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

bool rename_file(const std::string& from, const std::string& to, std::string& err) {
  if (::rename(from.c_str(), to.c_str()) == 0) return true;
  err = std::strerror(errno);
  return false;
}

bool truncate_file(const std::string& path, long long size, std::string& err) {
  if (::truncate(path.c_str(), static_cast<off_t>(size)) == 0) return true;
  err = std::strerror(errno);
  return false;
}

bool sync_file(const std::string& path, std::string& err) {
  const UniqueFd fd = open_with(path, O_WRONLY, err);
  return fd && data_sync(fd.get(), err);
}

}  // namespace listd::persistence
