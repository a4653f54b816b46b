// Server-assisted client-side caching (CLIENT TRACKING), in the shape of Redis 7.0's tracking.c:
// the table from a key name to the ids of the clients that may cache it, the BCAST prefixes with
// the keys modified under each during the loop turn, and the invalidation messages.
//
// A client's mode (on, BCAST, OPTIN/OPTOUT, CACHING, NOLOOP, its redirect) is Client::tracking,
// changed only here; its prefixes are kept here by client id. The table holds ids, not clients:
// a client that disabled tracking or left is skipped when its key is invalidated (Redis' lazy
// cleanup), and a redirect to a client gone marks the tracker's redirect broken.
//
// Keys are global, not per database (as Redis): a write of `k` in any db invalidates `k`.
// Delivery: a RESP3 receiver gets `>2 invalidate <keys>`; a RESP2 redirect target subscribed to
// anything gets a `message` on `__redis__:invalidate`; anybody else gets nothing. An
// invalidation for the client whose command runs waits until that command (EXEC, a script) has
// replied (send_pending), as 7.0's tracking_pending_keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/server/client.h"

namespace listd::server {

class ClientRegistry;

/// The options CLIENT TRACKING ON asked for.
struct TrackingOptions {
  std::uint64_t redirect = 0;  ///< 0: none
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
};

/// Where an invalidation happens: `current` is the client whose request runs (Redis
/// server.current_client; a script's caller), `in_command` whether its command is running.
struct TrackingContext {
  const Client* current = nullptr;
  bool in_command = false;
};

class Tracking {
 public:
  /// `pushed(client, begin)` is called after bytes [begin, end) were appended to client.out.
  Tracking(ClientRegistry& clients, std::function<void(Client&, std::size_t)> pushed);
  Tracking(const Tracking&) = delete;
  Tracking& operator=(const Tracking&) = delete;

  /// CLIENT TRACKING ON's prefix check (Redis checkPrefixCollisionsOrReply): the error text, or
  /// empty when no prefix overlaps another given one or one `c` already has.
  std::string prefix_collision(const Client& c, std::span<const std::string_view> prefixes) const;
  /// CLIENT TRACKING ON, the options already checked (Redis enableTracking): BCAST without a
  /// prefix is the empty prefix; prefixes add to those `c` has.
  void enable(Client& c, const TrackingOptions& options,
              std::span<const std::string_view> prefixes);
  /// CLIENT TRACKING OFF, RESET, disconnection: leaves its prefixes and clears its mode.
  void disable(Client& c);
  /// `c`'s BCAST prefixes in byte order (CLIENT TRACKINGINFO).
  std::vector<std::string> prefixes_of(const Client& c) const;

  /// After a read-only command of tracking client `c` (not BCAST) read `key`: remember that
  /// `c` may cache it, unless OPTIN without CACHING yes or OPTOUT with CACHING no.
  void remember(const Client& c, std::string_view key);
  /// True when `c`'s mode wants the keys of its next read remembered.
  static bool wants_keys(const Client& c) noexcept;
  /// `key` was modified by `writer` (null: expiry, eviction): its trackers are told and the key
  /// leaves the table; with `bcast` it is also recorded for the BCAST prefixes it matches.
  void invalidate(std::string_view key, const Client* writer, TrackingContext ctx,
                  bool bcast = true);
  /// FLUSHDB / FLUSHALL: every tracking client gets the null invalidation; the table empties.
  void invalidate_all(TrackingContext ctx);
  /// After the current client's top-level command: sends the invalidations it was owed.
  void send_pending(Client* current);
  /// The end of a loop turn (Redis beforeSleep): each prefix's keys modified since, to its
  /// clients (without a NOLOOP client's own writes).
  void broadcast();
  /// Over `max_keys` keys (0: no limit), invalidates random ones, at most 100 more per call
  /// each time the last call could not get under it (Redis trackingLimitUsedSlots).
  void limit_keys(std::size_t max_keys, TrackingContext ctx, std::mt19937_64& rng);

  /// Something to do on writes: a client tracks, or keys / prefixes are left in the tables.
  bool has_state() const noexcept {
    return tracking_clients_ > 0 || !keys_.empty() || !prefixes_.empty();
  }
  std::size_t tracking_clients() const noexcept { return tracking_clients_; }  ///< INFO
  std::size_t total_keys() const noexcept { return keys_.size(); }
  std::size_t total_items() const noexcept { return total_items_; }
  std::size_t total_prefixes() const noexcept { return prefixes_.size(); }

 private:
  struct KeyEntry {
    std::vector<std::uint64_t> ids;
    std::size_t slot = 0;  // its place in key_order_ (random eviction)
  };
  struct Prefix {
    std::map<std::string, std::uint64_t, std::less<>> keys;  // modified -> last writer's id
    std::vector<std::uint64_t> clients;
  };
  /// Redis sendTrackingMessage: `payload` is the RESP value after "invalidate" (an array of
  /// keys, or a null), for tracking client `c` or its redirect.
  void send(Client& c, std::string_view payload);
  void erase_key(std::unordered_map<std::string, KeyEntry>::iterator it);

  ClientRegistry& clients_;
  std::function<void(Client&, std::size_t)> pushed_;
  std::unordered_map<std::string, KeyEntry> keys_;
  std::vector<const std::string*> key_order_;  // the keys of keys_ (node keys never move)
  std::size_t total_items_ = 0;
  std::map<std::string, Prefix, std::less<>> prefixes_;
  std::unordered_map<std::uint64_t, std::set<std::string>> client_prefixes_;
  std::size_t tracking_clients_ = 0;
  std::vector<std::optional<std::string>> pending_;  // keys owed to current (nullopt: flush)
  unsigned limit_rounds_ = 0;  // calls in a row that ended still over the limit
};

}  // namespace listd::server
