// One byte stream written to several sockets at once, by a diskless sync's child (the RDB to
// every replica of the batch, as Redis 5's rioFdsetWrite did from its child). The sockets are
// the replicas' own connections, non-blocking: that flag is shared with the parent, so it is
// left as it is and poll() waits for room. A socket that fails, or takes no byte for
// `stall_timeout_ms` (repl-timeout), is shut down, which the parent sees as the connection's
// end (it then drops that replica); the other sockets go on.
// Invariant: alive() counts the sockets not yet given up; a write returns once every live
// socket took all of its bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace listd::persistence {

class SocketFanout {
 public:
  SocketFanout(std::vector<int> sockets, std::int64_t stall_timeout_ms);

  /// Writes `bytes[i]` to socket i (each replica's own preamble). False once none is alive.
  bool write_each(const std::vector<std::string>& bytes);
  /// Writes `bytes` to every live socket. False once none is alive.
  bool write_all(std::string_view bytes);
  std::size_t alive() const noexcept;

 private:
  bool write_views(std::vector<std::string_view> left);
  void give_up(std::size_t i);

  std::vector<int> sockets_;
  std::vector<bool> alive_;
  std::int64_t stall_timeout_ms_;
};

}  // namespace listd::persistence
