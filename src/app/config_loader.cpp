#include "listd/app/config_loader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/config/config_file.h"
#include "listd/server/version.h"

namespace listd::app {
namespace {

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

}  // namespace

std::string command_line_options(std::span<const std::string_view> args) {
  // Mirrors redis-server's main(): a "--name" starts a new line, every other argument is
  // appended quoted; "--save" with no value becomes `save ""`.
  std::string options;
  bool handled_last_config_arg = true;
  for (std::size_t j = 0; j < args.size(); ++j) {
    const std::string_view arg = args[j];
    if (handled_last_config_arg && arg.size() >= 2 && arg[0] == '-' && arg[1] == '-') {
      if (!options.empty()) options += '\n';
      options += arg.substr(2);
      options += ' ';
      const std::optional<std::vector<std::string>> words = base::split_args(arg);
      if (words && words->size() == 1) {
        // Only a name, like "--port": its value follows.
        handled_last_config_arg = false;
        const bool is_save = base::iequals(arg, "--save");
        const bool last = j + 1 == args.size();
        if (is_save && !last && args[j + 1].size() >= 2 && args[j + 1][0] == '-' &&
            args[j + 1][1] == '-') {
          // `--save --port 1`: an empty save, as before Redis 7.0.1.
          options += "\"\"";
          handled_last_config_arg = true;
        } else if (is_save && last) {
          options += "\"\"";
        }
      } else {
        // Name and value in one argument, like "--port 6380".
        handled_last_config_arg = true;
      }
    } else {
      base::append_repr(options, arg);
      options += ' ';
      handled_last_config_arg = true;
    }
  }
  return options;
}

ConfigLoadOutcome load_config(int argc, const char* const* argv, config::Config& cfg,
                              std::istream& stdin_stream) {
  ConfigLoadOutcome outcome;
  std::vector<std::string_view> option_args;
  bool config_from_stdin = false;
  if (argc >= 2) {
    const std::string_view first = argv[1];
    if (first == "-v" || first == "--version") {
      outcome.action = StartupAction::kPrintVersion;
      return outcome;
    }
    if (first == "--help" || first == "-h") {
      outcome.action = StartupAction::kPrintHelp;
      return outcome;
    }
    int j = 1;
    if (!first.empty() && first[0] != '-') {
      outcome.config_file = absolute_path(argv[1]);
      j = 2;
    }
    for (; j < argc; ++j) {
      const std::string_view arg = argv[j];
      // "-" reads stdin only as the first or the last argument, as in redis-server.
      if (arg == "-" && (j == 1 || j == argc - 1)) {
        config_from_stdin = true;
      } else {
        option_args.push_back(arg);
      }
    }
  }

  std::string text;
  if (!outcome.config_file.empty()) {
    if (std::optional<std::string> err = config::read_config_source(outcome.config_file, text)) {
      outcome.error = std::move(err);
      return outcome;
    }
  }
  if (config_from_stdin) {
    text.append(std::istreambuf_iterator<char>(stdin_stream), std::istreambuf_iterator<char>());
  }
  // Redis always appends "\n" + options, so option lines are numbered after the file's.
  text += '\n';
  text += command_line_options(option_args);

  outcome.error = config::load_config_text(text, cfg);
  cfg.set_config_file(outcome.config_file);
  return outcome;
}

ConfigLoadOutcome load_config(int argc, const char* const* argv, config::Config& cfg) {
  return load_config(argc, argv, cfg, std::cin);
}

std::string usage_text(std::string_view program) {
  return fmt::format(
      "Usage: {0} [/path/to/listd.conf] [options] [-]\n"
      "       {0} - (read config from stdin)\n"
      "       {0} -v or --version\n"
      "       {0} -h or --help\n"
      "\n"
      "Examples:\n"
      "       {0} (run the server with default conf)\n"
      "       echo 'maxmemory 128mb' | {0} -\n"
      "       {0} /etc/listd/6379.conf\n"
      "       {0} --port 7777\n"
      "       {0} --save \"900 1 300 10\" --bind \"127.0.0.1 ::1\"\n"
      "       {0} /etc/mylistd.conf --loglevel verbose -\n",
      program);
}

std::string version_text() { return "listd server v=" + std::string(server::kListdVersion) + "\n"; }

}  // namespace listd::app
