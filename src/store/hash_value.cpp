#include "listd/store/hash_value.h"

#include <malloc.h>
#include <cassert>

#include "listd/store/encoding_limits.h"
#include "packed_header.h"

namespace listd::store {
namespace {

constexpr std::uintptr_t kTableTag = 1;

// ---- packed: [u32 used][u32 count][pairs: varint flen, field, varint vlen, value] ---------

using packed::data_of;
using packed::PackedHeader;

struct PackedPair {
  std::string_view field;
  std::string_view value;
  std::size_t size;  // encoded bytes
};

PackedPair read_pair(const std::uint8_t* p) noexcept {
  std::uint64_t flen, vlen;
  const std::uint8_t* f = blocks::get_varint(p, flen);
  const std::uint8_t* v = blocks::get_varint(f + flen, vlen);
  return {{reinterpret_cast<const char*>(f), static_cast<std::size_t>(flen)},
          {reinterpret_cast<const char*>(v), static_cast<std::size_t>(vlen)},
          static_cast<std::size_t>(v + vlen - p)};
}

/// Encoded bytes of a pair.
std::size_t pair_size(std::string_view field, std::string_view value) noexcept {
  return blocks::varint_size(field.size()) + field.size() + blocks::varint_size(value.size()) +
         value.size();
}

/// Makes room for `bytes` of pairs in total; the allocation's usable size is the capacity, so
/// a block reserved ahead (HashValue::reserve) grows without moving.
PackedHeader* packed_fit(PackedHeader* h, std::size_t bytes) {
  const std::size_t need = sizeof(PackedHeader) + bytes;
  if (malloc_usable_size(h) >= need) return h;
  return static_cast<PackedHeader*>(blocks::xrealloc(h, need));
}

long packed_find(const PackedHeader* h, std::string_view field) noexcept {
  const std::uint8_t* d = data_of(h);
  for (std::size_t off = 0; off < h->used;) {
    const PackedPair pr = read_pair(d + off);
    if (pr.field == field) return static_cast<long>(off);
    off += pr.size;
  }
  return -1;
}

void write_pair(std::uint8_t* p, std::string_view field, std::string_view value) noexcept {
  p = blocks::put_varint(p, field.size());
  if (!field.empty()) std::memcpy(p, field.data(), field.size());
  p = blocks::put_varint(p + field.size(), value.size());
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
}

// ---- table: [varint flen][field][varint vlen][value] blocks ------------------------------

struct FieldKey {
  static std::string_view key(const void* block) noexcept { return blocks::read_prefixed(block); }
};

struct HashTable {
  BlockSet<FieldKey> set;
  std::size_t block_bytes = 0;
};

std::string_view block_value(const void* block) noexcept {
  const std::string_view f = blocks::read_prefixed(block);
  return blocks::read_prefixed(f.data() + f.size());
}

void* make_pair_block(std::string_view field, std::string_view value) {
  const std::size_t n = blocks::varint_size(field.size()) + field.size() +
                        blocks::varint_size(value.size()) + value.size();
  auto* b = static_cast<std::uint8_t*>(blocks::xmalloc(n));
  std::uint8_t* p = blocks::put_varint(b, field.size());
  if (!field.empty()) std::memcpy(p, field.data(), field.size());
  p = blocks::put_varint(p + field.size(), value.size());
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
  return b;
}

/// Sets a pair in the table form; returns true if the field is new.
bool table_set(HashTable* t, std::string_view field, std::string_view value) {
  void* old = t->set.find(field);
  void* b = make_pair_block(field, value);
  if (old) {
    t->set.replace(old, b);
    t->block_bytes -= malloc_usable_size(old);
    std::free(old);
  } else {
    try {
      t->set.insert(b);
    } catch (...) {
      std::free(b);
      throw;
    }
  }
  t->block_bytes += malloc_usable_size(b);
  return old == nullptr;
}

}  // namespace

HashValue& HashValue::operator=(HashValue&& other) noexcept {
  if (this != &other) {
    release();
    bits_ = other.bits_;
    other.bits_ = 0;
  }
  return *this;
}

HashValue::~HashValue() { release(); }

void HashValue::release() noexcept {
  if (bits_ == 0) return;
  if (bits_ & kTableTag) {
    auto* t = reinterpret_cast<HashTable*>(bits_ & ~kTableTag);
    t->set.for_each([](void* b) { std::free(b); });
    delete t;
  } else {
    std::free(reinterpret_cast<void*>(bits_));
  }
  bits_ = 0;
}

HashValue::Encoding HashValue::encoding() const noexcept {
  return (bits_ & kTableTag) ? Encoding::kTable : Encoding::kPacked;
}

std::string_view HashValue::encoding_name() const noexcept {
  return encoding() == Encoding::kTable ? "hashtable" : "listpack";
}

std::size_t HashValue::size() const noexcept {
  if (bits_ == 0) return 0;
  if (bits_ & kTableTag) return reinterpret_cast<const HashTable*>(bits_ & ~kTableTag)->set.size();
  return reinterpret_cast<const PackedHeader*>(bits_)->count;
}

std::optional<std::string_view> HashValue::get(std::string_view field) const noexcept {
  if (bits_ == 0) return std::nullopt;
  if (bits_ & kTableTag) {
    const void* b = reinterpret_cast<const HashTable*>(bits_ & ~kTableTag)->set.find(field);
    if (!b) return std::nullopt;
    return block_value(b);
  }
  const auto* h = reinterpret_cast<const PackedHeader*>(bits_);
  const long off = packed_find(h, field);
  if (off < 0) return std::nullopt;
  return read_pair(data_of(h) + off).value;
}

bool HashValue::set(std::string_view field, std::string_view value) {
  if (bits_ & kTableTag)
    return table_set(reinterpret_cast<HashTable*>(bits_ & ~kTableTag), field, value);
  // Redis hashTypeSet: a long field or value converts first, too many fields after.
  const EncodingLimits& limits = encoding_limits();
  if (field.size() > limits.hash_max_listpack_value ||
      value.size() > limits.hash_max_listpack_value) {
    convert_to_table();
    return set(field, value);
  }
  const bool created = packed_set(field, value);
  if (size() > limits.hash_max_listpack_entries) convert_to_table();
  return created;
}

bool HashValue::load_pair(std::string_view field, std::string_view value) {
  if (bits_ & kTableTag)
    return table_set(reinterpret_cast<HashTable*>(bits_ & ~kTableTag), field, value);
  return packed_set(field, value);
}

void HashValue::prepare_set(std::size_t longest, std::size_t total) {
  if (bits_ & kTableTag) return;
  const std::size_t used = bits_ ? reinterpret_cast<const PackedHeader*>(bits_)->used : 0;
  if (longest > encoding_limits().hash_max_listpack_value || used + total > kPackedSafetyBytes)
    convert_to_table();
}

bool HashValue::packed_set(std::string_view field, std::string_view value) {
  auto* h = reinterpret_cast<PackedHeader*>(bits_);
  if (!h) {
    h = static_cast<PackedHeader*>(blocks::xmalloc(sizeof(PackedHeader)));
    h->used = 0;
    h->count = 0;
    bits_ = reinterpret_cast<std::uintptr_t>(h);
  }
  const long found = packed_find(h, field);
  const std::size_t new_size = pair_size(field, value);
  // lpSafeToAdd: never past 1 GB (a loaded listpack keeps any value length).
  if (h->used + new_size > kPackedSafetyBytes) {
    convert_to_table();
    return table_set(reinterpret_cast<HashTable*>(bits_ & ~kTableTag), field, value);
  }
  if (found < 0) {
    h = packed_fit(h, h->used + new_size);
    bits_ = reinterpret_cast<std::uintptr_t>(h);
    write_pair(data_of(h) + h->used, field, value);
    h->used += static_cast<std::uint32_t>(new_size);
    ++h->count;
    return true;
  }
  // Replace in place, keeping the field's position (listpack order is the reply order).
  const auto off = static_cast<std::size_t>(found);
  const std::size_t old_size = read_pair(data_of(h) + off).size;
  const std::size_t tail = h->used - off - old_size;
  if (new_size > old_size) {
    h = packed_fit(h, h->used + new_size - old_size);
    bits_ = reinterpret_cast<std::uintptr_t>(h);
  }
  std::uint8_t* d = data_of(h);
  std::memmove(d + off + new_size, d + off + old_size, tail);
  write_pair(d + off, field, value);
  h->used = static_cast<std::uint32_t>(h->used + new_size - old_size);
  if (new_size < old_size) {
    void* shrunk = std::realloc(h, sizeof(PackedHeader) + h->used);
    if (shrunk) bits_ = reinterpret_cast<std::uintptr_t>(shrunk);
  }
  return false;
}

bool HashValue::erase(std::string_view field) noexcept {
  if (bits_ == 0) return false;
  if (bits_ & kTableTag) {
    auto* t = reinterpret_cast<HashTable*>(bits_ & ~kTableTag);
    void* b = t->set.erase(field);
    if (!b) return false;
    t->block_bytes -= malloc_usable_size(b);
    std::free(b);
    return true;
  }
  auto* h = reinterpret_cast<PackedHeader*>(bits_);
  const long found = packed_find(h, field);
  if (found < 0) return false;
  const auto off = static_cast<std::size_t>(found);
  std::uint8_t* d = data_of(h);
  const std::size_t size = read_pair(d + off).size;
  std::memmove(d + off, d + off + size, h->used - off - size);
  h->used -= static_cast<std::uint32_t>(size);
  --h->count;
  void* shrunk = std::realloc(h, sizeof(PackedHeader) + h->used);
  if (shrunk) bits_ = reinterpret_cast<std::uintptr_t>(shrunk);
  return true;
}

void HashValue::reserve(std::size_t pairs, std::size_t bytes) {
  if (bits_ & kTableTag) return;
  auto* h = reinterpret_cast<PackedHeader*>(bits_);
  const std::size_t count = h ? h->count : 0, used = h ? h->used : 0;
  if (count + pairs > encoding_limits().hash_max_listpack_entries) return;  // a table anyway
  if (!h) {
    h = static_cast<PackedHeader*>(blocks::xmalloc(sizeof(PackedHeader) + bytes));
    h->used = 0;
    h->count = 0;
  } else {
    h = packed_fit(h, used + bytes);
  }
  bits_ = reinterpret_cast<std::uintptr_t>(h);
}

void HashValue::shrink_to_fit() noexcept {
  if (bits_ == 0 || (bits_ & kTableTag)) return;
  auto* h = reinterpret_cast<PackedHeader*>(bits_);
  if (malloc_usable_size(h) < sizeof(PackedHeader) + h->used + 16) return;
  void* shrunk = std::realloc(h, sizeof(PackedHeader) + h->used);
  if (shrunk) bits_ = reinterpret_cast<std::uintptr_t>(shrunk);
}

void HashValue::convert_to_table() {
  if (bits_ & kTableTag) return;
  auto* t = new HashTable();
  try {
    for_each([&](std::string_view f, std::string_view v) { table_set(t, f, v); });
  } catch (...) {
    t->set.for_each([](void* b) { std::free(b); });
    delete t;
    throw;
  }
  release();
  bits_ = reinterpret_cast<std::uintptr_t>(t) | kTableTag;
}

void HashValue::visit(Visitor f, void* ctx) const {
  if (bits_ == 0) return;
  if (bits_ & kTableTag) {
    reinterpret_cast<const HashTable*>(bits_ & ~kTableTag)->set.for_each([&](void* b) {
      const std::string_view field = blocks::read_prefixed(b);
      f(ctx, field, blocks::read_prefixed(field.data() + field.size()));
    });
    return;
  }
  const auto* h = reinterpret_cast<const PackedHeader*>(bits_);
  const std::uint8_t* d = data_of(h);
  for (std::size_t off = 0; off < h->used;) {
    const PackedPair pr = read_pair(d + off);
    off += pr.size;
    f(ctx, pr.field, pr.value);
  }
}

std::uint64_t HashValue::scan_step(std::uint64_t cursor, Visitor f, void* ctx) const {
  if (!(bits_ & kTableTag)) {
    visit(f, ctx);
    return 0;
  }
  return reinterpret_cast<const HashTable*>(bits_ & ~kTableTag)->set.scan(cursor, [&](void* b) {
    const std::string_view field = blocks::read_prefixed(b);
    f(ctx, field, blocks::read_prefixed(field.data() + field.size()));
  });
}

std::pair<std::string_view, std::string_view> HashValue::random_pair(
    std::mt19937_64& rng) const noexcept {
  assert(size() > 0);
  if (bits_ & kTableTag) {
    const void* b = reinterpret_cast<const HashTable*>(bits_ & ~kTableTag)->set.random(rng);
    const std::string_view field = blocks::read_prefixed(b);
    return {field, blocks::read_prefixed(field.data() + field.size())};
  }
  const auto* h = reinterpret_cast<const PackedHeader*>(bits_);
  const std::uint8_t* d = data_of(h);
  std::size_t off = 0;
  for (std::size_t i = rng() % h->count; i > 0; --i) off += read_pair(d + off).size;
  const PackedPair pr = read_pair(d + off);
  return {pr.field, pr.value};
}

HashValue HashValue::clone() const {
  HashValue copy;
  if (bits_ == 0) return copy;
  if (bits_ & kTableTag) {
    auto* t = new HashTable();
    copy.bits_ = reinterpret_cast<std::uintptr_t>(t) | kTableTag;
    for_each([&](std::string_view f, std::string_view v) { table_set(t, f, v); });
    return copy;
  }
  const auto* h = reinterpret_cast<const PackedHeader*>(bits_);
  const std::size_t n = sizeof(PackedHeader) + h->used;
  void* b = blocks::xmalloc(n);
  std::memcpy(b, h, n);
  copy.bits_ = reinterpret_cast<std::uintptr_t>(b);
  return copy;
}

std::size_t HashValue::memory_usage() const noexcept {
  if (bits_ == 0) return 0;
  if (!(bits_ & kTableTag)) return malloc_usable_size(reinterpret_cast<void*>(bits_));
  auto* t = reinterpret_cast<HashTable*>(bits_ & ~kTableTag);
  return malloc_usable_size(t) + t->set.table_bytes() + t->block_bytes;
}

}  // namespace listd::store
