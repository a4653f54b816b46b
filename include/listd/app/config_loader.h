// The command line: turns `listd [config-file] [--name value ...] [-]` into a start-up action
// and a config::Config, with Redis 7.0's rules; the redis.conf syntax itself is the config
// part's (listd/config/config_file.h).
// API: load_config(argc, argv, cfg) -> ConfigLoadOutcome (run / print version / print help, or a
// fatal error text); command_line_options (how flags become config lines); usage_text /
// version_text.
// Invariants: options are applied in order file, stdin, command line (last one wins); the first
// bad line stops loading and is reported as Redis does ("*** FATAL CONFIG FILE ERROR ...").
#pragma once

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "listd/config/config.h"

namespace listd::app {

enum class StartupAction { kRun, kPrintVersion, kPrintHelp };

struct ConfigLoadOutcome {
  StartupAction action = StartupAction::kRun;
  /// Set when start-up must stop: the complete text for stderr, then exit status 1.
  std::optional<std::string> error;
  /// Absolute path of the config file named on the command line; empty if none.
  std::string config_file;
};

/// Parses the command line like redis-server: `-v`/`--version` and `-h`/`--help` as the first
/// argument; a first argument not starting with '-' is the config file; `-` (first or last)
/// reads more config from `stdin_stream`; `--name v1 v2` becomes the line `name "v1" "v2"`
/// after the file's lines. Applies everything to `cfg` and records the file in
/// cfg.set_config_file(). Never exits and never prints.
ConfigLoadOutcome load_config(int argc, const char* const* argv, config::Config& cfg,
                              std::istream& stdin_stream);
/// Same, reading `-` from std::cin.
ConfigLoadOutcome load_config(int argc, const char* const* argv, config::Config& cfg);

/// The config-file text that redis-server builds from command-line options, e.g.
/// {"--port", "7000", "--save", "900 1"} -> "port \"7000\" \nsave \"900 1\" ".
std::string command_line_options(std::span<const std::string_view> args);

/// `listd --help` text; `program` is argv[0].
std::string usage_text(std::string_view program);
/// `listd --version` text (one line, newline-terminated).
std::string version_text();

}  // namespace listd::app
