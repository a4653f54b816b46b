#include "listd/persistence/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace listd::persistence {

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

bool data_sync(int fd, std::string& err) {
#ifdef __linux__
  const int rc = ::fdatasync(fd);
#else
  const int rc = ::fsync(fd);
#endif
  if (rc != 0) {
    err = std::strerror(errno);
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

}  // namespace listd::persistence
