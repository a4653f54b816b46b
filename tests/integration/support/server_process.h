// Spawns a real listd (or redis-server) on a free 127.0.0.1 port for integration tests, waits
// until it answers PING, and stops it with SIGTERM (checking the exit status).
//
//   ServerProcess listd = ServerProcess::start_listd({"--requirepass", "pw"});
//   redisContext* c = listd.connect();
#pragma once

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

/// A port that was free a moment ago (bind to 0, read it back, close).
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

class ServerProcess {
 public:
  /// Starts listd with `--port P --bind 127.0.0.1` plus `args`.
  static ServerProcess start_listd(std::vector<std::string> args = {}) {
    return start(listd_binary(), std::move(args), false);
  }
  /// Starts Debian's redis-server as the oracle, without persistence.
  static ServerProcess start_redis(std::vector<std::string> args = {}) {
    std::vector<std::string> a{"--save", "", "--appendonly", "no"};
    a.insert(a.end(), args.begin(), args.end());
    return start("redis-server", std::move(a), true);
  }

  ServerProcess(ServerProcess&& o) noexcept : pid_(o.pid_), port_(o.port_) { o.pid_ = -1; }
  ServerProcess& operator=(ServerProcess&&) = delete;
  ~ServerProcess() {
    if (pid_ > 0) stop();
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  /// A new hiredis connection (the caller frees it with redisFree).
  redisContext* connect() const {
    timeval tv{10, 0};
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
    if (!c || c->err) throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port_));
    redisSetTimeout(c, tv);
    return c;
  }

  /// SIGTERM, then waits (bounded) and returns the exit status (-1 if it had to be killed).
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

 private:
  ServerProcess(pid_t pid, int port) : pid_(pid), port_(port) {}

  static ServerProcess start(const std::string& bin, std::vector<std::string> args, bool redis) {
    for (int attempt = 0; attempt < 5; ++attempt) {
      const int port = free_port();
      std::vector<std::string> full{bin, "--port", std::to_string(port), "--bind", "127.0.0.1"};
      if (redis) {
        full.push_back("--daemonize");
        full.push_back("no");
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
      ServerProcess p(pid, port);
      if (p.wait_ready()) return p;
    }
    throw std::runtime_error("could not start " + bin);
  }

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
        auto* r = static_cast<redisReply*>(redisCommand(c, "PING"));
        const bool ok = r && r->type == REDIS_REPLY_STATUS;
        if (r) freeReplyObject(r);
        redisFree(c);
        if (ok) return true;
      } else if (c) {
        redisFree(c);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace listd::testing
