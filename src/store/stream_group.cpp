#include "listd/store/stream_group.h"

namespace listd::store {

StreamConsumer* StreamGroup::find_consumer(std::string_view name) noexcept {
  const auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : &it->second;
}

StreamConsumer& StreamGroup::create_consumer(std::string_view name, std::int64_t now_ms,
                                             bool* created) {
  auto [it, inserted] = consumers.try_emplace(std::string(name));
  if (inserted) {
    it->second.name = std::string(name);
    it->second.seen_time = now_ms;
  }
  if (created) *created = inserted;
  return it->second;
}

std::size_t StreamGroup::delete_consumer(std::string_view name) {
  const auto it = consumers.find(name);
  if (it == consumers.end()) return 0;
  const std::size_t pending = it->second.pel.size();
  for (const auto& [id, nack] : it->second.pel) pel.erase(id);
  consumers.erase(it);
  return pending;
}

StreamNack& StreamGroup::deliver(StreamId id, StreamConsumer& c, std::int64_t now_ms,
                                 bool bump_count) {
  auto [it, inserted] = pel.try_emplace(id);
  StreamNack& nack = it->second;
  if (inserted) {
    nack.delivery_count = 1;
  } else {
    if (bump_count) ++nack.delivery_count;
    if (nack.consumer) nack.consumer->pel.erase(id);
  }
  nack.delivery_time = now_ms;
  nack.consumer = &c;
  c.pel[id] = &nack;
  return nack;
}

void StreamGroup::reassign(StreamNack& nack, StreamId id, StreamConsumer& c) {
  if (nack.consumer == &c) return;
  if (nack.consumer) nack.consumer->pel.erase(id);
  nack.consumer = &c;
  c.pel[id] = &nack;
}

bool StreamGroup::ack(StreamId id) {
  const auto it = pel.find(id);
  if (it == pel.end()) return false;
  if (it->second.consumer) it->second.consumer->pel.erase(id);
  pel.erase(it);
  return true;
}

StreamGroup StreamGroup::clone() const {
  StreamGroup g(last_id, entries_read);
  for (const auto& [name, c] : consumers) {
    StreamConsumer& copy = g.consumers[name];
    copy.name = c.name;
    copy.seen_time = c.seen_time;
  }
  for (const auto& [id, nack] : pel) {
    StreamNack& n = g.pel[id];
    n.delivery_time = nack.delivery_time;
    n.delivery_count = nack.delivery_count;
    if (nack.consumer) {
      StreamConsumer& owner = g.consumers.find(nack.consumer->name)->second;
      n.consumer = &owner;
      owner.pel[id] = &n;
    }
  }
  return g;
}

}  // namespace listd::store
