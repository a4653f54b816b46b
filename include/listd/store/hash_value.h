// HashValue: the hash type (8-byte handle): field -> value, binary safe.
//
// API: get / set / erase / contains / size / random_pair / for_each / scan / clone /
//   memory_usage / encoding_name / convert_to_table / prepare_set / load_pair / reserve /
//   shrink_to_fit.
// Forms (like Redis 7): "listpack" = one block [u32 used][u32 count] of [varint len][field]
//   [varint len][value] pairs in insertion order (an update keeps the field's place), kept by
//   set() within hash-max-listpack-entries fields and hash-max-listpack-value bytes per field
//   or value (encoding_limits.h); "hashtable" = a BlockSet (set_value.h) of [varint len][field]
//   [varint len][value] blocks. A hash never moves back to the listpack. A listpack loaded from
//   an RDB listpack (load_pair) keeps values of any length, as Redis' does; every listpack
//   converts before it passes 1 GB (kPackedSafetyBytes).
// Views handed out (get, for_each, at) live until the next mutation of the hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <type_traits>
#include <utility>

#include "listd/store/set_value.h"

namespace listd::store {

class HashValue {
 public:
  enum class Encoding : std::uint8_t { kPacked, kTable };

  HashValue() noexcept = default;
  HashValue(const HashValue&) = delete;
  HashValue& operator=(const HashValue&) = delete;
  HashValue(HashValue&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  HashValue& operator=(HashValue&& other) noexcept;
  ~HashValue();

  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }
  Encoding encoding() const noexcept;
  /// "listpack" or "hashtable" (OBJECT ENCODING).
  std::string_view encoding_name() const noexcept;

  /// The value of `field`, or nullopt.
  std::optional<std::string_view> get(std::string_view field) const noexcept;
  bool contains(std::string_view field) const noexcept { return get(field).has_value(); }
  /// Sets `field` to `value`; returns true if the field is new. As Redis hashTypeSet: a listpack
  /// converts to the hashtable first when the field or the value is longer than
  /// hash-max-listpack-value, and after when it has more than hash-max-listpack-entries fields
  /// (an update of a hash over a lowered limit converts it too).
  bool set(std::string_view field, std::string_view value);
  /// As set() without the limits (only the 1 GB bound converts): the RDB load of a listpack or
  /// ziplist blob, whose count alone decides (the loader converts first when it is over).
  bool load_pair(std::string_view field, std::string_view value);
  /// Redis hashTypeTryConversion, before a write of arguments whose longest is `longest` bytes
  /// and which sum to `total`: a listpack converts when `longest` is over
  /// hash-max-listpack-value or `total` more bytes would take it past 1 GB.
  void prepare_set(std::size_t longest, std::size_t total);
  /// Removes `field`; returns whether it was there.
  bool erase(std::string_view field) noexcept;
  /// Moves to the hashtable form now (Redis converts on any long argument of HSET/HSETNX).
  void convert_to_table();
  /// Before setting `pairs` fields worth `bytes` (sum of 2 + field + value): sizes a listpack's
  /// block once instead of growing it per field. Pair with shrink_to_fit() afterwards.
  void reserve(std::size_t pairs, std::size_t bytes);
  /// Gives back what reserve() over-estimated (fields that already existed).
  void shrink_to_fit() noexcept;

  /// f(std::string_view field, std::string_view value) for every pair (listpack: insertion
  /// order; hashtable: slot order). f must not modify the hash.
  template <class F>
  void for_each(F&& f) const {
    visit(&invoke<F>, const_cast<void*>(static_cast<const void*>(&f)));
  }
  /// HSCAN step: visits one cursor step's pairs and returns the next cursor (0 when done); the
  /// listpack is visited whole, as Redis does.
  template <class F>
  std::uint64_t scan(std::uint64_t cursor, F&& f) const {
    return scan_step(cursor, &invoke<F>, const_cast<void*>(static_cast<const void*>(&f)));
  }
  /// A uniformly chosen pair (the hash must not be empty).
  std::pair<std::string_view, std::string_view> random_pair(std::mt19937_64& rng) const noexcept;

  HashValue clone() const;
  /// Bytes allocated (MEMORY USAGE).
  std::size_t memory_usage() const noexcept;

 private:
  using Visitor = void (*)(void* ctx, std::string_view field, std::string_view value);
  template <class F>
  static void invoke(void* ctx, std::string_view field, std::string_view value) {
    (*static_cast<std::remove_reference_t<F>*>(ctx))(field, value);
  }
  void visit(Visitor v, void* ctx) const;
  std::uint64_t scan_step(std::uint64_t cursor, Visitor v, void* ctx) const;
  void release() noexcept;
  bool packed_set(std::string_view field, std::string_view value);

  std::uintptr_t bits_ = 0;  // block pointer | form tag (low bit); 0 = empty listpack
};

}  // namespace listd::store
