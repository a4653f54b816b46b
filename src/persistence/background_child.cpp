#include "listd/persistence/background_child.h"

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
#include "listd/store/dict.h"

namespace listd::persistence {
namespace {

void prepare_child() {
  ::signal(SIGUSR1, SIG_DFL);
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

}  // namespace

bool BackgroundChild::start(Kind kind, const TempPathFn& temp_path, const Body& body,
                            std::uint64_t now_ms, std::string& err, std::size_t keys_total) {
  reports_.open(keys_total);
  const auto before = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  const int fork_errno = errno;
  const auto after = std::chrono::steady_clock::now();
  if (pid == 0) {
    prepare_child();
    reports_.adopt_in_child();
    const bool ok = body(temp_path(::getpid()));
    if (ok) ChildReports::send_final();
    ::_exit(ok ? 0 : 1);
  }
  reports_.after_fork(pid > 0);
  if (pid < 0) {
    err = std::strerror(fork_errno);
    return false;
  }
  fork_stats_.latest_fork_usec = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(after - before).count());
  ++fork_stats_.total_forks;
  if (fork_hook_) fork_hook_(fork_stats_.latest_fork_usec);
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
  reports_.close();  // a killed child's figures are not kept
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
  if (reports_.read() && e.ok) e.cow_bytes = reports_.progress().cow_peak;
  reports_.close();
  kind_ = Kind::kNone;
  pid_ = -1;
  store::Dict::set_resize_avoided(false);
  temp_path_.clear();
  return e;
}

}  // namespace listd::persistence
