// listd's own readiness loop for client and listening sockets: one epoll instance, each socket
// registered once (level-triggered) and never re-armed per request; its interest changes only
// when a socket starts or stops waiting for room to write (a short write) or stops being read
// (a busy script's caller, a closing client).
//
// Level-triggered on purpose: a handler reads once per readiness report (more only while the
// reads fill its buffer), so a request/response round trip costs one read and one write, never
// the extra read that ends in EAGAIN an edge-triggered loop needs; whatever is left in the
// socket is reported again on the next wait.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "listd/net/io_loop.h"

namespace listd::net {

class EpollLoop final : public IoLoop {
 public:
  EpollLoop();
  ~EpollLoop() override;
  EpollLoop(const EpollLoop&) = delete;
  EpollLoop& operator=(const EpollLoop&) = delete;

  /// False (with the reason) when the kernel refuses an epoll instance.
  bool ok(std::string& error) const;

  // IoLoop (one epoll_ctl per add, modify and remove; one epoll_wait per wait).
  const char* name() const override { return "epoll"; }
  int fd() const override { return epoll_fd_; }
  bool add(int fd, IoHandler* handler, bool read, bool write) override;
  bool modify(int fd, IoHandler* handler, bool read, bool write) override;
  void remove(int fd) override;
  /// Nothing is ever queued: every change was one system call already.
  void submit_queued() override {}
  int wait_and_dispatch(int timeout_ms) override;

 private:
  int epoll_fd_ = -1;
  int open_errno_ = 0;
};

}  // namespace listd::net
