#include "listd/server/sync_replication.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "listd/server/executor.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"

namespace listd::server {

SyncReplication::SyncReplication(Executor& exec)
    : exec_(exec), settings_(exec.config().settings()) {}

long long SyncReplication::acked_offset() const {
  return exec_.replication().nth_acked_offset(settings_.sync_replicas);
}

void SyncReplication::hold_or_release(Client& c) {
  // The replication stream itself and our master's link are never held.
  if (c.replica || c.master) return;
  const bool on = settings_.sync_replicas != 0 && !exec_.replica_side().active();
  const long long acked = on ? acked_offset() : 0;
  const bool shows_data = std::exchange(c.out_needs_ack, c.out.empty() && c.out_needs_ack);
  if (on && !c.out.empty()) {
    const long long needed = exec_.replication().last_effect_offset();
    if (c.held || (shows_data && needed > acked)) {
      // Behind held output, or possibly showing an unacknowledged write: wait with it.
      if (!c.held) {
        c.held = std::make_unique<HeldReplies>();
        held_.insert(c.id);
      }
      HeldReplies& h = *c.held;
      h.bytes += c.out;
      c.out.clear();
      // Output that shows no data waits only for what is ahead of it.
      const long long tag = shows_data || h.pieces.empty() ? needed : h.pieces.back().offset;
      if (!h.pieces.empty() && h.pieces.back().offset == tag) {
        h.pieces.back().end = h.bytes.size();
      } else {
        h.pieces.push_back({h.bytes.size(), tag, exec_.clock().monotonic_ms()});
      }
    }
  }
  if (!c.held) return;
  // The acknowledged pieces leave, oldest first (all of them once the mode is off), ahead of
  // c.out: the transport consumes c.out whole, so it holds only output newer than the held
  // bytes (none while the mode is on: it joined them above).
  HeldReplies& h = *c.held;
  const auto first_waiting =
      on ? std::find_if(h.pieces.begin(), h.pieces.end(),
                        [&](const HeldReplies::Piece& p) { return p.offset > acked; })
         : h.pieces.end();
  if (first_waiting == h.pieces.begin()) return;
  const std::size_t released = std::prev(first_waiting)->end;
  c.out.insert(0, h.bytes, 0, released);
  if (first_waiting == h.pieces.end()) {
    c.held.reset();
    held_.erase(c.id);
    return;
  }
  h.bytes.erase(0, released);
  h.pieces.erase(h.pieces.begin(), first_waiting);
  for (HeldReplies::Piece& p : h.pieces) p.end -= released;
}

void SyncReplication::end_turn() {
  if (settings_.sync_replicas == 0 || exec_.replica_side().active()) return;
  const long long last = exec_.replication().last_effect_offset();
  if (last <= asked_offset_) return;
  asked_offset_ = last;
  exec_.replication().request_acks();
}

void SyncReplication::replicas_changed() {
  if (held_.empty()) return;
  const long long acked = acked_offset();
  for (std::uint64_t id : held_) {
    Client* c = exec_.clients().find(id);
    if (c->held->pieces.front().offset <= acked)
      exec_.clients().queue_flush(*c, false);  // no new output: only what was held leaves
  }
}

void SyncReplication::close_held(Client& c, std::string_view why) {
  exec_.replication().log().warning(
      fmt::format("Closing client {} (id={}): {}", c.addr, c.id, why));
  c.held.reset();  // never written: the client sees a lost connection, not a success
  held_.erase(c.id);
  exec_.clients().schedule_close_asap(c);
}

void SyncReplication::expire(std::uint64_t now_ms) {
  if (held_.empty()) return;
  const bool on = settings_.sync_replicas != 0 && !exec_.replica_side().active();
  std::vector<Client*> late;
  for (std::uint64_t id : held_) {
    Client* c = exec_.clients().find(id);
    if (!on) {  // switched off: what was held leaves now
      exec_.clients().queue_flush(*c, false);
    } else if (now_ms - c->held->pieces.front().since_ms >=
               static_cast<std::uint64_t>(settings_.sync_replicas_timeout)) {
      late.push_back(c);
    }
  }
  for (Client* c : late) {
    ++timeouts_;
    close_held(*c, fmt::format("its replies were not acknowledged by {} replica(s) within "
                               "sync-replicas-timeout ({} ms)",
                               settings_.sync_replicas, settings_.sync_replicas_timeout));
  }
}

std::optional<std::uint64_t> SyncReplication::next_deadline() const {
  std::optional<std::uint64_t> next;
  for (std::uint64_t id : held_) {
    const Client* c = exec_.clients().find(id);
    const std::uint64_t at = c->held->pieces.front().since_ms +
                             static_cast<std::uint64_t>(settings_.sync_replicas_timeout);
    if (!next || at < *next) next = at;
  }
  return next;
}

void SyncReplication::demoted() {
  // Still a master here: what N replicas acknowledged may go (a FAILOVER's target acked all);
  // a client with anything else held is closed.
  const long long acked = settings_.sync_replicas != 0 ? acked_offset() : 0;
  const std::vector<std::uint64_t> ids(held_.begin(), held_.end());
  held_.clear();
  for (std::uint64_t id : ids) {
    Client* c = exec_.clients().find(id);
    if (c->held->pieces.back().offset <= acked) {
      c->out.insert(0, c->held->bytes);
      c->held.reset();
      exec_.clients().queue_flush(*c, false);  // acknowledged: not to be held again
    } else {
      close_held(*c, "it had replies no replica acknowledged when this master became a replica");
    }
  }
  asked_offset_ = 0;
}

void SyncReplication::forget(const Client& c) {
  if (c.held) held_.erase(c.id);
}

void SyncReplication::info(std::string& out) const {
  out += fmt::format("sync_replicas:{}\r\nsync_replicas_acked_offset:{}\r\n",
                     settings_.sync_replicas, settings_.sync_replicas ? acked_offset() : 0);
  out += fmt::format("sync_replicas_held_clients:{}\r\nsync_replicas_timeouts:{}\r\n", held_.size(),
                     timeouts_);
}

}  // namespace listd::server
