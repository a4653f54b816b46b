#include "listd/server/stream_group_ops.h"

#include <string>

#include "listd/server/effect_stream.h"
#include "listd/server/stream_ops.h"

namespace listd::server {

long long estimate_entries_read(const store::StreamValue& s, store::StreamId id) noexcept {
  const auto added = static_cast<long long>(s.entries_added());
  if (added == 0) return 0;
  if (s.length() == 0 && id <= s.last_id()) return added;
  if (id == s.last_id()) return added;
  if (id > s.last_id()) return kInvalidEntriesRead;
  const store::StreamId first = s.first_id();
  const store::StreamId max_deleted = s.max_deleted_id();
  if (max_deleted.is_zero() || max_deleted < first) {
    // No tombstone ahead of the first entry: the count before it is exact.
    const auto length = static_cast<long long>(s.length());
    if (id < first) return added - length;
    if (id == first) return added - length + 1;
  }
  return kInvalidEntriesRead;
}

bool range_has_tombstones(const store::StreamValue& s, store::StreamId start) noexcept {
  const store::StreamId max_deleted = s.max_deleted_id();
  if (s.length() == 0 || max_deleted.is_zero()) return false;
  if (s.first_id() > max_deleted) return false;
  return start <= max_deleted;
}

std::optional<long long> group_lag(const store::StreamValue& s,
                                   const store::StreamGroup& g) noexcept {
  const auto added = static_cast<long long>(s.entries_added());
  if (added == 0) return 0;
  if (g.entries_read != kInvalidEntriesRead && !range_has_tombstones(s, g.last_id))
    return added - g.entries_read;
  const long long read = estimate_entries_read(s, g.last_id);
  if (read == kInvalidEntriesRead) return std::nullopt;
  return added - read;
}

bool reply_entry_by_id(protocol::ReplyWriter r, const store::StreamValue& s, store::StreamId id) {
  store::StreamIterator it(s, id, id, false);
  if (!it.next()) return false;
  reply_stream_entry(r, it);
  return true;
}

namespace {

// The group's position after delivering `id` (the counter kept exact while it can be).
void advance_group(const store::StreamValue& s, store::StreamGroup& g, store::StreamId id) {
  if (g.entries_read != kInvalidEntriesRead && !range_has_tombstones(s, id))
    ++g.entries_read;
  else if (s.entries_added() != 0)
    g.entries_read = estimate_entries_read(s, id);
  g.last_id = id;
}

// The entry enters both PELs; one pending for another consumer moves here with count 1.
store::StreamNack& record_delivery(store::StreamGroup& g, store::StreamConsumer& c,
                                   store::StreamId id, std::int64_t now_ms) {
  const auto it = g.pel.find(id);
  if (it == g.pel.end()) return g.deliver(id, c, now_ms, false);
  store::StreamNack& nack = it->second;
  g.reassign(nack, id, c);
  nack.delivery_time = now_ms;
  nack.delivery_count = 1;
  return nack;
}

}  // namespace

std::size_t deliver_new_entries(protocol::ReplyWriter r, const store::StreamValue& s,
                                store::StreamGroup& g, store::StreamConsumer& c,
                                store::StreamId start, std::size_t count, bool noack,
                                std::int64_t now_ms, const GroupEffectTarget& target) {
  std::size_t n = 0;
  const store::StreamId end = store::StreamId::max();
  for (store::StreamIterator it(s, start, end, false); (count == 0 || n < count) && it.next();) ++n;
  r.array_header(n);
  bool moved_last_id = false;
  store::StreamIterator it(s, start, end, false);
  for (std::size_t i = 0; i < n && it.next(); ++i) {
    const store::StreamId id = it.id();
    if (id > g.last_id) {
      advance_group(s, g, id);
      moved_last_id = true;
    }
    reply_stream_entry(r, it);
    if (noack) continue;
    const store::StreamNack& nack = record_delivery(g, c, id, now_ms);
    if (target.effects && target.effects->active()) emit_xclaim(target, g, id.to_string(), nack);
  }
  // Without PEL entries, no XCLAIM carries the new last id: propagate it on its own.
  if (noack && moved_last_id) emit_group_setid(target, g);
  return n;
}

std::size_t reply_consumer_history(protocol::ReplyWriter r, const store::StreamValue& s,
                                   store::StreamConsumer& c, store::StreamId start,
                                   std::size_t count, std::int64_t now_ms) {
  auto it = c.pel.lower_bound(start);
  std::size_t n = 0;
  for (auto j = it; j != c.pel.end() && (count == 0 || n < count); ++j) ++n;
  r.array_header(n);
  for (std::size_t i = 0; i < n; ++i, ++it) {
    if (reply_entry_by_id(r, s, it->first)) {
      it->second->delivery_time = now_ms;
      ++it->second->delivery_count;
    } else {
      // Deleted from the stream since it was delivered: the id with a null entry.
      r.array_header(2);
      reply_stream_id(r, it->first);
      r.null_array();
    }
  }
  return n;
}

void emit_xclaim(const GroupEffectTarget& t, const store::StreamGroup& g, std::string_view id,
                 const store::StreamNack& nack) {
  if (!t.effects || !t.effects->active()) return;
  const std::string time = std::to_string(nack.delivery_time);
  const std::string retries = std::to_string(nack.delivery_count);
  const std::string last = g.last_id.to_string();
  t.effects->emit(t.db, {"XCLAIM", t.key, t.group, nack.consumer->name, "0", id, "TIME", time,
                         "RETRYCOUNT", retries, "FORCE", "JUSTID", "LASTID", last});
}

void emit_group_setid(const GroupEffectTarget& t, const store::StreamGroup& g) {
  if (!t.effects || !t.effects->active()) return;
  const std::string last = g.last_id.to_string();
  const std::string read = std::to_string(g.entries_read);
  t.effects->emit(t.db, {"XGROUP", "SETID", t.key, t.group, last, "ENTRIESREAD", read});
}

void emit_consumer_creation(const GroupEffectTarget& t, std::string_view consumer) {
  if (!t.effects || !t.effects->active()) return;
  t.effects->emit(t.db, {"XGROUP", "CREATECONSUMER", t.key, t.group, consumer});
}

}  // namespace listd::server
