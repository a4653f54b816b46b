// CLIENT PAUSE's state (Redis networking.c pauseClients / blockPostponeClient): the mode, its
// end, and the clients whose command waits for the end, in the order they arrived.
//
// A postponed client's request is not consumed: it stays in the client's read buffer
// (Client::postponed stops the transport from running it), and when the pause ends the client
// is resumed and the request runs from the start, checks included, as Redis reprocesses it.
// While a pause is on, keys are neither expired (reads hide them) nor evicted, so the dataset
// stays as it was (Executor::pause_clients / unpause_clients, src/server/client_pause.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace listd::server {

struct Client;

/// Ordered by strictness, as Redis' pause_type: a second pause keeps the stricter one.
enum class PauseMode : std::uint8_t { kOff, kWrite, kAll };

/// Who paused (Redis pause_purpose): each purpose has its own mode and end, CLIENT UNPAUSE
/// ends only its own, and the clients wait while any purpose is on, under the strictest mode.
enum class PausePurpose : std::uint8_t { kClientCommand, kFailover };

class ClientPause {
 public:
  /// Pauses `purpose` until monotonic `end_ms`, or widens its pause: the stricter mode, the
  /// later end (Redis pauseClients). `expired`: the end is already past (a timeout of 0, or one
  /// that overflows in Redis), which starts no pause but still raises an active one's mode.
  void pause(PausePurpose purpose, PauseMode mode, std::uint64_t end_ms, bool expired);
  /// Ends `purpose`'s pause. When no purpose is left paused, returns the postponed clients in
  /// the order they were postponed, their flag cleared (the caller resumes them); else none.
  std::vector<Client*> end(PausePurpose purpose);
  /// Ends every purpose whose end is at or before `now_ms`; returns as end().
  std::vector<Client*> expire(std::uint64_t now_ms);

  bool active() const noexcept { return mode() != PauseMode::kOff; }
  bool active(PausePurpose purpose) const noexcept { return slot(purpose).mode != PauseMode::kOff; }
  /// The strictest mode of the purposes paused (kept up to date by pause / end / expire: it is
  /// asked on every command).
  PauseMode mode() const noexcept { return mode_; }
  /// Monotonic ms at which the next purpose's pause ends (meaningful while active()).
  std::uint64_t end_ms() const noexcept;

  /// Whether a command whose flags are `flags` (a script's shebang and EXEC's queued commands
  /// included) waits: every command under ALL, one that writes or may replicate under WRITE.
  /// Our replicas and our master's link are never paused.
  bool postpones(const Client& client, std::uint32_t flags) const noexcept;
  /// Parks `client` until end(); its running request is kept by the transport.
  void postpone(Client& client);
  /// A postponed client that disconnects leaves the list.
  void forget(Client& client) noexcept;
  std::size_t postponed_count() const noexcept { return postponed_.size(); }

 private:
  struct Slot {
    PauseMode mode = PauseMode::kOff;
    std::uint64_t end_ms = 0;
  };
  static constexpr std::size_t kPurposes = 2;
  const Slot& slot(PausePurpose p) const noexcept { return slots_[static_cast<std::size_t>(p)]; }
  Slot& slot(PausePurpose p) noexcept { return slots_[static_cast<std::size_t>(p)]; }
  /// The postponed clients, released once no purpose is paused.
  std::vector<Client*> release_if_over();
  /// Recomputes mode_ from the slots.
  void refresh_mode() noexcept;

  Slot slots_[kPurposes];
  PauseMode mode_ = PauseMode::kOff;
  std::vector<Client*> postponed_;
};

}  // namespace listd::server
