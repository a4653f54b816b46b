#include "listd/server/client_eviction.h"

#include <algorithm>
#include <string>

#include "listd/server/client.h"
#include "listd/server/client_info.h"
#include "listd/server/client_registry.h"

namespace listd::server {

std::size_t ClientEvictor::limit(const config::ServerSettings& s) noexcept {
  constexpr std::size_t kFloor = 128 * 1024;
  std::size_t bytes = 0;
  if (s.maxmemory_clients < 0) {
    if (s.maxmemory == 0) return 0;  // a percentage of no ceiling: off
    bytes = static_cast<std::size_t>(static_cast<double>(s.maxmemory) *
                                     static_cast<double>(-s.maxmemory_clients) / 100);
  } else if (s.maxmemory_clients > 0) {
    bytes = static_cast<std::size_t>(s.maxmemory_clients);
  } else {
    return 0;
  }
  return std::max(bytes, kFloor);
}

// Redis clientEvictionAllowed: normal and pub/sub clients only, NO-EVICT exempt. A client
// already on its way out is no longer counted.
bool ClientEvictor::evictable(const Client& c) noexcept {
  return c.transport && !c.replica && !c.master && !c.no_evict && !c.close_asap;
}

void ClientEvictor::measure(Client& c) {
  const std::size_t now = evictable(c) ? client_memory_usage(c) : 0;
  total_ = total_ - std::min(total_, c.eviction_measure) + now;
  c.eviction_measure = now;
}

bool ClientEvictor::before_command(Client& c) {
  const std::size_t bytes = limit(config_.settings());
  if (bytes == 0) return false;
  measure(c);
  if (total_ < bytes) return false;
  std::vector<Client*> evicted;
  evict(bytes, evicted);
  for (Client* e : evicted) clients_.schedule_close_asap(*e);
  return std::find(evicted.begin(), evicted.end(), &c) != evicted.end();
}

void ClientEvictor::cron_check(std::vector<Client*>& to_close) {
  const std::size_t bytes = limit(config_.settings());
  if (bytes == 0) return;
  std::vector<Client*> evicted;
  evict(bytes, evicted);
  for (Client* e : evicted)
    if (std::find(to_close.begin(), to_close.end(), e) == to_close.end()) to_close.push_back(e);
}

void ClientEvictor::evict(std::size_t limit, std::vector<Client*>& evicted) {
  std::vector<Client*> candidates;
  total_ = 0;
  clients_.for_each([&](Client& c) {
    c.eviction_measure = 0;
    measure(c);
    if (c.eviction_measure > 0) candidates.push_back(&c);
  });
  if (total_ < limit) {
    warned_over_ = false;
    return;
  }
  // Largest first (Redis walks its memory buckets from the top, powers of two apart).
  std::sort(candidates.begin(), candidates.end(), [](const Client* a, const Client* b) {
    return a->eviction_measure > b->eviction_measure;
  });
  for (Client* c : candidates) {
    if (total_ < limit) return;
    log_.notice("Evicting client: " + client_info_string(*c, clock_.monotonic_ms()));
    c->close_asap = true;
    total_ -= std::min(total_, c->eviction_measure);
    c->eviction_measure = 0;
    ++evicted_;
    evicted.push_back(c);
  }
  if (total_ >= limit && !warned_over_) {
    warned_over_ = true;
    log_.warning("Over client maxmemory after evicting all evictable clients");
  }
}

}  // namespace listd::server
