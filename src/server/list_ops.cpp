#include "listd/server/list_ops.h"

#include <algorithm>
#include <cstdint>

#include "listd/server/executor.h"

namespace listd::server {
namespace {

std::string_view pop_event(End end) { return end == End::kHead ? "lpop" : "rpop"; }
std::string_view push_event(End end) { return end == End::kHead ? "lpush" : "rpush"; }

// The key goes when its list is empty (Redis deletes empty lists; TYPE says none), with the
// `del` event Redis sends after the pop's.
void delete_if_empty(Executor& exec, store::Database& db, store::Entry* entry) {
  if (!entry->value.as_list().empty()) return;
  exec.notify(config::kNotifyGeneric, "del", entry->key(), db.index());
  db.remove(entry->key());
}

// Redis listElementsRemoved: the pop's event, then `del` if the list is now empty.
void popped(Executor& exec, store::Database& db, store::Entry* entry, End end) {
  exec.notify(config::kNotifyList, pop_event(end), entry->key(), db.index());
  delete_if_empty(exec, db, entry);
}

}  // namespace

std::size_t list_pop_reply(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
                           store::Entry* entry, End end, std::size_t count) {
  store::PackedList& list = entry->value.as_list();
  const std::size_t n = std::min(count, list.size());
  reply.array_header(n);
  if (n == 0) return 0;
  exec.count_queue_event(*entry, db.index(), QueueEvent::kPop, static_cast<std::uint32_t>(n));
  // Write from the packed bytes, then drop the whole run at once: no per-element string.
  if (end == End::kHead) {
    list.for_each_in_range(0, n - 1, [&](std::string_view v) { reply.bulk(v); });
    list.erase_front(n);
  } else {
    std::size_t left = n;
    list.scan_backward([&](std::size_t, std::string_view v) {
      reply.bulk(v);
      return --left != 0;
    });
    list.erase_back(n);
  }
  popped(exec, db, entry, end);
  return n;
}

void list_pop_one_reply(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
                        store::Entry* entry, End end) {
  store::PackedList& list = entry->value.as_list();
  exec.count_queue_event(*entry, db.index(), QueueEvent::kPop, 1);
  if (end == End::kHead) {
    reply.bulk(list.front());
    list.erase_front(1);
  } else {
    reply.bulk(list.back());
    list.erase_back(1);
  }
  popped(exec, db, entry, end);
}

std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::span<const std::string_view> values) {
  if (!entry) entry = exec.add_key(db, key, store::Value::make_list());
  exec.count_queue_event(*entry, db.index(), QueueEvent::kPush,
                         static_cast<std::uint32_t>(values.size()));
  store::PackedList& list = entry->value.as_list();
  for (std::string_view v : values) {
    if (end == End::kHead)
      list.push_front(v);
    else
      list.push_back(v);
  }
  return list.size();
}

void notify_push(Executor& exec, int db, std::string_view key, End end) {
  exec.notify(config::kNotifyList, push_event(end), key, db);
}

std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::string_view value) {
  return list_push(exec, db, key, entry, end, std::span<const std::string_view>(&value, 1));
}

void list_move(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
               store::Entry* src_entry, std::string_view dst, store::Entry* dst_entry, End from,
               End to) {
  // The source is not deleted before the push, even when emptied: a rotation (one list) then
  // never loses its key, TTL or waiters, and `dst_entry` stays valid (entries never move).
  store::PackedList& src_list = src_entry->value.as_list();
  const std::string value = from == End::kHead ? src_list.pop_front() : src_list.pop_back();
  const std::string_view src = src_entry->key();
  exec.count_queue_event(*src_entry, db.index(), QueueEvent::kPop, 1);
  if (src_entry == dst_entry) {
    exec.count_queue_event(*src_entry, db.index(), QueueEvent::kPush, 1);
    if (to == End::kHead)
      src_list.push_front(value);
    else
      src_list.push_back(value);
  } else {
    list_push(exec, db, dst, dst_entry, to, value);
  }
  notify_push(exec, db.index(), dst, to);
  reply.bulk(value);
  // Redis lmoveGenericCommand: the push's event, the reply, then the pop's (and `del`).
  exec.notify(config::kNotifyList, pop_event(from), src, db.index());
  delete_if_empty(exec, db, src_entry);
}

void emit_list_pop(Executor& exec, int db, std::string_view key, End end, bool with_count,
                   std::size_t popped) {
  EffectStream& effects = exec.effects();
  if (!effects.active()) return;
  const std::string_view name = end == End::kHead ? "LPOP" : "RPOP";
  if (!with_count) {
    effects.emit(db, {name, key});
    return;
  }
  const std::string n = std::to_string(popped);
  effects.emit(db, {name, key, n});
}

void emit_list_move(Executor& exec, int db, std::string_view src, std::string_view dst, End from,
                    End to, bool as_rpoplpush) {
  // Redis' shared.left / shared.right, lower case (the immediate form keeps the client's words).
  auto side = [](End e) -> std::string_view { return e == End::kHead ? "left" : "right"; };
  if (as_rpoplpush)
    exec.effects().emit(db, {"RPOPLPUSH", src, dst});
  else
    exec.effects().emit(db, {"LMOVE", src, dst, side(from), side(to)});
}

}  // namespace listd::server
