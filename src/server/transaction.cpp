#include "listd/server/transaction.h"

#include <algorithm>
#include <string>

#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {

void Transaction::begin(Client& c) {
  c.in_multi = true;
  c.multi_error = false;
  c.queued.clear();
}

void Transaction::queue(Client& c, std::span<const std::string_view> argv) {
  auto& q = c.queued.emplace_back();
  q.reserve(argv.size());
  for (std::string_view a : argv) q.emplace_back(a);
}

void Transaction::flag(Client& c) noexcept {
  if (c.in_multi) c.multi_error = true;
}

void Transaction::discard(Client& c) {
  c.in_multi = false;
  c.multi_error = false;
  c.queued.clear();
  c.queued_flags = 0;
  c.queued_shows_data = false;
  unwatch_all(c);
}

void Transaction::abort_exec(Client& c, std::string_view error) {
  const std::string_view reason = error.substr(error.rfind("ERR ", 0) == 0 ? 4 : 0);
  c.reply().error("EXECABORT Transaction discarded because of: " + std::string(reason));
  discard(c);
}

void Transaction::exec(Client& c) {
  auto reply = c.reply();
  if (!c.in_multi) {
    reply.error(kExecWithoutMultiErr);
    return;
  }
  auto queued = std::move(c.queued);
  const bool aborted = c.multi_error;
  const bool watch_failed = c.watch_dirty;
  discard(c);
  if (aborted) {
    reply.error(kExecAbortErr);
    return;
  }
  if (watch_failed) {
    reply.null_array();
    return;
  }
  reply.array_header(queued.size());
  std::vector<std::string_view> views;
  // The queued commands' effects join EXEC's execution unit: MULTI ... EXEC when more than one.
  for (auto& args : queued) {
    views.assign(args.begin(), args.end());
    exec_.run_queued(c, views);
  }
}

void Transaction::watch(Client& c, int db, std::string_view key) {
  for (const auto& w : c.watched)
    if (w.db == db && w.key == key) return;
  c.watched.push_back(store::DbKey{db, std::string(key)});
  auto it = watched_.find(store::DbKeyView{db, key});
  if (it == watched_.end())
    it = watched_.emplace(store::DbKey{db, std::string(key)}, std::vector<Client*>{}).first;
  it->second.push_back(&c);
}

void Transaction::unwatch_all(Client& c) {
  for (const auto& k : c.watched) {
    auto it = watched_.find(k);
    if (it == watched_.end()) continue;
    auto& watchers = it->second;
    watchers.erase(std::remove(watchers.begin(), watchers.end(), &c), watchers.end());
    if (watchers.empty()) watched_.erase(it);
  }
  c.watched.clear();
  c.watch_dirty = false;
}

void Transaction::touch_key(int db, std::string_view key) {
  if (watched_.empty()) return;
  auto it = watched_.find(store::DbKeyView{db, key});
  if (it == watched_.end()) return;
  for (Client* c : it->second) c->watch_dirty = true;
}

void Transaction::touch_existing(int db, const store::Database* a, const store::Database* b) {
  for (auto& [k, clients] : watched_) {
    if (k.db != db) continue;
    if ((a && a->peek(k.key)) || (b && b->peek(k.key)))
      for (Client* c : clients) c->watch_dirty = true;
  }
}

}  // namespace listd::server
