// Replication commands: REPLCONF, PSYNC, SYNC (master side), REPLICAOF / SLAVEOF (replica
// side), ROLE. The protocol state is ReplicationMaster's (src/server/replication_master.cpp)
// and ReplicationReplica's (src/server/replication_replica.cpp); these parse arguments in
// Redis' order and word the replies as replication.c does.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

constexpr std::string_view kNotInTransactionErr = "ERR Command not allowed inside a transaction";

// REPLCONF rdb-filter-only <filters>: an sdssplitargs list of what the RDB keeps (7.0 knows
// `functions` only). The filter is set to "nothing" before the words are checked, so it stays
// set after an unsupported word, as Redis leaves it.
bool apply_rdb_filter(CommandContext& ctx, std::string_view value) {
  const auto words = base::split_args(value);
  if (!words) {
    ctx.reply().error("ERR Missing rdb-filter-only values");
    return false;
  }
  persistence::RdbFilter filter{.exclude_data = true, .exclude_functions = true};
  ReplicationMaster& repl = ctx.exec().replication();
  repl.set_rdb_filter(ctx.client(), filter);
  for (const std::string& word : *words) {
    if (!base::iequals(word, "functions")) {
      ctx.reply().error(
          fmt::format("ERR Unsupported rdb-filter-only option: {}", std::string(until_nul(word))));
      return false;
    }
    filter.exclude_functions = false;
  }
  repl.set_rdb_filter(ctx.client(), filter);
  return true;
}

// REPLCONF <option> <value> [<option> <value> ...]
void cmd_replconf(CommandContext& ctx) {
  if (ctx.argc() % 2 == 0) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  ReplicationMaster& repl = ctx.exec().replication();
  Client& c = ctx.client();
  for (std::size_t j = 1; j < ctx.argc(); j += 2) {
    const std::string_view opt = ctx.arg(j), val = ctx.arg(j + 1);
    long long n = 0;
    if (base::iequals(opt, "listening-port")) {
      if (!base::parse_strict_integer(val, n)) {
        ctx.reply().error(kNotIntegerErr);
        return;
      }
      repl.set_listening_port(c, static_cast<int>(n));
    } else if (base::iequals(opt, "ip-address")) {
      if (val.size() >= 46) {  // Redis NET_HOST_STR_LEN
        ctx.reply().error(fmt::format(
            "ERR REPLCONF ip-address provided by replica instance is too long: {} bytes",
            val.size()));
        return;
      }
      repl.set_announced_ip(c, val);
    } else if (base::iequals(opt, "capa")) {
      repl.add_capa(c, val);
    } else if (base::iequals(opt, "rdb-only")) {
      if (!base::parse_strict_integer(val, n)) {
        ctx.reply().error(kNotIntegerErr);
        return;
      }
      if (n < 0 || n > 1) {
        ctx.reply().error("ERR value is out of range, value must between 0 and 1");
        return;
      }
      repl.set_rdb_only(c, n == 1);
    } else if (base::iequals(opt, "rdb-filter-only")) {
      if (!apply_rdb_filter(ctx, val)) return;
    } else if (base::iequals(opt, "ack")) {
      // From a replica: its processed offset. Never a reply, not even to a bad offset.
      if (base::parse_strict_integer(val, n)) repl.ack(c, n);
      return;
    } else if (base::iequals(opt, "getack")) {
      return;  // a master is asked by nobody; a replica would answer with an ACK
    } else {
      ctx.reply().error(
          fmt::format("ERR Unrecognized REPLCONF option: {}", std::string(until_nul(opt))));
      return;
    }
  }
  ctx.reply().ok();
}

// PSYNC <our replid> <offset> FAILOVER from our master handing its role over (Redis
// syncCommand): we become a master first, so the PSYNC below continues from our old id.
bool accept_failover_request(CommandContext& ctx) {
  ReplicationReplica& replica = ctx.exec().replica_side();
  replica.log_notice(fmt::format("Failover request received for replid {}.", ctx.arg(1)));
  if (!replica.active()) {
    ctx.reply().error("ERR PSYNC FAILOVER can't be sent to a master.");
    return false;
  }
  if (!base::iequals(ctx.arg(1), ctx.exec().replication().replid())) {
    ctx.reply().error("ERR PSYNC FAILOVER replid must match my replid.");
    return false;
  }
  replica.unset_master();
  replica.log_notice("MASTER MODE enabled (failover request from '" + ctx.client().addr + "')");
  return true;
}

// PSYNC replicationid offset [FAILOVER] / SYNC
void sync_generic(CommandContext& ctx, bool legacy) {
  if (ctx.exec().replication().is_replica(ctx.client())) return;  // ignored, as Redis
  if (ctx.in_exec()) {
    ctx.reply().error(kNotInTransactionErr);
    return;
  }
  if (!legacy && ctx.argc() > 3 && base::iequals(ctx.arg(3), "failover") &&
      !accept_failover_request(ctx))
    return;
  if (ctx.exec().failover().active()) {  // no replica syncs while we hand our role over
    ctx.reply().error("NOMASTERLINK Can't SYNC while failing over");
    return;
  }
  // A replica serves its own replicas only while it follows its master.
  if (ctx.exec().replica_side().active() && !ctx.exec().replica_side().link_up()) {
    ctx.reply().error(kNoMasterLinkErr);
    return;
  }
  // A filtered RDB is sent diskless only (Redis syncCommand): refused, still a normal client.
  if (const std::string_view why = ctx.exec().replication().filtered_sync_refusal(ctx.client());
      !why.empty()) {
    ctx.reply().error(why);
    return;
  }
  long long offset = -1;
  if (!legacy && !base::parse_strict_integer(ctx.arg(2), offset)) {
    ctx.reply().error(kNotIntegerErr);
    return;
  }
  ctx.exec().replication().sync(ctx.client(), legacy ? "?" : ctx.arg(1), offset, legacy);
}

void cmd_psync(CommandContext& ctx) { sync_generic(ctx, false); }
void cmd_sync(CommandContext& ctx) { sync_generic(ctx, true); }

// REPLICAOF host port / REPLICAOF NO ONE (and SLAVEOF, the same command)
void cmd_replicaof(CommandContext& ctx) {
  ReplicationReplica& replica = ctx.exec().replica_side();
  if (ctx.exec().failover().active()) {
    ctx.reply().error("ERR REPLICAOF not allowed while failing over.");
    return;
  }
  if (base::iequals(ctx.arg(1), "no") && base::iequals(ctx.arg(2), "one")) {
    if (replica.active()) {
      replica.unset_master();
      replica.log_notice("MASTER MODE enabled (user request from '" + ctx.client().addr + "')");
    }
    ctx.reply().ok();
    return;
  }
  if (ctx.client().replica) {
    ctx.reply().error("ERR Command is not valid when client is a replica.");
    return;
  }
  long long port = 0;
  if (!base::parse_strict_integer(ctx.arg(2), port) || port < 0 || port > 65535) {
    ctx.reply().error("ERR Invalid master port");
    return;
  }
  if (!replica.set_master(std::string(ctx.arg(1)), static_cast<int>(port))) {
    ctx.reply().simple("OK Already connected to specified master");
    return;
  }
  replica.log_notice(fmt::format("REPLICAOF {}:{} enabled (user request from '{}')", ctx.arg(1),
                                 port, ctx.client().addr));
  ctx.reply().ok();
}

// WAIT numreplicas timeout
void cmd_wait(CommandContext& ctx) {
  if (ctx.exec().replica_side().active()) {
    ctx.reply().error(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
        "if a replica is configured to be writable (which is not the default) writes to "
        "replicas are just local and are not propagated.");
    return;
  }
  long long needed = 0, timeout_ms = 0;
  if (!ctx.parse_integer(1, needed)) return;
  if (!base::parse_strict_integer(ctx.arg(2), timeout_ms)) {
    ctx.reply().error("ERR timeout is not an integer or out of range");
    return;
  }
  if (timeout_ms < 0) {
    ctx.reply().error(kTimeoutNegativeErr);
    return;
  }
  ReplicationMaster& repl = ctx.exec().replication();
  const long long offset = repl.write_offset(ctx.client());
  const long long acked = repl.count_acks(offset);
  // Inside MULTI (or a script) WAIT never blocks: the count now.
  if (acked >= needed || ctx.in_exec()) {
    ctx.reply().integer(acked);
    return;
  }
  repl.wait(ctx.client(), offset, needed, timeout_ms);
}

// ROLE
void cmd_role(CommandContext& ctx) {
  if (ctx.exec().replica_side().active()) {
    protocol::ReplyWriter reply = ctx.reply();
    ctx.exec().replica_side().role(reply);
    return;
  }
  const ReplicationMaster& repl = ctx.exec().replication();
  std::vector<ReplicationMaster::ReplicaRow> online;
  for (auto& row : repl.replica_rows())
    if (row.state == ReplicationMaster::State::kOnline) online.push_back(std::move(row));
  protocol::ReplyWriter reply = ctx.reply();
  reply.array_header(3);
  reply.bulk("master");
  reply.integer(repl.master_repl_offset());
  reply.array_header(online.size());
  for (const auto& row : online) {
    reply.array_header(3);
    reply.bulk(row.ip);
    reply.bulk(std::to_string(row.port));
    reply.bulk(std::to_string(row.ack_offset));
  }
}

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds] (Redis failoverCommand)
void cmd_failover(CommandContext& ctx) {
  Failover& failover = ctx.exec().failover();
  if (ctx.argc() == 2 && base::iequals(ctx.arg(1), "abort")) {
    if (!failover.active()) {
      ctx.reply().error("ERR No failover in progress.");
      return;
    }
    failover.abort("Failover manually aborted");
    ctx.reply().ok();
    return;
  }
  long long timeout_ms = 0, port = 0;
  bool force = false, have_host = false;
  std::string host;
  for (std::size_t j = 1; j < ctx.argc(); ++j) {
    const std::string_view a = ctx.arg(j);
    if (base::iequals(a, "timeout") && j + 1 < ctx.argc() && timeout_ms == 0) {
      if (!ctx.parse_integer(j + 1, timeout_ms)) return;
      if (timeout_ms <= 0) {
        ctx.reply().error("ERR FAILOVER timeout must be greater than 0");
        return;
      }
      ++j;
    } else if (base::iequals(a, "to") && j + 2 < ctx.argc() && !have_host) {
      if (!ctx.parse_integer(j + 2, port)) return;
      host = std::string(ctx.arg(j + 1));
      have_host = true;
      j += 2;
    } else if (base::iequals(a, "force") && !force) {
      force = true;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  const ReplicationMaster& repl = ctx.exec().replication();
  const std::vector<ReplicationMaster::ReplicaRow> rows = repl.replica_rows();
  const char* refusal =
      failover.active()                    ? "ERR FAILOVER already in progress."
      : ctx.exec().replica_side().active() ? "ERR FAILOVER is not valid when server is a replica."
      : rows.empty()                       ? "ERR FAILOVER requires connected replicas."
      : force && (timeout_ms == 0 || !have_host)
          ? "ERR FAILOVER with force option requires both a timeout and target HOST and IP."
          : nullptr;
  if (!refusal && have_host) {
    const auto target = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
      return base::iequals(row.ip, host) && row.port == port;
    });
    if (target == rows.end())
      refusal = "ERR FAILOVER target HOST and PORT is not a replica.";
    else if (target->state != ReplicationMaster::State::kOnline)
      refusal = "ERR FAILOVER target replica is not online.";
  }
  if (refusal) {
    ctx.reply().error(refusal);
    return;
  }
  failover.start(have_host ? host : std::string(), static_cast<int>(port),
                 timeout_ms ? ctx.now_ms() + timeout_ms : 0, force);
  ctx.reply().ok();
}

}  // namespace

void register_replication_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  t.add("replconf", -1, kAdmin | kNoScript | kLoading | kStale | kAllowBusy, kNoKeys, &cmd_replconf,
        "3.0.0", "An internal command for configuring the replication stream");
  t.add("psync", -3, kAdmin | kNoMulti | kNoScript, kNoKeys, &cmd_psync, "2.8.0",
        "Internal command used for replication");
  t.add("sync", 1, kAdmin | kNoMulti | kNoScript, kNoKeys, &cmd_sync, "1.0.0",
        "Internal command used for replication");
  t.add("replicaof", 3, kAdmin | kNoScript | kStale, kNoKeys, &cmd_replicaof, "5.0.0",
        "Make the server a replica of another instance, or promote it as master.");
  t.add("slaveof", 3, kAdmin | kNoScript | kStale, kNoKeys, &cmd_replicaof, "1.0.0",
        "Make the server a replica of another instance, or promote it as master.");
  table.family("generic").add("wait", 3, kNoScript, kNoKeys, &cmd_wait, "3.0.0",
                              "Wait for the synchronous replication of all the write commands "
                              "sent in the context of the current connection");
  t.add("failover", -1, kAdmin | kNoScript | kStale, kNoKeys, &cmd_failover, "6.2.0",
        "Start a coordinated failover between this server and one of its replicas.");
  t.add("role", 1, kNoScript | kLoading | kStale | kFast | kSentinel, kNoKeys, &cmd_role, "2.8.12",
        "Return the role of the instance in the context of replication");
}

}  // namespace listd::server
