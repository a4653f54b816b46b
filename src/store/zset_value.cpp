#include "listd/store/zset_value.h"

#include <malloc.h>
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "listd/store/encoding_limits.h"
#include "packed_header.h"

namespace listd::store {
namespace {

constexpr std::uintptr_t kSkiplistTag = 1;
constexpr int kMaxLevel = 32;

inline bool elem_less(double s1, std::string_view m1, double s2, std::string_view m2) noexcept {
  return s1 < s2 || (s1 == s2 && m1 < m2);
}

// ---- listpack form ------------------------------------------------------------------------

using packed::data_of;
using packed::PackedHeader;

// An entry: [u8 kind * 80 + member length, 79 meaning "79 + the varint that follows"][score]
// [member][back-length]. The score is a zigzag varint (kind 1: integral, |score| <= 2^53, e.g.
// ms timestamps in 6 bytes), a float (kind 2: exactly representable, e.g. 1.5 in 4 bytes) or
// the raw double (kind 0). The back-length is the entry's size read right to left, 7 bits a
// byte, the high bit set on every byte but the leftmost: one byte for the entries of members
// of up to 78 bytes, and any member length fits (a loaded listpack keeps long members).
constexpr std::size_t kKindStride = 80;
constexpr std::size_t kLenEscape = kKindStride - 1;
enum ScoreKind : std::uint8_t { kRawDouble = 0, kVarint = 1, kFloat = 2 };

/// Bytes of the back-length of an entry whose other parts take `body` bytes.
std::size_t backlen_bytes(std::size_t body) noexcept {
  std::size_t n = 1;
  while (blocks::varint_size(body + n) > n) ++n;
  return n;
}

/// Writes the back-length `total` in `n` bytes ending at `end` (exclusive).
void put_backlen(std::uint8_t* end, std::size_t total, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const auto more = static_cast<std::uint8_t>(i + 1 < n ? 128 : 0);
    *--end = static_cast<std::uint8_t>(((total >> (7 * i)) & 127) | more);
  }
}

/// The back-length whose last byte is at `last`.
std::size_t read_backlen(const std::uint8_t* last) noexcept {
  std::size_t total = 0;
  for (int shift = 0;; shift += 7) {
    const std::uint8_t b = *last--;
    total |= static_cast<std::size_t>(b & 127) << shift;
    if (!(b & 128)) return total;
  }
}

std::size_t head_size(std::size_t member_len) noexcept {
  return member_len < kLenEscape ? 1 : 1 + blocks::varint_size(member_len - kLenEscape);
}

inline std::uint64_t zigzag(std::int64_t v) noexcept {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t u) noexcept {
  return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
}

/// How `s` is stored. -0 is stored as the integer 0, as in Redis' listpack (which stores "-0"
/// as the integer 0); the skip list keeps -0.
ScoreKind kind_of(double s, std::int64_t& v) noexcept {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (s >= -kExact && s <= kExact && s == std::trunc(s)) {
    v = static_cast<std::int64_t>(s);
    return kVarint;
  }
  // Range first: converting a double beyond FLT_MAX to float is undefined behaviour.
  if (std::fabs(s) <= std::numeric_limits<float>::max() &&
      static_cast<double>(static_cast<float>(s)) == s)
    return kFloat;
  return kRawDouble;
}

std::size_t encoded_size(double score, std::size_t member_len) noexcept {
  std::int64_t v = 0;
  const ScoreKind k = kind_of(score, v);
  const std::size_t score_bytes = k == kVarint  ? blocks::varint_size(zigzag(v))
                                  : k == kFloat ? 4
                                                : 8;
  const std::size_t body = head_size(member_len) + score_bytes + member_len;
  return body + backlen_bytes(body);
}

void encode(std::uint8_t* p, double score, std::string_view member) noexcept {
  std::uint8_t* start = p;
  std::int64_t v = 0;
  const ScoreKind k = kind_of(score, v);
  const std::size_t len = member.size();
  *p++ = static_cast<std::uint8_t>(k * kKindStride + std::min(len, kLenEscape));
  if (len >= kLenEscape) p = blocks::put_varint(p, len - kLenEscape);
  if (k == kVarint) {
    p = blocks::put_varint(p, zigzag(v));
  } else if (k == kFloat) {
    const auto f = static_cast<float>(score);
    std::memcpy(p, &f, 4);
    p += 4;
  } else {
    std::memcpy(p, &score, 8);
    p += 8;
  }
  if (!member.empty()) std::memcpy(p, member.data(), member.size());
  p += member.size();
  const auto body = static_cast<std::size_t>(p - start);
  const std::size_t n = backlen_bytes(body);
  put_backlen(p + n, body + n, n);  // the entry's size, for walking backwards
}

struct PackedEntry {
  double score;
  std::string_view member;
  std::size_t size;
};

PackedEntry decode(const std::uint8_t* p) noexcept {
  const std::size_t kind = p[0] / kKindStride;
  std::size_t len = p[0] % kKindStride;
  const std::uint8_t* q = p + 1;
  if (len == kLenEscape) {
    std::uint64_t extra;
    q = blocks::get_varint(q, extra);
    len += static_cast<std::size_t>(extra);
  }
  double s;
  if (kind == kVarint) {
    std::uint64_t u;
    q = blocks::get_varint(q, u);
    s = static_cast<double>(unzigzag(u));
  } else if (kind == kFloat) {
    float f;
    std::memcpy(&f, q, 4);
    s = f;
    q += 4;
  } else {
    std::memcpy(&s, q, 8);
    q += 8;
  }
  const std::size_t body = static_cast<std::size_t>(q - p) + len;
  return {s, {reinterpret_cast<const char*>(q), len}, body + backlen_bytes(body)};
}

long packed_find(const PackedHeader* h, std::string_view member, double* score) noexcept {
  if (!h) return -1;
  const std::uint8_t* d = data_of(h);
  for (std::size_t off = 0; off < h->used;) {
    const PackedEntry e = decode(d + off);
    if (e.member == member) {
      if (score) *score = e.score;
      return static_cast<long>(off);
    }
    off += e.size;
  }
  return -1;
}

PackedHeader* packed_insert(PackedHeader* h, std::string_view member, double score) {
  const std::size_t size = encoded_size(score, member.size());
  if (!h) {
    h = static_cast<PackedHeader*>(blocks::xmalloc(sizeof(PackedHeader) + size));
    h->used = 0;
    h->count = 0;
  } else {
    h = static_cast<PackedHeader*>(blocks::xrealloc(h, sizeof(PackedHeader) + h->used + size));
  }
  std::uint8_t* d = data_of(h);
  std::size_t off = 0;
  while (off < h->used) {
    const PackedEntry e = decode(d + off);
    if (!elem_less(e.score, e.member, score, member)) break;
    off += e.size;
  }
  std::memmove(d + off + size, d + off, h->used - off);
  encode(d + off, score, member);
  h->used += static_cast<std::uint32_t>(size);
  ++h->count;
  return h;
}

/// Removes the bytes [from, to) holding `n` entries; returns the possibly moved block.
PackedHeader* packed_cut(PackedHeader* h, std::size_t from, std::size_t to,
                         std::size_t n) noexcept {
  std::uint8_t* d = data_of(h);
  std::memmove(d + from, d + to, h->used - to);
  h->used -= static_cast<std::uint32_t>(to - from);
  h->count -= static_cast<std::uint32_t>(n);
  void* shrunk = std::realloc(h, sizeof(PackedHeader) + h->used);
  return shrunk ? static_cast<PackedHeader*>(shrunk) : h;
}

std::size_t packed_offset_of(const PackedHeader* h, std::size_t rank) noexcept {
  const std::uint8_t* d = data_of(h);
  std::size_t off = 0;
  for (; rank > 0 && off < h->used; --rank) off += decode(d + off).size;
  return off;
}

// ---- skip-list form -----------------------------------------------------------------------

/// One node, one allocation: the header below, then forward[level], span[level], member bytes.
struct ZNode {
  double score;
  ZNode* backward;
  std::uint32_t len;
  std::uint8_t level;

  ZNode** forward() noexcept { return reinterpret_cast<ZNode**>(this + 1); }
  ZNode* const* forward() const noexcept { return reinterpret_cast<ZNode* const*>(this + 1); }
  std::uint32_t* span() noexcept { return reinterpret_cast<std::uint32_t*>(forward() + level); }
  const std::uint32_t* span() const noexcept {
    return reinterpret_cast<const std::uint32_t*>(forward() + level);
  }
  std::string_view member() const noexcept {
    return {reinterpret_cast<const char*>(span() + level), len};
  }
};
static_assert(sizeof(ZNode) == 24);

struct NodeKey {
  static std::string_view key(const void* block) noexcept {
    return static_cast<const ZNode*>(block)->member();
  }
};

struct SkipList {
  ZNode* header = nullptr;
  ZNode* tail = nullptr;
  std::size_t length = 0;
  int level = 1;
  BlockSet<NodeKey> index;
  std::size_t bytes = 0;  // every node, header included
};

int random_level() noexcept {
  // Redis' zslRandomLevel with p = 1/4; a xorshift is plenty and keeps runs reproducible.
  static std::uint64_t state = 0x9E3779B97F4A7C15ull;
  int level = 1;
  for (;;) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    if ((state & 0xFFFF) >= 0x4000 || level >= kMaxLevel) return level;
    ++level;
  }
}

ZNode* node_new(int level, double score, std::string_view member) {
  const std::size_t n =
      sizeof(ZNode) + static_cast<std::size_t>(level) * (sizeof(ZNode*) + 4) + member.size();
  auto* x = static_cast<ZNode*>(blocks::xmalloc(n));
  x->score = score;
  x->backward = nullptr;
  x->len = static_cast<std::uint32_t>(member.size());
  x->level = static_cast<std::uint8_t>(level);
  for (int i = 0; i < level; ++i) {
    x->forward()[i] = nullptr;
    x->span()[i] = 0;
  }
  if (!member.empty())
    std::memcpy(const_cast<char*>(x->member().data()), member.data(), member.size());
  return x;
}

SkipList* skiplist_new() {
  auto* zsl = new SkipList();
  try {
    zsl->header = node_new(kMaxLevel, 0, {});
  } catch (...) {
    delete zsl;
    throw;
  }
  zsl->bytes = malloc_usable_size(zsl->header);
  return zsl;
}

void skiplist_free(SkipList* zsl) noexcept {
  ZNode* x = zsl->header->forward()[0];
  while (x) {
    ZNode* next = x->forward()[0];
    std::free(x);
    x = next;
  }
  std::free(zsl->header);
  delete zsl;
}

/// Links node `x` (its score and member set) at its place: Redis zslInsert.
void skiplist_link(SkipList* zsl, ZNode* x) noexcept {
  ZNode* update[kMaxLevel];
  std::size_t rank[kMaxLevel];
  ZNode* p = zsl->header;
  const std::string_view m = x->member();
  for (int i = zsl->level - 1; i >= 0; --i) {
    rank[i] = i == zsl->level - 1 ? 0 : rank[i + 1];
    while (p->forward()[i] &&
           elem_less(p->forward()[i]->score, p->forward()[i]->member(), x->score, m)) {
      rank[i] += p->span()[i];
      p = p->forward()[i];
    }
    update[i] = p;
  }
  const int level = x->level;
  if (level > zsl->level) {
    for (int i = zsl->level; i < level; ++i) {
      rank[i] = 0;
      update[i] = zsl->header;
      update[i]->span()[i] = static_cast<std::uint32_t>(zsl->length);
    }
    zsl->level = level;
  }
  for (int i = 0; i < level; ++i) {
    x->forward()[i] = update[i]->forward()[i];
    update[i]->forward()[i] = x;
    x->span()[i] = static_cast<std::uint32_t>(update[i]->span()[i] - (rank[0] - rank[i]));
    update[i]->span()[i] = static_cast<std::uint32_t>(rank[0] - rank[i] + 1);
  }
  for (int i = level; i < zsl->level; ++i) ++update[i]->span()[i];
  x->backward = update[0] == zsl->header ? nullptr : update[0];
  if (x->forward()[0])
    x->forward()[0]->backward = x;
  else
    zsl->tail = x;
  ++zsl->length;
}

/// Unlinks `x` given its predecessors at every level: Redis zslDeleteNode.
void skiplist_unlink(SkipList* zsl, ZNode* x, ZNode** update) noexcept {
  for (int i = 0; i < zsl->level; ++i) {
    if (update[i]->forward()[i] == x) {
      update[i]->span()[i] += x->span()[i] - 1;
      update[i]->forward()[i] = i < x->level ? x->forward()[i] : nullptr;
    } else {
      --update[i]->span()[i];
    }
  }
  if (x->forward()[0])
    x->forward()[0]->backward = x->backward;
  else
    zsl->tail = x->backward;
  while (zsl->level > 1 && !zsl->header->forward()[zsl->level - 1]) --zsl->level;
  --zsl->length;
}

/// Fills update[] with the last node before (score, member) at every level.
void skiplist_find_update(SkipList* zsl, double score, std::string_view member,
                          ZNode** update) noexcept {
  ZNode* p = zsl->header;
  for (int i = zsl->level - 1; i >= 0; --i) {
    while (p->forward()[i] &&
           elem_less(p->forward()[i]->score, p->forward()[i]->member(), score, member))
      p = p->forward()[i];
    update[i] = p;
  }
}

/// Inserts a new member (absent).
void skiplist_insert(SkipList* zsl, std::string_view member, double score) {
  ZNode* x = node_new(random_level(), score, member);
  try {
    zsl->index.insert(x);
  } catch (...) {
    std::free(x);
    throw;
  }
  skiplist_link(zsl, x);
  zsl->bytes += malloc_usable_size(x);
}

ZNode* skiplist_at_rank(const SkipList* zsl, std::size_t r) noexcept {
  // Ranks in spans are 1-based: the element of 0-based rank r is r + 1 steps from the header.
  const std::size_t target = r + 1;
  std::size_t traversed = 0;
  ZNode* p = zsl->header;
  for (int i = zsl->level - 1; i >= 0; --i) {
    while (p->forward()[i] && traversed + p->span()[i] <= target) {
      traversed += p->span()[i];
      p = p->forward()[i];
    }
    if (traversed == target) return p;
  }
  return nullptr;
}

inline SkipList* as_skiplist(std::uintptr_t bits) noexcept {
  return reinterpret_cast<SkipList*>(bits & ~kSkiplistTag);
}
inline PackedHeader* as_packed(std::uintptr_t bits) noexcept {
  return reinterpret_cast<PackedHeader*>(bits);
}

}  // namespace

// ---- ZCursor ------------------------------------------------------------------------------

void ZCursor::load() noexcept {
  if (packed_) {
    valid_ = off_ < used_;
    if (!valid_) return;
    const PackedEntry e = decode(base_ + off_);
    member_ = e.member;
    score_ = e.score;
    entry_size_ = e.size;
  } else {
    valid_ = node_ != nullptr;
    if (!valid_) return;
    const auto* x = static_cast<const ZNode*>(node_);
    member_ = x->member();
    score_ = x->score;
  }
}

void ZCursor::next() noexcept {
  if (!valid_) return;
  if (packed_)
    off_ += entry_size_;
  else
    node_ = static_cast<const ZNode*>(node_)->forward()[0];
  load();
}

void ZCursor::prev() noexcept {
  if (!valid_) return;
  if (packed_) {
    if (off_ == 0) {
      valid_ = false;
      return;
    }
    off_ -= read_backlen(base_ + off_ - 1);
  } else {
    node_ = static_cast<const ZNode*>(node_)->backward;
  }
  load();
}

// ---- ZSetValue ----------------------------------------------------------------------------

ZSetValue& ZSetValue::operator=(ZSetValue&& other) noexcept {
  if (this != &other) {
    release();
    bits_ = other.bits_;
    other.bits_ = 0;
  }
  return *this;
}

ZSetValue::~ZSetValue() { release(); }

void ZSetValue::release() noexcept {
  if (bits_ & kSkiplistTag)
    skiplist_free(as_skiplist(bits_));
  else
    std::free(as_packed(bits_));
  bits_ = 0;
}

ZSetValue ZSetValue::create(std::size_t first_member_len) {
  const EncodingLimits& limits = encoding_limits();
  if (limits.zset_max_listpack_entries == 0 || first_member_len > limits.zset_max_listpack_value)
    return create_skiplist();
  return {};
}

ZSetValue ZSetValue::create_skiplist() {
  ZSetValue z;
  z.bits_ = reinterpret_cast<std::uintptr_t>(skiplist_new()) | kSkiplistTag;
  return z;
}

ZSetValue ZSetValue::for_load(std::size_t count) {
  return count > encoding_limits().zset_max_listpack_entries ? create_skiplist() : ZSetValue();
}

std::size_t ZSetValue::size() const noexcept {
  if (bits_ & kSkiplistTag) return as_skiplist(bits_)->length;
  return bits_ ? as_packed(bits_)->count : 0;
}

ZSetValue::Encoding ZSetValue::encoding() const noexcept {
  return (bits_ & kSkiplistTag) ? Encoding::kSkiplist : Encoding::kPacked;
}

std::string_view ZSetValue::encoding_name() const noexcept {
  return encoding() == Encoding::kSkiplist ? "skiplist" : "listpack";
}

std::optional<double> ZSetValue::score(std::string_view member) const noexcept {
  if (bits_ & kSkiplistTag) {
    const void* x = as_skiplist(bits_)->index.find(member);
    if (!x) return std::nullopt;
    return static_cast<const ZNode*>(x)->score;
  }
  double s;
  if (packed_find(as_packed(bits_), member, &s) < 0) return std::nullopt;
  return s;
}

void ZSetValue::to_skiplist() {
  SkipList* zsl = skiplist_new();
  try {
    for_each([&](std::string_view m, double s) { skiplist_insert(zsl, m, s); });
  } catch (...) {
    skiplist_free(zsl);
    throw;
  }
  release();
  bits_ = reinterpret_cast<std::uintptr_t>(zsl) | kSkiplistTag;
}

std::size_t ZSetValue::packed_bytes() const noexcept {
  return (bits_ & kSkiplistTag) || !bits_ ? 0 : as_packed(bits_)->used;
}

void ZSetValue::insert(std::string_view member, double score) {
  if (!(bits_ & kSkiplistTag)) {
    // Redis zsetAdd: checked before a new member goes in (an update never converts).
    const EncodingLimits& limits = encoding_limits();
    if (size() + 1 <= limits.zset_max_listpack_entries &&
        member.size() <= limits.zset_max_listpack_value &&
        packed_bytes() + member.size() <= kPackedSafetyBytes) {
      bits_ = reinterpret_cast<std::uintptr_t>(packed_insert(as_packed(bits_), member, score));
      return;
    }
    to_skiplist();
  }
  skiplist_insert(as_skiplist(bits_), member, score);
}

void ZSetValue::load_member(std::string_view member, double score) {
  if (!(bits_ & kSkiplistTag)) {
    if (packed_bytes() + member.size() + 32 <= kPackedSafetyBytes) {
      bits_ = reinterpret_cast<std::uintptr_t>(packed_insert(as_packed(bits_), member, score));
      return;
    }
    to_skiplist();
  }
  skiplist_insert(as_skiplist(bits_), member, score);
}

void ZSetValue::convert_to_listpack_if_fits() {
  if (!(bits_ & kSkiplistTag)) return;
  std::size_t max_len = 0, total = 0;
  for_each([&](std::string_view m, double) {
    max_len = std::max(max_len, m.size());
    total += m.size();
  });
  if (!encoding_limits().zset_fits_listpack(size(), max_len, total)) return;
  PackedHeader* h = nullptr;
  try {
    // Ascending order: each entry goes at the end of the block.
    for_each([&](std::string_view m, double s) { h = packed_insert(h, m, s); });
  } catch (...) {
    std::free(h);
    throw;
  }
  release();
  bits_ = reinterpret_cast<std::uintptr_t>(h);
}

void ZSetValue::update(std::string_view member, double old_score, double new_score) {
  if (!(bits_ & kSkiplistTag)) {
    PackedHeader* h = as_packed(bits_);
    const long off = packed_find(h, member, nullptr);
    assert(off >= 0);
    const std::size_t size = decode(data_of(h) + off).size;
    h = packed_cut(h, static_cast<std::size_t>(off), static_cast<std::size_t>(off) + size, 1);
    bits_ = reinterpret_cast<std::uintptr_t>(packed_insert(h, member, new_score));
    return;
  }
  // Redis zslUpdateScore: in place when the order is unchanged, else unlink and relink (the
  // node, hence the index entry, stays the same).
  SkipList* zsl = as_skiplist(bits_);
  ZNode* update[kMaxLevel];
  skiplist_find_update(zsl, old_score, member, update);
  ZNode* x = update[0]->forward()[0];
  assert(x && x->score == old_score && x->member() == member);
  if ((!x->backward || x->backward->score < new_score) &&
      (!x->forward()[0] || x->forward()[0]->score > new_score)) {
    x->score = new_score;
    return;
  }
  skiplist_unlink(zsl, x, update);
  x->score = new_score;
  skiplist_link(zsl, x);
}

bool ZSetValue::erase(std::string_view member) noexcept {
  if (!(bits_ & kSkiplistTag)) {
    PackedHeader* h = as_packed(bits_);
    const long off = packed_find(h, member, nullptr);
    if (off < 0) return false;
    const std::size_t size = decode(data_of(h) + off).size;
    bits_ = reinterpret_cast<std::uintptr_t>(
        packed_cut(h, static_cast<std::size_t>(off), static_cast<std::size_t>(off) + size, 1));
    return true;
  }
  SkipList* zsl = as_skiplist(bits_);
  auto* x = static_cast<ZNode*>(zsl->index.find(member));
  if (!x) return false;
  ZNode* update[kMaxLevel];
  skiplist_find_update(zsl, x->score, member, update);
  assert(update[0]->forward()[0] == x);
  skiplist_unlink(zsl, x, update);
  zsl->index.erase(member);
  zsl->bytes -= malloc_usable_size(x);
  std::free(x);
  return true;
}

std::optional<std::size_t> ZSetValue::rank(std::string_view member) const noexcept {
  const std::optional<double> s = score(member);
  if (!s) return std::nullopt;
  const double sc = *s;
  return partition_point(
      [&](double score, std::string_view m) { return elem_less(score, m, sc, member); });
}

std::size_t ZSetValue::partition_point_impl(Pred pred, void* ctx) const {
  if (bits_ & kSkiplistTag) {
    const SkipList* zsl = as_skiplist(bits_);
    std::size_t rank = 0;
    const ZNode* p = zsl->header;
    for (int i = zsl->level - 1; i >= 0; --i) {
      while (p->forward()[i] && pred(ctx, p->forward()[i]->score, p->forward()[i]->member())) {
        rank += p->span()[i];
        p = p->forward()[i];
      }
    }
    return rank;
  }
  const PackedHeader* h = as_packed(bits_);
  if (!h) return 0;
  const std::uint8_t* d = data_of(h);
  std::size_t n = 0;
  for (std::size_t off = 0; off < h->used; ++n) {
    const PackedEntry e = decode(d + off);
    if (!pred(ctx, e.score, e.member)) break;
    off += e.size;
  }
  return n;
}

ZCursor ZSetValue::at_rank(std::size_t r) const noexcept {
  ZCursor c;
  if (bits_ & kSkiplistTag) {
    const SkipList* zsl = as_skiplist(bits_);
    c.node_ = r < zsl->length ? skiplist_at_rank(zsl, r) : nullptr;
  } else {
    c.packed_ = true;
    const PackedHeader* h = as_packed(bits_);
    if (h) {
      c.base_ = data_of(h);
      c.used_ = h->used;
      c.off_ = r < h->count ? packed_offset_of(h, r) : h->used;
    }
  }
  c.load();
  return c;
}

void ZSetValue::erase_ranks(std::size_t lo, std::size_t hi) noexcept {
  hi = std::min(hi, size());
  if (lo >= hi) return;
  if (!(bits_ & kSkiplistTag)) {
    PackedHeader* h = as_packed(bits_);
    const std::size_t from = packed_offset_of(h, lo);
    std::size_t to = from;
    for (std::size_t i = lo; i < hi; ++i) to += decode(data_of(h) + to).size;
    bits_ = reinterpret_cast<std::uintptr_t>(packed_cut(h, from, to, hi - lo));
    return;
  }
  // Redis zslDeleteRangeByRank: find the predecessors of rank lo once, then unlink in a row.
  SkipList* zsl = as_skiplist(bits_);
  ZNode* update[kMaxLevel];
  std::size_t traversed = 0;
  ZNode* p = zsl->header;
  for (int i = zsl->level - 1; i >= 0; --i) {
    while (p->forward()[i] && traversed + p->span()[i] < lo + 1) {
      traversed += p->span()[i];
      p = p->forward()[i];
    }
    update[i] = p;
  }
  ZNode* x = p->forward()[0];
  for (std::size_t n = hi - lo; x && n > 0; --n) {
    ZNode* next = x->forward()[0];
    skiplist_unlink(zsl, x, update);
    zsl->index.erase(x->member());
    zsl->bytes -= malloc_usable_size(x);
    std::free(x);
    x = next;
  }
}

std::uint64_t ZSetValue::scan_step(std::uint64_t cursor, Visitor f, void* ctx) const {
  if (!(bits_ & kSkiplistTag)) {
    for (ZCursor c = at_rank(0); c.valid(); c.next()) f(ctx, c.member(), c.score());
    return 0;
  }
  return as_skiplist(bits_)->index.scan(cursor, [&](void* b) {
    const auto* x = static_cast<const ZNode*>(b);
    f(ctx, x->member(), x->score);
  });
}

ZSetValue ZSetValue::clone() const {
  ZSetValue copy;
  if (bits_ & kSkiplistTag) {
    copy.bits_ = reinterpret_cast<std::uintptr_t>(skiplist_new()) | kSkiplistTag;
    SkipList* zsl = as_skiplist(copy.bits_);
    for_each([&](std::string_view m, double s) { skiplist_insert(zsl, m, s); });
  } else if (bits_) {
    const PackedHeader* h = as_packed(bits_);
    const std::size_t n = sizeof(PackedHeader) + h->used;
    void* b = blocks::xmalloc(n);
    std::memcpy(b, h, n);
    copy.bits_ = reinterpret_cast<std::uintptr_t>(b);
  }
  return copy;
}

std::size_t ZSetValue::memory_usage() const noexcept {
  if (!(bits_ & kSkiplistTag)) return bits_ ? malloc_usable_size(as_packed(bits_)) : 0;
  const SkipList* zsl = as_skiplist(bits_);
  return sizeof(SkipList) + zsl->index.table_bytes() + zsl->bytes;
}

}  // namespace listd::store
