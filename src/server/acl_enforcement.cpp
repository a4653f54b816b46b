// The executor's side of ACLs: the check before a command runs (Redis processCommand's
// ACLCheckAllPerm), ACL LOG entries, and what happens to clients when their user changes or is
// deleted (Redis ACLKillPubsubClientsIfNeeded, ACLFreeUserAndKillClients).
#include "listd/server/acl.h"
#include "listd/server/client_info.h"
#include "listd/server/executor.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

// A subscription of `c` that `user` no longer allows.
bool has_revoked_subscription(const Client& c, const AclUser& user) {
  for (const auto& p : c.pubsub.patterns.names())
    if (!user.allows_channel(p, true)) return true;
  for (const auto& ch : c.pubsub.channels.names())
    if (!user.allows_channel(ch, false)) return true;
  for (const auto& ch : c.pubsub.shard_channels.names())
    if (!user.allows_channel(ch, false)) return true;
  return false;
}

}  // namespace

AclDenial Executor::acl_refusal(const Client& c, const CommandSpec& spec,
                                std::span<const std::string_view> argv) const {
  std::size_t at = 0;
  const AclDenial denial = c.user->check(spec, argv, at);
  if (denial != AclDenial::kNone)
    acl_log(c, acl_log_reason(denial),
            denial == AclDenial::kCommand ? spec.full_name : std::string(argv[at]));
  return denial;
}

void Executor::acl_log(const Client& c, AclLogReason reason, std::string object,
                       std::string username) const {
  AclLogEntry entry;
  entry.reason = reason;
  entry.context = scripting_->running()
                      ? AclLogContext::kLua
                      : (c.in_multi ? AclLogContext::kMulti : AclLogContext::kToplevel);
  entry.object = std::move(object);
  entry.username = !username.empty() ? std::move(username) : c.user ? c.user->name() : "default";
  entry.ctime_unix_ms = clock().unix_ms();
  // A script's denial names the client that ran the script (Redis server.script_caller).
  const Client& shown = (scripting_->running() && running_client_) ? *running_client_ : c;
  entry.client_info = client_info_string(shown, clock().monotonic_ms());
  acl_->log(std::move(entry), static_cast<std::size_t>(config_.settings().acllog_max_len));
}

void Executor::acl_user_changed(const AclUser& user) {
  if (user.selectors().front().all_channels()) return;
  std::vector<Client*> victims;
  clients_.for_each([&](Client& c) {
    if (c.user == &user && c.pubsub.subscribed() && has_revoked_subscription(c, user))
      victims.push_back(&c);
  });
  for (Client* c : victims) clients_.request_kill(*c);
}

void Executor::acl_user_deleted(const AclUser& user) {
  std::vector<Client*> victims;
  clients_.for_each([&](Client& c) {
    if (c.user != &user) return;
    c.user = &acl_->default_user();
    c.authenticated = false;
    victims.push_back(&c);
  });
  for (Client* c : victims) clients_.request_kill(*c);
}

}  // namespace listd::server
