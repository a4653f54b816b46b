#include "listd/server/persistence_log.h"

#include <cstdio>
#include <cstdlib>

namespace listd::server {

void PersistenceLog::log(config::LogLevel level, std::string_view msg) const {
  if (sink_) {
    sink_(level, msg);
  } else if (level >= config::LogLevel::kNotice) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(msg.size()), msg.data());
  }
}

void PersistenceLog::fatal(std::string_view msg) const {
  warning(msg);
  std::exit(1);
}

}  // namespace listd::server
