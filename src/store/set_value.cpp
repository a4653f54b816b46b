#include "listd/store/set_value.h"

#include <malloc.h>
#include <algorithm>
#include <cassert>
#include <charconv>

#include "listd/base/number.h"

namespace listd::store {
namespace {

constexpr std::uintptr_t kFormMask = 1;
constexpr std::uintptr_t kSetIntsetTag = 0, kSetTableTag = 1;

// ---- intset: [u32 count][u32 width][count * width bytes, ascending] ----------------------

struct IntsetHeader {
  std::uint32_t count;
  std::uint32_t width;  // 2, 4 or 8
};

inline std::uint8_t* intset_data(IntsetHeader* h) noexcept {
  return reinterpret_cast<std::uint8_t*>(h + 1);
}
inline const std::uint8_t* intset_data(const IntsetHeader* h) noexcept {
  return reinterpret_cast<const std::uint8_t*>(h + 1);
}

std::uint32_t width_for(long long v) noexcept {
  if (v >= INT16_MIN && v <= INT16_MAX) return 2;
  if (v >= INT32_MIN && v <= INT32_MAX) return 4;
  return 8;
}

long long intset_get(const IntsetHeader* h, std::size_t i) noexcept {
  const std::uint8_t* p = intset_data(h) + i * h->width;
  switch (h->width) {
    case 2: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void intset_put(IntsetHeader* h, std::size_t i, long long v) noexcept {
  std::uint8_t* p = intset_data(h) + i * h->width;
  switch (h->width) {
    case 2: {
      const auto x = static_cast<std::int16_t>(v);
      std::memcpy(p, &x, 2);
      break;
    }
    case 4: {
      const auto x = static_cast<std::int32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    default: {
      const auto x = static_cast<std::int64_t>(v);
      std::memcpy(p, &x, 8);
      break;
    }
  }
}

/// Index of the first value >= v.
std::size_t intset_lower_bound(const IntsetHeader* h, long long v) noexcept {
  std::size_t lo = 0, hi = h->count;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (intset_get(h, mid) < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool intset_contains(const IntsetHeader* h, long long v) noexcept {
  const std::size_t i = intset_lower_bound(h, v);
  return i < h->count && intset_get(h, i) == v;
}

IntsetHeader* intset_new(std::uint32_t width) {
  auto* h = static_cast<IntsetHeader*>(blocks::xmalloc(sizeof(IntsetHeader)));
  h->count = 0;
  h->width = width;
  return h;
}

/// Inserts v (absent) and returns the possibly moved block.
IntsetHeader* intset_insert(IntsetHeader* h, long long v) {
  const std::uint32_t need = width_for(v);
  if (need > h->width) {
    // Upgrade every value to the wider encoding, as Redis' intsetUpgradeAndAdd.
    auto* wide = static_cast<IntsetHeader*>(
        blocks::xmalloc(sizeof(IntsetHeader) + (std::size_t{h->count} + 1) * need));
    wide->count = h->count;
    wide->width = need;
    for (std::size_t i = 0; i < h->count; ++i) intset_put(wide, i, intset_get(h, i));
    std::free(h);
    h = wide;
  } else {
    h = static_cast<IntsetHeader*>(
        blocks::xrealloc(h, sizeof(IntsetHeader) + (std::size_t{h->count} + 1) * h->width));
  }
  const std::size_t pos = intset_lower_bound(h, v);
  std::uint8_t* d = intset_data(h);
  std::memmove(d + (pos + 1) * h->width, d + pos * h->width, (h->count - pos) * h->width);
  ++h->count;
  intset_put(h, pos, v);
  return h;
}

IntsetHeader* intset_erase_at(IntsetHeader* h, std::size_t pos) noexcept {
  std::uint8_t* d = intset_data(h);
  std::memmove(d + pos * h->width, d + (pos + 1) * h->width, (h->count - pos - 1) * h->width);
  --h->count;
  void* shrunk = std::realloc(h, sizeof(IntsetHeader) + std::size_t{h->count} * h->width);
  return shrunk ? static_cast<IntsetHeader*>(shrunk) : h;
}

// ---- table: BlockSet of [varint len][bytes] ----------------------------------------------

struct MemberKey {
  static std::string_view key(const void* block) noexcept { return blocks::read_prefixed(block); }
};

struct SetTable {
  BlockSet<MemberKey> set;
  std::size_t block_bytes = 0;  // malloc_usable_size of every member block
};

void* make_member_block(std::string_view member) {
  const std::size_t n = blocks::varint_size(member.size());
  auto* b = static_cast<std::uint8_t*>(blocks::xmalloc(n + member.size()));
  std::uint8_t* p = blocks::put_varint(b, member.size());
  if (!member.empty()) std::memcpy(p, member.data(), member.size());
  return b;
}

void table_add_new(SetTable* t, std::string_view member) {
  void* b = make_member_block(member);
  try {
    t->set.insert(b);
  } catch (...) {
    std::free(b);
    throw;
  }
  t->block_bytes += malloc_usable_size(b);
}

/// Formats an integer member; the buffer must hold 21 bytes.
std::string_view format_int(long long v, char* buf) noexcept {
  const auto r = std::to_chars(buf, buf + 21, v);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}

}  // namespace

SetValue& SetValue::operator=(SetValue&& other) noexcept {
  if (this != &other) {
    release();
    bits_ = other.bits_;
    other.bits_ = 0;
  }
  return *this;
}

SetValue::~SetValue() { release(); }

void SetValue::release() noexcept {
  if (bits_ == 0) return;
  void* p = reinterpret_cast<void*>(bits_ & ~kFormMask);
  if ((bits_ & kFormMask) == kSetTableTag) {
    auto* t = static_cast<SetTable*>(p);
    t->set.for_each([](void* b) { std::free(b); });
    delete t;
  } else {
    std::free(p);
  }
  bits_ = 0;
}

SetValue::Encoding SetValue::encoding() const noexcept {
  switch (bits_ & kFormMask) {
    case kSetTableTag: return Encoding::kTable;
    default: return Encoding::kIntset;
  }
}

std::string_view SetValue::encoding_name() const noexcept {
  switch (encoding()) {
    case Encoding::kIntset: return "intset";
    case Encoding::kTable: return "hashtable";
  }
  return "unknown";
}

std::size_t SetValue::size() const noexcept {
  if (bits_ == 0) return 0;
  const void* p = reinterpret_cast<const void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: return static_cast<const IntsetHeader*>(p)->count;
    default: return static_cast<const SetTable*>(p)->set.size();
  }
}

bool SetValue::contains(std::string_view member) const noexcept {
  if (bits_ == 0) return false;
  const void* p = reinterpret_cast<const void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: {
      long long v;
      return base::parse_strict_integer(member, v) &&
             intset_contains(static_cast<const IntsetHeader*>(p), v);
    }
    default: return static_cast<const SetTable*>(p)->set.find(member) != nullptr;
  }
}

bool SetValue::add(std::string_view member) {
  long long v = 0;
  const bool is_int = base::parse_strict_integer(member, v);
  if (bits_ == 0) {
    // Redis 7.0 setTypeCreate: an intset for an integer, else a hashtable (no listpack).
    if (is_int)
      bits_ = reinterpret_cast<std::uintptr_t>(intset_new(width_for(v))) | kSetIntsetTag;
    else
      bits_ = reinterpret_cast<std::uintptr_t>(new SetTable()) | kSetTableTag;
  }
  void* p = reinterpret_cast<void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: {
      auto* h = static_cast<IntsetHeader*>(p);
      if (is_int) {
        if (intset_contains(h, v)) return false;
        if (h->count + 1 <= encoding_limits().intset_entries()) {
          bits_ = reinterpret_cast<std::uintptr_t>(intset_insert(h, v)) | kSetIntsetTag;
          return true;
        }
      }
      convert_to_table();
      return add(member);
    }
    default: {
      auto* t = static_cast<SetTable*>(p);
      if (t->set.find(member)) return false;
      table_add_new(t, member);
      return true;
    }
  }
}

bool SetValue::remove(std::string_view member) noexcept {
  if (bits_ == 0) return false;
  void* p = reinterpret_cast<void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: {
      auto* h = static_cast<IntsetHeader*>(p);
      long long v;
      if (!base::parse_strict_integer(member, v)) return false;
      const std::size_t i = intset_lower_bound(h, v);
      if (i >= h->count || intset_get(h, i) != v) return false;
      bits_ = reinterpret_cast<std::uintptr_t>(intset_erase_at(h, i)) | kSetIntsetTag;
      return true;
    }
    default: {
      auto* t = static_cast<SetTable*>(p);
      void* b = t->set.erase(member);
      if (!b) return false;
      t->block_bytes -= malloc_usable_size(b);
      std::free(b);
      return true;
    }
  }
}

std::string SetValue::random_member(std::mt19937_64& rng) const {
  assert(bits_ != 0 && size() > 0);
  const void* p = reinterpret_cast<const void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: {
      const auto* h = static_cast<const IntsetHeader*>(p);
      return std::to_string(intset_get(h, rng() % h->count));
    }
    default:
      return std::string(blocks::read_prefixed(static_cast<const SetTable*>(p)->set.random(rng)));
  }
}

std::string SetValue::pop_random(std::mt19937_64& rng) {
  std::string m = random_member(rng);
  remove(m);
  return m;
}

void SetValue::visit(Visitor f, void* ctx) const {
  if (bits_ == 0) return;
  const void* p = reinterpret_cast<const void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: {
      const auto* h = static_cast<const IntsetHeader*>(p);
      char buf[24];
      for (std::size_t i = 0; i < h->count; ++i) f(ctx, format_int(intset_get(h, i), buf));
      break;
    }
    default:
      static_cast<const SetTable*>(p)->set.for_each(
          [&](void* b) { f(ctx, blocks::read_prefixed(b)); });
      break;
  }
}

std::uint64_t SetValue::scan_step(std::uint64_t cursor, Visitor f, void* ctx) const {
  if ((bits_ & kFormMask) != kSetTableTag || bits_ == 0) {
    visit(f, ctx);
    return 0;
  }
  const auto* t = reinterpret_cast<const SetTable*>(bits_ & ~kFormMask);
  return t->set.scan(cursor, [&](void* b) { f(ctx, blocks::read_prefixed(b)); });
}

void SetValue::convert_to_table() {
  SetValue fresh;
  fresh.bits_ = reinterpret_cast<std::uintptr_t>(new SetTable()) | kSetTableTag;
  auto* t = reinterpret_cast<SetTable*>(fresh.bits_ & ~kFormMask);
  for_each([&](std::string_view m) { table_add_new(t, m); });
  *this = std::move(fresh);
}

SetValue SetValue::clone() const {
  SetValue copy;
  if (bits_ == 0) return copy;
  const void* p = reinterpret_cast<const void*>(bits_ & ~kFormMask);
  switch (bits_ & kFormMask) {
    case kSetIntsetTag: {
      const std::size_t n = malloc_usable_size(const_cast<void*>(p));
      void* b = blocks::xmalloc(n);
      std::memcpy(b, p, n);
      copy.bits_ = reinterpret_cast<std::uintptr_t>(b) | (bits_ & kFormMask);
      break;
    }
    default: {
      copy.bits_ = reinterpret_cast<std::uintptr_t>(new SetTable()) | kSetTableTag;
      auto* t = reinterpret_cast<SetTable*>(copy.bits_ & ~kFormMask);
      for_each([&](std::string_view m) { table_add_new(t, m); });
      break;
    }
  }
  return copy;
}

std::size_t SetValue::memory_usage() const noexcept {
  if (bits_ == 0) return 0;
  void* p = reinterpret_cast<void*>(bits_ & ~kFormMask);
  if ((bits_ & kFormMask) != kSetTableTag) return malloc_usable_size(p);
  const auto* t = static_cast<const SetTable*>(p);
  return malloc_usable_size(p) + t->set.table_bytes() + t->block_bytes;
}

}  // namespace listd::store
