#include "listd/persistence/child_reports.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "listd/persistence/private_dirty.h"

namespace listd::persistence {
namespace {

enum : std::uint64_t { kProgress = 1, kFinal = 2 };

struct Report {
  std::uint64_t type;
  std::uint64_t keys;
  std::uint64_t cow;
  std::uint64_t cow_updated_us;
};
static_assert(sizeof(Report) == 32);

constexpr std::uint64_t kReportEveryUs = 1'000'000;
constexpr std::uint64_t kCowDutyCycle = 100;  // a reading may take 1 % of the time between two

std::uint64_t steady_us() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// The child's side: only the child process ever sets these (a copy of the parent's, unused).
struct ChildSide {
  int fd = -1;
  std::uint64_t last_sent_us = 0;  // 0: nothing sent yet, so the first report goes at once
  std::uint64_t cow = 0;
  std::uint64_t cow_updated_us = 0;
  std::uint64_t cow_cost_us = 0;
  std::uint64_t keys = 0;
};
ChildSide child_side;

void read_cow(std::uint64_t now_us) noexcept {
  if (const auto cow = private_dirty_bytes()) child_side.cow = *cow;
  child_side.cow_updated_us = steady_us();
  child_side.cow_cost_us = child_side.cow_updated_us - now_us;
}

void send(std::uint64_t type) noexcept {
  const Report r{type, child_side.keys, child_side.cow, child_side.cow_updated_us};
  ssize_t n;
  do {
    n = ::write(child_side.fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
}

}  // namespace

void ChildReports::open(std::size_t keys_total) {
  close();
  progress_.keys_total = keys_total;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  read_fd_ = fds[0];
  write_fd_ = fds[1];
}

void ChildReports::adopt_in_child() noexcept {
  child_side = ChildSide{};
  child_side.fd = write_fd_;
}

void ChildReports::after_fork(bool forked) noexcept {
  if (write_fd_ >= 0) ::close(write_fd_);
  write_fd_ = -1;
  if (!forked) close();
}

void ChildReports::send_progress(std::size_t keys) noexcept {
  if (child_side.fd < 0) return;
  child_side.keys = keys;
  const std::uint64_t now = steady_us();
  if (child_side.last_sent_us != 0 && now - child_side.last_sent_us < kReportEveryUs) return;
  child_side.last_sent_us = now;
  if (child_side.cow_updated_us == 0 ||
      now - child_side.cow_updated_us > child_side.cow_cost_us * kCowDutyCycle)
    read_cow(now);
  send(kProgress);
}

void ChildReports::send_final() noexcept {
  if (child_side.fd < 0) return;
  read_cow(steady_us());
  send(kFinal);
}

bool ChildReports::read() noexcept {
  if (read_fd_ < 0) return final_seen_;
  unsigned char buf[sizeof(Report) * 16];
  for (;;) {
    const ssize_t n = ::read(read_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {  // whole reports, a torn one kept for the next read
      partial_[partial_len_++] = buf[i];
      if (partial_len_ == sizeof(Report)) {
        take(partial_);
        partial_len_ = 0;
      }
    }
  }
  return final_seen_;
}

void ChildReports::take(const unsigned char* bytes) noexcept {
  Report r;
  std::memcpy(&r, bytes, sizeof r);
  progress_.cow_size = r.cow;
  progress_.cow_peak = std::max<std::size_t>(progress_.cow_peak, r.cow);
  progress_.cow_updated_us = r.cow_updated_us;
  progress_.keys_processed = r.keys;
  if (r.type == kFinal) final_seen_ = true;
}

void ChildReports::close() noexcept {
  for (int* fd : {&read_fd_, &write_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  progress_ = ChildProgress{};
  final_seen_ = false;
  partial_len_ = 0;
}

}  // namespace listd::persistence
