// FAILOVER (Redis 7.0 replication.c failoverCommand and updateFailoverStatus): a master hands
// its role to one of its replicas without losing a write. The master pauses writes, waits until
// a replica (the one named by TO, or any) has acknowledged the whole stream, then becomes that
// replica's replica and sends it `PSYNC <replid> <offset> FAILOVER`, which makes the replica a
// master (ReplicationMaster's PSYNC side, through replication_commands.cpp) before it answers
// +CONTINUE. The pause ends when the PSYNC is answered; a timeout without FORCE, FAILOVER ABORT
// or a refused PSYNC make this server a master again.
//
// States (INFO master_failover_state): no-failover, waiting-for-sync, failover-in-progress.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace listd::server {

class Executor;

class Failover {
 public:
  enum class State { kNone, kWaitForSync, kInProgress };

  explicit Failover(Executor& exec) : exec_(exec) {}

  /// FAILOVER's request, its checks done: pauses writes and waits for a replica. `host`
  /// empty: any replica. `end_unix_ms` 0: no timeout.
  void start(std::string host, int port, std::int64_t end_unix_ms, bool force);
  /// FAILOVER ABORT, a timeout, a refused PSYNC: back to master if the switch had begun; the
  /// pause ends. No-op without a failover.
  void abort(std::string_view why);
  /// After every turn and in the cron (Redis beforeSleep / replicationCron): the timeout, and
  /// whether the target (or any replica) acknowledged everything; if so, the switch starts.
  void update(std::int64_t now_unix_ms);
  /// Our PSYNC to the target was answered: +CONTINUE or +FULLRESYNC end the failover, anything
  /// else aborts it.
  void psync_answered(bool accepted);

  State state() const noexcept { return state_; }
  bool active() const noexcept { return state_ != State::kNone; }
  bool in_progress() const noexcept { return state_ == State::kInProgress; }
  /// Whether a timeout is set (Redis skips the stream's pings then: they would move the offset
  /// the target must reach).
  bool has_deadline() const noexcept { return end_unix_ms_ != 0; }
  const char* state_name() const noexcept;

 private:
  /// Becomes the target's replica (Redis replicationSetMaster).
  void switch_to_target();
  void clear();

  Executor& exec_;
  State state_ = State::kNone;
  std::string host_;  // empty until a target is named or found
  int port_ = 0;
  std::int64_t end_unix_ms_ = 0;
  bool force_ = false;
};

}  // namespace listd::server
