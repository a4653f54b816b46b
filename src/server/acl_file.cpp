#include "listd/server/acl_file.h"
#include "listd/server/text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "listd/base/redis_text.h"

namespace listd::server {
namespace {

std::string_view trim(std::string_view s, std::string_view chars) {
  const std::size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(chars) - b + 1);
}

// Redis sdssplitlen on single spaces: empty words between double spaces are kept.
std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t sp = line.find(' ', start);
    out.push_back(line.substr(start, sp == std::string_view::npos ? sp : sp - start));
    if (sp == std::string_view::npos) return out;
    start = sp + 1;
  }
}

// One aclfile line into `users`; the errors it finds are appended to `errors`.
void parse_line(const Acl& acl, std::string_view line, std::string_view filename, int linenum,
                AclUserSet& users, std::string& errors) {
  const std::vector<std::string_view> argv = split_spaces(line);
  const std::string where = std::string(filename) + ":" + std::to_string(linenum);
  if (argv[0] != "user" || argv.size() < 2) {
    errors += where + " should start with user keyword followed by the username. ";
    return;
  }
  if (has_space_or_nul(argv[1])) {
    errors +=
        "'" + where + ": username '" + std::string(argv[1]) + "' contains invalid characters. ";
    return;
  }
  const std::string name(argv[1]);
  if (users.contains(name)) {
    errors +=
        "WARNING: Duplicate user '" + name + "' found on line " + std::to_string(linenum) + ". ";
    return;
  }
  auto user = std::make_unique<AclUser>(acl.catalog(), name, acl.pubsub_default());
  std::string merge_error;
  const std::vector<std::string> rules =
      merge_selector_arguments(std::span(argv).subspan(2), merge_error);
  if (!merge_error.empty()) errors += where + ": Unmatched parenthesis in selector definition.";
  bool syntax_error = false;
  for (const std::string& rule : rules) {
    const std::string_view op = trim(rule, "\t\r\n");
    const AclRuleError e = user->apply(op);
    if (e == AclRuleError::kUnknownCommand) {
      errors += where + ": Error in applying operation '" + std::string(op) +
                "': " + std::string(acl_rule_error_text(e)) + ". ";
    } else if (e != AclRuleError::kNone && !syntax_error) {
      errors += where + ": " + std::string(acl_rule_error_text(e)) + ". ";
      syntax_error = true;
    }
  }
  users.emplace(name, std::move(user));
}

}  // namespace

std::vector<std::string> merge_selector_arguments(std::span<const std::string_view> args,
                                                  std::string& error) {
  std::vector<std::string> out;
  std::string selector;
  std::size_t open_at = 0;
  bool open = false;
  for (std::size_t j = 0; j < args.size(); ++j) {
    const std::string_view op = args[j];
    if (!op.empty() && op.front() == '(' && op.back() != ')') {
      selector = std::string(op);
      open_at = j;
      open = true;
      continue;
    }
    if (open) {
      selector += ' ';
      selector += op;
      if (!op.empty() && op.back() == ')') {
        open = false;
        out.push_back(std::move(selector));
      }
      continue;
    }
    out.emplace_back(op);
  }
  if (open) {
    error =
        "Unmatched parenthesis in acl selector starting at '" + std::string(args[open_at]) + "'.";
    out.clear();
  }
  return out;
}

std::string parse_acl_file(const Acl& acl, std::string_view text, std::string_view filename,
                           AclUserSet& users) {
  std::string errors;
  int linenum = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string_view raw =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++linenum;
    const std::string_view line = trim(raw, " \t\r\n");
    if (!line.empty()) parse_line(acl, line, filename, linenum, users, errors);
  }
  if (!errors.empty()) {
    users.clear();
    return errors +
           "WARNING: ACL errors detected, no change to the previously active ACL rules was "
           "performed";
  }
  if (!users.contains("default")) {
    auto def = std::make_unique<AclUser>(acl.catalog(), "default", acl.pubsub_default());
    for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) def->apply(rule);
    users.emplace("default", std::move(def));
  }
  return {};
}

std::string acl_file_text(const Acl& acl) {
  std::string out;
  for (const auto& [name, user] : acl.users())
    out += "user " + name + " " + user->describe() + "\n";
  return out;
}

bool read_acl_file(const std::string& path, std::string& text, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "Error loading ACLs, opening file '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  text = buf.str();
  return true;
}

bool write_acl_file(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string load_configured_users(Acl& acl, const std::vector<std::vector<std::string>>& lines) {
  for (const auto& line : lines) {
    const std::string& name = line[0];
    if (has_space_or_nul(name)) return "Spaces not allowed in ACL usernames";
    std::vector<std::string_view> words(line.begin() + 1, line.end());
    std::string error;
    std::vector<std::string> rules = merge_selector_arguments(words, error);
    if (!error.empty()) return error;
    if (name == "default") rules.insert(rules.begin(), "reset");
    std::vector<std::string_view> views(rules.begin(), rules.end());
    std::unique_ptr<AclUser> previous;
    error = acl.set_user(name, views, previous);
    if (!error.empty()) return error;
  }
  return {};
}

bool load_users_at_startup(Acl& acl, const config::ServerSettings& settings, std::string& error) {
  if (!settings.aclfile.empty() && !settings.acl_user_lines.empty()) {
    error =
        "Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
        "path is invalid. This setup is very likely to lead to configuration errors and security "
        "holes, please define either an ACL file or declare users directly in your redis.conf, "
        "but not both.";
    return false;
  }
  if (std::string e = load_configured_users(acl, settings.acl_user_lines); !e.empty()) {
    error = e + ". Critical error while loading ACLs. Exiting.";
    return false;
  }
  if (settings.aclfile.empty()) return true;
  std::string text;
  AclUserSet users;
  if (!read_acl_file(settings.aclfile, text, error) ||
      !(error = parse_acl_file(acl, text, settings.aclfile, users)).empty()) {
    error = "Aborting Redis startup because of ACL errors: " + error;
    return false;
  }
  acl.replace_users(std::move(users));
  return true;
}

}  // namespace listd::server
