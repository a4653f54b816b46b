// Keyspace notifications (Redis 7.0 notify.c): what a command did to a key, published through
// PubSub on `__keyspace@<db>__:<key>` (message: the event name) and `__keyevent@<db>__:<event>`
// (message: the key), for the classes config `notify-keyspace-events` enables.
//
// API: KeyspaceEvents::notify(type, event, key, db, publisher), called by handlers through
// CommandContext::notify (and by the executor for `new`, `expired`, `keymiss`).
// Cost: when the event's class is off, notify is one bit test (inline), no string is built.
// Invariant: events are published at once, in the order the command emits them, so a RESP3
// client that listens to its own keys sees them where Redis 7.0 puts them among its replies.
#pragma once

#include <string_view>

#include "listd/config/config.h"

namespace listd::server {

struct Client;
class PubSub;

class KeyspaceEvents {
 public:
  /// `settings` is read at every event (CONFIG SET applies at once); both outlive this.
  KeyspaceEvents(const config::ServerSettings& settings, PubSub& pubsub) noexcept
      : settings_(settings), pubsub_(pubsub) {}

  /// True when events of class `type` (a kNotify* bit) are published at all.
  bool enabled(int type) const noexcept {
    const int flags = settings_.notify_keyspace_events;
    return (flags & type) != 0 && (flags & (config::kNotifyKeyspace | config::kNotifyKeyevent));
  }
  /// Publishes `event` on `key` of database `db` if its class is enabled. `publisher` is the
  /// running client (it may be subscribed itself), or null for the cron and served waiters.
  void notify(int type, std::string_view event, std::string_view key, int db,
              const Client* publisher) {
    if (enabled(type)) publish(event, key, db, publisher);
  }

 private:
  void publish(std::string_view event, std::string_view key, int db, const Client* publisher);

  const config::ServerSettings& settings_;
  PubSub& pubsub_;
};

}  // namespace listd::server
