// CLIENT PAUSE's state (Redis networking.c pauseClients / blockPostponeClient): the mode, its
// end, and the clients whose command waits for the end, in the order they arrived.
//
// A postponed client's request is not consumed: it stays in the client's read buffer
// (Client::postponed stops the transport from running it), and when the pause ends the client
// is resumed and the request runs from the start, checks included, as Redis reprocesses it.
// While a pause is on, keys are neither expired (reads hide them) nor evicted, so the dataset
// stays as it was (Executor::pause_clients / unpause_clients, src/server/client_pause.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace listd::server {

struct Client;

/// Ordered by strictness, as Redis' pause_type: a second pause keeps the stricter one.
enum class PauseMode : std::uint8_t { kOff, kWrite, kAll };

class ClientPause {
 public:
  /// Pauses until monotonic `end_ms`, or widens the pause on: the stricter mode, the later end
  /// (Redis pauseClients for one purpose). `expired`: the end is already past (a timeout of 0,
  /// or one that overflows in Redis), which starts no pause but still raises an active one's mode.
  void pause(PauseMode mode, std::uint64_t end_ms, bool expired);
  /// Ends the pause: returns the postponed clients, in the order they were postponed, with
  /// their flag cleared (the caller resumes them).
  std::vector<Client*> end();

  bool active() const noexcept { return mode_ != PauseMode::kOff; }
  PauseMode mode() const noexcept { return mode_; }
  /// Monotonic ms the pause ends at (meaningful while active()).
  std::uint64_t end_ms() const noexcept { return end_ms_; }

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
  PauseMode mode_ = PauseMode::kOff;
  std::uint64_t end_ms_ = 0;
  std::vector<Client*> postponed_;
};

}  // namespace listd::server
