#include "listd/server/queue_view.h"

#include <algorithm>
#include <map>
#include <utility>

#include "listd/server/executor.h"

namespace listd::server {
namespace {

std::uint64_t queue_length(const store::Database& db, std::string_view key,
                           std::int64_t now_unix_ms) {
  const store::Entry* e = db.peek(key);
  if (!e || store::Database::expired(*e, now_unix_ms)) return 0;
  switch (e->value.type()) {
    case store::ValueType::kList: return e->value.as_list().size();
    case store::ValueType::kZSet: return e->value.as_zset().size();
    case store::ValueType::kStream: return e->value.as_stream().length();
    default: return 0;
  }
}

}  // namespace

std::vector<QueueSnapshot> queue_snapshot(Executor& exec, std::uint64_t now_ms,
                                          std::int64_t now_unix_ms) {
  // An ordered map merges the two sources (tracked traffic, waited keys) and sorts them.
  std::map<std::pair<int, std::string>, QueueSnapshot> rows;
  auto row = [&](int db, std::string_view key) -> QueueSnapshot& {
    QueueSnapshot& r = rows[{db, std::string(key)}];
    r.db = db;
    if (r.key.empty()) r.key = key;
    return r;
  };
  exec.queue_stats().for_each_key([&](const store::DbKey& k) { row(k.db, k.key); });
  blocking::WaiterRegistry& waiters = exec.blocking().waiters();
  waiters.for_each_key([&](const store::DbKey& k, std::size_t count) {
    if (k.db < 0) return;  // WAIT's clients wait on db -1: no queue
    QueueSnapshot& r = row(k.db, k.key);
    r.waiters = count;
    // The queue is FIFO: its front waited longest.
    if (const blocking::Waiter* w = waiters.front(k.db, k.key)) {
      const auto* c = static_cast<const Client*>(w->owner());
      r.oldest_wait_ms = now_ms > c->blocked_since_ms ? now_ms - c->blocked_since_ms : 0;
    }
  });
  std::vector<QueueSnapshot> out;
  out.reserve(rows.size());
  const std::uint64_t now_s = now_ms / 1000;
  for (auto& [id, r] : rows) {
    if (r.db >= 0 && r.db < exec.keyspace().database_count())
      r.length = queue_length(exec.keyspace().db(r.db), r.key, now_unix_ms);
    r.rates = exec.queue_stats().rates(r.db, r.key, now_s);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace listd::server
