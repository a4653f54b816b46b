#include "listd/server/migrate_sockets.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iterator>

namespace listd::server {
namespace {

using SteadyClock = std::chrono::steady_clock;

std::string link_name(std::string_view host, std::string_view port) {
  std::string name(host);
  name += ':';
  name += port;
  return name;
}

SteadyClock::time_point deadline_after(long long timeout_ms) {
  return SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
}

// Waits for `events` on fd until `deadline`: 1 ready, 0 timed out, -1 error.
int wait_for(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) return 0;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return 0;
    return 1;
  }
}

// A non-blocking connect to the first address that answers within the deadline (Redis
// connBlockingConnect); -1 on failure.
int connect_within(const std::string& host, const std::string& port, long long timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  const SteadyClock::time_point deadline = deadline_after(timeout_ms);
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    // As Redis' connBlockingConnect, a connect that polls ready counts as made without asking
    // SO_ERROR: a refused one fails at the first write ("IOERR ... writing to target instance",
    // Redis' reply for a port nobody listens on).
    int error = 0;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      error = errno;
      if (error == EINPROGRESS) error = wait_for(fd, POLLOUT, deadline) == 1 ? 0 : ETIMEDOUT;
    }
    if (error != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd >= 0) {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

}  // namespace

MigrateSockets::~MigrateSockets() {
  for (auto& [name, link] : links_) ::close(link.fd);
}

MigrateSockets::Link* MigrateSockets::get(std::string_view host, std::string_view port,
                                          long long timeout_ms, std::int64_t now_s) {
  const std::string name = link_name(host, port);
  if (auto it = links_.find(name); it != links_.end()) {
    it->second.last_use_s = now_s;
    return &it->second;
  }
  if (links_.size() >= kMaxCached) {  // too many: one goes, at random, as in Redis
    auto victim = links_.begin();
    std::advance(victim, std::uniform_int_distribution<std::size_t>(0, links_.size() - 1)(rng_));
    ::close(victim->second.fd);
    links_.erase(victim);
  }
  const int fd = connect_within(std::string(host), std::string(port), timeout_ms);
  if (fd < 0) return nullptr;
  Link& link = links_[name];
  link.fd = fd;
  link.last_use_s = now_s;
  return &link;
}

void MigrateSockets::close(std::string_view host, std::string_view port) {
  const auto it = links_.find(link_name(host, port));
  if (it == links_.end()) return;
  ::close(it->second.fd);
  links_.erase(it);
}

void MigrateSockets::close_idle(std::int64_t now_s) {
  for (auto it = links_.begin(); it != links_.end();) {
    if (now_s - it->second.last_use_s > kIdleSeconds) {
      ::close(it->second.fd);
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
}

bool MigrateSockets::write_all(Link& link, std::string_view bytes, long long timeout_ms,
                               bool& timed_out) {
  timed_out = false;
  const SteadyClock::time_point deadline = deadline_after(timeout_ms);
  while (!bytes.empty()) {
    const ssize_t n = ::send(link.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    const int ready = wait_for(link.fd, POLLOUT, deadline);
    if (ready <= 0) {
      timed_out = ready == 0;
      return false;
    }
  }
  return true;
}

bool MigrateSockets::read_line(Link& link, std::string& line, long long timeout_ms,
                               bool& timed_out) {
  timed_out = false;
  const SteadyClock::time_point deadline = deadline_after(timeout_ms);
  for (;;) {
    if (const std::size_t eol = link.in.find('\n'); eol != std::string::npos) {
      line.assign(link.in, 0, eol > 0 && link.in[eol - 1] == '\r' ? eol - 1 : eol);
      link.in.erase(0, eol + 1);
      return true;
    }
    char buf[4096];
    const ssize_t n = ::recv(link.fd, buf, sizeof buf, 0);
    if (n > 0) {
      link.in.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;  // the target closed the connection
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
    const int ready = wait_for(link.fd, POLLIN, deadline);
    if (ready <= 0) {
      timed_out = ready == 0;
      return false;
    }
  }
}

}  // namespace listd::server
