// One numbered database: its dictionary plus the expiry index.
//
// API: lookup (lazily removes an expired key) / add / remove / set_expire / persist /
// expire_cycle (bounded active reclamation) / clear.
// Expiry index: a min-heap of (deadline, key) with lazy invalidation. An entry in the heap is
// live only while the key still exists with exactly that deadline, so persist, re-expire and
// delete cost nothing there; the heap is rebuilt when stale items outnumber live ones 2:1.
// Invariant: expires_count() == number of entries with has_expire().
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/store/dict.h"

namespace listd::store {

class Database {
 public:
  /// Called with the key just before an expired entry is destroyed (lazily or actively).
  using ExpiredHook = std::function<void(Database&, std::string_view key)>;

  explicit Database(int index = 0) : index_(index) {}
  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;

  int index() const noexcept { return index_; }
  std::size_t size() const noexcept { return dict_.size(); }
  std::size_t expires_count() const noexcept { return expires_; }

  /// The live entry for `key`, or null. Removes the key first if it has expired at `now_ms`,
  /// unless expired keys are kept (a replica: only its master's DEL removes them).
  Entry* lookup(std::string_view key, std::int64_t now_ms);
  /// A replica keeps logically expired keys: lookup hides them and expire_cycle deletes none.
  void set_keep_expired(bool keep) noexcept { keep_expired_ = keep; }
  /// Like lookup but never deletes (for reads that must not have side effects, e.g. scans).
  Entry* peek(std::string_view key) const noexcept { return dict_.find(key); }
  static bool expired(const Entry& e, std::int64_t now_ms) noexcept {
    return e.expire_at_ms >= 0 && e.expire_at_ms <= now_ms;
  }

  /// Adds a new key (it must be absent: call lookup first).
  Entry* add(std::string_view key, Value value);
  /// Adds a detached entry (keeps its expiry).
  void add_entry(Entry* entry);
  /// Unlinks and returns the entry (caller owns it); null if absent.
  Entry* detach(std::string_view key);
  bool remove(std::string_view key);

  void set_expire(Entry& e, std::int64_t at_ms);
  /// Removes the expiry; returns whether there was one.
  bool persist(Entry& e);

  /// Deletes up to `budget` keys whose deadline is <= now_ms, earliest first. Returns the count.
  std::size_t expire_cycle(std::int64_t now_ms, std::size_t budget);
  /// Earliest deadline that may still be live (a lower bound), or -1.
  std::int64_t next_expire_hint() const noexcept;
  /// Up to out.size() live entries that have an expiry, picked at random (duplicates possible);
  /// the volatile-* eviction policies sample these (Redis samples its expires dict). Returns
  /// how many were written.
  std::size_t sample_volatile(std::mt19937_64& rng, std::span<Entry*> out) const;
  /// Bytes the expiry index holds: its deadline array and the keys' copies that live on the
  /// heap (MEMORY STATS overhead.hashtable.expires). Kept as a running count, so O(1).
  std::size_t expiry_index_bytes() const noexcept {
    return heap_.capacity() * sizeof(Deadline) + heap_key_bytes_;
  }
  /// Average remaining TTL in ms over keys with an expiry (INFO keyspace avg_ttl), 0 if none.
  long long average_ttl(std::int64_t now_ms) const noexcept;

  void clear() noexcept;
  void swap_contents(Database& other) noexcept;

  const Dict& dict() const noexcept { return dict_; }
  /// Redis' incrementallyRehash: the keyspace's rehash (or a pending shrink) for up to
  /// `budget_us`; returns whether there was work to do.
  bool incrementally_rehash(std::uint64_t budget_us) noexcept {
    return dict_.rehash_for_us(budget_us) > 0;
  }
  /// A step of giving back a finished rehash's old array (when no rehash may run); false when
  /// there was none.
  bool release_old_table() noexcept { return dict_.release_old_table(); }
  void set_expired_hook(ExpiredHook hook) { expired_hook_ = std::move(hook); }

 private:
  struct Deadline {
    std::int64_t at_ms;
    std::string key;
    bool operator>(const Deadline& o) const noexcept { return at_ms > o.at_ms; }
  };
  void forget_expire(const Entry& e) noexcept;
  /// With expired keys kept, an add may meet the hidden expired `key`: it goes first.
  void drop_kept_expired(std::string_view key);
  void delete_expired(Entry* e);
  void compact_heap();
  static std::size_t key_heap_bytes(const std::string& key) noexcept;

  int index_;
  Dict dict_;
  std::size_t expires_ = 0;
  long double expire_sum_ = 0;      // sum of live deadlines, for average_ttl
  std::vector<Deadline> heap_;      // min-heap by at_ms
  std::size_t heap_key_bytes_ = 0;  // sum of key_heap_bytes over heap_
  ExpiredHook expired_hook_;
  bool keep_expired_ = false;
};

class Keyspace {
 public:
  explicit Keyspace(int databases);

  int database_count() const noexcept { return static_cast<int>(dbs_.size()); }
  Database& db(int index) noexcept { return dbs_[static_cast<std::size_t>(index)]; }
  const Database& db(int index) const noexcept { return dbs_[static_cast<std::size_t>(index)]; }
  /// SWAPDB: exchanges the contents; indexes stay with their slots.
  void swap(int a, int b) noexcept;
  void set_expired_hook(const Database::ExpiredHook& hook);
  /// Database::set_keep_expired on every database (a replica's mode).
  void set_keep_expired(bool keep) noexcept {
    for (auto& d : dbs_) d.set_keep_expired(keep);
  }

 private:
  std::vector<Database> dbs_;
};

}  // namespace listd::store
