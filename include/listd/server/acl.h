// The ACL users of a server and its security log (Redis 7.0 acl.c): the users by name (in
// byte order, as Redis' rax lists them), the `default` user that every new connection starts
// as (requirepass is its password), authentication, the permission check the executor runs
// before a command, and ACL LOG's entries.
// Invariants: `default` always exists; a user is changed all or nothing (set_user validates
// every rule on a copy first); AclUser pointers stay valid until remove() (clients hold them).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/acl_user.h"

namespace listd::server {

struct Client;

/// Why an entry is in ACL LOG (its "reason" field).
enum class AclLogReason : std::uint8_t { kCommand, kKey, kChannel, kAuth };
/// Where the refused command ran (its "context" field).
enum class AclLogContext : std::uint8_t { kToplevel, kMulti, kLua };

struct AclLogEntry {
  long long count = 1;
  AclLogReason reason = AclLogReason::kCommand;
  AclLogContext context = AclLogContext::kToplevel;
  std::string object;  ///< the command's full name, the key, the channel, or "AUTH"
  std::string username;
  std::int64_t ctime_unix_ms = 0;
  std::string client_info;  ///< the client's CLIENT LIST line at the time
};

class Acl {
 public:
  explicit Acl(const CommandTable& table);

  AclUser* find(std::string_view name);
  AclUser& default_user() noexcept { return *default_user_; }
  const std::map<std::string, std::unique_ptr<AclUser>>& users() const noexcept { return users_; }
  const AclCatalog& catalog() const noexcept { return catalog_; }

  /// ACL SETUSER: applies `rules` to `name` (created if missing) all or nothing. Returns Redis'
  /// error text (after "ERR "), or "" with `previous` holding the user as it was (null if new).
  std::string set_user(std::string_view name, std::span<const std::string_view> rules,
                       std::unique_ptr<AclUser>& previous);
  /// Forgets `name` (never `default`); the caller has moved its clients off it first.
  bool remove(std::string_view name);
  /// The enabled user `name` whose password is `password`, or null (Redis
  /// ACLCheckUserCredentials).
  AclUser* authenticate(std::string_view name, std::string_view password);
  /// ACL LOAD: `users` (holding a `default`) become the user set. The `default` object stays
  /// (its clients keep it) with the new rules; the other old users are returned so the caller
  /// can drop their clients before they go.
  std::vector<std::unique_ptr<AclUser>> replace_users(
      std::map<std::string, std::unique_ptr<AclUser>> users);
  /// requirepass: `default` gets it as its only password, or nopass when empty.
  void set_default_password(std::string_view requirepass);
  /// acl-pubsub-default: whether new users (and `reset`) start with allchannels.
  void set_pubsub_default(bool all_channels) noexcept { all_channels_default_ = all_channels; }
  bool pubsub_default() const noexcept { return all_channels_default_; }

  /// Files a denial, merged into a like entry of the last 10 within 60 s (Redis
  /// addACLLogEntry); trims to `max_len`.
  void log(AclLogEntry entry, std::size_t max_len);
  std::deque<AclLogEntry>& log_entries() noexcept { return log_; }

 private:
  AclCatalog catalog_;
  bool all_channels_default_ = false;  // Redis 7.0: acl-pubsub-default resetchannels
  std::map<std::string, std::unique_ptr<AclUser>> users_;
  AclUser* default_user_ = nullptr;
  std::deque<AclLogEntry> log_;  // newest first
};

/// The NOPERM reply for a denial (Redis processCommand's texts).
std::string acl_denial_error(AclDenial denial, const CommandSpec& spec);
/// The short reason scripts report ("can't run this command or subcommand", Redis
/// getAclErrorMessage).
std::string_view acl_denial_reason(AclDenial denial) noexcept;
AclLogReason acl_log_reason(AclDenial denial) noexcept;
/// EXEC's error for a queued command the user's changed rules now refuse (Redis execCommand).
std::string acl_exec_denial_error(AclDenial denial);

}  // namespace listd::server
