#include "listd/server/list_ops.h"

#include <algorithm>
#include <cstdint>

#include "listd/server/executor.h"

namespace listd::server {
namespace {

// The key goes when its list is empty (Redis deletes empty lists; TYPE says none).
void delete_if_empty(store::Database& db, store::Entry* entry) {
  if (entry->value.as_list().empty()) db.remove(entry->key());
}

}  // namespace

std::string list_pop_one(store::Database& db, store::Entry* entry, End end) {
  store::PackedList& list = entry->value.as_list();
  std::string v = end == End::kHead ? list.pop_front() : list.pop_back();
  delete_if_empty(db, entry);
  return v;
}

std::size_t list_pop_reply(protocol::ReplyWriter reply, store::Database& db, store::Entry* entry,
                           End end, std::size_t count) {
  store::PackedList& list = entry->value.as_list();
  const std::size_t n = std::min(count, list.size());
  reply.array_header(n);
  if (n == 0) return 0;
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
  delete_if_empty(db, entry);
  return n;
}

void list_pop_one_reply(protocol::ReplyWriter reply, store::Database& db, store::Entry* entry,
                        End end) {
  store::PackedList& list = entry->value.as_list();
  if (end == End::kHead) {
    reply.bulk(list.front());
    list.erase_front(1);
  } else {
    reply.bulk(list.back());
    list.erase_back(1);
  }
  delete_if_empty(db, entry);
}

std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::span<const std::string_view> values) {
  if (!entry) {
    entry = exec.add_key(db, key, store::Value::make_list());
    entry->access_time_s = static_cast<std::uint32_t>(exec.command_unix_ms() / 1000);
  }
  store::PackedList& list = entry->value.as_list();
  for (std::string_view v : values) {
    if (end == End::kHead)
      list.push_front(v);
    else
      list.push_back(v);
  }
  return list.size();
}

std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::string_view value) {
  return list_push(exec, db, key, entry, end, std::span<const std::string_view>(&value, 1));
}

std::string list_move(Executor& exec, store::Database& db, store::Entry* src_entry,
                      std::string_view dst, store::Entry* dst_entry, End from, End to) {
  if (src_entry == dst_entry) {
    // Rotation: pushed back before anyone could see the list empty.
    store::PackedList& list = src_entry->value.as_list();
    std::string value = from == End::kHead ? list.pop_front() : list.pop_back();
    if (to == End::kHead)
      list.push_front(value);
    else
      list.push_back(value);
    return value;
  }
  // Deleting an emptied source leaves `dst_entry` valid: dictionary entries never move.
  std::string value = list_pop_one(db, src_entry, from);
  list_push(exec, db, dst, dst_entry, to, value);
  return value;
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
