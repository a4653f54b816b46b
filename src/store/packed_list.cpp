// PackedList: block primitives (gap handling, entry codec) and the list operations on top.
// Layout and invariants are described in include/listd/store/packed_list.h. Choices:
// - Small -> chain when a push would pass one block of data; chain -> small only when a
//   single block of <= a quarter block is left (hysteresis, no flapping around 8 KB).
// - A new end block starts full-size when its neighbour is a filled block (a big list keeps
//   filling whole blocks, one malloc per ~580 pushes), otherwise small and grown by realloc
//   (so one small element after a huge one does not cost 8 KB).
// - Front gap instead of memmove on push_front: a head block filled by LPUSH starts with its
//   data at the end. A small block used as a queue gets 1/8 slack so pushes do not move it.
// - Sizes asked of malloc are glibc's usable sizes (good_alloc_size), so memory_usage() is
//   what is really allocated. Measured: 1,000,000 x 12 B = 14.09 B/element (RSS 14.11);
//   10 x 12 B = 152 B in one 160 B chunk.
// - LREM merges neighbours that fit in 3/4 of a block; LINSERT/LSET on a full block split it
//   at the insertion point, copying the shorter side.
// - Compression (see the header): pushes and pops that add or free a block settle the d
//   blocks at each end (O(d), as Redis __quicklistCompress); LSET/LINSERT/LREM, which may
//   reach any block, settle the whole chain (a walk of block headers, no more than their own
//   O(n) search). A block is inflated to write in it (open_node), never to read it.
#include "listd/store/packed_list.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <utility>

#include "listd/base/lzf.h"
#include "listd/store/encoding_limits.h"

namespace listd::store {

using detail::Chain;
using detail::Cursor;
using PackedListEntry = detail::Entry;
using detail::entry_start_before;
using detail::kNodeCompressed;
using detail::kNodeLarge;
using detail::kNodeTried;
using detail::Node;
using detail::read_entry;
using detail::SmallHeader;
using detail::varint_size;

namespace {

constexpr std::size_t kNodeHeader = sizeof(Node);
constexpr std::size_t kBlockData = PackedList::kNodeBytes - kNodeHeader;  // 8136
constexpr std::size_t kLarge = PackedList::kLargeEntryBytes;
// A chain whose single node holds no more than this goes back to the small form; far below
// kBlockData so a list hovering around one block does not flip back and forth.
constexpr std::size_t kToSmall = kBlockData / 4;
// Below this, blocks grow to the exact byte: small lists are the bulk of a keyspace and
// realloc of a few hundred bytes is cheap. Above it, +25% keeps growth amortised.
constexpr std::size_t kExactGrowth = 256;
// Shifting up to this many bytes is cheaper than thinking about recentring a block.
constexpr std::size_t kCheapMove = 128;
// Redis quicklist: blocks under MIN_COMPRESS_BYTES are not compressed, nor when compression
// saves less than MIN_COMPRESS_IMPROVE; depths are capped at COMPRESS_MAX (16 bits).
constexpr std::size_t kMinCompressBytes = 48;
constexpr std::size_t kMinCompressImprove = 8;
constexpr std::size_t kMaxCompressDepth = 65535;

static_assert(sizeof(SmallHeader) == 8);
static_assert(sizeof(Node) == 48);
static_assert(kBlockData < std::numeric_limits<std::uint16_t>::max() - 64,
              "small-form offsets are 16-bit");
static_assert(kLarge < kBlockData);

// glibc hands out chunks of max(32, round_up(n + 8, 16)) bytes, n + 8 usable... so asking
// for the usable size costs nothing and lets us use it without malloc_usable_size (which
// _FORTIFY_SOURCE may not know about).
std::size_t good_alloc_size(std::size_t n) noexcept {
  if (n <= 24) return 24;
  return ((n + 8 + 15) & ~std::size_t{15}) - 8;
}

std::size_t grow_target(std::size_t need, std::size_t limit) noexcept {
  std::size_t t = need <= kExactGrowth ? need : need + need / 4;
  if (t > limit) t = limit;
  return std::max(t, need);
}

void* xmalloc(std::size_t n) {
  void* p = std::malloc(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* xrealloc(void* p, std::size_t n) {
  void* q = std::realloc(p, n);
  if (q == nullptr) throw std::bad_alloc();
  return q;
}

inline std::size_t entry_size(std::size_t len) noexcept {
  if (len < 127) return len + 2;
  const std::size_t l = varint_size(len) + len;
  return l + varint_size(l);
}

inline void write_entry(std::uint8_t* p, std::string_view v) noexcept {
  std::size_t len = v.size();
  if (len < 127) {  // the common case: one length byte each side
    p[0] = static_cast<std::uint8_t>(len);
    if (len != 0) std::memcpy(p + 1, v.data(), len);
    p[len + 1] = static_cast<std::uint8_t>(len + 1);
    return;
  }
  while (len >= 128) {
    *p++ = static_cast<std::uint8_t>(len | 0x80);
    len >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(len);
  if (!v.empty()) std::memcpy(p, v.data(), v.size());
  p += v.size();
  std::size_t l = varint_size(v.size()) + v.size();
  std::uint8_t* q = p + varint_size(l);
  // Lowest group last, so a backward reader meets it first; 0x80 = more groups to the left.
  do {
    std::uint8_t b = l & 0x7f;
    l >>= 7;
    if (l != 0) b |= 0x80;
    *--q = b;
  } while (l != 0);
}

bool entry_equals(const PackedListEntry& e, std::string_view v) noexcept {
  return e.len == v.size() && (e.len == 0 || std::memcmp(e.data, v.data(), e.len) == 0);
}

// ---- Generic block operations; H is SmallHeader or Node (same field names). ----

template <class H>
std::uint8_t* data(H* h) noexcept {
  return reinterpret_cast<std::uint8_t*>(h + 1);
}
template <class H>
std::size_t used(const H* h) noexcept {
  return std::size_t{h->end} - h->begin;
}
template <class H>
std::size_t spare(const H* h) noexcept {
  return h->cap - used(h);
}
template <class T>
void put(T& field, std::size_t v) noexcept {
  field = static_cast<T>(v);
}

// Opens `n` bytes at entry boundary `pos` and returns where they start. Requires
// spare(h) >= n. Shifts the cheaper side; when only the expensive side has room, recentres
// the block instead, leaving front_quarters/4 of the remaining free space in front, so that
// pushes on the same end do not shift the whole block every time.
template <class H>
std::size_t open_gap(H* h, std::size_t pos, std::size_t n, unsigned front_quarters) noexcept {
  std::uint8_t* d = data(h);
  const std::size_t begin = h->begin, end = h->end, cap = h->cap;
  const std::size_t front = pos - begin, back = end - pos;
  const bool left = begin >= n, right = cap - end >= n;
  bool go_left = false, go_right = false;
  if (left && right) {
    (front <= back ? go_left : go_right) = true;
  } else if (left && (front <= back || front <= kCheapMove)) {
    go_left = true;
  } else if (right && (back <= front || back <= kCheapMove)) {
    go_right = true;
  }
  if (go_left) {
    std::memmove(d + begin - n, d + begin, front);
    put(h->begin, begin - n);
    return pos - n;
  }
  if (go_right) {
    std::memmove(d + pos + n, d + pos, back);
    put(h->end, end + n);
    return pos;
  }
  const std::size_t rest = cap - (end - begin) - n;
  const std::size_t nb = rest * front_quarters / 4;
  // Order the two moves so neither clobbers bytes the other still has to read.
  if (nb <= begin) {
    std::memmove(d + nb, d + begin, front);
    std::memmove(d + nb + front + n, d + pos, back);
  } else {
    std::memmove(d + nb + front + n, d + pos, back);
    std::memmove(d + nb, d + begin, front);
  }
  put(h->begin, nb);
  put(h->end, nb + (end - begin) + n);
  return nb + front;
}

// Removes bytes [a, b) (whole entries) by shifting the smaller side; returns the offset of
// the boundary where they were.
template <class H>
std::size_t erase_bytes(H* h, std::size_t a, std::size_t b) noexcept {
  std::uint8_t* d = data(h);
  const std::size_t begin = h->begin, end = h->end, k = b - a;
  if (a - begin <= end - b) {
    std::memmove(d + begin + k, d + begin, a - begin);
    put(h->begin, begin + k);
    return b;
  }
  std::memmove(d + a, d + b, end - b);
  put(h->end, end - k);
  return a;
}

// Replaces the entry at `off` (encoded size `old`) by `v` (encoded size `esz`). Requires
// spare(h) + old >= esz.
template <class H>
void replace_entry(H* h, std::size_t off, std::size_t old, std::string_view v,
                   std::size_t esz) noexcept {
  std::size_t start = off;
  if (esz > old) {
    start = open_gap(h, off + old, esz - old, 2) - old;
  } else if (esz < old) {
    start = erase_bytes(h, off + esz, off + old) - esz;
  }
  write_entry(data(h) + start, v);
}

// Offset of entry `i` (i <= count; i == count gives `end`) in the raw bytes d[begin, end),
// walked from the nearer end.
std::size_t offset_in(const std::uint8_t* d, std::size_t begin, std::size_t end, std::size_t count,
                      std::size_t i) noexcept {
  if (i <= count / 2) {
    std::size_t off = begin;
    for (; i > 0; --i) off += read_entry(d + off).size;
    return off;
  }
  std::size_t off = end;
  for (std::size_t k = count - i; k > 0; --k) {
    off = static_cast<std::size_t>(entry_start_before(d + off) - d);
  }
  return off;
}

template <class H>
std::size_t offset_of(const H* h, std::size_t i) noexcept {
  return offset_in(detail::data_of(h), h->begin, h->end, h->count, i);
}

// LREM inside one block, head to tail: drops up to `limit` entries equal to `v`, moving the
// kept runs once each. Returns how many were dropped; the caller fixes the counts.
template <class H>
std::size_t compact_forward(H* h, std::string_view v, std::size_t limit) noexcept {
  std::uint8_t* d = data(h);
  const std::size_t end = h->end;
  std::size_t r = h->begin;
  while (r < end) {  // nothing moves until the first match
    const PackedListEntry e = read_entry(d + r);
    if (entry_equals(e, v)) break;
    r += e.size;
  }
  if (r == end) return 0;
  if (limit == 1) {  // LREM key 1 x: one entry, shift whichever side is shorter
    erase_bytes(h, r, r + read_entry(d + r).size);
    return 1;
  }
  std::size_t w = r, run = r, removed = 0;
  while (r < end && removed < limit) {
    const PackedListEntry e = read_entry(d + r);
    if (entry_equals(e, v)) {
      if (w != run) std::memmove(d + w, d + run, r - run);
      w += r - run;
      r += e.size;
      run = r;
      ++removed;
    } else {
      r += e.size;
    }
  }
  if (w != run) std::memmove(d + w, d + run, end - run);
  put(h->end, w + (end - run));
  return removed;
}

// LREM inside one block, tail to head (count < 0).
template <class H>
std::size_t compact_backward(H* h, std::string_view v, std::size_t limit) noexcept {
  std::uint8_t* d = data(h);
  const std::size_t begin = h->begin;
  std::size_t r = h->end;  // end of the entry being looked at
  while (r > begin) {
    const std::size_t s = static_cast<std::size_t>(entry_start_before(d + r) - d);
    if (entry_equals(read_entry(d + s), v)) break;
    r = s;
  }
  if (r == begin) return 0;
  if (limit == 1) {
    erase_bytes(h, static_cast<std::size_t>(entry_start_before(d + r) - d), r);
    return 1;
  }
  std::size_t w = r, run_end = r, removed = 0;
  while (r > begin && removed < limit) {
    const std::size_t s = static_cast<std::size_t>(entry_start_before(d + r) - d);
    if (entry_equals(read_entry(d + s), v)) {
      const std::size_t len = run_end - r;
      if (w != run_end) std::memmove(d + w - len, d + r, len);
      w -= len;
      run_end = s;
      ++removed;
    }
    r = s;
  }
  const std::size_t len = run_end - begin;
  if (w != run_end) std::memmove(d + w - len, d + begin, len);
  put(h->begin, w - len);
  return removed;
}

// ---- Small form ----

SmallHeader* alloc_small(std::size_t need) {
  const std::size_t req = good_alloc_size(sizeof(SmallHeader) + grow_target(need, kBlockData));
  auto* h = static_cast<SmallHeader*>(xmalloc(req));
  put(h->cap, req - sizeof(SmallHeader));
  h->begin = h->end = h->count = 0;
  return h;
}

// Grows so that `need` live bytes fit; offsets are kept.
SmallHeader* grow_small(SmallHeader* h, std::size_t need) {
  const std::size_t req = good_alloc_size(sizeof(SmallHeader) + grow_target(need, kBlockData));
  h = static_cast<SmallHeader*>(xrealloc(h, req));
  put(h->cap, req - sizeof(SmallHeader));
  return h;
}

// ---- Chain form ----

bool is_large(const Node* n) noexcept { return (n->flags & kNodeLarge) != 0; }
bool is_compressed(const Node* n) noexcept { return (n->flags & kNodeCompressed) != 0; }

std::size_t node_bytes(const Node* n) noexcept { return kNodeHeader + n->cap; }
// Bytes of entries, whatever the block's form.
std::size_t raw_bytes(const Node* n) noexcept { return is_compressed(n) ? n->end : used(n); }

// After `n` moved (realloc or a copy), points its neighbours (or the chain's ends) at it.
void relink(Chain* c, Node* n) noexcept {
  if (n->prev != nullptr) {
    n->prev->next = n;
  } else {
    c->head = n;
  }
  if (n->next != nullptr) {
    n->next->prev = n;
  } else {
    c->tail = n;
  }
}

// ---- Compression of chain blocks ----

// A raw copy of compressed `n` (exactly its size, data at 0), replacing it in the chain.
Node* decompress_node(Chain* c, Node* n) {
  const std::size_t raw = n->end;
  const std::size_t req = good_alloc_size(kNodeHeader + raw);
  auto* m = static_cast<Node*>(xmalloc(req));
  if (!base::lzf_decompress(detail::data_of(n), n->begin, data(m), raw)) std::abort();
  *m = *n;
  m->cap = req - kNodeHeader;
  m->begin = 0;
  m->end = raw;
  m->flags &= ~(kNodeCompressed | kNodeTried);
  c->bytes = c->bytes - node_bytes(n) + req;
  std::free(n);
  relink(c, m);
  return m;
}

// Makes `n` writable: raw, and no longer marked tried (its bytes are about to change).
Node* open_node(Chain* c, Node* n) {
  if (is_compressed(n)) return decompress_node(c, n);
  n->flags &= ~kNodeTried;
  return n;
}

// Redis __quicklistCompressNode: compresses raw `n` when it pays, else marks it tried.
Node* compress_node(Chain* c, Node* n) {
  const std::size_t u = used(n);
  n->flags |= kNodeTried;
  if (u < kMinCompressBytes) return n;
  const std::size_t limit = u - kMinCompressImprove - 1;  // must save at least 8 bytes
  std::size_t req = good_alloc_size(kNodeHeader + limit);
  auto* m = static_cast<Node*>(std::malloc(req));
  if (m == nullptr) return n;  // staying raw is fine
  const std::size_t clen = base::lzf_compress(detail::data_of(n) + n->begin, u, data(m), limit);
  if (clen == 0) {
    std::free(m);
    return n;
  }
  if (good_alloc_size(kNodeHeader + clen) < req) {
    if (void* q = std::realloc(m, good_alloc_size(kNodeHeader + clen))) {  // may fail: harmless
      m = static_cast<Node*>(q);
      req = good_alloc_size(kNodeHeader + clen);
    }
  }
  std::memcpy(m, n, kNodeHeader);
  m->cap = req - kNodeHeader;
  m->begin = clen;
  m->end = u;
  m->flags = (n->flags & ~kNodeTried) | kNodeCompressed;
  c->bytes = c->bytes - node_bytes(n) + req;
  std::free(n);
  relink(c, m);
  return m;
}

// An unlinked node with room for `data_cap` bytes; live range empty at `start_at_end` ? cap : 0.
Node* new_node(Chain* c, std::size_t data_cap, bool start_at_end) {
  const std::size_t req = good_alloc_size(kNodeHeader + data_cap);
  auto* n = static_cast<Node*>(xmalloc(req));
  n->prev = n->next = nullptr;
  n->cap = req - kNodeHeader;
  n->begin = n->end = start_at_end ? n->cap : 0;
  n->count = 0;
  n->flags = 0;
  c->bytes += req;
  return n;
}

void link_after(Chain* c, Node* at, Node* n) noexcept {  // at == nullptr: new head
  n->prev = at;
  n->next = at != nullptr ? at->next : c->head;
  if (n->next != nullptr) {
    n->next->prev = n;
  } else {
    c->tail = n;
  }
  if (at != nullptr) {
    at->next = n;
  } else {
    c->head = n;
  }
  ++c->nodes;
}

void unlink_free(Chain* c, Node* n) noexcept {
  if (n->prev != nullptr) {
    n->prev->next = n->next;
  } else {
    c->head = n->next;
  }
  if (n->next != nullptr) {
    n->next->prev = n->prev;
  } else {
    c->tail = n->prev;
  }
  --c->nodes;
  c->bytes -= node_bytes(n);
  std::free(n);
}

// Reallocates `n` so `need` live bytes fit (need <= kBlockData); fixes the links.
Node* grow_node(Chain* c, Node* n, std::size_t need) {
  const std::size_t old_bytes = node_bytes(n);
  const std::size_t req = good_alloc_size(kNodeHeader + grow_target(need, kBlockData));
  n = static_cast<Node*>(xrealloc(n, req));
  n->cap = req - kNodeHeader;
  c->bytes = c->bytes - old_bytes + req;
  relink(c, n);
  return n;
}

// Returns `n` (possibly moved, raw) with spare >= esz, or nullptr if it may not take the
// entry. A compressed block is inflated only when it will take it.
Node* room_in(Chain* c, Node* n, std::size_t esz) {
  if (esz > kLarge || is_large(n)) return nullptr;
  if (raw_bytes(n) + esz > kBlockData) return nullptr;
  n = open_node(c, n);
  if (spare(n) >= esz) return n;
  if (used(n) + esz > kBlockData) return nullptr;
  return grow_node(c, n, used(n) + esz);
}

void write_at(Chain* c, Node* n, std::size_t pos, std::string_view v, std::size_t esz,
              unsigned front_quarters) noexcept {
  write_entry(data(n) + open_gap(n, pos, esz, front_quarters), v);
  ++n->count;
  ++c->count;
}

// Inserts `v` between adjacent nodes `a` and `b` (either may be null): at the end of `a` if
// it has room, else at the start of `b`, else in a new node between them.
void insert_between(Chain* c, Node* a, Node* b, std::string_view v, std::size_t esz) {
  if (a != nullptr) {
    if (Node* n = room_in(c, a, esz)) {
      write_at(c, n, n->end, v, esz, n == c->head ? 1 : 0);
      return;
    }
  }
  if (b != nullptr) {
    if (Node* n = room_in(c, b, esz)) {
      write_at(c, n, n->begin, v, esz, n == c->tail ? 3 : 4);
      return;
    }
  }
  Node* n;
  if (esz > kLarge) {
    n = new_node(c, esz, false);
    n->flags = kNodeLarge;
  } else {
    // A list that is filling whole blocks at an end keeps doing so: start the new end block
    // at full size rather than growing it by realloc. Anywhere else, start small.
    const Node* neighbour = a == nullptr ? b : (b == nullptr ? a : nullptr);
    const bool full =
        neighbour != nullptr && !is_large(neighbour) && raw_bytes(neighbour) >= kBlockData / 2;
    n = new_node(c, full ? kBlockData : grow_target(esz, kBlockData), a == nullptr);
  }
  link_after(c, a, n);
  write_at(c, n, n->begin, v, esz, 2);
}

// Inserts `v` at entry boundary `pos` of `n`, with `idx` of n's entries before it.
// `n` must be raw.
void insert_in_node(Chain* c, Node* n, std::size_t pos, std::size_t idx, std::string_view v,
                    std::size_t esz) {
  n->flags &= ~kNodeTried;
  const std::size_t rel = pos - n->begin;  // growing may not move offsets, but be explicit
  if (Node* m = room_in(c, n, esz)) {
    write_at(c, m, m->begin + rel, v, esz, 2);
    return;
  }
  if (pos == n->begin) {
    insert_between(c, n->prev, n, v, esz);
    return;
  }
  if (pos == n->end) {
    insert_between(c, n, n->next, v, esz);
    return;
  }
  // Split: copy the shorter side of `pos` into a new node, then insert between the halves.
  const std::size_t front = pos - n->begin, back = n->end - pos;
  if (front <= back) {
    Node* l = new_node(c, grow_target(front, kBlockData), false);
    std::memcpy(data(l), data(n) + n->begin, front);
    l->end = front;
    l->count = static_cast<std::uint32_t>(idx);
    n->begin = pos;
    n->count -= static_cast<std::uint32_t>(idx);
    link_after(c, n->prev, l);
    insert_between(c, l, n, v, esz);
  } else {
    Node* r = new_node(c, grow_target(back, kBlockData), false);
    std::memcpy(data(r), data(n) + pos, back);
    r->end = back;
    r->count = n->count - static_cast<std::uint32_t>(idx);
    n->end = pos;
    n->count = static_cast<std::uint32_t>(idx);
    link_after(c, n, r);
    insert_between(c, n, r, v, esz);
  }
}

// The block holding element `index` (< c->count), found from the nearer end; `index`
// becomes its position in that block.
Node* node_of(Chain* c, std::size_t& index) noexcept {
  Node* n;
  if (index < c->count / 2) {
    n = c->head;
    while (index >= n->count) {
      index -= n->count;
      n = n->next;
    }
    return n;
  }
  std::size_t from_end = c->count - 1 - index;
  n = c->tail;
  while (from_end >= n->count) {
    from_end -= n->count;
    n = n->prev;
  }
  index = n->count - 1 - from_end;
  return n;
}

// Whether compressed `n` holds an entry equal to `v` (searched in a scratch copy).
bool holds(const Node* n, std::string_view v) {
  detail::Scratch s;
  const std::uint8_t* d = detail::inflate(n, s);
  for (std::size_t off = 0; off < n->end;) {
    const PackedListEntry e = read_entry(d + off);
    if (entry_equals(e, v)) return true;
    off += e.size;
  }
  return false;
}

// Appends b's entries to a and frees b. Requires both regular and used(a)+used(b) <= kBlockData.
Node* merge_next(Chain* c, Node* a) {
  a = open_node(c, a);
  Node* b = open_node(c, a->next);
  const std::size_t total = used(a) + used(b);
  if (a->cap < total) a = grow_node(c, a, total);
  if (a->cap - a->end < used(b)) {
    std::memmove(data(a), data(a) + a->begin, used(a));
    a->end = used(a);
    a->begin = 0;
  }
  std::memcpy(data(a) + a->end, data(b) + b->begin, used(b));
  a->end += used(b);
  a->count += b->count;
  unlink_free(c, b);
  return a;
}

// After removals in the middle: fold neighbours that together fill at most 3/4 of a block.
void merge_sparse(Chain* c) {
  for (Node* n = c->head; n != nullptr && n->next != nullptr;) {
    Node* m = n->next;
    if (!is_large(n) && !is_large(m) && raw_bytes(n) + raw_bytes(m) <= kBlockData / 4 * 3) {
      n = merge_next(c, n);
    } else {
      n = m;
    }
  }
}

// An inner block: compressed unless that was tried on its current bytes.
Node* make_inner(Chain* c, Node* n) {
  if (is_compressed(n) || (n->flags & kNodeTried) != 0) return n;
  return compress_node(c, n);
}

// Redis __quicklistCompress after blocks came or went at an end: the d blocks at each end
// raw, the first inner one on each side compressed. O(d). After a change of one block, a
// chain of fewer than 2d blocks had no inner block before and has none now: O(1), as Redis'
// early return (which the big erases, that free many blocks at once, may not take).
void settle_ends(Chain* c, bool one_block = false) {
  const std::size_t d = c->depth;
  if (d == 0 || (one_block && c->nodes < 2 * d)) return;
  Node* f = c->head;
  Node* r = c->tail;
  for (std::size_t i = 0; i < d; ++i) {
    const bool same = f == r;
    f = open_node(c, f);
    r = same ? f : open_node(c, r);
    if (f == r || f->next == r) return;  // every block is within d of an end
    f = f->next;
    r = r->prev;
  }
  const bool same = f == r;
  f = make_inner(c, f);
  if (!same) make_inner(c, r);
}

// After a change anywhere in the chain: every block in its place's form. O(blocks).
void settle_all(Chain* c) {
  const std::size_t d = c->depth;
  if (d == 0) return;
  const std::size_t nodes = c->nodes;
  std::size_t i = 0;
  for (Node* n = c->head; n != nullptr; ++i) {
    Node* next = n->next;
    if (i < d || i + d >= nodes) {
      open_node(c, n);
    } else {
      make_inner(c, n);
    }
    n = next;
  }
}

Chain* new_chain() {
  auto* c = static_cast<Chain*>(xmalloc(sizeof(Chain)));
  const std::size_t depth = encoding_limits().list_compress_depth;
  *c = Chain{nullptr,
             nullptr,
             0,
             0,
             good_alloc_size(sizeof(Chain)),
             depth < kMaxCompressDepth ? depth : kMaxCompressDepth};
  return c;
}

void free_chain(Chain* c) noexcept {
  for (Node* n = c->head; n != nullptr;) {
    Node* next = n->next;
    std::free(n);
    n = next;
  }
  std::free(c);
}

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

}  // namespace

// ---- Lifetime ----

PackedList::~PackedList() { clear(); }

PackedList::PackedList(PackedList&& other) noexcept : bits_(std::exchange(other.bits_, 0)) {}

PackedList& PackedList::operator=(PackedList&& other) noexcept {
  if (this != &other) {
    clear();
    bits_ = std::exchange(other.bits_, 0);
  }
  return *this;
}

void PackedList::clear() noexcept {
  if (bits_ == 0) return;
  if (is_chain()) {
    free_chain(chain());
  } else {
    std::free(small());
  }
  bits_ = 0;
}

PackedList PackedList::clone() const {
  PackedList out;
  if (bits_ == 0) return out;
  if (!is_chain()) {
    const SmallHeader* h = small();
    auto* copy = static_cast<SmallHeader*>(xmalloc(sizeof(SmallHeader) + h->cap));
    std::memcpy(copy, h, sizeof(SmallHeader) + h->end);
    out.set_small(copy);
    return out;
  }
  const Chain* src = chain();
  auto* c = static_cast<Chain*>(xmalloc(sizeof(Chain)));
  *c = Chain{nullptr, nullptr, 0, 0, good_alloc_size(sizeof(Chain)), src->depth};
  out.set_chain(c);  // from here on `out` frees what was copied if an allocation throws
  for (const Node* n = src->head; n != nullptr; n = n->next) {
    auto* m = static_cast<Node*>(xmalloc(node_bytes(n)));
    std::memcpy(m, n, kNodeHeader);
    if (is_compressed(n)) {
      std::memcpy(data(m), detail::data_of(n), n->begin);
    } else {
      std::memcpy(data(m) + n->begin, detail::data_of(n) + n->begin, used(n));
    }
    c->bytes += node_bytes(n);
    link_after(c, c->tail, m);
    c->count += n->count;
  }
  return out;
}

// ---- Queries ----

std::size_t PackedList::size() const noexcept {
  if (bits_ == 0) return 0;
  return is_chain() ? chain()->count : small()->count;
}

std::size_t PackedList::memory_usage() const noexcept {
  if (bits_ == 0) return 0;
  return is_chain() ? chain()->bytes : sizeof(SmallHeader) + small()->cap;
}

std::size_t PackedList::block_count() const noexcept {
  if (bits_ == 0) return 0;
  return is_chain() ? chain()->nodes : 1;
}

std::size_t PackedList::compressed_block_count() const noexcept {
  if (!is_chain()) return 0;
  std::size_t k = 0;
  for (const Node* n = chain()->head; n != nullptr; n = n->next) k += is_compressed(n) ? 1 : 0;
  return k;
}

std::size_t PackedList::compress_depth() const noexcept { return is_chain() ? chain()->depth : 0; }

const std::uint8_t* detail::inflate(const Node* n, Scratch& s) {
  if (s.cap < n->end) {
    s.buf = std::make_unique_for_overwrite<std::uint8_t[]>(n->end);
    s.cap = n->end;
  }
  if (!base::lzf_decompress(data_of(n), n->begin, s.buf.get(), n->end)) std::abort();
  return s.buf.get();
}

Cursor PackedList::cursor_at(std::size_t index) const {
  assert(index < size());
  Cursor cur;
  if (!is_chain()) {
    const SmallHeader* h = small();
    cur.base = detail::data_of(h);
    cur.begin = h->begin;
    cur.end = h->end;
    cur.off = offset_of(h, index);
    return cur;
  }
  const Node* n = node_of(chain(), index);
  cur.enter(n);
  cur.off = offset_in(cur.base, cur.begin, cur.end, n->count, index);
  return cur;
}

Cursor PackedList::cursor_back() const {
  Cursor cur;
  if (!is_chain()) {
    const SmallHeader* h = small();
    cur.base = detail::data_of(h);
    cur.begin = h->begin;
    cur.end = h->end;
  } else {
    cur.enter(chain()->tail);
  }
  cur.off = static_cast<std::size_t>(entry_start_before(cur.base + cur.end) - cur.base);
  return cur;
}

std::string_view PackedList::front() const {
  assert(!empty());
  const PackedListEntry e = is_chain()
                                ? read_entry(detail::data_of(chain()->head) + chain()->head->begin)
                                : read_entry(detail::data_of(small()) + small()->begin);
  return {e.data, e.len};
}

std::string_view PackedList::back() const {
  const PackedListEntry e = cursor_back().entry();
  return {e.data, e.len};
}

std::string_view PackedList::at(std::size_t index) const {
  const Cursor cur = cursor_at(index);
  const PackedListEntry e = cur.entry();
  if (cur.node == nullptr || !is_compressed(cur.node)) return {e.data, e.len};
  thread_local std::string t_copy;  // the cursor's scratch dies here
  t_copy.assign(e.data, e.len);
  return t_copy;
}

// ---- Form changes ----

Chain* PackedList::to_chain() {
  SmallHeader* h = small();
  std::unique_ptr<Chain, FreeDeleter> owner(new_chain());
  Chain* c = owner.get();
  const std::size_t u = used(h);
  Node* n = new_node(c, u >= kBlockData / 2 ? kBlockData : grow_target(u, kBlockData), false);
  std::memcpy(data(n), data(h) + h->begin, u);
  n->end = u;
  n->count = h->count;
  link_after(c, nullptr, n);
  c->count = h->count;
  std::free(h);
  set_chain(owner.release());
  return c;
}

// Called after anything that removed elements.
void PackedList::after_shrink() noexcept {
  if (bits_ == 0) return;
  if (!is_chain()) {
    SmallHeader* h = small();
    if (h->count == 0) {
      clear();
      return;
    }
    const std::size_t u = used(h);
    if (h->cap > 64 && u * 2 < h->cap) {  // give memory back, keeping room for 25% growth
      std::memmove(data(h), data(h) + h->begin, u);
      h->begin = 0;
      put(h->end, u);
      const std::size_t req = good_alloc_size(sizeof(SmallHeader) + grow_target(u, kBlockData));
      if (void* p = std::realloc(h, req)) {  // a failed shrink is harmless
        h = static_cast<SmallHeader*>(p);
        put(h->cap, req - sizeof(SmallHeader));
        set_small(h);
      }
    }
    return;
  }
  Chain* c = chain();
  if (c->count == 0) {
    clear();
    return;
  }
  if (c->nodes != 1 || used(c->head) > kToSmall) return;
  const Node* n = c->head;
  assert(!is_compressed(n));  // callers settle first: a lone block is an end block
  const std::size_t u = used(n);
  const std::size_t req = good_alloc_size(sizeof(SmallHeader) + grow_target(u, kBlockData));
  auto* h = static_cast<SmallHeader*>(std::malloc(req));
  if (h == nullptr) return;  // staying a chain is fine
  put(h->cap, req - sizeof(SmallHeader));
  h->begin = 0;
  put(h->end, u);
  put(h->count, n->count);
  std::memcpy(data(h), detail::data_of(n) + n->begin, u);
  free_chain(c);
  set_small(h);
}

// ---- Mutations ----

[[gnu::noinline]] void PackedList::push_generic(std::string_view v, bool front) {
  const std::size_t esz = entry_size(v.size());
  if (bits_ == 0 && esz <= kLarge) {
    SmallHeader* h = alloc_small(esz);
    write_entry(data(h), v);
    put(h->end, esz);
    h->count = 1;
    set_small(h);
    return;
  }
  Chain* c;
  if (bits_ == 0) {
    std::unique_ptr<Chain, FreeDeleter> owner(new_chain());
    c = owner.get();
    insert_between(c, nullptr, nullptr, v, esz);
    set_chain(owner.release());
    return;
  }
  if (!is_chain()) {
    SmallHeader* h = small();
    if (esz <= kLarge && used(h) + esz <= kBlockData) {
      const std::size_t u = used(h);
      if (spare(h) < esz) {
        h = grow_small(h, u + esz);
        set_small(h);
      } else if (u > kCheapMove && spare(h) < esz + u / 8 &&
                 (front ? h->begin < esz : std::size_t{h->cap} - h->end < esz)) {
        // Free space only on the far side: the list is used as a queue (push here, pop
        // there). Without some slack every push would move the whole block; 1/8 bounds
        // the memory this costs.
        h = grow_small(h, std::min(u + esz + u / 8, kBlockData));
        set_small(h);
      }
      const std::size_t pos = front ? h->begin : h->end;
      write_entry(data(h) + open_gap(h, pos, esz, front ? 3 : 1), v);
      ++h->count;
      return;
    }
    c = to_chain();
  } else {
    c = chain();
  }
  const std::size_t nodes = c->nodes;
  if (front) {
    insert_between(c, nullptr, c->head, v, esz);
  } else {
    insert_between(c, c->tail, nullptr, v, esz);
  }
  if (c->nodes != nodes) settle_ends(c, true);  // the old end block may now be inner
}

// Hot paths (LPUSH/RPUSH on a big list): the end block has room on the pushed side. Kept
// apart from push_generic so they stay small enough to need no stack frame.
void PackedList::push_front(std::string_view v) {
  if (is_chain() && v.size() < 127) {
    Chain* c = chain();
    Node* n = c->head;
    const std::size_t esz = v.size() + 2;
    if (n->begin >= esz && !is_large(n)) {
      n->begin -= esz;
      write_entry(data(n) + n->begin, v);
      ++n->count;
      ++c->count;
      return;
    }
  }
  push_generic(v, true);
}

void PackedList::push_back(std::string_view v) {
  if (is_chain() && v.size() < 127) {
    Chain* c = chain();
    Node* n = c->tail;
    const std::size_t esz = v.size() + 2;
    if (n->cap - n->end >= esz && !is_large(n)) {
      write_entry(data(n) + n->end, v);
      n->end += esz;
      ++n->count;
      ++c->count;
      return;
    }
  }
  push_generic(v, false);
}

void PackedList::drop_one(bool front) {
  assert(!empty());
  if (!is_chain()) {
    SmallHeader* h = small();
    if (front) {
      put(h->begin, h->begin + read_entry(data(h) + h->begin).size);
    } else {
      put(h->end, static_cast<std::size_t>(entry_start_before(data(h) + h->end) - data(h)));
    }
    --h->count;
    if (h->count == 0 || used(h) * 2 < h->cap) after_shrink();
    return;
  }
  Chain* c = chain();
  Node* n = front ? c->head : c->tail;
  if (front) {
    n->begin += read_entry(data(n) + n->begin).size;
  } else {
    n->end = static_cast<std::size_t>(entry_start_before(data(n) + n->end) - data(n));
  }
  --n->count;
  --c->count;
  if (n->count == 0) {
    unlink_free(c, n);
    settle_ends(c, true);  // an inner block may have become an end one
    after_shrink();
  } else if (c->nodes == 1 && used(n) <= kToSmall) {
    after_shrink();
  }
}

std::string PackedList::pop_front() {
  std::string out(front());
  drop_one(true);
  return out;
}

std::string PackedList::pop_back() {
  std::string out(back());
  drop_one(false);
  return out;
}

void PackedList::set(std::size_t index, std::string_view v) {
  assert(index < size());
  const std::size_t esz = entry_size(v.size());
  if (!is_chain()) {
    SmallHeader* h = small();
    const std::size_t off = offset_of(h, index);
    const std::size_t old = read_entry(data(h) + off).size;
    if (esz <= kLarge && used(h) - old + esz <= kBlockData) {
      if (spare(h) + old < esz) {
        h = grow_small(h, used(h) - old + esz);
        set_small(h);
      }
      replace_entry(h, off, old, v, esz);
      after_shrink();
      return;
    }
    to_chain();  // and fall through to the general chain path
  }
  Chain* c = chain();
  std::size_t in_node = index;
  Node* n = open_node(c, node_of(c, in_node));
  std::size_t off = offset_of(n, in_node);
  const std::size_t old = read_entry(data(n) + off).size;
  if (!is_large(n) && esz <= kLarge && used(n) - old + esz <= kBlockData) {
    if (spare(n) + old < esz) {
      const std::size_t rel = off - n->begin;
      n = grow_node(c, n, used(n) - old + esz);
      off = n->begin + rel;
    }
    replace_entry(n, off, old, v, esz);
  } else if (is_large(n) && esz > kLarge) {
    // Large for large: a fresh exact node, so the old bytes are never copied.
    Node* m = new_node(c, esz, false);
    m->flags = kNodeLarge;
    write_entry(data(m), v);
    m->end = esz;
    m->count = 1;
    link_after(c, n, m);
    unlink_free(c, n);
  } else {
    // Different kind of home: take the old entry out, then insert as LINSERT would.
    std::size_t idx = 0;
    for (std::size_t o = n->begin; o < off; o += read_entry(data(n) + o).size) ++idx;
    const std::size_t at = erase_bytes(n, off, off + old);
    --n->count;
    --c->count;
    if (n->count == 0) {
      Node* a = n->prev;
      Node* b = n->next;
      unlink_free(c, n);
      insert_between(c, a, b, v, esz);
    } else {
      insert_in_node(c, n, at, idx, v, esz);
    }
  }
  settle_all(c);
  after_shrink();
}

bool PackedList::insert_at_pivot(std::string_view pivot, std::string_view v, bool after) {
  if (bits_ == 0) return false;
  const std::size_t esz = entry_size(v.size());
  if (!is_chain()) {
    SmallHeader* h = small();
    const std::uint8_t* d = data(h);
    std::size_t off = h->begin;
    for (; off < h->end; off += read_entry(d + off).size) {
      if (entry_equals(read_entry(d + off), pivot)) break;
    }
    if (off == h->end) return false;
    const std::size_t pos = after ? off + read_entry(d + off).size : off;
    if (esz <= kLarge && used(h) + esz <= kBlockData) {
      if (spare(h) < esz) {
        h = grow_small(h, used(h) + esz);
        set_small(h);
      }
      write_entry(data(h) + open_gap(h, pos, esz, 2), v);
      ++h->count;
      return true;
    }
    const std::size_t rel = pos - h->begin;
    Chain* c = to_chain();
    std::size_t idx = 0;
    for (std::size_t o = 0; o < rel; o += read_entry(data(c->head) + o).size) ++idx;
    insert_in_node(c, c->head, rel, idx, v, esz);
    return true;
  }
  Chain* c = chain();
  for (Node* n = c->head; n != nullptr; n = n->next) {
    if (is_compressed(n)) {
      if (!holds(n, pivot)) continue;
      n = open_node(c, n);
    }
    const std::uint8_t* d = data(n);
    std::size_t idx = 0;
    for (std::size_t off = n->begin; off < n->end; ++idx) {
      const PackedListEntry e = read_entry(d + off);
      if (entry_equals(e, pivot)) {
        if (after) {
          insert_in_node(c, n, off + e.size, idx + 1, v, esz);
        } else {
          insert_in_node(c, n, off, idx, v, esz);
        }
        settle_all(c);
        return true;
      }
      off += e.size;
    }
  }
  return false;
}

std::size_t PackedList::remove(std::string_view v, long long count) {
  if (bits_ == 0) return 0;
  const bool backward = count < 0;
  // -count overflows for LLONG_MIN; negate in unsigned arithmetic instead.
  const std::size_t limit = count == 0 ? std::numeric_limits<std::size_t>::max()
                            : backward ? std::size_t{0} - static_cast<std::size_t>(count)
                                       : static_cast<std::size_t>(count);
  std::size_t removed = 0;
  if (!is_chain()) {
    SmallHeader* h = small();
    removed = backward ? compact_backward(h, v, limit) : compact_forward(h, v, limit);
    put(h->count, h->count - removed);
  } else {
    Chain* c = chain();
    for (Node* n = backward ? c->tail : c->head; n != nullptr && removed < limit;) {
      Node* next = backward ? n->prev : n->next;
      if (is_compressed(n) && !holds(n, v)) {
        n = next;
        continue;
      }
      if (is_compressed(n)) n = open_node(c, n);
      const std::size_t r = backward ? compact_backward(n, v, limit - removed)
                                     : compact_forward(n, v, limit - removed);
      if (r != 0) n->flags &= ~kNodeTried;  // changed: worth another compression attempt
      n->count -= static_cast<std::uint32_t>(r);
      removed += r;
      if (n->count == 0) unlink_free(c, n);
      n = next;
    }
    c->count -= removed;
    if (removed != 0) {
      merge_sparse(c);
      settle_all(c);
    }
  }
  if (removed != 0) after_shrink();
  return removed;
}

void PackedList::erase_front(std::size_t k) {
  if (k == 0 || bits_ == 0) return;
  if (k == 1) {  // LPOP through front() + erase_front(1)
    drop_one(true);
    return;
  }
  if (k >= size()) {
    clear();
    return;
  }
  if (!is_chain()) {
    SmallHeader* h = small();
    put(h->begin, offset_of(h, k));
    put(h->count, h->count - k);
  } else {
    Chain* c = chain();
    c->count -= k;
    while (c->head->count <= k) {
      k -= c->head->count;
      unlink_free(c, c->head);
    }
    Node* n = open_node(c, c->head);
    n->begin = offset_of(n, k);
    n->count -= static_cast<std::uint32_t>(k);
    settle_ends(c);
  }
  after_shrink();
}

void PackedList::erase_back(std::size_t k) {
  if (k == 0 || bits_ == 0) return;
  if (k == 1) {
    drop_one(false);
    return;
  }
  if (k >= size()) {
    clear();
    return;
  }
  if (!is_chain()) {
    SmallHeader* h = small();
    put(h->end, offset_of(h, h->count - k));
    put(h->count, h->count - k);
  } else {
    Chain* c = chain();
    c->count -= k;
    while (c->tail->count <= k) {
      k -= c->tail->count;
      unlink_free(c, c->tail);
    }
    Node* n = open_node(c, c->tail);
    n->end = offset_of(n, n->count - k);
    n->count -= static_cast<std::uint32_t>(k);
    settle_ends(c);
  }
  after_shrink();
}

void PackedList::keep_range(std::size_t start, std::size_t stop) {
  const std::size_t n = size();
  assert(start <= stop && stop < n);
  if (stop + 1 < n) erase_back(n - 1 - stop);
  erase_front(start);
}

}  // namespace listd::store

namespace listd::store {

namespace {
bool entries_ok(const std::uint8_t* d, std::size_t begin, std::size_t end,
                std::size_t count) noexcept {
  std::size_t off = begin, n = 0;
  while (off < end) {
    const PackedListEntry e = read_entry(d + off);
    if (e.size != entry_size(e.len) || off + e.size > end) return false;
    if (entry_start_before(d + off + e.size) != d + off) return false;
    off += e.size;
    ++n;
  }
  return off == end && n == count;
}

template <class H>
bool block_ok(const H* h, bool allow_empty) noexcept {
  if (h->begin > h->end || h->end > h->cap) return false;
  if (h->count == 0) return allow_empty && h->begin == h->end;
  return entries_ok(detail::data_of(h), h->begin, h->end, h->count);
}

// A compressed block inflates to well-framed entries; a tried one really does not compress.
bool compressed_form_ok(const Node* n) {
  if (is_compressed(n)) {
    if (n->begin > n->cap || n->count == 0 || (n->flags & kNodeTried) != 0) return false;
    if (n->begin + kMinCompressImprove >= n->end) return false;
    detail::Scratch s;
    return entries_ok(detail::inflate(n, s), 0, n->end, n->count);
  }
  if ((n->flags & kNodeTried) == 0) return true;
  const std::size_t u = used(n);
  if (u < kMinCompressBytes) return true;
  std::unique_ptr<std::uint8_t[]> out(new std::uint8_t[u]);
  return base::lzf_compress(detail::data_of(n) + n->begin, u, out.get(),
                            u - kMinCompressImprove - 1) == 0;
}
}  // namespace

bool PackedList::invariants_hold() const {
  if (bits_ == 0) return true;
  if (!is_chain()) {
    const SmallHeader* h = small();
    return h->count > 0 && used(h) <= kBlockData && block_ok(h, false);
  }
  const Chain* c = chain();
  std::size_t count = 0, nodes = 0, bytes = good_alloc_size(sizeof(Chain));
  const Node* prev = nullptr;
  const std::size_t d = c->depth;
  if (d == 0 && compressed_block_count() != 0) return false;
  for (const Node* n = c->head; n != nullptr; prev = n, n = n->next) {
    const bool at_end = nodes < d || nodes + d >= c->nodes;
    if (n->prev != prev || (at_end && (n->flags & (kNodeCompressed | kNodeTried)) != 0)) {
      return false;
    }
    if (!at_end && d != 0 && (n->flags & (kNodeCompressed | kNodeTried)) == 0) return false;
    if (!compressed_form_ok(n)) return false;
    if (!is_compressed(n) && !block_ok(n, false)) return false;
    if (is_large(n) ? n->count != 1 : raw_bytes(n) > kBlockData) return false;
    count += n->count;
    bytes += node_bytes(n);
    ++nodes;
  }
  return prev == c->tail && count == c->count && nodes == c->nodes && bytes == c->bytes &&
         count > 0;
}

}  // namespace listd::store
