#include "listd/persistence/background_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "listd/persistence/file_io.h"
#include "listd/persistence/private_dirty.h"
#include "listd/store/dict.h"

namespace listd::persistence {
namespace {

void prepare_child() {
  ::signal(SIGUSR1, SIG_DFL);
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

// In the child, after its body succeeded: one fixed-size write (atomic below PIPE_BUF).
void report_cow(int fd) {
  if (fd < 0) return;
  const std::optional<std::size_t> cow = private_dirty_bytes();
  if (!cow) return;
  const std::uint64_t bytes = *cow;
  [[maybe_unused]] const ssize_t n = ::write(fd, &bytes, sizeof bytes);
}

}  // namespace

BackgroundChild::~BackgroundChild() {
  if (report_fd_ >= 0) ::close(report_fd_);
}

bool BackgroundChild::start(Kind kind, const TempPathFn& temp_path, const Body& body,
                            std::uint64_t now_ms, std::string& err) {
  int report[2] = {-1, -1};  // without a pipe the child runs all the same, unreported
  if (::pipe2(report, O_CLOEXEC) == 0) ::fcntl(report[0], F_SETFL, O_NONBLOCK);
  const auto before = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    err = std::strerror(errno);
    for (int fd : report)
      if (fd >= 0) ::close(fd);
    return false;
  }
  if (pid == 0) {
    prepare_child();
    const bool ok = body(temp_path(::getpid()));
    if (ok) report_cow(report[1]);
    ::_exit(ok ? 0 : 1);
  }
  if (report[1] >= 0) ::close(report[1]);
  report_fd_ = report[0];
  fork_stats_.latest_fork_usec =
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::steady_clock::now() - before)
                                     .count());
  ++fork_stats_.total_forks;
  kind_ = kind;
  pid_ = pid;
  store::Dict::set_resize_avoided(true);  // the child shares our pages: no relinking
  temp_path_ = temp_path(pid);
  start_ms_ = now_ms;
  return true;
}

std::optional<BackgroundChild::Exit> BackgroundChild::poll() {
  if (!running()) return std::nullopt;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) return reaped(r, status);
  return std::nullopt;
}

std::optional<BackgroundChild::Exit> BackgroundChild::wait() {
  while (running()) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, 0);
    if (r < 0 && errno == EINTR) continue;
    return reaped(r, status);
  }
  return std::nullopt;
}

void BackgroundChild::kill() {
  if (!running()) return;
  ::kill(pid_, SIGUSR1);
  ::waitpid(pid_, nullptr, 0);
  take_cow_report();  // a killed child's figure is not kept (Redis: no COW line then)
  remove_file(temp_path_);
  kind_ = Kind::kNone;
  pid_ = -1;
  store::Dict::set_resize_avoided(false);
}

BackgroundChild::Exit BackgroundChild::reaped(pid_t reaped, int status) {
  Exit e;
  e.kind = kind_;
  e.ok = reaped == pid_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  e.temp_path = std::move(temp_path_);
  e.start_ms = start_ms_;
  e.cow_bytes = take_cow_report();
  if (!e.ok) e.cow_bytes.reset();
  kind_ = Kind::kNone;
  pid_ = -1;
  store::Dict::set_resize_avoided(false);
  temp_path_.clear();
  return e;
}

std::optional<std::size_t> BackgroundChild::take_cow_report() {
  if (report_fd_ < 0) return std::nullopt;
  std::uint64_t bytes = 0;
  ssize_t n;
  do {
    n = ::read(report_fd_, &bytes, sizeof bytes);
  } while (n < 0 && errno == EINTR);
  ::close(report_fd_);
  report_fd_ = -1;
  if (n != static_cast<ssize_t>(sizeof bytes)) return std::nullopt;
  return static_cast<std::size_t>(bytes);
}

}  // namespace listd::persistence
