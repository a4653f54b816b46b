// Blocking commands' lifecycle (Redis blocked.c + timeout.c): a client blocks on keys with a
// deadline, and leaves by exactly one of three doors: served (finish), timed out or unblocked
// (time_out), or gone (Executor::destroy_client). Owns the waiter registry and the timer wheel.
//
// After every command (after EXEC for a transaction) the executor drains the ready keys: per
// key, the oldest waiters are served first, one element each, through the same pop code as the
// non-blocking commands (serve_blocked_client, next to the blocking commands); a served BLMOVE
// can make its destination ready, so draining repeats until nothing is ready.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "listd/blocking/timer_wheel.h"
#include "listd/blocking/waiter_registry.h"
#include "listd/server/client.h"
#include "listd/server/clock.h"
#include "listd/store/db_key.h"

namespace listd::server {

class Executor;

enum class ServeResult {
  kServed,  ///< the client got its reply and is no longer blocked
  kNoData,  ///< the key is gone: stop serving this key
  kSkip,    ///< the key holds the other kind (list vs sorted set): try the next waiter
};

/// Serves `client` (the oldest waiter on `key`) from `key`, replying exactly what its command
/// would have replied had the data been there, after BlockingService::claim. Implemented with the
/// blocking commands (src/server/commands/blocking_commands.cpp); called only by
/// BlockingService::drain_ready_keys.
ServeResult serve_blocked_client(Executor& exec, Client& client, const store::DbKey& key);

/// The sorted-set half of serving (BZPOPMIN/BZPOPMAX/BZMPOP), implemented with the sorted-set
/// commands; serve_blocked_client delegates kZPop/kZMultiPop waiters to it.
ServeResult serve_zset_waiter(Executor& exec, Client& client, const store::DbKey& key);

/// The stream half (XREAD BLOCK), implemented with the stream read commands; a waiter whose
/// id is not below the stream's last id is skipped (kSkip), so those behind it are tried.
ServeResult serve_stream_waiter(Executor& exec, Client& client, const store::DbKey& key);

class BlockingService {
 public:
  /// `clock` is the real clock (deadlines are monotonic ms), not a loading override.
  BlockingService(Executor& exec, const Clock& clock)
      : exec_(exec), clock_(clock), timers_(clock.monotonic_ms()) {}
  BlockingService(const BlockingService&) = delete;
  BlockingService& operator=(const BlockingService&) = delete;

  /// Parks `client` on `keys` of its db until served, or for `timeout_ms` (no deadline when
  /// 0). See CommandContext::block_on.
  void block(Client& client, std::span<const std::string_view> keys, long long timeout_ms,
             BlockSpec spec);
  /// Served: the reply is already in client.out; its pipelined commands run next.
  void finish(Client& client);
  /// Ends a block without serving it: replies the timeout null (or `error` if not empty).
  /// A no-op when the client is not blocked (CLIENT UNBLOCK, timer expiry).
  void time_out(Client& client, std::string_view error = {});
  /// Leaves every waiting list and cancels the deadline, with no reply: the one way out of a
  /// block, which finish and time_out build on (and disconnect and a gone peer use alone).
  void end_wait(Client& client) noexcept;
  /// The serving code calls this once it knows it will answer `client`, before it takes
  /// anything: false when the peer is gone (FIN, error), and then the waiter is dropped and its
  /// connection killed, so no element is lost with it; the caller returns ServeResult::kSkip.
  /// Asked only of a waiter about to be served, so the waiters a drain passes over (a group's
  /// other consumers once the new entries are taken) cost no system call each.
  bool claim(Client& client);

  /// Times out every waiter whose deadline is at or before `now_ms`.
  void fire_timeouts(std::uint64_t now_ms);
  /// Monotonic ms of the earliest deadline, or nullopt.
  std::optional<std::uint64_t> next_deadline() const { return timers_.next_deadline(); }

  /// (db, key) now holds data: serve its waiters at the next drain.
  void signal_ready(int db, std::string_view key) { waiters_.signal_ready(db, key); }
  /// Marks every waited key of `db` ready (SWAPDB, FLUSH*: keys appear or vanish wholesale).
  void signal_all_keys(int db);
  /// Serves the waiters of every ready key (one execution unit each) until none is ready;
  /// re-entrant calls (a served waiter's own drain) are no-ops.
  void drain_ready_keys() {
    if (waiters_.has_ready()) serve_ready_keys();
  }

  /// Unix ms the serving code looks keys up at: one reading per ready key, as Redis 7.0's
  /// handleClientsBlockedOnKeys fixes the expiry time for each key it serves.
  std::int64_t serving_unix_ms() const noexcept { return serving_unix_ms_; }

  blocking::WaiterRegistry& waiters() noexcept { return waiters_; }
  const blocking::TimerWheel& timers() const noexcept { return timers_; }

 private:
  void serve_ready_keys();
  /// serve_blocked_client, timed for the slow log when the client's command is parked there.
  /// `since` is a reading taken no earlier than the previous waiter served: skipping a waiter
  /// reads no clock, so a parked command's serve time includes the waiters passed over to
  /// reach it (one served waiter, one or two reads).
  ServeResult serve_timed(Client& client, const store::DbKey& key, ClockReading& since);

  Executor& exec_;
  const Clock& clock_;
  blocking::WaiterRegistry waiters_;
  blocking::TimerWheel timers_;
  bool draining_ = false;
  std::int64_t serving_unix_ms_ = 0;
};

}  // namespace listd::server
