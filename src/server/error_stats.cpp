#include "listd/server/error_stats.h"

namespace listd::server {

void ErrorStats::count(std::string_view line) {
  // Redis looks for the space within the first 32 bytes of "-CODE ...", the dash included.
  std::string_view head = line.substr(0, 31);
  head = head.substr(0, head.find('\r'));
  const std::size_t space = head.find(' ');
  const std::string_view code = space == std::string_view::npos ? "ERR" : head.substr(0, space);
  auto it = counts_.find(code);
  if (it == counts_.end()) it = counts_.emplace(std::string(code), 0).first;
  ++it->second;
}

}  // namespace listd::server
