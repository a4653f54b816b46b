#include "listd/server/pubsub.h"

#include <algorithm>
#include <initializer_list>

#include "listd/base/glob.h"
#include "listd/protocol/reply_writer.h"
#include "listd/server/client.h"

namespace listd::server {
namespace {

// The frame kinds, as Redis' shared.*bulk objects.
constexpr std::string_view kSubscribe[] = {"subscribe", "ssubscribe"};
constexpr std::string_view kUnsubscribe[] = {"unsubscribe", "sunsubscribe"};
constexpr std::string_view kMessage[] = {"message", "smessage"};

std::size_t index_of(ChannelScope s) { return s == ChannelScope::kShard ? 1 : 0; }

OrderedNames& names_of(Client& c, ChannelScope s) {
  return s == ChannelScope::kShard ? c.pubsub.shard_channels : c.pubsub.channels;
}

// What the (un)subscribe frame reports: channels + patterns, or shard channels alone.
std::size_t reported_count(const Client& c, ChannelScope s) {
  return s == ChannelScope::kShard ? c.pubsub.shard_channels.size()
                                   : c.pubsub.channel_and_pattern_count();
}

void erase_subscriber(std::vector<Client*>& subscribers, const Client* c) {
  // Order matters (delivery order), so erase rather than swap with the last.
  auto it = std::find(subscribers.begin(), subscribers.end(), c);
  if (it != subscribers.end()) subscribers.erase(it);
}

// The RESP2 encoding of [kind, name..., payload]; RESP3 differs only in its first byte.
std::string encode_frame(std::initializer_list<std::string_view> parts) {
  std::string frame;
  protocol::ReplyWriter w(frame, protocol::RespVersion::kResp2);
  w.array_header(parts.size());
  for (std::string_view p : parts) w.bulk(p);
  return frame;
}

}  // namespace

// ---- OrderedNames -----------------------------------------------------------------------

bool OrderedNames::insert(std::string_view name) {
  if (index_.contains(name)) return false;
  order_.emplace_back(name);
  auto it = std::prev(order_.end());
  index_.emplace(std::string_view(*it), it);
  return true;
}

bool OrderedNames::erase(std::string_view name) {
  auto found = index_.find(name);
  if (found == index_.end()) return false;
  auto node = found->second;
  index_.erase(found);  // before the node its key views goes away
  order_.erase(node);
  return true;
}

// ---- PubSub -----------------------------------------------------------------------------

PubSub::PubSub(std::function<void(Client&)> queue_flush) : queue_flush_(std::move(queue_flush)) {}

void PubSub::write_count_frame(Client& c, std::string_view kind, const std::string_view* name,
                               std::size_t count) {
  const std::size_t begin = c.out.size();
  auto r = c.reply();
  r.push_header(3);
  r.bulk(kind);
  if (name)
    r.bulk(*name);
  else
    r.null();
  r.integer(static_cast<long long>(count));
  note_silenced_push(c, begin);
}

void PubSub::subscribe(Client& c, std::string_view channel, ChannelScope scope) {
  if (names_of(c, scope).insert(channel)) {
    ChannelTable& t = table(scope);
    auto it = t.find(channel);
    if (it == t.end()) it = t.emplace(std::string(channel), Subscribers{}).first;
    it->second.push_back(&c);
  }
  write_count_frame(c, kSubscribe[index_of(scope)], &channel, reported_count(c, scope));
}

void PubSub::unsubscribe(Client& c, std::string_view channel, ChannelScope scope, bool notify) {
  // `channel` may view the client's own copy (unsubscribe_all): keep it alive for the frame.
  const std::string name(channel);
  if (names_of(c, scope).erase(name)) {
    ChannelTable& t = table(scope);
    auto it = t.find(std::string_view(name));
    if (it != t.end()) {
      erase_subscriber(it->second, &c);
      if (it->second.empty()) t.erase(it);  // no subscriber: forget the channel
    }
  }
  if (notify) {
    const std::string_view view(name);
    write_count_frame(c, kUnsubscribe[index_of(scope)], &view, reported_count(c, scope));
  }
}

void PubSub::unsubscribe_all(Client& c, ChannelScope scope, bool notify) {
  OrderedNames& mine = names_of(c, scope);
  if (mine.empty()) {
    if (notify)
      write_count_frame(c, kUnsubscribe[index_of(scope)], nullptr, reported_count(c, scope));
    return;
  }
  while (!mine.empty()) unsubscribe(c, mine.front(), scope, notify);
}

void PubSub::psubscribe(Client& c, std::string_view pattern) {
  if (c.pubsub.patterns.insert(pattern)) {
    auto it = pattern_index_.find(pattern);
    if (it == pattern_index_.end()) {
      patterns_.push_back(Pattern{std::string(pattern), {}});
      auto node = std::prev(patterns_.end());
      it = pattern_index_.emplace(std::string_view(node->text), node).first;
    }
    it->second->subscribers.push_back(&c);
  }
  write_count_frame(c, "psubscribe", &pattern, c.pubsub.channel_and_pattern_count());
}

void PubSub::punsubscribe(Client& c, std::string_view pattern, bool notify) {
  const std::string name(pattern);
  if (c.pubsub.patterns.erase(name)) {
    auto it = pattern_index_.find(std::string_view(name));
    if (it != pattern_index_.end()) {
      auto node = it->second;
      erase_subscriber(node->subscribers, &c);
      if (node->subscribers.empty()) {
        pattern_index_.erase(it);
        patterns_.erase(node);
      }
    }
  }
  if (notify) {
    const std::string_view view(name);
    write_count_frame(c, "punsubscribe", &view, c.pubsub.channel_and_pattern_count());
  }
}

void PubSub::punsubscribe_all(Client& c, bool notify) {
  if (c.pubsub.patterns.empty()) {
    if (notify) write_count_frame(c, "punsubscribe", nullptr, c.pubsub.channel_and_pattern_count());
    return;
  }
  while (!c.pubsub.patterns.empty()) punsubscribe(c, c.pubsub.patterns.front(), notify);
}

void PubSub::leave_all(Client& c) {
  unsubscribe_all(c, ChannelScope::kGlobal, false);
  unsubscribe_all(c, ChannelScope::kShard, false);
  punsubscribe_all(c, false);
  c.pubsub.silenced_pushes.clear();
}

void PubSub::deliver(Client& c, std::string_view frame, const Client* publisher) {
  // A client over its output-buffer limit still counts as a receiver until it is closed at the
  // end of the turn, but gets nothing more (Redis prepareClientToWrite refuses CLOSE_ASAP).
  if (c.close_asap) return;
  const std::size_t begin = c.out.size();
  if (c.resp == protocol::RespVersion::kResp3) {
    c.out.push_back('>');
    c.out.append(frame.substr(1));
  } else {
    c.out.append(frame);
  }
  if (&c == publisher) note_silenced_push(c, begin);  // only the running client drops replies
  queue_flush_(c);
}

std::size_t PubSub::publish(std::string_view channel, std::string_view message, ChannelScope scope,
                            const Client* publisher) {
  std::size_t receivers = 0;
  const ChannelTable& t = table(scope);
  if (auto it = t.find(channel); it != t.end()) {
    const std::string frame = encode_frame({kMessage[index_of(scope)], channel, message});
    for (Client* c : it->second) deliver(*c, frame, publisher);
    receivers += it->second.size();
  }
  if (scope == ChannelScope::kShard) return receivers;  // shard channels ignore patterns
  for (const Pattern& p : patterns_) {
    if (!base::glob_match(p.text, channel)) continue;
    const std::string frame = encode_frame({"pmessage", p.text, channel, message});
    for (Client* c : p.subscribers) deliver(*c, frame, publisher);
    receivers += p.subscribers.size();
  }
  return receivers;
}

std::size_t PubSub::subscriber_count(std::string_view channel, ChannelScope scope) const {
  const ChannelTable& t = table(scope);
  auto it = t.find(channel);
  return it == t.end() ? 0 : it->second.size();
}

// ---- hooks for the executor -------------------------------------------------------------

void note_silenced_push(Client& c, std::size_t begin) {
  if (c.reply_mode == ReplyMode::kOn) return;
  auto& pushes = c.pubsub.silenced_pushes;
  // Entries past the write position are left from an output buffer flushed since.
  std::erase_if(pushes, [begin](const auto& range) { return range.second > begin; });
  pushes.emplace_back(begin, c.out.size());
}

void drop_reply_keep_pushes(Client& c, std::size_t from, bool nested) {
  auto& pushes = c.pubsub.silenced_pushes;
  if (pushes.empty()) {
    c.out.resize(from);
    return;
  }
  std::string kept;
  std::vector<std::pair<std::size_t, std::size_t>> still;
  for (auto [begin, end] : pushes) {
    if (end > c.out.size()) continue;  // stale: the buffer was flushed since
    if (begin < from) {
      still.emplace_back(begin, end);  // an enclosing command's (EXEC) decides on it
    } else {
      still.emplace_back(from + kept.size(), from + kept.size() + (end - begin));
      kept.append(c.out, begin, end - begin);
    }
  }
  c.out.resize(from);
  c.out += kept;
  if (nested)
    pushes = std::move(still);
  else
    pushes.clear();
}

}  // namespace listd::server
