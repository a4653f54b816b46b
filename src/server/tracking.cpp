#include "listd/server/tracking.h"

#include <algorithm>

#include "listd/protocol/reply_writer.h"
#include "listd/server/client_registry.h"

namespace listd::server {
namespace {

using protocol::RespVersion;

// Redis stringCheckPrefix: one is a prefix of the other (both would see the same keys).
bool prefixes_overlap(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

std::string one_key_array(std::string_view key) {
  std::string out;
  protocol::ReplyWriter w(out, RespVersion::kResp2);
  w.array_header(1);
  w.bulk(key);
  return out;
}

// The keys of a prefix's batch as one RESP array, without those `skip_writer` wrote last (a
// NOLOOP client's own); empty when nothing is left (Redis trackingBuildBroadcastReply).
std::string broadcast_array(const std::map<std::string, std::uint64_t, std::less<>>& keys,
                            std::uint64_t skip_writer) {
  std::size_t count = 0;
  for (const auto& [key, writer] : keys)
    if (skip_writer == 0 || writer != skip_writer) ++count;
  std::string out;
  if (count == 0) return out;
  protocol::ReplyWriter w(out, RespVersion::kResp2);
  w.array_header(count);
  for (const auto& [key, writer] : keys)
    if (skip_writer == 0 || writer != skip_writer) w.bulk(key);
  return out;
}

}  // namespace

Tracking::Tracking(ClientRegistry& clients, std::function<void(Client&, std::size_t)> pushed)
    : clients_(clients), pushed_(std::move(pushed)) {}

std::string Tracking::prefix_collision(const Client& c,
                                       std::span<const std::string_view> prefixes) const {
  const auto own = client_prefixes_.find(c.id);
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    if (own != client_prefixes_.end())
      for (const std::string& existing : own->second)
        if (prefixes_overlap(existing, prefixes[i]))
          return "ERR Prefix '" + std::string(prefixes[i]) +
                 "' overlaps with an existing prefix '" + existing +
                 "'. Prefixes for a single client must not overlap.";
    for (std::size_t j = i + 1; j < prefixes.size(); ++j)
      if (prefixes_overlap(prefixes[i], prefixes[j]))
        return "ERR Prefix '" + std::string(prefixes[i]) +
               "' overlaps with another provided prefix '" + std::string(prefixes[j]) +
               "'. Prefixes for a single client must not overlap.";
  }
  return {};
}

void Tracking::enable(Client& c, const TrackingOptions& options,
                      std::span<const std::string_view> prefixes) {
  TrackingMode& m = c.tracking;
  if (!m.on) ++tracking_clients_;
  const bool caching = m.caching;  // Redis enableTracking keeps CACHING as it was
  m = TrackingMode{};
  m.on = true;
  m.caching = caching;
  m.redirect = options.redirect;
  if (options.bcast) {
    m.bcast = true;
    const std::string_view everything[] = {""};
    for (std::string_view p :
         prefixes.empty() ? std::span<const std::string_view>(everything) : prefixes) {
      Prefix& state = prefixes_[std::string(p)];
      if (std::find(state.clients.begin(), state.clients.end(), c.id) == state.clients.end()) {
        state.clients.push_back(c.id);
        client_prefixes_[c.id].emplace(p);
      }
    }
  }
  m.optin = options.optin;
  m.optout = options.optout;
  m.noloop = options.noloop;
}

void Tracking::disable(Client& c) {
  if (auto own = client_prefixes_.find(c.id); own != client_prefixes_.end()) {
    for (const std::string& p : own->second) {
      auto it = prefixes_.find(p);
      if (it == prefixes_.end()) continue;
      std::erase(it->second.clients, c.id);
      if (it->second.clients.empty()) prefixes_.erase(it);
    }
    client_prefixes_.erase(own);
  }
  if (c.tracking.on) {
    --tracking_clients_;
    c.tracking = TrackingMode{};
  }
}

std::vector<std::string> Tracking::prefixes_of(const Client& c) const {
  const auto own = client_prefixes_.find(c.id);
  if (own == client_prefixes_.end()) return {};
  return {own->second.begin(), own->second.end()};
}

bool Tracking::wants_keys(const Client& c) noexcept {
  const TrackingMode& m = c.tracking;
  if (!m.on || m.bcast) return false;
  return !((m.optin && !m.caching) || (m.optout && m.caching));
}

void Tracking::remember(const Client& c, std::string_view key) {
  auto it = keys_.find(std::string(key));
  if (it == keys_.end()) {
    it = keys_.emplace(std::string(key), KeyEntry{}).first;
    it->second.slot = key_order_.size();
    key_order_.push_back(&it->first);
  }
  std::vector<std::uint64_t>& ids = it->second.ids;
  if (std::find(ids.begin(), ids.end(), c.id) != ids.end()) return;
  ids.push_back(c.id);
  ++total_items_;
}

void Tracking::erase_key(std::unordered_map<std::string, KeyEntry>::iterator it) {
  // Swap-remove from the eviction order: the last key takes the freed slot.
  const std::size_t slot = it->second.slot;
  const std::string* last = key_order_.back();
  key_order_[slot] = last;
  keys_.find(*last)->second.slot = slot;
  key_order_.pop_back();
  total_items_ -= it->second.ids.size();
  keys_.erase(it);
}

void Tracking::invalidate(std::string_view key, const Client* writer, TrackingContext ctx,
                          bool bcast) {
  if (bcast && !prefixes_.empty()) {
    // Redis trackingRememberKeyToBroadcast: every prefix the key starts with.
    for (auto& [prefix, state] : prefixes_)
      if (key.substr(0, prefix.size()) == prefix)
        state.keys.insert_or_assign(std::string(key), writer ? writer->id : 0);
  }
  auto it = keys_.find(std::string(key));
  if (it == keys_.end()) return;
  const std::vector<std::uint64_t> ids = it->second.ids;
  erase_key(it);
  std::string payload;
  for (std::uint64_t id : ids) {
    Client* target = clients_.find(id);
    // A client that left, stopped tracking or switched to BCAST since is owed nothing.
    if (!target || !target->tracking.on || target->tracking.bcast) continue;
    if (target->tracking.noloop && target == ctx.current) continue;
    if (target == ctx.current && ctx.in_command) {
      pending_.emplace_back(std::string(key));  // after the command's reply
      continue;
    }
    if (payload.empty()) payload = one_key_array(key);
    send(*target, payload);
  }
}

void Tracking::invalidate_all(TrackingContext ctx) {
  if (tracking_clients_ > 0) {
    clients_.for_each([&](Client& c) {
      if (!c.tracking.on) return;
      if (&c == ctx.current) {
        pending_.emplace_back(std::nullopt);
      } else {
        send(c, c.resp == RespVersion::kResp3 ? "_\r\n" : "$-1\r\n");
      }
    });
  }
  keys_.clear();
  key_order_.clear();
  total_items_ = 0;
}

void Tracking::send_pending(Client* current) {
  if (pending_.empty()) return;
  std::vector<std::optional<std::string>> owed;
  owed.swap(pending_);
  if (!current) return;
  for (const auto& key : owed) {
    if (key)
      send(*current, one_key_array(*key));
    else
      send(*current, current->resp == RespVersion::kResp3 ? "_\r\n" : "$-1\r\n");
  }
}

void Tracking::broadcast() {
  if (tracking_clients_ == 0) return;
  for (auto& [prefix, state] : prefixes_) {
    if (state.keys.empty()) continue;
    const std::string common = broadcast_array(state.keys, 0);
    for (std::uint64_t id : state.clients) {
      Client* c = clients_.find(id);
      if (!c) continue;
      if (c->tracking.noloop) {
        const std::string own = broadcast_array(state.keys, id);
        if (!own.empty()) send(*c, own);
      } else {
        send(*c, common);
      }
    }
    state.keys.clear();
  }
}

void Tracking::limit_keys(std::size_t max_keys, TrackingContext ctx, std::mt19937_64& rng) {
  if (max_keys == 0) return;
  if (keys_.size() <= max_keys) {
    limit_rounds_ = 0;
    return;
  }
  for (unsigned effort = 100 * (limit_rounds_ + 1); effort > 0 && !keys_.empty(); --effort) {
    const std::string key = *key_order_[rng() % key_order_.size()];
    // Not modified, only no longer tracked: told as an invalidation, not broadcast.
    invalidate(key, nullptr, ctx, /*bcast=*/false);
    if (keys_.size() <= max_keys) {
      limit_rounds_ = 0;
      return;
    }
  }
  ++limit_rounds_;
}

void Tracking::send(Client& c, std::string_view payload) {
  Client* to = &c;
  bool redirected = false;
  if (c.tracking.redirect != 0) {
    to = clients_.find(c.tracking.redirect);
    if (!to) {
      // Told on the tracker's own connection, which only RESP3 can carry.
      c.tracking.broken_redirect = true;
      if (c.resp == RespVersion::kResp3 && !c.close_asap) {
        const std::size_t begin = c.out.size();
        protocol::ReplyWriter w(c.out, RespVersion::kResp3);
        w.push_header(2);
        w.bulk("tracking-redir-broken");
        w.integer(static_cast<long long>(c.tracking.redirect));
        pushed_(c, begin);
      }
      return;
    }
    redirected = true;
  }
  if (to->close_asap) return;
  const std::size_t begin = to->out.size();
  if (to->resp == RespVersion::kResp3) {
    to->out += ">2\r\n$10\r\ninvalidate\r\n";
  } else if (redirected && to->pubsub.subscribed()) {
    to->out += "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n";
  } else {
    return;  // RESP2 has no push on the tracker's own connection
  }
  to->out += payload;
  pushed_(*to, begin);
}

}  // namespace listd::server
