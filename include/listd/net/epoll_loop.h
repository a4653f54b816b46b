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

namespace listd::net {

/// Something registered with the loop: told which events are ready on its descriptor.
class IoHandler {
 public:
  virtual ~IoHandler() = default;
  /// `readable` / `writable` as epoll reported them; `hangup` for EPOLLHUP/EPOLLERR.
  virtual void on_io(bool readable, bool writable, bool hangup) = 0;
};

class EpollLoop {
 public:
  EpollLoop();
  ~EpollLoop();
  EpollLoop(const EpollLoop&) = delete;
  EpollLoop& operator=(const EpollLoop&) = delete;

  /// False (with the reason) when the kernel refuses an epoll instance.
  bool ok(std::string& error) const;
  int fd() const noexcept { return epoll_fd_; }

  /// Registers `fd` once; `read`/`write` say which readiness to report. False on failure.
  bool add(int fd, IoHandler* handler, bool read, bool write);
  /// Changes what is reported for a registered `fd` (one epoll_ctl).
  bool modify(int fd, IoHandler* handler, bool read, bool write);
  /// Unregisters `fd` (call before closing it).
  void remove(int fd);

  /// One epoll_wait of at most `timeout_ms` (-1: no limit, 0: do not block); runs the handler of
  /// every ready descriptor. Returns how many were ready (0 on timeout or a signal). Re-entrant:
  /// a busy script's hook calls it from inside a handler.
  int wait_and_dispatch(int timeout_ms);

  /// Takes a handler whose descriptor was removed and frees it once no wait_and_dispatch is
  /// running (at once outside one): the events of a running wait may still name it, and those
  /// are not delivered to it.
  void retire(std::unique_ptr<IoHandler> handler);

 private:
  bool is_retired(const IoHandler* handler) const noexcept;

  int epoll_fd_ = -1;
  int open_errno_ = 0;
  int dispatch_depth_ = 0;  // wait_and_dispatch calls running (a busy script nests one)
  std::vector<std::unique_ptr<IoHandler>> retired_;
};

}  // namespace listd::net
