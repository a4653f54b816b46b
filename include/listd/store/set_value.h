// SetValue: the set type (8-byte handle), plus BlockSet, the open-addressing table of heap
// blocks that the hashed forms of sets, hashes and sorted sets all use.
//
// SetValue API: add / remove / contains / size / random_member / pop_random / for_each / scan /
//   clone / memory_usage / encoding_name.
// Forms (like Redis 7.0): "intset" = one block of sorted integers, 2/4/8 bytes wide, while every
//   member is a canonical integer (Redis string2ll) and there are at most set-max-intset-entries
//   (encoding_limits.h); "hashtable" = a BlockSet of [varint len][bytes] blocks. A set only
//   ever moves from intset to hashtable (a lowered limit converts on the next new member). No
//   listpack form: Redis 7.2 added one for small sets of strings, 7.0 (the reference, whose
//   OBJECT ENCODING says "hashtable") has none (docs/COMPATIBILITY.md).
// BlockSet: linear probing over tagged pointers (high 16 bits of each slot = high 16 bits of the
//   key's hash, so a probe rarely touches a block it does not want), load kept in [1/8, 3/4],
//   backward-shift deletion (no tombstones). Invariant: a block sits in the unbroken run of
//   occupied slots that starts at its home slot (hash & mask). scan() walks home slots in
//   Redis' reverse-binary cursor order, so an element present for a whole scan is returned at
//   least once even if the table is resized in between.
// Views handed out (members, for_each) live until the next mutation of the set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

#include "listd/store/encoding_limits.h"
#include "listd/store/hash.h"

namespace listd::store {

namespace blocks {

inline std::size_t varint_size(std::uint64_t v) noexcept {
  std::size_t n = 1;
  while (v >= 128) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline std::uint8_t* put_varint(std::uint8_t* p, std::uint64_t v) noexcept {
  while (v >= 128) {
    *p++ = static_cast<std::uint8_t>(v | 128);
    v >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(v);
  return p;
}

inline const std::uint8_t* get_varint(const std::uint8_t* p, std::uint64_t& v) noexcept {
  v = 0;
  for (int shift = 0;; shift += 7) {
    const std::uint8_t b = *p++;
    v |= static_cast<std::uint64_t>(b & 127) << shift;
    if (b < 128) return p;
  }
}

/// A heap block holding [varint len][bytes]; returns its key view.
inline std::string_view read_prefixed(const void* block) noexcept {
  std::uint64_t len;
  const std::uint8_t* p = get_varint(static_cast<const std::uint8_t*>(block), len);
  return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(len)};
}

inline std::uint64_t bit_reverse64(std::uint64_t v) noexcept {
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
  return __builtin_bswap64(v);
}

/// malloc that throws, as operator new would.
inline void* xmalloc(std::size_t n) {
  void* p = std::malloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}
inline void* xrealloc(void* old, std::size_t n) {
  void* p = std::realloc(old, n);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace blocks

/// A hash set of heap blocks keyed by bytes inside each block. `KeyOf::key(const void*)` gives a
/// block's key. The table does not own the blocks: callers free what they erase.
template <class KeyOf>
class BlockSet {
 public:
  BlockSet() = default;
  BlockSet(const BlockSet&) = delete;
  BlockSet& operator=(const BlockSet&) = delete;
  ~BlockSet() { std::free(slots_); }

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return slots_ ? mask_ + 1 : 0; }
  /// Bytes of the slot array.
  std::size_t table_bytes() const noexcept { return capacity() * sizeof(std::uintptr_t); }

  /// The block whose key is `key`, or null.
  void* find(std::string_view key) const noexcept {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = hash_bytes(key);
    const std::uintptr_t tag = tag_of(h);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const std::uintptr_t s = slots_[i];
      if (!s) return nullptr;
      if ((s & kTagMask) == tag && KeyOf::key(unpack(s)) == key) return unpack(s);
    }
  }

  /// Adds `block`; its key must be absent.
  void insert(void* block) {
    if ((size_ + 1) * 4 > capacity() * 3) rehash(capacity() ? capacity() * 2 : 8);
    place(block, hash_bytes(KeyOf::key(block)));
    ++size_;
  }

  /// Unlinks and returns the block with `key` (the caller frees it), or null.
  void* erase(std::string_view key) noexcept {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = hash_bytes(key);
    const std::uintptr_t tag = tag_of(h);
    std::size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      const std::uintptr_t s = slots_[i];
      if (!s) return nullptr;
      if ((s & kTagMask) == tag && KeyOf::key(unpack(s)) == key) break;
    }
    void* found = unpack(slots_[i]);
    // Backward shift: pull later members of the run into the hole when their home allows it.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const std::uintptr_t s = slots_[j];
      if (!s) break;
      const std::size_t home = hash_bytes(KeyOf::key(unpack(s))) & mask_;
      if (((j - home) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = s;
        hole = j;
      }
    }
    slots_[hole] = 0;
    --size_;
    if (capacity() > 16 && size_ * 8 < capacity()) {
      std::size_t cap = 16;
      while (cap * 3 < size_ * 8) cap *= 2;  // load about 3/8 after shrinking
      // Shrinking is an optimisation: if the smaller table cannot be allocated, keep this one.
      try {
        rehash(cap);
      } catch (const std::bad_alloc&) {
      }
    }
    return found;
  }

  /// Puts `fresh` where `old` is; both blocks have the same key.
  void replace(const void* old, void* fresh) noexcept {
    const std::uint64_t h = hash_bytes(KeyOf::key(old));
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (unpack(slots_[i]) == old) {
        slots_[i] = pack(fresh, h);
        return;
      }
    }
  }

  /// A uniformly chosen block; the set must not be empty.
  void* random(std::mt19937_64& rng) const noexcept {
    for (;;) {
      const std::uintptr_t s = slots_[rng() & mask_];
      if (s) return unpack(s);
    }
  }

  /// f(void* block) for every block, in slot order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < capacity(); ++i)
      if (slots_[i]) f(unpack(slots_[i]));
  }

  /// Visits the blocks whose home slot is `cursor` (f(void* block)); returns the next cursor,
  /// 0 when done (Redis dictScan's reverse-binary increment).
  template <class F>
  std::uint64_t scan(std::uint64_t cursor, F&& f) const {
    if (size_ == 0) return 0;
    const std::uint64_t m = mask_;
    const std::size_t home = cursor & m;
    for (std::size_t i = home;; i = (i + 1) & m) {
      const std::uintptr_t s = slots_[i];
      if (!s) break;
      if ((hash_bytes(KeyOf::key(unpack(s))) & m) == home) f(unpack(s));
    }
    cursor |= ~m;
    cursor = blocks::bit_reverse64(cursor);
    ++cursor;
    return blocks::bit_reverse64(cursor);
  }

 private:
  // x86-64 and AArch64 user-space addresses fit in 48 bits; the top 16 carry a hash tag.
  static constexpr std::uintptr_t kTagMask = ~((std::uintptr_t{1} << 48) - 1);
  static std::uintptr_t tag_of(std::uint64_t h) noexcept { return h & kTagMask; }
  static std::uintptr_t pack(void* block, std::uint64_t h) noexcept {
    return reinterpret_cast<std::uintptr_t>(block) | tag_of(h);
  }
  static void* unpack(std::uintptr_t s) noexcept { return reinterpret_cast<void*>(s & ~kTagMask); }

  void place(void* block, std::uint64_t h) noexcept {
    std::size_t i = h & mask_;
    while (slots_[i]) i = (i + 1) & mask_;
    slots_[i] = pack(block, h);
  }

  void rehash(std::size_t cap) {
    auto* fresh = static_cast<std::uintptr_t*>(std::calloc(cap, sizeof(std::uintptr_t)));
    if (!fresh) throw std::bad_alloc();
    std::uintptr_t* old = slots_;
    const std::size_t old_cap = capacity();
    slots_ = fresh;
    mask_ = cap - 1;
    for (std::size_t i = 0; i < old_cap; ++i)
      if (old[i]) place(unpack(old[i]), hash_bytes(KeyOf::key(unpack(old[i]))));
    std::free(old);
  }

  std::uintptr_t* slots_ = nullptr;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

class SetValue {
 public:
  enum class Encoding : std::uint8_t { kIntset, kTable };

  SetValue() noexcept = default;
  SetValue(const SetValue&) = delete;
  SetValue& operator=(const SetValue&) = delete;
  SetValue(SetValue&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  SetValue& operator=(SetValue&& other) noexcept;
  ~SetValue();

  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }
  Encoding encoding() const noexcept;
  /// "intset" or "hashtable" (OBJECT ENCODING).
  std::string_view encoding_name() const noexcept;

  bool contains(std::string_view member) const noexcept;
  /// Adds `member`; returns false if it was already there. Converts form when needed.
  bool add(std::string_view member);
  /// Removes `member`; returns whether it was there.
  bool remove(std::string_view member) noexcept;

  /// A uniformly chosen member (the set must not be empty).
  std::string random_member(std::mt19937_64& rng) const;
  /// Removes and returns a uniformly chosen member (the set must not be empty).
  std::string pop_random(std::mt19937_64& rng);

  /// f(std::string_view member) for every member: intset ascending, hashtable in slot order. f must
  /// not modify the set; the view dies after the call.
  template <class F>
  void for_each(F&& f) const {
    visit(&invoke<F>, const_cast<void*>(static_cast<const void*>(&f)));
  }

  /// SSCAN step: visits the members of one cursor step and returns the next cursor (0 when
  /// done). An intset is visited whole at once, as Redis does.
  template <class F>
  std::uint64_t scan(std::uint64_t cursor, F&& f) const {
    return scan_step(cursor, &invoke<F>, const_cast<void*>(static_cast<const void*>(&f)));
  }

  SetValue clone() const;
  /// Bytes allocated (MEMORY USAGE).
  std::size_t memory_usage() const noexcept;

 private:
  using Visitor = void (*)(void* ctx, std::string_view member);
  template <class F>
  static void invoke(void* ctx, std::string_view member) {
    (*static_cast<std::remove_reference_t<F>*>(ctx))(member);
  }
  void visit(Visitor v, void* ctx) const;
  std::uint64_t scan_step(std::uint64_t cursor, Visitor v, void* ctx) const;
  void convert_to_table();
  void release() noexcept;

  std::uintptr_t bits_ = 0;  // block pointer | form tag (low 2 bits); 0 = empty
};

}  // namespace listd::store
