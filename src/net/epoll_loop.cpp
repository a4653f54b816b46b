#include "listd/net/epoll_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace listd::net {
namespace {

// One wait reports at most this many sockets; the rest stay ready (level-triggered) for the
// next wait, so a burst of clients is spread over turns instead of starving the flush.
constexpr int kMaxEventsPerWait = 512;

std::uint32_t epoll_interest(bool read, bool write) {
  return (read ? EPOLLIN : 0u) | (write ? EPOLLOUT : 0u);
}

bool epoll_control(int epoll_fd, int op, int fd, IoHandler* handler, bool read, bool write) {
  epoll_event ev{};
  ev.events = epoll_interest(read, write);
  ev.data.ptr = handler;
  return ::epoll_ctl(epoll_fd, op, fd, &ev) == 0;
}

}  // namespace

EpollLoop::EpollLoop() : epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0) open_errno_ = errno;
}

EpollLoop::~EpollLoop() {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

bool EpollLoop::ok(std::string& error) const {
  if (epoll_fd_ >= 0) return true;
  error = std::string("epoll_create1: ") + std::strerror(open_errno_);
  return false;
}

bool EpollLoop::add(int fd, IoHandler* handler, bool read, bool write) {
  return epoll_control(epoll_fd_, EPOLL_CTL_ADD, fd, handler, read, write);
}

bool EpollLoop::modify(int fd, IoHandler* handler, bool read, bool write) {
  return epoll_control(epoll_fd_, EPOLL_CTL_MOD, fd, handler, read, write);
}

void EpollLoop::remove(int fd) {
  epoll_event ev{};
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, &ev);
}

int EpollLoop::wait_and_dispatch(int timeout_ms) {
  epoll_event events[kMaxEventsPerWait];  // on the stack: a nested call has its own
  const int n = ::epoll_wait(epoll_fd_, events, kMaxEventsPerWait, timeout_ms);
  if (n <= 0) return 0;  // timeout, or EINTR: a signal for asio's signal_set
  const DispatchScope scope(*this);
  for (int i = 0; i < n; ++i) {
    const std::uint32_t e = events[i].events;
    auto* handler = static_cast<IoHandler*>(events[i].data.ptr);
    if (any_retired() && is_retired(handler)) continue;
    handler->on_io((e & EPOLLIN) != 0, (e & EPOLLOUT) != 0, (e & (EPOLLHUP | EPOLLERR)) != 0);
  }
  return n;
}

}  // namespace listd::net
