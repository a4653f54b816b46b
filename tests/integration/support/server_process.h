// Spawns a real listd (or redis-server) on a free 127.0.0.1 port for integration tests, waits
// until it answers PING and reports our child's pid, and stops it with SIGTERM. A server whose
// exit status is not 0 (a crash, a sanitizer report at exit) fails the test that owned it.
//
//   ServerProcess listd = ServerProcess::start_listd({"--requirepass", "pw"});
//   redisContext* c = listd.connect();
#pragma once

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace listd::testing {

/// Path of the built listd binary (set by CMake as LISTD_BINARY) and of redis-server.
inline std::string listd_binary() {
#ifdef LISTD_BINARY
  return LISTD_BINARY;
#else
  const char* env = std::getenv("LISTD_BINARY");
  return env ? env : "listd";
#endif
}

/// LISTD_TEST_SLOWDOWN (default 1): run-tests.sh raises it for the sanitizer pass, so the
/// generous wall-clock upper bounds of a few tests scale with the build's speed.
inline double test_slowdown() {
  const char* env = std::getenv("LISTD_TEST_SLOWDOWN");
  const double f = env ? std::atof(env) : 1.0;
  return f >= 1.0 ? f : 1.0;
}

/// A port that was free a moment ago (bind to 0, read it back, close). Another process may
/// take it before our server binds: ServerProcess checks the pid behind the port and retries.
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

/// `process_id` of INFO server on an open connection (-1 if absent or no reply).
inline long long info_process_id(redisContext* c) {
  auto* r = static_cast<redisReply*>(redisCommand(c, "INFO server"));
  long long pid = -1;
  if (r && r->type == REDIS_REPLY_STRING) {
    const std::string info(r->str, r->len);
    const auto at = info.find("process_id:");
    if (at != std::string::npos) pid = std::atoll(info.c_str() + at + 11);
  }
  if (r) freeReplyObject(r);
  return pid;
}

class ServerProcess {
 public:
  /// Starts listd with `--port P --bind 127.0.0.1` plus `args`. A `--requirepass` in args is
  /// used to AUTH while waiting for the server.
  static ServerProcess start_listd(std::vector<std::string> args = {}) {
    return start(listd_binary(), std::move(args), false);
  }
  /// Starts listd through `launcher`, a program that execs it with the same arguments (the
  /// seccomp wrapper of io_layer_test.cpp).
  static ServerProcess start_listd_via(const std::string& launcher,
                                       std::vector<std::string> args = {}) {
    return start(launcher, std::move(args), false);
  }
  /// Starts Debian's redis-server as the oracle, without persistence.
  static ServerProcess start_redis(std::vector<std::string> args = {}) {
    std::vector<std::string> a{"--save", "", "--appendonly", "no"};
    a.insert(a.end(), args.begin(), args.end());
    return start("redis-server", std::move(a), true);
  }

  ServerProcess(ServerProcess&& o) noexcept
      : pid_(o.pid_), port_(o.port_), password_(std::move(o.password_)) {
    o.pid_ = -1;
  }
  ServerProcess& operator=(ServerProcess&&) = delete;
  // A server still running here is stopped, and must exit 0: a test that expects another status
  // (a SIGKILL) reaps it itself with stop() or kill_and_reap().
  ~ServerProcess() {
    if (pid_ <= 0) return;
    const pid_t pid = pid_;
    const int status = stop();
    if (status != 0) ADD_FAILURE() << "server pid " << pid << " exited with status " << status;
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  /// A new hiredis connection (the caller frees it with redisFree).
  redisContext* connect() const {
    timeval tv{10, 0};
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
    if (!c || c->err)
      throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port_));
    redisSetTimeout(c, tv);
    return c;
  }

  /// SIGTERM, then waits (bounded) and returns the exit status: the code, 128 + signal for a
  /// signal, -1 if it had to be killed after 5 s (or was already reaped).
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 500; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
  }

  /// SIGKILL and reap (a crash test): true if the server died of that SIGKILL.
  bool kill_and_reap() {
    if (pid_ <= 0) return false;
    ::kill(pid_, SIGKILL);
    int status = 0;
    const bool reaped = ::waitpid(pid_, &status, 0) == pid_;
    pid_ = -1;
    return reaped && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  }

 private:
  ServerProcess(pid_t pid, int port, std::string password)
      : pid_(pid), port_(port), password_(std::move(password)) {}

  static ServerProcess start(const std::string& bin, std::vector<std::string> args, bool redis) {
    std::string password;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--requirepass") password = args[i + 1];
    for (int attempt = 0; attempt < 10; ++attempt) {
      const int port = free_port();
      std::vector<std::string> full{bin, "--port", std::to_string(port), "--bind", "127.0.0.1"};
      if (redis) {
        full.push_back("--daemonize");
        full.push_back("no");
      }
      // LISTD_IO_BACKEND: scripts/run-tests.sh runs the I/O-heavy suites again on epoll.
      const char* backend = std::getenv("LISTD_IO_BACKEND");
      if (!redis && backend && *backend) {
        full.push_back("--io-backend");
        full.push_back(backend);
      }
      full.insert(full.end(), args.begin(), args.end());
      const pid_t pid = ::fork();
      if (pid == 0) {
        if (!std::getenv("LISTD_TEST_VERBOSE")) {
          FILE* devnull = std::fopen("/dev/null", "w");
          if (devnull) ::dup2(fileno(devnull), 1);
        }
        std::vector<char*> cargv;
        for (auto& s : full) cargv.push_back(s.data());
        cargv.push_back(nullptr);
        ::execvp(cargv[0], cargv.data());
        std::_Exit(127);
      }
      ServerProcess p(pid, port, password);
      if (p.wait_ready()) return p;
      // Someone else answered on the port, or ours exited (the port was taken): try another.
      p.kill_and_reap();
    }
    throw std::runtime_error("could not start " + bin);
  }

  // True once the server on port_ answers PING and INFO server names our child's pid; false if
  // the child exits, another process answers, or 5 s pass.
  bool wait_ready() {
    for (int i = 0; i < 500; ++i) {
      int status;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      timeval tv{1, 0};
      redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
      if (c && !c->err) {
        redisSetTimeout(c, tv);
        bool authed = password_.empty();
        if (!authed) {
          auto* a = static_cast<redisReply*>(redisCommand(c, "AUTH %s", password_.c_str()));
          authed = a && a->type == REDIS_REPLY_STATUS;
          const bool refused = a && a->type == REDIS_REPLY_ERROR;  // not our server
          if (a) freeReplyObject(a);
          if (refused) {
            redisFree(c);
            return false;
          }
        }
        auto* r = authed ? static_cast<redisReply*>(redisCommand(c, "PING")) : nullptr;
        const bool pong = r && r->type == REDIS_REPLY_STATUS;
        if (r) freeReplyObject(r);
        const long long owner = pong ? info_process_id(c) : -1;
        redisFree(c);
        if (pong) return owner == pid_;
      } else if (c) {
        redisFree(c);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  pid_t pid_ = -1;
  int port_ = 0;
  std::string password_;
};

}  // namespace listd::testing
