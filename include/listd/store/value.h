// The value stored at a key: a tagged union of the data types, owning its payload.
//
// Every alternative is pointer-sized so a key costs the same whatever its type; the type tag is
// the variant index. Adding a data type means adding an alternative here and a case in each
// of type_name/encoding_name/memory_usage/clone (value.cpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "listd/store/compact_string.h"
#include "listd/store/hash_value.h"
#include "listd/store/packed_list.h"
#include "listd/store/set_value.h"
#include "listd/store/stream_value.h"
#include "listd/store/zset_value.h"

namespace listd::store {

enum class ValueType : std::uint8_t { kString, kList, kHash, kSet, kZSet, kStream };

class Value {
 public:
  static Value make_string(std::string_view bytes, StringForm form = StringForm::kEncoded) {
    return Value(CompactString(bytes, form));
  }
  static Value make_list() { return Value(PackedList()); }
  static Value make_hash() { return Value(HashValue()); }
  static Value make_set() { return Value(SetValue()); }
  static Value make_zset() { return Value(ZSetValue()); }
  static Value make_stream() { return Value(StreamValue()); }

  explicit Value(CompactString s) noexcept : v_(std::move(s)) {}
  explicit Value(PackedList l) noexcept : v_(std::move(l)) {}
  explicit Value(HashValue h) noexcept : v_(std::move(h)) {}
  explicit Value(SetValue s) noexcept : v_(std::move(s)) {}
  explicit Value(ZSetValue z) noexcept : v_(std::move(z)) {}
  explicit Value(StreamValue s) noexcept : v_(std::move(s)) {}

  Value(Value&&) noexcept = default;
  Value& operator=(Value&&) noexcept = default;

  ValueType type() const noexcept { return static_cast<ValueType>(v_.index()); }
  bool is(ValueType t) const noexcept { return type() == t; }

  CompactString& as_string() noexcept { return *std::get_if<CompactString>(&v_); }
  const CompactString& as_string() const noexcept { return *std::get_if<CompactString>(&v_); }
  PackedList& as_list() noexcept { return *std::get_if<PackedList>(&v_); }
  const PackedList& as_list() const noexcept { return *std::get_if<PackedList>(&v_); }
  HashValue& as_hash() noexcept { return *std::get_if<HashValue>(&v_); }
  const HashValue& as_hash() const noexcept { return *std::get_if<HashValue>(&v_); }
  SetValue& as_set() noexcept { return *std::get_if<SetValue>(&v_); }
  const SetValue& as_set() const noexcept { return *std::get_if<SetValue>(&v_); }
  ZSetValue& as_zset() noexcept { return *std::get_if<ZSetValue>(&v_); }
  const ZSetValue& as_zset() const noexcept { return *std::get_if<ZSetValue>(&v_); }
  StreamValue& as_stream() noexcept { return *std::get_if<StreamValue>(&v_); }
  const StreamValue& as_stream() const noexcept { return *std::get_if<StreamValue>(&v_); }

  /// A deep copy (COPY, and the transaction-free RENAME path never needs it).
  Value clone() const;
  /// The TYPE reply: "string", "list", "hash", "set", "zset", "stream".
  std::string_view type_name() const noexcept;
  /// The OBJECT ENCODING reply, honest about the representation.
  std::string_view encoding_name() const noexcept;
  /// Bytes the payload allocates (MEMORY USAGE adds the key's own overhead).
  std::size_t memory_usage() const noexcept;

 private:
  // Alternatives in ValueType order: the variant index is the type tag.
  std::variant<CompactString, PackedList, HashValue, SetValue, ZSetValue, StreamValue> v_;
};
static_assert(sizeof(HashValue) == sizeof(void*) && sizeof(SetValue) == sizeof(void*) &&
              sizeof(ZSetValue) == sizeof(void*) && sizeof(StreamValue) == sizeof(void*));

std::string_view type_name(ValueType type) noexcept;

}  // namespace listd::store
