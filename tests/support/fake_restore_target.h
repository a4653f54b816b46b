// A stand-in MIGRATE target for unit tests: a thread listening on 127.0.0.1 that answers +OK
// to every command it receives (AUTH, SELECT, RESTORE), one connection at a time, until the
// object is destroyed. Real targets are in python.migrate.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "listd/protocol/request_parser.h"

namespace listd::testing {

class FakeRestoreTarget {
 public:
  FakeRestoreTarget() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listen_fd_, 8);
    socklen_t len = sizeof a;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = std::to_string(ntohs(a.sin_port));
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeRestoreTarget() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  FakeRestoreTarget(const FakeRestoreTarget&) = delete;
  FakeRestoreTarget& operator=(const FakeRestoreTarget&) = delete;

  const std::string& port() const { return port_; }

 private:
  // Polls with a short timeout so the destructor's stop_ is seen.
  bool wait_readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 20) > 0;
  }

  void serve() {
    while (!stop_) {
      if (!wait_readable(listen_fd_)) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      answer(fd);
      ::close(fd);
    }
  }

  void answer(int fd) {
    protocol::RequestParser parser;
    std::string in;
    while (!stop_) {
      if (!wait_readable(fd)) continue;
      char buf[65536];
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      in.append(buf, static_cast<std::size_t>(n));
      while (parser.parse(in) == protocol::ParseStatus::kRequest) {
        in.erase(0, parser.consumed());
        if (::send(fd, "+OK\r\n", 5, MSG_NOSIGNAL) != 5) return;
      }
    }
  }

  int listen_fd_ = -1;
  std::string port_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace listd::testing
