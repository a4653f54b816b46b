// Pub/Sub as Redis 7.0 has it (pubsub.c): channels, glob patterns and shard channels, who
// listens to each, and the frames a subscriber receives.
//
// API: PubSub (owned by the Executor) subscribes and unsubscribes clients, writing the
// `subscribe` / `unsubscribe` / ... frames into their output; publish() delivers a message to the
// channel's subscribers (in subscription order), then to every matching pattern's subscribers
// (patterns in creation order), and returns the receiver count. Each client holds its own sets
// in a PubSubState (Client::pubsub).
//
// Invariants: a client appears at most once per channel / pattern; a channel or pattern with no
// subscriber is forgotten; frames are encoded once per publish (the RESP3 form only differs by
// its first byte) and the same bytes appended to each receiver, which is queued for flushing.
// Frames are out-of-band pushes: CLIENT REPLY OFF|SKIP does not silence them (Redis'
// CLIENT_PUSHING).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace listd::server {

struct Client;

/// Names in insertion order with O(1) membership (a client's channels or patterns).
class OrderedNames {
 public:
  OrderedNames() = default;
  OrderedNames(const OrderedNames&) = delete;
  OrderedNames& operator=(const OrderedNames&) = delete;

  /// False if already present.
  bool insert(std::string_view name);
  /// False if absent.
  bool erase(std::string_view name);
  bool contains(std::string_view name) const { return index_.contains(name); }
  std::size_t size() const noexcept { return order_.size(); }
  bool empty() const noexcept { return order_.empty(); }
  const std::string& front() const { return order_.front(); }
  /// Every name, in insertion order.
  const std::list<std::string>& names() const noexcept { return order_; }

 private:
  struct ViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::list<std::string> order_;  // list nodes never move: index_ keys view into them
  std::unordered_map<std::string_view, std::list<std::string>::iterator, ViewHash> index_;
};

/// One client's subscriptions (Redis client->pubsub_channels / pubsub_patterns /
/// pubsubshard_channels).
struct PubSubState {
  OrderedNames channels;
  OrderedNames patterns;
  OrderedNames shard_channels;
  /// Push frames written into the running client's output while its replies are silenced
  /// (CLIENT REPLY OFF|SKIP), as [begin, end) offsets in Client::out: the executor keeps them
  /// when it drops the command's reply (drop_reply_keep_pushes).
  std::vector<std::pair<std::size_t, std::size_t>> silenced_pushes;

  /// Redis clientSubscriptionsCount: what (P)SUBSCRIBE and (P)UNSUBSCRIBE frames report.
  std::size_t channel_and_pattern_count() const noexcept {
    return channels.size() + patterns.size();
  }
  /// Redis CLIENT_PUBSUB: in RESP2, such a client may only run the subscribed-mode commands.
  bool subscribed() const noexcept {
    return !channels.empty() || !patterns.empty() || !shard_channels.empty();
  }
};

/// Global channels (SUBSCRIBE/PUBLISH) or shard channels (SSUBSCRIBE/SPUBLISH).
enum class ChannelScope : unsigned char { kGlobal, kShard };

class PubSub {
 public:
  /// `queue_flush` is called for every client that received a frame from another client.
  explicit PubSub(std::function<void(Client&)> queue_flush);
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;

  /// SUBSCRIBE / SSUBSCRIBE of one channel (a repeat only answers again).
  void subscribe(Client& c, std::string_view channel, ChannelScope scope);
  /// UNSUBSCRIBE / SUNSUBSCRIBE of one channel; `notify` writes the frame.
  void unsubscribe(Client& c, std::string_view channel, ChannelScope scope, bool notify);
  /// UNSUBSCRIBE / SUNSUBSCRIBE without arguments: one frame per channel left, or one frame
  /// with a null channel when there was none.
  void unsubscribe_all(Client& c, ChannelScope scope, bool notify);
  void psubscribe(Client& c, std::string_view pattern);
  void punsubscribe(Client& c, std::string_view pattern, bool notify);
  void punsubscribe_all(Client& c, bool notify);
  /// RESET and disconnect: leaves everything, no frames (Redis clearClientConnectionState).
  void leave_all(Client& c);

  /// PUBLISH / SPUBLISH: delivers to channel subscribers, then (global scope only) to pattern
  /// subscribers; returns how many frames were delivered. O(subscribers + patterns).
  /// `publisher` is the running client (it may receive its own message in RESP3).
  std::size_t publish(std::string_view channel, std::string_view message, ChannelScope scope,
                      const Client* publisher = nullptr);

  /// PUBSUB NUMSUB / SHARDNUMSUB: subscribers of one channel (patterns not counted).
  std::size_t subscriber_count(std::string_view channel, ChannelScope scope) const;
  /// PUBSUB CHANNELS / SHARDCHANNELS, INFO pubsub_channels / pubsubshard_channels.
  std::size_t channel_count(ChannelScope scope) const noexcept { return table(scope).size(); }
  /// PUBSUB NUMPAT, INFO pubsub_patterns: distinct patterns with a subscriber.
  std::size_t pattern_count() const noexcept { return patterns_.size(); }
  /// Every channel with a subscriber (order unspecified, as Redis' dict order).
  template <class F>
  void for_each_channel(ChannelScope scope, F&& f) const {
    for (const auto& [name, subscribers] : table(scope)) f(std::string_view(name));
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  using Subscribers = std::vector<Client*>;
  using ChannelTable = std::unordered_map<std::string, Subscribers, Hash, std::equal_to<>>;
  struct Pattern {
    std::string text;
    Subscribers subscribers;
  };

  ChannelTable& table(ChannelScope s) noexcept {
    return s == ChannelScope::kShard ? shard_channels_ : channels_;
  }
  const ChannelTable& table(ChannelScope s) const noexcept {
    return s == ChannelScope::kShard ? shard_channels_ : channels_;
  }
  /// Appends a frame to `c` (the RESP3 form of a RESP2-encoded `frame`), queued for flushing.
  void deliver(Client& c, std::string_view frame, const Client* publisher);
  void write_count_frame(Client& c, std::string_view kind, const std::string_view* name,
                         std::size_t count);

  ChannelTable channels_;
  ChannelTable shard_channels_;
  std::list<Pattern> patterns_;  // creation order: the order pmessages are delivered in
  std::unordered_map<std::string_view, std::list<Pattern>::iterator, Hash, std::equal_to<>>
      pattern_index_;
  std::function<void(Client&)> queue_flush_;
};

/// A push appended at `begin` to the running client's own output: kept by
/// drop_reply_keep_pushes while its replies are silenced (CLIENT REPLY OFF|SKIP).
void note_silenced_push(Client& c, std::size_t begin);

/// CLIENT REPLY OFF|SKIP dropped a command's reply: cuts Client::out back to `from`, keeping the
/// push frames written since (they are never silenced). `nested` inside EXEC, whose own
/// dropping comes later and must keep them too.
void drop_reply_keep_pushes(Client& c, std::size_t from, bool nested);

}  // namespace listd::server
