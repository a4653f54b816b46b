// The slow log (Redis slowlog.c): the commands whose execution took at least
// `slowlog-log-slower-than` microseconds, newest first, at most `slowlog-max-len` of them.
//
// API: record() files one finished command (the executor calls it from dispatch with the
// duration its existing clock reads give), park() / serve_parked() / drop_parked() carry a
// blocked command until it is served (Redis logs it then, without its wait, and never when it
// times out), entries() / reset() / size() for SLOWLOG GET / RESET / LEN.
// Invariants: ids grow by one per entry and are never reused (RESET keeps the counter); an
// entry's argv holds at most 32 arguments of at most 128 bytes each, trimmed as Redis trims.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace listd::server {

struct Client;

class SlowLog {
 public:
  struct Entry {
    long long id = 0;
    std::int64_t unix_s = 0;
    std::uint64_t duration_us = 0;
    std::vector<std::string> args;  ///< trimmed and redacted
    std::string peer;               ///< "ip:port", "?:0" for a client without a connection
    std::string name;
  };

  /// Redis' copy of a command's argv: more than 32 arguments keep 31 and a last
  /// "... (N more arguments)"; an argument over 128 bytes keeps 128 and "... (N more bytes)";
  /// the argument positions in `redacted` read "(redacted)" (passwords).
  static std::vector<std::string> entry_args(std::span<const std::string_view> argv,
                                             std::span<const std::size_t> redacted);

  /// Files a finished command if it took at least `slower_than_us` (callers skip the call
  /// when the log is off, slower_than_us < 0), then drops the oldest entries over `max_len`.
  void record(const Client& client, std::span<const std::string_view> argv,
              std::span<const std::size_t> redacted, std::uint64_t duration_us, std::int64_t unix_s,
              long long slower_than_us, std::size_t max_len);

  /// A command that blocked: its argv and the time it ran before blocking, kept until it is
  /// served (serve_parked) or its wait ends otherwise (drop_parked).
  void park(const Client& client, std::span<const std::string_view> argv,
            std::span<const std::size_t> redacted, std::uint64_t duration_us);
  bool has_parked(std::uint64_t client_id) const { return parked_.count(client_id) != 0; }
  /// The parked command of `client` was served in `serve_us`: filed with both durations added.
  void serve_parked(const Client& client, std::uint64_t serve_us, std::int64_t unix_s,
                    long long slower_than_us, std::size_t max_len);
  void drop_parked(std::uint64_t client_id) { parked_.erase(client_id); }

  const std::deque<Entry>& entries() const noexcept { return entries_; }  ///< newest first
  std::size_t size() const noexcept { return entries_.size(); }
  void reset() noexcept { entries_.clear(); }

 private:
  struct Parked {
    std::vector<std::string> args;
    std::uint64_t duration_us = 0;
  };
  void push(const Client& client, std::vector<std::string> args, std::uint64_t duration_us,
            std::int64_t unix_s);
  void trim(std::size_t max_len);

  std::deque<Entry> entries_;
  long long next_id_ = 0;
  std::unordered_map<std::uint64_t, Parked> parked_;  // by client id
};

}  // namespace listd::server
