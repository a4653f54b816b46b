#include "listd/app/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace listd::app {
namespace {

spdlog::level::level_enum to_spdlog(config::LogLevel level) {
  switch (level) {
    case config::LogLevel::kDebug: return spdlog::level::trace;
    case config::LogLevel::kVerbose: return spdlog::level::debug;
    case config::LogLevel::kNotice: return spdlog::level::info;
    case config::LogLevel::kWarning: return spdlog::level::warn;
  }
  return spdlog::level::info;
}

}  // namespace

bool setup_logging(const config::ServerSettings& settings, std::string& error) {
  std::shared_ptr<spdlog::logger> logger;
  try {
    if (settings.logfile.empty())
      logger = spdlog::stdout_logger_st("listd");
    else
      logger = spdlog::basic_logger_st("listd", settings.logfile);
  } catch (const spdlog::spdlog_ex& e) {
    error = e.what();
    return false;
  }
  // Redis-like line: pid:M date level-mark message
  logger->set_pattern("%P:M %d %b %Y %H:%M:%S.%e %^%l%$ %v");
  logger->set_level(to_spdlog(settings.loglevel));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return true;
}

void log_inert_options(const config::ServerSettings& settings) {
  for (const auto& [name, value] : settings.inert.non_default) {
    spdlog::info(
        "Option '{}' is set to '{}', but listd does not act on it (see the inert "
        "options in docs/COMPATIBILITY.md)",
        name, config::Config::find_option(name)->sensitive() ? "(redacted)" : value);
  }
}

}  // namespace listd::app
