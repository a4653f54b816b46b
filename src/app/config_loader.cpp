#include "listd/app/config_loader.h"

#include <fmt/format.h>
#include <glob.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <vector>

#include "listd/server/version.h"

namespace listd::app {
namespace {

// Redis has no limit and recurses until the stack runs out on an include cycle.
constexpr int kMaxIncludeDepth = 16;

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) { return to_lower(a) == to_lower(b); }

std::string trim(std::string_view s) {
  constexpr std::string_view kBlank = " \t\r\n";
  const std::size_t b = s.find_first_not_of(kBlank);
  if (b == std::string_view::npos) return {};
  const std::size_t e = s.find_last_not_of(kBlank);
  return std::string(s.substr(b, e - b + 1));
}

std::string fatal(std::string_view reason) {
  return fmt::format("\n*** FATAL CONFIG FILE ERROR (listd) ***\n{}\n", reason);
}

std::string fatal_at(int linenum, std::string_view line, std::string_view reason) {
  return fmt::format(
      "\n*** FATAL CONFIG FILE ERROR (listd) ***\n"
      "Reading the configuration file, at line {}\n"
      ">>> '{}'\n"
      "{}\n",
      linenum, line, reason);
}

std::string cannot_open(std::string_view path, int err) {
  return fmt::format("Fatal error, can't open config file '{}': {}", path, std::strerror(err));
}

bool read_whole_file(const std::string& path, std::string& out, int& err) {
  std::FILE* fp = std::fopen(path.c_str(), "r");
  if (fp == nullptr) {
    err = errno;
    return false;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), fp)) > 0) out.append(buf, n);
  const bool failed = std::ferror(fp) != 0;
  err = errno;
  std::fclose(fp);
  return !failed;
}

// Redis loadServerConfig: a name with * ? or [ is a glob (no match is fine), anything else must
// open.
std::optional<std::string> read_config_source(const std::string& path, std::string& text) {
  if (path.find_first_of("*?[") == std::string::npos) {
    int err = 0;
    if (!read_whole_file(path, text, err)) return cannot_open(path, err);
    return std::nullopt;
  }
  glob_t matches{};
  if (::glob(path.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
      int err = 0;
      if (!read_whole_file(matches.gl_pathv[i], text, err)) {
        std::string message = cannot_open(matches.gl_pathv[i], err);
        ::globfree(&matches);
        return message;
      }
    }
  }
  ::globfree(&matches);
  return std::nullopt;
}

std::optional<std::string> load_text(std::string_view text, server::Config& cfg, int depth);

std::optional<std::string> load_file(const std::string& path, server::Config& cfg, int depth) {
  std::string text;
  if (std::optional<std::string> err = read_config_source(path, text)) return err;
  return load_text(text, cfg, depth);
}

std::optional<std::string> load_text(std::string_view text, server::Config& cfg, int depth) {
  // Lines as Redis' sdssplitlen(config, "\n"), numbered from 1.
  int linenum = 0;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string line = trim(text.substr(start, nl - start));
    start = nl + 1;
    ++linenum;
    if (line.empty() || line[0] == '#') continue;

    std::optional<std::vector<std::string>> argv = server::split_config_args(line);
    if (!argv) return fatal_at(linenum, line, "Unbalanced quotes in configuration line");
    if (argv->empty()) continue;

    std::optional<std::string> err;
    if (server::Config::find_option((*argv)[0]) == nullptr && iequals((*argv)[0], "include") &&
        argv->size() == 2) {
      if (depth >= kMaxIncludeDepth) {
        err = "Too many nested include directives";
      } else if (std::optional<std::string> nested = load_file((*argv)[1], cfg, depth + 1)) {
        // The included file reports its own line (or that it cannot be opened).
        return nested;
      }
    } else {
      err = cfg.apply_directive(*argv);
    }
    if (err) return fatal_at(linenum, line, *err);
  }

  // Like Redis, make sure the log file can be opened before the server starts.
  const std::string& logfile = cfg.settings().logfile;
  if (!logfile.empty()) {
    std::FILE* fp = std::fopen(logfile.c_str(), "a");
    if (fp == nullptr)
      return fatal(fmt::format("Can't open the log file: {}", std::strerror(errno)));
    std::fclose(fp);
  }
  return std::nullopt;
}

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
      const std::optional<std::vector<std::string>> words = server::split_config_args(arg);
      if (words && words->size() == 1) {
        // Only a name, like "--port": its value follows.
        handled_last_config_arg = false;
        const bool is_save = iequals(arg, "--save");
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
      options += server::quote_config_arg(arg);
      options += ' ';
      handled_last_config_arg = true;
    }
  }
  return options;
}

std::optional<std::string> load_config_text(std::string_view text, server::Config& cfg) {
  return load_text(text, cfg, 0);
}

std::optional<std::string> load_config_file(const std::string& path, server::Config& cfg) {
  return load_file(path, cfg, 0);
}

ConfigLoadOutcome load_config(int argc, const char* const* argv, server::Config& cfg,
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
    if (std::optional<std::string> err = read_config_source(outcome.config_file, text)) {
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

  outcome.error = load_text(text, cfg, 0);
  cfg.set_config_file(outcome.config_file);
  return outcome;
}

ConfigLoadOutcome load_config(int argc, const char* const* argv, server::Config& cfg) {
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

std::string version_text() {
  return "listd server v=" + std::string(server::kListdVersion) + "\n";
}

}  // namespace listd::app
