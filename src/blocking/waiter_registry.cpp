#include "listd/blocking/waiter_registry.h"

#include <algorithm>

namespace listd::blocking {

std::string_view Waiter::key(std::size_t i) const noexcept { return nodes_[i].queue->key->key; }

void WaiterRegistry::block(Waiter& waiter, int db, std::span<const std::string_view> keys) {
  unblock(waiter);
  waiter.db_ = db;
  // Reserve first: queues hold pointers to the nodes, which must never move while linked.
  waiter.nodes_.reserve(keys.size());
  for (std::string_view key : keys) {
    auto it = queues_.find(store::DbKeyView{db, key});
    if (it == queues_.end()) {
      it = queues_.emplace(store::DbKey{db, std::string(key)}, WaitQueue{}).first;
      it->second.key = &it->first;
    }
    WaitQueue& q = it->second;
    // BLPOP k k 0 waits on k once.
    if (q.tail && q.tail->waiter == &waiter) continue;
    WaitNode& node = waiter.nodes_.emplace_back();
    node.waiter = &waiter;
    node.queue = &q;
    node.prev = q.tail;
    if (q.tail)
      q.tail->next = &node;
    else
      q.head = &node;
    q.tail = &node;
    ++q.count;
  }
  ++blocked_;
}

void WaiterRegistry::unblock(Waiter& waiter) noexcept {
  if (waiter.nodes_.empty()) return;
  for (WaitNode& node : waiter.nodes_) {
    WaitQueue& q = *node.queue;
    (node.prev ? node.prev->next : q.head) = node.next;
    (node.next ? node.next->prev : q.tail) = node.prev;
    if (--q.count == 0) queues_.erase(queues_.find(*q.key));
  }
  waiter.nodes_.clear();
  --blocked_;
}

Waiter* WaiterRegistry::front(int db, std::string_view key) const noexcept {
  auto it = queues_.find(store::DbKeyView{db, key});
  return it == queues_.end() ? nullptr : it->second.head->waiter;
}

std::size_t WaiterRegistry::waiter_count(int db, std::string_view key) const noexcept {
  auto it = queues_.find(store::DbKeyView{db, key});
  return it == queues_.end() ? 0 : it->second.count;
}

void WaiterRegistry::signal_ready(int db, std::string_view key) {
  if (!has_waiters(db, key)) return;
  if (ready_set_.find(store::DbKeyView{db, key}) != ready_set_.end()) return;
  ready_set_.emplace(store::DbKey{db, std::string(key)});
  ready_order_.push_back(store::DbKey{db, std::string(key)});
}

std::vector<store::DbKey> WaiterRegistry::take_ready() {
  std::vector<store::DbKey> out;
  out.swap(ready_order_);
  ready_set_.clear();
  return out;
}

}  // namespace listd::blocking
