#include "listd/server/acl.h"

#include "listd/server/command_table.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

constexpr std::int64_t kLogGroupingMs = 60000;  // Redis ACL_LOG_GROUPING_MAX_TIME_DELTA
constexpr int kLogScan = 10;

bool same_event(const AclLogEntry& a, const AclLogEntry& b) {
  const std::int64_t delta = a.ctime_unix_ms - b.ctime_unix_ms;
  return a.reason == b.reason && a.context == b.context &&
         (delta < 0 ? -delta : delta) <= kLogGroupingMs && a.object == b.object &&
         a.username == b.username;
}

}  // namespace

Acl::Acl(const CommandTable& table) : catalog_(table) {
  auto user = std::make_unique<AclUser>(catalog_, "default", all_channels_default_);
  for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) user->apply(rule);
  default_user_ = user.get();
  users_.emplace("default", std::move(user));
}

AclUser* Acl::find(std::string_view name) {
  auto it = users_.find(std::string(name));
  return it == users_.end() ? nullptr : it->second.get();
}

std::string Acl::set_user(std::string_view name, std::span<const std::string_view> rules,
                          std::unique_ptr<AclUser>& previous) {
  AclUser* existing = find(name);
  AclUser staged =
      existing ? *existing : AclUser(catalog_, std::string(name), all_channels_default_);
  for (std::string_view rule : rules) {
    if (AclRuleError e = staged.apply(rule); e != AclRuleError::kNone)
      // The rule as Redis' %s prints it: up to a NUL byte.
      return "Error in ACL SETUSER modifier '" + std::string(until_nul(rule)) +
             "': " + std::string(acl_rule_error_text(e));
  }
  if (existing) {
    previous = std::make_unique<AclUser>(*existing);
    *existing = std::move(staged);
  } else {
    previous.reset();
    users_.emplace(std::string(name), std::make_unique<AclUser>(std::move(staged)));
  }
  return {};
}

bool Acl::remove(std::string_view name) {
  if (name == "default") return false;
  return users_.erase(std::string(name)) > 0;
}

std::vector<std::unique_ptr<AclUser>> Acl::replace_users(
    std::map<std::string, std::unique_ptr<AclUser>> users) {
  std::vector<std::unique_ptr<AclUser>> old;
  for (auto& [name, user] : users_) {
    if (name == "default")
      (void)user.release();  // re-owned below: clients authenticated as `default` point at it
    else
      old.push_back(std::move(user));
  }
  *default_user_ = *users.at("default");
  users.at("default").reset(default_user_);
  users_ = std::move(users);
  return old;
}

AclUser* Acl::authenticate(std::string_view name, std::string_view password) {
  AclUser* user = find(name);
  if (!user || !user->enabled() || !user->password_matches(password)) return nullptr;
  return user;
}

void Acl::set_default_password(std::string_view requirepass) {
  default_user_->apply("resetpass");
  if (requirepass.empty())
    default_user_->apply("nopass");
  else
    default_user_->apply(">" + std::string(requirepass));
}

void Acl::log(AclLogEntry entry, std::size_t max_len) {
  int scanned = 0;
  for (auto it = log_.begin(); it != log_.end() && scanned < kLogScan; ++it, ++scanned) {
    if (!same_event(*it, entry)) continue;
    AclLogEntry match = std::move(*it);
    log_.erase(it);
    match.client_info = std::move(entry.client_info);
    match.ctime_unix_ms = entry.ctime_unix_ms;
    ++match.count;
    log_.push_front(std::move(match));
    return;
  }
  log_.push_front(std::move(entry));
  while (log_.size() > max_len) log_.pop_back();
}

std::string acl_denial_error(AclDenial denial, const CommandSpec& spec) {
  switch (denial) {
    case AclDenial::kCommand:
      return "NOPERM this user has no permissions to run the '" + spec.full_name + "' command";
    case AclDenial::kKey:
      return "NOPERM this user has no permissions to access one of the keys used as arguments";
    case AclDenial::kChannel:
      return "NOPERM this user has no permissions to access one of the channels used as "
             "arguments";
    case AclDenial::kNone: break;
  }
  return "no permission";
}

std::string_view acl_denial_reason(AclDenial denial) noexcept {
  switch (denial) {
    case AclDenial::kCommand: return "can't run this command or subcommand";
    case AclDenial::kKey:
      return "can't access at least one of the keys mentioned in the command arguments";
    case AclDenial::kChannel: return "can't publish to the channel mentioned in the command";
    case AclDenial::kNone: break;
  }
  return "lacking the permissions for the command";
}

AclLogReason acl_log_reason(AclDenial denial) noexcept {
  switch (denial) {
    case AclDenial::kKey: return AclLogReason::kKey;
    case AclDenial::kChannel: return AclLogReason::kChannel;
    default: return AclLogReason::kCommand;
  }
}

std::string acl_exec_denial_error(AclDenial denial) {
  std::string_view reason = "no permission";
  if (denial == AclDenial::kCommand) reason = "no permission to execute the command or subcommand";
  if (denial == AclDenial::kKey) reason = "no permission to touch the specified keys";
  if (denial == AclDenial::kChannel)
    reason = "no permission to access one of the channels used as arguments";
  return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
         "EXEC call. This command is no longer allowed for the following reason: " +
         std::string(reason);
}

}  // namespace listd::server
