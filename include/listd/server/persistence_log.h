// Where the durability classes (Persistence, AofWriter, AofRewrite, DataLoader) log, and the one
// way they stop the server: after a failed AOF write or fsync listd logs and exits with status
// 1 before any reply of the turn is sent (a failed fsync is never retried).
// The server part has no logger of its own: main installs spdlog with set_sink(); without a
// sink, notices and warnings go to stderr.
#pragma once

#include <functional>
#include <string_view>

#include "listd/config/config.h"

namespace listd::server {

class PersistenceLog {
 public:
  using Sink = std::function<void(config::LogLevel, std::string_view)>;

  void set_sink(Sink sink) { sink_ = std::move(sink); }
  void log(config::LogLevel level, std::string_view msg) const;
  void notice(std::string_view msg) const { log(config::LogLevel::kNotice, msg); }
  void warning(std::string_view msg) const { log(config::LogLevel::kWarning, msg); }
  /// Logs `msg` as a warning and exits with status 1.
  [[noreturn]] void fatal(std::string_view msg) const;

 private:
  Sink sink_;
};

}  // namespace listd::server
