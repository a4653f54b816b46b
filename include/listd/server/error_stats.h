// INFO errorstats (Redis afterErrorReply + incrementErrorCount): error replies counted by
// their code, the first word of the reply ("ERR", "WRONGTYPE", "NOSCRIPT" ...), found within
// the first 32 bytes or else counted as "ERR". Listed in byte order, as Redis' rax.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace listd::server {

class ErrorStats {
 public:
  /// Counts one error reply; `line` is its text without the leading '-' (may run past the
  /// CRLF: only the first 31 bytes are looked at).
  void count(std::string_view line);
  void reset() noexcept { counts_.clear(); }
  const std::map<std::string, std::uint64_t, std::less<>>& counts() const noexcept {
    return counts_;
  }

 private:
  std::map<std::string, std::uint64_t, std::less<>> counts_;
};

}  // namespace listd::server
