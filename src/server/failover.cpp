#include "listd/server/failover.h"

#include <fmt/format.h>

#include <utility>

#include "listd/base/redis_text.h"
#include "listd/server/executor.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"

namespace listd::server {

const char* Failover::state_name() const noexcept {
  switch (state_) {
    case State::kNone: return "no-failover";
    case State::kWaitForSync: return "waiting-for-sync";
    case State::kInProgress: return "failover-in-progress";
  }
  return "unknown";
}

void Failover::start(std::string host, int port, std::int64_t end_unix_ms, bool force) {
  exec_.replica_side().log_notice(host.empty()
                                      ? std::string("FAILOVER requested to any replica.")
                                      : fmt::format("FAILOVER requested to {}:{}.", host, port));
  host_ = std::move(host);
  port_ = port;
  end_unix_ms_ = end_unix_ms;
  force_ = force;
  state_ = State::kWaitForSync;
  exec_.pause_writes_until_resumed(PausePurpose::kFailover);
}

void Failover::abort(std::string_view why) {
  if (state_ == State::kNone) return;
  if (host_.empty())
    exec_.replica_side().log_notice(fmt::format("FAILOVER to any replica aborted: {}", why));
  else
    exec_.replica_side().log_notice(
        fmt::format("FAILOVER to {}:{} aborted: {}", host_, port_, why));
  if (state_ == State::kInProgress) exec_.replica_side().unset_master();
  clear();
}

void Failover::clear() {
  state_ = State::kNone;
  host_.clear();
  port_ = 0;
  end_unix_ms_ = 0;
  force_ = false;
  exec_.unpause_clients(PausePurpose::kFailover);
}

void Failover::update(std::int64_t now_unix_ms) {
  if (state_ != State::kWaitForSync) return;
  if (end_unix_ms_ != 0 && end_unix_ms_ <= now_unix_ms) {
    if (!force_) {
      abort("Replica never caught up before timeout");
      return;
    }
    exec_.replica_side().log_notice(
        fmt::format("FAILOVER to {}:{} time out exceeded, failing over.", host_, port_));
    switch_to_target();
    return;
  }
  // The target, or the first replica that has everything: it takes over with nothing lost.
  const long long offset = exec_.replication().master_repl_offset();
  for (const ReplicationMaster::ReplicaRow& row : exec_.replication().replica_rows()) {
    const bool named = !host_.empty();
    if (named && !(base::iequals(row.ip, host_) && row.port == port_)) continue;
    if (row.ack_offset != offset) {
      if (named) return;
      continue;
    }
    if (!named) {
      host_ = row.ip;
      port_ = row.port;
    }
    exec_.replica_side().log_notice(
        fmt::format("Failover target {}:{} is synced, failing over.", host_, port_));
    switch_to_target();
    return;
  }
}

void Failover::switch_to_target() {
  state_ = State::kInProgress;  // before the handshake: its PSYNC carries FAILOVER
  exec_.replica_side().set_master(host_, port_);
}

void Failover::psync_answered(bool accepted) {
  if (state_ != State::kInProgress) return;
  if (accepted)
    clear();
  else
    abort("Failover target rejected psync request");
}

}  // namespace listd::server
