// Synchronous replication (`sync-replicas N`, listd's own; Redis has only WAIT and
// min-replicas-to-write): no reply leaves for a client before N replicas acknowledged every
// write it may show. Redis loses acknowledged writes on failover because it answers before its
// replicas have the write; WAIT protects pushes but never pops, whose reply leaves before the
// RPOP reaches the replica (../shared/REPLICATION.md §5).
//
// The rule, at the one place output leaves for a socket (the transport consuming Client::out):
// while the stream offset of the last effect is beyond what N replicas acknowledged, the
// client's new output is held, tagged with that offset; held output leaves, in order, once N
// replicas acknowledged its tag. Replies of a turn that wrote (served blocking pops included)
// are held by construction; so are reads that may show such a write. After each turn that
// wrote, one `REPLCONF GETACK *` asks the replicas for their offset (group commit: one round
// trip per turn, shared by every client of the turn; replicas answer with the offset before the
// GETACK, which is the turn's end).
//
// Fewer than N streaming replicas: writes are refused with -NOREPLICAS
// (ReplicationMaster::enough_good_replicas). Held output older than sync-replicas-timeout ms:
// the client is closed without it, so the client sees a lost connection (indeterminate, never
// a false success). A replica's own clients and the link to our master are never held; on
// demotion every held client is closed (its writes may be discarded by the resync).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>

#include "listd/config/config.h"
#include "listd/server/client.h"

namespace listd::server {

class Executor;

class SyncReplication {
 public:
  explicit SyncReplication(Executor& exec);

  /// Just before the transport consumes `c.out`: moves output that must wait into `c.held`
  /// and puts held output the replicas acknowledged back into `c.out`, oldest first. One test
  /// while the mode is off and nothing is held.
  void before_send(Client& c) {
    if (c.held || settings_.sync_replicas != 0) hold_or_release(c);
  }
  /// Once per loop turn, before its replies (net::Server::finish_turn): a turn that wrote asks
  /// the replicas for their offset.
  void end_turn();
  /// A replica's ACK arrived or a replica left: the held clients whose oldest output is now
  /// acknowledged are queued for writing.
  void replicas_changed();
  /// Closes the held clients whose oldest held output waited sync-replicas-timeout ms
  /// (Executor::tick), and releases everything once the mode was switched off (cron).
  void expire(std::uint64_t now_ms);
  /// Monotonic ms at which the oldest held output times out, or nullopt.
  std::optional<std::uint64_t> next_deadline() const;
  /// We are becoming a replica: a held client whose output N replicas all acknowledged gets it
  /// now; any other is closed (its writes were never acknowledged and the resync from the new
  /// master may discard them).
  void demoted();
  /// A client is being destroyed.
  void forget(const Client& c);

  /// INFO replication's sync_replicas_* fields.
  void info(std::string& out) const;

 private:
  void hold_or_release(Client& c);
  /// The stream offset N replicas acknowledged (0 when fewer than N stream).
  long long acked_offset() const;
  /// Closes a held client without its held output.
  void close_held(Client& c, std::string_view why);

  Executor& exec_;
  const config::ServerSettings& settings_;
  std::unordered_set<std::uint64_t> held_;  // ids of the clients with held output
  long long asked_offset_ = 0;              // the last effect offset a GETACK was sent for
  std::uint64_t timeouts_ = 0;              // clients closed by sync-replicas-timeout
};

}  // namespace listd::server
