// Client eviction (Redis 7.0 evictClients, maxmemory-clients): when the normal and pub/sub
// clients together hold at least the limit, the largest of them are closed, one at a time, until
// they hold less. Replicas, our master's link, clients with CLIENT NO-EVICT on and clients
// without a transport (the AOF loader, the script client) are never evicted and not counted.
//
// A client's memory is CLIENT LIST's tot-mem (client_memory_usage, as Redis' tot-mem is its
// getClientMemoryUsage). The total is kept incrementally: each command re-measures its client
// (O(1)) and the cron re-measures every client; only a total at or over the limit re-measures
// every client before choosing whom to evict, so a stale figure can cost a scan but never closes
// a client that should stay.
//
// API: limit (Redis getClientEvictionLimit), before_command, cron_check, evicted_clients (INFO
// stats), reset_stats (CONFIG RESETSTAT).
// Invariants: an evicted client is marked close_asap, logged "Evicting client: <CLIENT INFO>" at
// notice level and counted once; the transport closes it at the end of the loop turn without
// writing what it holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "listd/config/config.h"
#include "listd/server/clock.h"
#include "listd/server/persistence_log.h"

namespace listd::server {

struct Client;
class ClientRegistry;

class ClientEvictor {
 public:
  ClientEvictor(const config::Config& config, const Clock& clock, ClientRegistry& clients)
      : config_(config), clock_(clock), clients_(clients) {}
  ClientEvictor(const ClientEvictor&) = delete;
  ClientEvictor& operator=(const ClientEvictor&) = delete;

  void set_logger(PersistenceLog::Sink sink) { log_.set_sink(std::move(sink)); }

  /// The limit in bytes, 0 when off: maxmemory-clients, or its percentage of maxmemory (off
  /// while maxmemory is 0), never under 128 KiB so a bad setting cannot lock everyone out.
  static std::size_t limit(const config::ServerSettings& s) noexcept;

  /// Before `c` runs a command (Redis processCommand): true when `c` itself was evicted, and
  /// the command must not run.
  bool before_command(Client& c);
  /// Once per cron: re-measures every client and evicts while over the limit; the evicted
  /// clients are appended to `to_close`.
  void cron_check(std::vector<Client*>& to_close);

  std::uint64_t evicted_clients() const noexcept { return evicted_; }
  void reset_stats() noexcept { evicted_ = 0; }

 private:
  static bool evictable(const Client& c) noexcept;
  /// Re-measures `c` into the running total.
  void measure(Client& c);
  /// Re-measures everyone, then closes the largest while the total is at or over `limit`.
  void evict(std::size_t limit, std::vector<Client*>& evicted);

  const config::Config& config_;
  const Clock& clock_;
  ClientRegistry& clients_;
  PersistenceLog log_;
  std::size_t total_ = 0;  // the evictable clients' last measures
  std::uint64_t evicted_ = 0;
  bool warned_over_ = false;  // "Over client maxmemory ..." once per spell
};

}  // namespace listd::server
