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

void ClientPause::pause(PauseMode mode, std::uint64_t end_ms, bool expired) {
  if (!active()) {
    if (expired) return;
    mode_ = mode;
    end_ms_ = end_ms;
    return;
  }
  mode_ = std::max(mode_, mode);
  if (!expired) end_ms_ = std::max(end_ms_, end_ms);
}

std::vector<Client*> ClientPause::end() {
  mode_ = PauseMode::kOff;
  end_ms_ = 0;
  std::vector<Client*> resumed;
  resumed.swap(postponed_);
  for (Client* c : resumed) c->postponed = false;
  return resumed;
}

bool ClientPause::postpones(const Client& c, std::uint32_t flags) const noexcept {
  if (c.replica || c.master) return false;
  return mode_ == PauseMode::kAll ||
         (mode_ == PauseMode::kWrite && (flags & (kWrite | kMayReplicate)) != 0);
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
  client_pause_.pause(mode, now_.mono_ms() + static_cast<std::uint64_t>(wraps ? 0 : timeout_ms),
                      timeout_ms == 0 || wraps);
  // The dataset stays as it is: reads hide expired keys but nothing deletes them.
  if (client_pause_.active()) keyspace_.set_keep_expired(true);
}

void Executor::unpause_clients() {
  if (!client_pause_.active()) return;
  // In arrival order, each from the request it was postponed at (Connection::resume).
  for (Client* c : client_pause_.end()) clients_.queue_resume(*c);
  keyspace_.set_keep_expired(replica_side_->active());  // a replica still waits for its master
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
