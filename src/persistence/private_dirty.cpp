#include "listd/persistence/private_dirty.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace listd::persistence {
namespace {

constexpr char kField[] = "Private_Dirty:";
constexpr std::size_t kFieldLen = sizeof kField - 1;

// One line's kB figure when it is a Private_Dirty line.
std::size_t line_bytes(const char* line, std::size_t len) noexcept {
  if (len < kFieldLen || std::memcmp(line, kField, kFieldLen) != 0) return 0;
  std::size_t kb = 0;
  for (std::size_t i = kFieldLen; i < len; ++i)
    if (line[i] >= '0' && line[i] <= '9') kb = kb * 10 + static_cast<std::size_t>(line[i] - '0');
  return kb * 1024;
}

// Sums the Private_Dirty lines of `path`, read in chunks (smaps can be megabytes long).
std::optional<std::size_t> sum_file(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[16384];
  std::size_t held = 0, total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf + held, sizeof buf - held);
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    held += static_cast<std::size_t>(n);
    std::size_t start = 0;
    for (std::size_t i = 0; i < held; ++i) {
      if (buf[i] != '\n') continue;
      total += line_bytes(buf + start, i - start);
      start = i + 1;
    }
    // The unfinished line moves to the front; a line longer than the buffer is dropped.
    if (start == 0 && held == sizeof buf) start = held;
    std::memmove(buf, buf + start, held - start);
    held -= start;
    if (n == 0) break;
  }
  ::close(fd);
  return total + line_bytes(buf, held);
}

}  // namespace

std::optional<std::size_t> private_dirty_bytes() noexcept {
  if (auto rollup = sum_file("/proc/self/smaps_rollup")) return rollup;
  return sum_file("/proc/self/smaps");
}

}  // namespace listd::persistence
