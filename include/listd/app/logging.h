// Logging set-up: spdlog sinks and level from the config (loglevel, logfile), Redis' level names.
#pragma once

#include <string>

#include "listd/config/config.h"

namespace listd::app {

/// Installs the default logger. Returns false and fills `error` if the log file cannot be opened.
bool setup_logging(const config::ServerSettings& settings, std::string& error);

/// Says once, at notice level, which options listd accepts but does not act on are set to a
/// value other than Redis' default (ServerSettings::inert).
void log_inert_options(const config::ServerSettings& settings);

}  // namespace listd::app
