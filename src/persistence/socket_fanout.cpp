#include "listd/persistence/socket_fanout.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace listd::persistence {
namespace {

std::int64_t fanout_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The longest one poll() waits, so that a stalled socket is noticed near its deadline.
constexpr std::int64_t kFanoutPollMs = 1000;

}  // namespace

SocketFanout::SocketFanout(std::vector<int> sockets, std::int64_t stall_timeout_ms)
    : sockets_(std::move(sockets)),
      alive_(sockets_.size(), true),
      stall_timeout_ms_(stall_timeout_ms) {}

std::size_t SocketFanout::alive() const noexcept {
  return static_cast<std::size_t>(std::count(alive_.begin(), alive_.end(), true));
}

void SocketFanout::give_up(std::size_t i) {
  alive_[i] = false;
  ::shutdown(sockets_[i], SHUT_RDWR);  // the parent reads the end and drops the replica
}

bool SocketFanout::write_each(const std::vector<std::string>& bytes) {
  std::vector<std::string_view> left(bytes.begin(), bytes.end());
  left.resize(sockets_.size());
  return write_views(std::move(left));
}

bool SocketFanout::write_all(std::string_view bytes) {
  return write_views(std::vector<std::string_view>(sockets_.size(), bytes));
}

bool SocketFanout::write_views(std::vector<std::string_view> left) {
  std::vector<std::int64_t> progress_ms(sockets_.size(), fanout_now_ms());
  std::vector<pollfd> waiting;
  std::vector<std::size_t> waiting_index;
  for (;;) {
    waiting.clear();
    waiting_index.clear();
    for (std::size_t i = 0; i < sockets_.size(); ++i) {
      while (alive_[i] && !left[i].empty()) {
        // MSG_NOSIGNAL: a replica that went away is an error here, not a SIGPIPE.
        const ssize_t n = ::send(sockets_[i], left[i].data(), left[i].size(), MSG_NOSIGNAL);
        if (n > 0) {
          left[i].remove_prefix(static_cast<std::size_t>(n));
          progress_ms[i] = fanout_now_ms();
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          break;
        } else {
          give_up(i);
        }
      }
      if (!alive_[i] || left[i].empty()) continue;
      waiting.push_back(pollfd{sockets_[i], POLLOUT, 0});
      waiting_index.push_back(i);
    }
    if (waiting.empty()) return alive() > 0;
    ::poll(waiting.data(), waiting.size(),
           static_cast<int>(std::min(kFanoutPollMs, stall_timeout_ms_ + 1)));
    const std::int64_t now = fanout_now_ms();
    for (std::size_t i : waiting_index)
      if (now - progress_ms[i] > stall_timeout_ms_) give_up(i);
  }
}

}  // namespace listd::persistence
