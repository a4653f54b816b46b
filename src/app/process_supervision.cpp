#include "listd/app/process_supervision.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace listd::app {

std::string pidfile_path(const config::ServerSettings& settings) {
  if (!settings.pidfile.empty()) return settings.pidfile;
  return settings.daemonize ? std::string(kDefaultPidFile) : std::string();
}

int notify_systemd(std::string_view message) {
  const char* where = std::getenv("NOTIFY_SOCKET");
  if (!where || !*where) return 0;
  const std::size_t len = std::strlen(where);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if ((where[0] != '/' && where[0] != '@') || len >= sizeof addr.sun_path) return -EINVAL;
  std::memcpy(addr.sun_path, where, len);
  if (where[0] == '@') addr.sun_path[0] = '\0';  // the abstract namespace, as sd_notify reads it
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  const auto addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len);
  const ssize_t sent = ::sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&addr), addr_len);
  const int err = errno;
  ::close(fd);
  return sent < 0 ? -err : 1;
}

int communicate_systemd(std::string_view message) {
  const int ret = notify_systemd(message);
  if (ret == 0)
    spdlog::warn("systemd supervision error: NOTIFY_SOCKET not found!");
  else if (ret < 0)
    spdlog::warn("systemd supervision error: sd_notify: {}", ret);
  return ret;
}

namespace {

bool supervise_upstart() {
  if (!std::getenv("UPSTART_JOB")) {
    spdlog::warn("upstart supervision requested, but UPSTART_JOB not found!");
    return false;
  }
  spdlog::info("supervised by upstart, will stop to signal readiness.");
  std::raise(SIGSTOP);
  ::unsetenv("UPSTART_JOB");
  return true;
}

bool supervise_systemd() {
  if (communicate_systemd("STATUS=Redis is loading...\n") <= 0) return false;
  spdlog::info(
      "Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec "
      "and TimeoutStopSec in your service unit.");
  return true;
}

}  // namespace

config::SupervisedMode start_supervision(config::SupervisedMode requested) {
  using config::SupervisedMode;
  SupervisedMode mode = requested;
  if (mode == SupervisedMode::kAuto) {
    if (std::getenv("UPSTART_JOB")) {
      spdlog::debug("Upstart supervision detected.");
      mode = SupervisedMode::kUpstart;
    } else if (std::getenv("NOTIFY_SOCKET")) {
      spdlog::debug("Systemd supervision detected.");
      mode = SupervisedMode::kSystemd;
    }
  }
  if (mode == SupervisedMode::kUpstart) return supervise_upstart() ? mode : SupervisedMode::kNo;
  if (mode == SupervisedMode::kSystemd) return supervise_systemd() ? mode : SupervisedMode::kNo;
  return SupervisedMode::kNo;
}

void daemonize() {
  std::fflush(nullptr);              // nothing buffered is written twice
  if (::fork() != 0) std::_Exit(0);  // the parent: nothing of the server was started yet
  ::setsid();
  const int fd = ::open("/dev/null", O_RDWR, 0);
  if (fd == -1) return;
  ::dup2(fd, STDIN_FILENO);
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  if (fd > STDERR_FILENO) ::close(fd);
}

config::SupervisedMode start_process(const config::ServerSettings& settings) {
  const config::SupervisedMode supervised = start_supervision(settings.supervised);
  if (settings.daemonize && supervised == config::SupervisedMode::kNo) daemonize();
  return supervised;
}

std::string create_pidfile(const config::ServerSettings& settings) {
  std::string path = pidfile_path(settings);
  if (!path.empty() && !write_pidfile(path))
    spdlog::warn("Failed to write PID file: {}", std::strerror(errno));
  return path;
}

void remove_pidfile(const std::string& path) {
  if (path.empty()) return;
  spdlog::info("Removing the pid file.");
  ::unlink(path.c_str());
}

void notify_ready(config::SupervisedMode supervised, bool replica) {
  if (supervised != config::SupervisedMode::kSystemd) return;
  communicate_systemd(replica ? "STATUS=Ready to accept connections in read-only mode. Waiting "
                                "for MASTER <-> REPLICA sync\n"
                              : "STATUS=Ready to accept connections\n");
  communicate_systemd("READY=1\n");
}

void notify_stopping(config::SupervisedMode supervised) {
  if (supervised == config::SupervisedMode::kSystemd) communicate_systemd("STOPPING=1\n");
}

bool write_pidfile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
  return std::fclose(f) == 0;
}

}  // namespace listd::app
