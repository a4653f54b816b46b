// Who waits for which key: per (db, key) a FIFO of blocked clients, plus the ready-key set.
//
// API: block(waiter, keys) / unblock(waiter) / front(key) / waiter_count(key) /
//      signal_ready(db, key) / take_ready().
// Two-sided index (Redis blocked.c): each key's queue links Waiter::Node objects, and each
// Waiter owns its nodes, so unblocking (served, timed out, disconnected, CLIENT UNBLOCK) costs
// O(1) per key it waits on, whatever the queue lengths.
// Invariants: a key has a queue entry iff at least one waiter waits on it; a waiter is in each
// of its keys' queues exactly once, in the order the blocking commands executed.
// The registry never calls back into commands: the server decides how a waiter is served.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "listd/blocking/timer_wheel.h"
#include "listd/store/db_key.h"

namespace listd::blocking {

class WaiterRegistry;
struct WaitNode;

/// One key's FIFO of waiters (intrusive doubly linked list of WaitNode).
struct WaitQueue {
  WaitNode* head = nullptr;
  WaitNode* tail = nullptr;
  std::size_t count = 0;
  const store::DbKey* key = nullptr;  ///< Points at the registry map's own key.
};

class Waiter;

/// A waiter's membership in one key's queue.
struct WaitNode {
  WaitNode* prev = nullptr;
  WaitNode* next = nullptr;
  WaitQueue* queue = nullptr;
  Waiter* waiter = nullptr;
};

/// The blocking state of one client. Owned by the server's client object; `owner` points back.
class Waiter {
 public:
  explicit Waiter(void* owner) noexcept : timer(owner), owner_(owner) {}
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  void* owner() const noexcept { return owner_; }
  bool blocked() const noexcept { return !nodes_.empty(); }
  /// The keys waited on, in argument order.
  std::size_t key_count() const noexcept { return nodes_.size(); }
  std::string_view key(std::size_t i) const noexcept;
  int db() const noexcept { return db_; }

  /// Deadline of the blocking command; scheduled in the server's TimerWheel when it has one.
  TimerNode timer;

 private:
  friend class WaiterRegistry;
  void* owner_;
  int db_ = 0;
  std::vector<WaitNode> nodes_;
};

class WaiterRegistry {
 public:
  WaiterRegistry() = default;
  WaiterRegistry(const WaiterRegistry&) = delete;
  WaiterRegistry& operator=(const WaiterRegistry&) = delete;

  /// Appends `waiter` to the queue of each key (duplicates in `keys` are waited on once).
  void block(Waiter& waiter, int db, std::span<const std::string_view> keys);
  void block(Waiter& waiter, int db, std::initializer_list<std::string_view> keys) {
    block(waiter, db, std::span<const std::string_view>(keys.begin(), keys.size()));
  }
  /// Removes `waiter` from every queue; no-op if it is not blocked.
  void unblock(Waiter& waiter) noexcept;

  /// The oldest waiter on (db, key), or null.
  Waiter* front(int db, std::string_view key) const noexcept;
  std::size_t waiter_count(int db, std::string_view key) const noexcept;
  bool has_waiters(int db, std::string_view key) const noexcept {
    return !queues_.empty() && queues_.find(store::DbKeyView{db, key}) != queues_.end();
  }
  /// Number of keys with at least one waiter (INFO total_blocking_keys).
  std::size_t blocking_key_count() const noexcept { return queues_.size(); }
  /// Number of blocked waiters (INFO blocked_clients).
  std::size_t blocked_count() const noexcept { return blocked_; }

  /// Marks (db, key) ready if someone waits on it; idempotent until take_ready().
  void signal_ready(int db, std::string_view key);
  bool has_ready() const noexcept { return !ready_order_.empty(); }
  /// Moves out the ready keys in the order they were signalled and clears the set.
  std::vector<store::DbKey> take_ready();

  /// Visits the waiters of (db, key) oldest first while `f(Waiter&)` returns true. `f` may
  /// unblock the waiter it was given (not others): the next one is read before the call.
  template <class F>
  void visit(int db, std::string_view key, F&& f) {
    auto it = queues_.find(store::DbKeyView{db, key});
    if (it == queues_.end()) return;
    WaitNode* node = it->second.head;
    const std::size_t count = it->second.count;
    for (std::size_t i = 0; node && i < count; ++i) {
      WaitNode* next = node->next;
      const bool last = next == nullptr;
      if (!f(*node->waiter) || last) return;  // the queue may be gone once its last node left
      node = next;
    }
  }

  /// Every key with waiters and its count, for introspection (DEBUG WAITERS).
  template <class F>
  void for_each_key(F&& f) const {
    for (const auto& [k, q] : queues_) f(k, q.count);
  }

 private:
  std::unordered_map<store::DbKey, WaitQueue, store::DbKeyHash, store::DbKeyEqual> queues_;
  std::unordered_set<store::DbKey, store::DbKeyHash, store::DbKeyEqual> ready_set_;
  std::vector<store::DbKey> ready_order_;
  std::size_t blocked_ = 0;
};

}  // namespace listd::blocking
