// redis.call's server side, in Redis scriptCall's order of checks (SCRIPTING.md §1.4).
#include "listd/server/script_runner.h"

#include "listd/base/scope_exit.h"
#include "listd/server/acl.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

// Redis lookupCommand: a container's subcommand by argv[1]; an unknown one is no command.
const CommandSpec* lookup(const CommandTable& table, std::span<const std::string_view> argv) {
  const CommandSpec* spec = table.find(argv[0]);
  if (spec && !spec->subcommands.empty() && argv.size() >= 2) spec = spec->find_subcommand(argv[1]);
  return spec;
}

}  // namespace

// Redis luaRedisAclCheckCmdPermissionsCommand: the command, subcommand and keys as the script's
// user, nothing logged in ACL LOG (ACLCheckAllUserCommandPerm).
std::optional<bool> ScriptRunner::acl_check(std::span<const std::string_view> argv) {
  const CommandSpec* spec = lookup(exec_.commands(), argv);
  if (!spec) return std::nullopt;
  if (!client_.user || client_.user->unrestricted()) return true;
  std::size_t at = 0;
  return client_.user->check(*spec, argv, at) == AclDenial::kNone;
}

std::string ScriptRunner::call(std::span<const std::string_view> argv, protocol::RespVersion resp,
                               std::string& reply) {
  const CommandSpec* spec = lookup(exec_.commands(), argv);
  if (!spec) return "Unknown Redis command called from script";
  if (!spec->arity_allows(argv.size()))
    return "Wrong number of args calling Redis command from script";
  if (spec->flags & kNoScript) return "This Redis command is not allowed from script";
  if (!(spec->flags & kStale) && exec_.replica_side().stale_refused())
    return "Can not execute the command on a stale replica";  // Redis scriptVerifyAllowStale
  if (client_.user && !client_.user->unrestricted()) {        // Redis scriptVerifyACL
    std::size_t at = 0;
    if (const AclDenial denial = client_.user->check(*spec, argv, at); denial != AclDenial::kNone) {
      exec_.acl_log(client_, acl_log_reason(denial),
                    denial == AclDenial::kCommand ? spec->full_name : std::string(argv[at]));
      return "The user executing the script " + std::string(acl_denial_reason(denial));
    }
  }
  const bool writes = (spec->flags & kWrite) != 0;
  if (read_only_ && (writes || (spec->flags & kMayReplicate)))
    return "Write commands are not allowed from read-only scripts.";
  // A read-only replica refuses a script's first write (Redis scriptVerifyWriteCommandAllow).
  if (writes && !write_dirty_ && exec_.replica_side().active() &&
      exec_.config().settings().replica_read_only)
    return "-" + std::string(kReadOnlyReplicaErr);
  // Before the first write a persistence error refuses writes; after it the script must be
  // allowed to finish ("we can't fail it on unpredictable error state").
  if (writes && !write_dirty_ && exec_.persistence().refusing_writes())
    return "-" + std::string(kMisconfRdbErr);
  if (writes && !write_dirty_ && !exec_.replication().enough_good_replicas())
    return "-" + std::string(kNoReplicasErr);
  // Redis scriptVerifyOOM: past maxmemory at the script's start, a denyoom command is refused
  // only until the first write (the script cannot be stopped half-way).
  if (!allow_oom_ && !write_dirty_ && exec_.pre_command_oom() && (spec->flags & kDenyOom))
    return "-" + std::string(kOomErr);
  if (writes) write_dirty_ = true;  // set before the command runs, even if it then fails

  client_.resp = resp;
  client_.out.clear();
  const bool to_aof = (repl_flags_ & script::kReplAof) != 0;
  exec_.effects().mute(!to_aof);
  base::ScopeExit unmute([&] { exec_.effects().mute(false); });
  exec_.dispatch(client_, *spec, argv, /*in_exec=*/true);
  // MONITOR shows what the script ran as "[<db> lua]" lines, fed after the command as Redis'
  // call() does (a SELECT shows its new db); admin commands never.
  if (exec_.clients().has_monitors() && !(spec->flags & (kSkipMonitor | kAdmin)))
    exec_.feed_monitors(client_, argv);
  reply.swap(client_.out);
  client_.out.clear();
  return {};
}

void ScriptRunner::log(int level, std::string_view message) {
  const auto wanted = static_cast<int>(exec_.config().settings().loglevel);
  if (level < wanted) return;
  exec_.persistence().log().log(static_cast<config::LogLevel>(level), message);
}

bool ScriptRunner::wants_interrupts() const {
  return exec_.config().settings().busy_reply_threshold > 0;
}

bool ScriptRunner::interrupt() { return exec_.scripting().interrupt(); }

}  // namespace listd::server
