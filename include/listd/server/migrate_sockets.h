// MIGRATE's connections to its target instances (Redis 7.0 cluster.c migrateGetSocket and
// friends): plain TCP, used synchronously by the executor with a timeout on every step, as
// Redis' MIGRATE blocks its server while it runs. A connection is kept for the next MIGRATE to
// the same host:port (with the db it last selected there) and closed after 10 s unused; at most
// 64 are kept, one dropped at random for a new one.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>

namespace listd::server {

class MigrateSockets {
 public:
  static constexpr std::size_t kMaxCached = 64;     // Redis MIGRATE_SOCKET_CACHE_ITEMS
  static constexpr std::int64_t kIdleSeconds = 10;  // Redis MIGRATE_SOCKET_CACHE_TTL

  /// One connection to a target. `last_dbid`: the db its last SELECT chose (-1: none yet).
  struct Link {
    int fd = -1;
    long long last_dbid = -1;
    std::int64_t last_use_s = 0;
    std::string in;  // bytes read past the last line
  };

  MigrateSockets() = default;
  ~MigrateSockets();
  MigrateSockets(const MigrateSockets&) = delete;
  MigrateSockets& operator=(const MigrateSockets&) = delete;

  /// The kept connection to host:port, or a new one connected within `timeout_ms`; nullptr
  /// when the connection failed or timed out.
  Link* get(std::string_view host, std::string_view port, long long timeout_ms, std::int64_t now_s);
  /// Closes and forgets host:port's connection (after an error on it), if any.
  void close(std::string_view host, std::string_view port);
  /// Redis migrateCloseTimedoutSockets, once a second from the cron.
  void close_idle(std::int64_t now_s);
  std::size_t size() const noexcept { return links_.size(); }

  /// Writes all of `bytes` within `timeout_ms`; false on an error or the timeout (then
  /// `timed_out` says which).
  static bool write_all(Link& link, std::string_view bytes, long long timeout_ms, bool& timed_out);
  /// Reads one line (CRLF stripped) within `timeout_ms`; false on an error, the peer's close or
  /// the timeout (`timed_out`).
  static bool read_line(Link& link, std::string& line, long long timeout_ms, bool& timed_out);

 private:
  std::map<std::string, Link, std::less<>> links_;  // by "host:port"
  std::mt19937 rng_{std::random_device{}()};
};

}  // namespace listd::server
