#include "listd/server/list_ops.h"

#include "listd/server/executor.h"

namespace listd::server {

std::vector<std::string> list_pop(store::Database& db, store::Entry* entry, End end,
                                  std::size_t count) {
  store::PackedList& list = entry->value.as_list();
  std::vector<std::string> out;
  const std::size_t n = std::min(count, list.size());
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(end == End::kHead ? list.pop_front() : list.pop_back());
  if (list.empty()) db.remove(entry->key());
  return out;
}

std::string list_pop_one(store::Database& db, store::Entry* entry, End end) {
  store::PackedList& list = entry->value.as_list();
  std::string v = end == End::kHead ? list.pop_front() : list.pop_back();
  if (list.empty()) db.remove(entry->key());
  return v;
}

std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::string_view value) {
  if (!entry) entry = exec.add_key(db, key, store::Value::make_list());
  store::PackedList& list = entry->value.as_list();
  if (end == End::kHead)
    list.push_front(value);
  else
    list.push_back(value);
  return list.size();
}

}  // namespace listd::server
