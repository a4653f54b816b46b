#include "listd/server/blocking_service.h"

#include <string>
#include <vector>

#include "listd/server/executor.h"

namespace listd::server {

void BlockingService::block(Client& c, std::span<const std::string_view> keys, long long timeout_ms,
                            BlockSpec spec) {
  c.block = std::move(spec);
  c.blocked_since_ms = exec_.command_mono_ms();
  waiters_.block(c.waiter, c.db, keys);
  // The clock is read in whole ms (truncated): a client that blocked at 1000.9 reads 1000, so
  // a deadline of 1000 + timeout could fire up to 1 ms early. +1 ms means never early.
  if (timeout_ms > 0)
    timers_.schedule(c.waiter.timer,
                     clock_.monotonic_ms() + static_cast<std::uint64_t>(timeout_ms) + 1);
}

void BlockingService::end_wait(Client& c) noexcept {
  timers_.cancel(c.waiter.timer);
  waiters_.unblock(c.waiter);
}

bool BlockingService::claim(Client& c) {
  if (!c.transport || !c.transport->peer_gone()) return true;
  end_wait(c);
  exec_.slowlog().drop_parked(c.id);
  exec_.clients().request_kill(c);
  return false;
}

void BlockingService::finish(Client& c) {
  end_wait(c);
  exec_.clients().queue_flush(c);
  exec_.clients().queue_resume(c);
}

void BlockingService::time_out(Client& c, std::string_view error) {
  if (!c.blocked()) return;
  exec_.slowlog().drop_parked(c.id);  // Redis 7.0 files no timed-out (or unblocked) command
  if (error.empty())
    c.reply().null_array();
  else
    c.reply().error(error);
  finish(c);
}

void BlockingService::fire_timeouts(std::uint64_t now_ms) {
  timers_.advance(
      now_ms, [this](blocking::TimerNode& node) { time_out(*static_cast<Client*>(node.owner())); });
}

void BlockingService::signal_all_keys(int db) {
  std::vector<std::string> keys;
  waiters_.for_each_key([&](const store::DbKey& k, std::size_t) {
    if (k.db == db) keys.push_back(k.key);
  });
  for (const auto& k : keys) waiters_.signal_ready(db, k);
}

void BlockingService::serve_ready_keys() {
  if (draining_) return;
  draining_ = true;
  while (waiters_.has_ready()) {
    for (const store::DbKey& key : waiters_.take_ready()) {
      ClockReading since = clock_.read();
      // Loading a log replaces the executor's clock; expiry then follows the log's time.
      serving_unix_ms_ = &exec_.clock() == &clock_ ? since.unix_ms : exec_.clock().unix_ms();
      // Oldest waiter first, one element each, until the key runs dry. The waiters present now
      // are visited once; a chain (BLMOVE into a waited key) signals its key again.
      // A waiter whose worker is gone is never handed an element: the serving code claims
      // each waiter (BlockingService::claim) before it takes anything.
      waiters_.visit(key.db, key.key, [&](blocking::Waiter& w) {
        Client& c = *static_cast<Client*>(w.owner());
        // A served waiter is an execution unit of its own; the serving code emits its pop.
        exec_.effects().begin_unit();
        const ServeResult result = serve_timed(c, key, since);
        exec_.effects().end_unit();
        if (result == ServeResult::kServed)
          exec_.count_queue_event(key.db, key.key, QueueEvent::kHandoff, 1);
        return result != ServeResult::kNoData;
      });
    }
  }
  draining_ = false;
}

ServeResult BlockingService::serve_timed(Client& c, const store::DbKey& key, ClockReading& since) {
  const ServeResult result = serve_blocked_client(exec_, c, key);
  if (result != ServeResult::kServed) return result;
  const ClockReading end = clock_.read();
  if (exec_.slowlog().has_parked(c.id)) {  // serving leaves the parked command in place
    const config::ServerSettings& s = exec_.config().settings();
    exec_.slowlog().serve_parked(c, end.mono_us - since.mono_us, end.unix_ms / 1000,
                                 s.slowlog_log_slower_than, s.slowlog_max_len);
  }
  since = end;
  return result;
}

}  // namespace listd::server
