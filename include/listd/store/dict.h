// The keyspace dictionary: a chained hash table of intrusive entries, each one allocation
// holding the key bytes, the value and the expiry.
//
// API: find / insert / detach / erase / scan / random_entry / for_each.
// Invariants: power-of-two bucket counts; load factor kept in [1/8, 1] (up to kForceRatio while
// a fork child runs). Resizes are incremental as in Redis' dict.c: a second table is allocated
// and buckets move to it a few at a time -- one per find/insert/detach, plus a timed step from
// the server's cron -- so no single command relinks millions of entries. While rehashing,
// lookups search both tables, inserts go to the new one, and t_[0]'s buckets below rehash_idx_
// are empty. scan() uses Redis' reverse-binary cursor, so a key present for a whole scan is
// returned at least once even if the table grows, shrinks or rehashes in between.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string_view>

#include "listd/store/retired_block.h"
#include "listd/store/value.h"

namespace listd::store {

inline std::uint64_t reverse_bits(std::uint64_t v) noexcept {
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
  return __builtin_bswap64(v);
}

/// One key: allocated with its key bytes right after the struct.
struct Entry {
  Entry* next = nullptr;
  std::int64_t expire_at_ms = -1;  ///< Unix time in ms; -1 means no expiry.
  Value value;
  std::uint32_t key_len = 0;
  /// Redis' 24-bit `lru` word, in the padding after key_len (no extra byte per key): under an
  /// LRU or non-LFU policy the LRU clock (seconds) of the last access, under an LFU policy the
  /// last decrement time in minutes (16 bits) and the logarithmic counter (8 bits). See
  /// server/key_access.h.
  std::uint32_t lru = 0;

  std::string_view key() const noexcept {
    return {reinterpret_cast<const char*>(this + 1), key_len};
  }
  bool has_expire() const noexcept { return expire_at_ms >= 0; }

  static Entry* create(std::string_view key, Value value);
  static void destroy(Entry* entry) noexcept;
  /// Entries destroyed so far (by the server's thread: entries are freed nowhere else). While
  /// it is unchanged a live Entry's address still names the same key, so a cache may keep the
  /// pointer as the key's identity (QueueStats' hot slot) instead of comparing key bytes.
  static std::uint64_t destroyed_count() noexcept { return destroyed_count_; }
  /// Bytes this entry allocates besides its value's payload.
  std::size_t overhead() const noexcept;

 private:
  Entry(std::uint32_t len, Value v) noexcept : value(std::move(v)), key_len(len) {}
  static inline std::uint64_t destroyed_count_ = 0;
};

class Dict {
 public:
  Dict() = default;
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  Dict(Dict&& other) noexcept;
  Dict& operator=(Dict&& other) noexcept;
  ~Dict();

  std::size_t size() const noexcept { return size_; }
  /// Buckets of both tables (while rehashing the old and the new one are both allocated).
  std::size_t bucket_count() const noexcept { return t_[0].buckets() + t_[1].buckets(); }
  bool rehashing() const noexcept { return rehash_idx_ >= 0; }

  /// Finds the key in both tables; like Redis' dictFind it also moves one bucket of a rehash
  /// in progress (logically const: the set of entries does not change, only their links).
  Entry* find(std::string_view key) const noexcept;
  /// Inserts a new entry; the key must be absent.
  Entry* insert(std::string_view key, Value value);
  /// Inserts an entry detached from another Dict (RENAME/MOVE keep the allocation).
  void insert_entry(Entry* entry);
  /// Unlinks the entry for `key` and returns it (the caller owns it), or null.
  Entry* detach(std::string_view key) noexcept;
  /// Removes and destroys; returns whether the key existed.
  bool erase(std::string_view key) noexcept;
  /// Destroys every entry and frees both tables.
  void clear() noexcept;

  /// Moves up to `buckets` buckets of a rehash in progress (visiting at most 10x as many empty
  /// ones, Redis' dictRehash); returns whether a rehash is still in progress.
  bool rehash_steps(std::size_t buckets) noexcept;
  /// Redis' dictRehashMilliseconds: 100-bucket steps until `budget_us` has passed; returns the
  /// buckets moved (0: nothing to do). Also starts a shrink that detach() left for later, and
  /// drops kReleasePerTickBytes of a finished rehash's old array (retired_block.h).
  std::size_t rehash_for_us(std::uint64_t budget_us) noexcept;
  static constexpr std::size_t kReleasePerTickBytes = 4 << 20;
  /// One step of giving back a finished rehash's old array (also when no rehash may run: it
  /// is garbage); false when there was none.
  bool release_old_table() noexcept { return retired_.release_some(kReleasePerTickBytes); }
  /// A finished rehash's old array not given back yet (tests).
  bool old_table_pending() const noexcept { return retired_.pending(); }

  /// Redis' dict_can_resize: while a fork child runs, no table is resized and no rehash step
  /// is taken (pages stay shared copy-on-write) unless the load factor passes kForceRatio.
  static void set_resize_avoided(bool avoid) noexcept { resize_avoided_ = avoid; }
  static bool resize_avoided() noexcept { return resize_avoided_; }
  static constexpr std::size_t kForceRatio = 5;

  /// Visits the bucket at `cursor` (f(Entry&)) and returns the next cursor; 0 means done.
  /// Mid-rehash it visits the small table's bucket and every bucket of the large table that
  /// expands it (Redis dictScan), so the guarantee holds across a rehash.
  template <class F>
  std::uint64_t scan(std::uint64_t cursor, F&& f) const;
  /// A uniformly chosen bucket's random entry (Redis' dictGetFairRandomKey is close enough).
  Entry* random_entry(std::mt19937_64& rng) const noexcept;
  /// Redis dictGetSomeKeys: up to out.size() entries from consecutive buckets, starting at a
  /// random one and wrapping around; returns how many were written. Cheap, not uniform; with
  /// out.size() >= size() every entry is returned.
  std::size_t sample(std::mt19937_64& rng, std::span<Entry*> out) const noexcept;

  /// Visits every entry once; no rehash step is taken while f runs (f may find()).
  template <class F>
  void for_each(F&& f) const {
    const Pause pause(*this);
    for (const Table& t : t_)
      for (std::size_t b = 0; b < t.buckets(); ++b)
        for (Entry* e = t.slots[b]; e; e = e->next) f(*e);
  }

  /// Bytes used by the bucket arrays.
  std::size_t table_bytes() const noexcept { return bucket_count() * sizeof(Entry*); }

 private:
  struct Table {
    Entry** slots = nullptr;
    std::size_t mask = 0;
    std::size_t used = 0;
    std::size_t buckets() const noexcept { return slots ? mask + 1 : 0; }
  };
  // Rehash steps are paused while an iteration is under way (Redis' pauserehash).
  struct Pause {
    explicit Pause(const Dict& d) noexcept : d_(d) { ++d_.paused_; }
    ~Pause() { --d_.paused_; }
    const Dict& d_;
  };

  void start_rehash(std::size_t buckets);
  void maybe_shrink() noexcept;
  bool may_step() const noexcept;
  void step_once() const noexcept;
  bool rehash_steps_impl(std::size_t buckets) const noexcept;
  Entry** link_of(std::string_view key) const noexcept;

  // The tables and the rehash index change in const find() (a rehash step moves links only).
  mutable Table t_[2];
  mutable std::ptrdiff_t rehash_idx_ = -1;  ///< next t_[0] bucket to move; -1: not rehashing
  mutable RetiredBlock retired_;            ///< the last finished rehash's old array, while dropped
  mutable unsigned paused_ = 0;
  std::size_t size_ = 0;
  static inline bool resize_avoided_ = false;
};

template <class F>
std::uint64_t Dict::scan(std::uint64_t cursor, F&& f) const {
  if (size_ == 0) return 0;
  const Pause pause(*this);
  const auto emit = [&f](Entry* e) {
    while (e) {
      Entry* next = e->next;  // f may not delete, but read next first for safety
      f(*e);
      e = next;
    }
  };
  std::uint64_t v = cursor;
  if (!rehashing()) {
    const std::uint64_t m = t_[0].mask;
    emit(t_[0].slots[v & m]);
    v |= ~m;  // increment the reversed cursor over the bits of the mask (Redis dictScan)
    return reverse_bits(reverse_bits(v) + 1);
  }
  const bool first_small = t_[0].mask <= t_[1].mask;
  const Table& small = first_small ? t_[0] : t_[1];
  const Table& large = first_small ? t_[1] : t_[0];
  const std::uint64_t m0 = small.mask, m1 = large.mask;
  emit(small.slots[v & m0]);
  // Every large-table bucket whose low bits are this small-table bucket; the carry out of the
  // high bits advances the small cursor.
  do {
    emit(large.slots[v & m1]);
    v |= ~m1;
    v = reverse_bits(reverse_bits(v) + 1);
  } while (v & (m0 ^ m1));
  return v;
}

}  // namespace listd::store
