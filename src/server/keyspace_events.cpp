#include "listd/server/keyspace_events.h"

#include <algorithm>
#include <string>

#include "listd/server/pubsub.h"

namespace listd::server {

void KeyspaceEvents::publish(std::string_view event, std::string_view key, int db,
                             const Client* publisher) {
  const int flags = settings_.notify_keyspace_events;
  const std::string db_part = std::to_string(db);
  std::string channel;
  channel.reserve(16 + db_part.size() + std::max(key.size(), event.size()));
  // Keyspace first, then keyevent: the order of Redis notifyKeyspaceEvent.
  if (flags & config::kNotifyKeyspace) {
    channel.append("__keyspace@").append(db_part).append("__:").append(key);
    pubsub_.publish(channel, event, ChannelScope::kGlobal, publisher);
  }
  if (flags & config::kNotifyKeyevent) {
    channel.clear();
    channel.append("__keyevent@").append(db_part).append("__:").append(event);
    pubsub_.publish(channel, key, ChannelScope::kGlobal, publisher);
  }
}

}  // namespace listd::server
