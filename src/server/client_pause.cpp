// CLIENT PAUSE / UNPAUSE (Redis 7.0 networking.c pauseClients, blockPostponeClient and
// unblockPostponedClients): the pause state and the executor's half of it.
#include "listd/server/client_pause.h"

#include <algorithm>
#include <limits>

#include "listd/server/client.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/replication_replica.h"
#include "listd/server/scripting.h"

namespace listd::server {

void ClientPause::pause(PausePurpose purpose, PauseMode mode, std::uint64_t end_ms, bool expired) {
  Slot& p = slot(purpose);
  if (p.mode == PauseMode::kOff) {
    if (expired) return;
    p.mode = mode;
    p.end_ms = end_ms;
  } else {
    p.mode = std::max(p.mode, mode);
    if (!expired) p.end_ms = std::max(p.end_ms, end_ms);
  }
  refresh_mode();
}

void ClientPause::refresh_mode() noexcept {
  mode_ = PauseMode::kOff;
  for (const Slot& p : slots_) mode_ = std::max(mode_, p.mode);
}

std::uint64_t ClientPause::end_ms() const noexcept {
  std::uint64_t next = std::numeric_limits<std::uint64_t>::max();
  for (const Slot& p : slots_)
    if (p.mode != PauseMode::kOff) next = std::min(next, p.end_ms);
  return next;
}

std::vector<Client*> ClientPause::end(PausePurpose purpose) {
  slot(purpose) = Slot{};
  return release_if_over();
}

std::vector<Client*> ClientPause::expire(std::uint64_t now_ms) {
  for (Slot& p : slots_)
    if (p.mode != PauseMode::kOff && now_ms >= p.end_ms) p = Slot{};
  return release_if_over();
}

std::vector<Client*> ClientPause::release_if_over() {
  refresh_mode();
  std::vector<Client*> resumed;
  if (active()) return resumed;
  resumed.swap(postponed_);
  for (Client* c : resumed) c->postponed = false;
  return resumed;
}

bool ClientPause::postpones(const Client& c, std::uint32_t flags) const noexcept {
  if (c.replica || c.master) return false;
  const PauseMode m = mode();
  return m == PauseMode::kAll ||
         (m == PauseMode::kWrite && (flags & (kWrite | kMayReplicate)) != 0);
}

void ClientPause::postpone(Client& c) {
  c.postponed = true;
  postponed_.push_back(&c);
}

void ClientPause::forget(Client& c) noexcept {
  if (!c.postponed) return;
  c.postponed = false;
  std::erase(postponed_, &c);
}

void Executor::pause_clients(PauseMode mode, long long timeout_ms) {
  // Redis adds the timeout to the unix clock and lets a huge one wrap into the past (no pause).
  const std::int64_t now_unix = now_.unix_ms;
  const bool wraps = timeout_ms > std::numeric_limits<std::int64_t>::max() - now_unix;
  client_pause_.pause(PausePurpose::kClientCommand, mode,
                      now_.mono_ms() + static_cast<std::uint64_t>(wraps ? 0 : timeout_ms),
                      timeout_ms == 0 || wraps);
  after_pause_change();
}

void Executor::pause_writes_until_resumed(PausePurpose purpose) {
  client_pause_.pause(purpose, PauseMode::kWrite, std::numeric_limits<std::uint64_t>::max(), false);
  after_pause_change();
}

void Executor::unpause_clients(PausePurpose purpose) {
  resume_postponed(client_pause_.end(purpose));
}

void Executor::resume_postponed(std::vector<Client*> resumed) {
  // In arrival order, each from the request it was postponed at (Connection::resume).
  for (Client* c : resumed) clients_.queue_resume(*c);
  after_pause_change();
}

void Executor::after_pause_change() {
  // The dataset stays as it is while paused: reads hide expired keys but nothing deletes them;
  // after, a replica still waits for its master.
  keyspace_.set_keep_expired(client_pause_.active() || replica_side_->active());
}

bool Executor::postpone_if_paused(Client& c, const CommandSpec& spec,
                                  std::span<const std::string_view> argv) {
  // Redis processCommand's is_may_replicate_command: a script's shebang flags, EXEC's queue.
  std::uint32_t flags = scripting_->command_flags(spec, argv);
  if (spec.flags & kExecCommand) flags |= c.queued_flags;
  if (!client_pause_.postpones(c, flags)) return false;
  client_pause_.postpone(c);
  c.last_command = spec.full_name;  // CLIENT LIST shows cmd=<the postponed command>
  return true;
}

}  // namespace listd::server
