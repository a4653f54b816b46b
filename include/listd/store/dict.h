// The keyspace dictionary: a chained hash table of intrusive entries, each one allocation
// holding the key bytes, the value and the expiry.
//
// API: find / insert / detach / erase / scan / random_entry / for_each.
// Invariants: power-of-two bucket count; load factor kept in [1/8, 1] by whole-table resizes
// (cheap: entries are relinked, never copied). scan() uses Redis' reverse-binary cursor, so a
// key present for a whole scan is returned at least once even if the table grows or shrinks
// in between.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string_view>

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
  std::size_t bucket_count() const noexcept { return mask_ + (buckets_ ? 1 : 0); }

  Entry* find(std::string_view key) const noexcept;
  /// Inserts a new entry; the key must be absent.
  Entry* insert(std::string_view key, Value value);
  /// Inserts an entry detached from another Dict (RENAME/MOVE keep the allocation).
  void insert_entry(Entry* entry);
  /// Unlinks the entry for `key` and returns it (the caller owns it), or null.
  Entry* detach(std::string_view key) noexcept;
  /// Removes and destroys; returns whether the key existed.
  bool erase(std::string_view key) noexcept;
  void clear() noexcept;

  /// Visits the bucket at `cursor` (f(Entry&)) and returns the next cursor; 0 means done.
  template <class F>
  std::uint64_t scan(std::uint64_t cursor, F&& f) const;
  /// A uniformly chosen bucket's random entry (Redis' dictGetFairRandomKey is close enough).
  Entry* random_entry(std::mt19937_64& rng) const noexcept;
  /// Redis dictGetSomeKeys: up to out.size() entries from consecutive buckets, starting at a
  /// random one and wrapping around; returns how many were written. Cheap, not uniform; with
  /// out.size() >= size() every entry is returned.
  std::size_t sample(std::mt19937_64& rng, std::span<Entry*> out) const noexcept;

  template <class F>
  void for_each(F&& f) const {
    for (std::size_t b = 0; buckets_ && b <= mask_; ++b)
      for (Entry* e = buckets_[b]; e; e = e->next) f(*e);
  }

  /// Bytes used by the bucket array.
  std::size_t table_bytes() const noexcept { return bucket_count() * sizeof(Entry*); }

 private:
  void resize(std::size_t buckets);
  void maybe_shrink();
  std::size_t bucket_of(std::string_view key) const noexcept;

  Entry** buckets_ = nullptr;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

template <class F>
std::uint64_t Dict::scan(std::uint64_t cursor, F&& f) const {
  if (size_ == 0) return 0;
  const std::uint64_t m = mask_;
  for (Entry* e = buckets_[cursor & m]; e;) {
    Entry* next = e->next;  // f may not delete, but read next first for safety
    f(*e);
    e = next;
  }
  // Increment the reversed cursor over the bits of the mask (Redis dictScan).
  cursor |= ~m;
  cursor = reverse_bits(cursor);
  ++cursor;
  return reverse_bits(cursor);
}

}  // namespace listd::store
