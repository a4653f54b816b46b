// PackedList: the compact list behind every list value (Redis' quicklist, 8-byte handle).
// API: push/pop/front/back at both ends, at/set, insert_at_pivot (LINSERT), remove (LREM),
//   keep_range (LTRIM), erase_front/erase_back, range visits and indexed scans.
// Forms: empty = null; small = ONE allocation [8 B header][entries] up to one block of data,
//   grown to the byte below 256 B, +25% above; chain = doubly linked blocks of <= kNodeBytes
//   (48 B header), entries > kLargeEntryBytes alone in an exact block, never moved again.
// Entry: [varint len][raw bytes][backward varint len]: 12 bytes cost 14, binary-safe, never
//   reinterpreted ("007", "-0" come back identical; no integer encoding).
// Invariants: every chain block holds >= 1 entry; a block's live bytes are [begin, end) with
//   free space on both sides, so a push at either end writes in place (no memmove); a block
//   short on one side is recentred once, biased to that side: O(1) amortised pushes.
// Compression (list-compress-depth d, Redis quicklist's): a chain captures d when it is
//   created (Redis fixes it per list). Then the d blocks at each end are always raw and every
//   inner block is LZF-compressed when it has >= 48 bytes and that saves >= 8 (else it stays
//   raw, marked tried, until it changes). A mutation that reaches an inner block inflates it
//   and leaves the chain settled again; a push/pop that stays in an end block touches no
//   compressed block; readers (at, visitors) inflate into scratch, never in place.
// Views (front/back, visitors) live until the next mutation (a visitor's view only during
//   its call; at()'s until the next at() when its block is compressed); values passed to
//   mutators must not point into this list. Single-threaded, like all store data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace listd::store {

namespace detail {

inline constexpr std::uint32_t kNodeLarge = 1;  // one oversized entry, never grows
inline constexpr std::uint32_t kNodeCompressed =
    2;                                          // data is LZF: begin = its size, end = raw size
inline constexpr std::uint32_t kNodeTried = 4;  // raw inner block compression did not pay for

/// Header of the small form: offsets are relative to the data that follows it.
struct SmallHeader {
  std::uint16_t cap;
  std::uint16_t begin;
  std::uint16_t end;
  std::uint16_t count;
};

/// Header of one chain block; `cap` bytes of data follow it. A compressed block keeps
/// `count`, holds the LZF bytes at offset 0 and stores their size in `begin`, the raw size
/// in `end` (it is never read through begin/end as a raw block).
struct Node {
  Node* prev;
  Node* next;
  std::size_t cap;
  std::size_t begin;
  std::size_t end;
  std::uint32_t count;
  std::uint32_t flags;  // kNodeLarge | kNodeCompressed | kNodeTried
};

/// The chain form's root; PackedList points at it (tagged).
struct Chain {
  Node* head;
  Node* tail;
  std::size_t count;  // elements in all nodes
  std::size_t nodes;
  std::size_t bytes;  // allocated: this header plus every node (as requested from malloc)
  std::size_t depth;  // list-compress-depth captured at creation (0: never compressed)
};

/// A reader's buffer for one inflated block.
struct Scratch {
  std::unique_ptr<std::uint8_t[]> buf;
  std::size_t cap = 0;
};

/// Inflates compressed block `n` into `s` (grown as needed); returns its raw bytes.
const std::uint8_t* inflate(const Node* n, Scratch& s);

inline const std::uint8_t* data_of(const Node* n) noexcept {
  return reinterpret_cast<const std::uint8_t*>(n + 1);
}
inline const std::uint8_t* data_of(const SmallHeader* h) noexcept {
  return reinterpret_cast<const std::uint8_t*>(h + 1);
}

inline std::size_t varint_size(std::size_t v) noexcept {
  std::size_t n = 1;
  while (v >= 128) {
    v >>= 7;
    ++n;
  }
  return n;
}

/// A decoded entry: its bytes and its total encoded size.
struct Entry {
  const char* data;
  std::size_t len;
  std::size_t size;
};

inline Entry read_entry(const std::uint8_t* p) noexcept {
  if (p[0] < 127) {  // 0..126 bytes: one header byte and one backlen byte
    return {reinterpret_cast<const char*>(p + 1), p[0], std::size_t{p[0]} + 2};
  }
  std::size_t len = 0;
  unsigned shift = 0;
  const std::uint8_t* q = p;
  for (;;) {
    const std::uint8_t b = *q++;
    len |= std::size_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  const std::size_t l = static_cast<std::size_t>(q - p) + len;
  return {reinterpret_cast<const char*>(q), len, l + varint_size(l)};
}

/// Start of the entry that ends just before `end`.
inline const std::uint8_t* entry_start_before(const std::uint8_t* end) noexcept {
  std::uint8_t b = end[-1];
  if (!(b & 0x80)) return end - 1 - b;
  std::size_t l = b & 0x7fu;
  unsigned shift = 7;
  const std::uint8_t* q = end - 1;
  do {
    b = *--q;
    l |= std::size_t{b & 0x7fu} << shift;
    shift += 7;
  } while (b & 0x80);
  return q - l;
}

/// A read position on one entry; walks across nodes. Used by the visiting templates.
struct Cursor {
  const Node* node = nullptr;  // null in the small form
  const std::uint8_t* base = nullptr;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t off = 0;  // offset of the current entry in base
  Scratch scratch;      // holds a compressed block's raw bytes while the cursor is on it

  void enter(const Node* n) {
    node = n;
    if ((n->flags & kNodeCompressed) != 0) {
      base = inflate(n, scratch);
      begin = 0;
    } else {
      base = data_of(n);
      begin = n->begin;
    }
    end = n->end;
  }
  /// Moves past the current entry (of encoded size `size`); false at the end of the list.
  bool next(std::size_t size) {
    off += size;
    if (off < end) return true;
    if (node == nullptr || node->next == nullptr) return false;
    enter(node->next);
    off = begin;
    return true;
  }
  /// Moves to the previous entry; false at the start of the list.
  bool prev() {
    if (off == begin) {
      if (node == nullptr || node->prev == nullptr) return false;
      enter(node->prev);
      off = end;
    }
    off = static_cast<std::size_t>(entry_start_before(base + off) - base);
    return true;
  }
  Entry entry() const noexcept { return read_entry(base + off); }
};

}  // namespace detail

class PackedList {
 public:
  /// Allocation size of a full chain block (fits glibc's 8192-byte chunk exactly).
  static constexpr std::size_t kNodeBytes = 8184;
  /// Entries whose encoded size exceeds this get a node of their own.
  static constexpr std::size_t kLargeEntryBytes = 4096;

  /// An empty list; allocates nothing.
  PackedList() noexcept = default;
  ~PackedList();
  PackedList(PackedList&& other) noexcept;
  PackedList& operator=(PackedList&& other) noexcept;
  PackedList(const PackedList&) = delete;
  PackedList& operator=(const PackedList&) = delete;

  /// A deep copy (COPY, and tests).
  PackedList clone() const;

  /// Number of elements, O(1).
  std::size_t size() const noexcept;
  bool empty() const noexcept { return bits_ == 0; }

  /// Adds `v` at the head; no allocation while the head block has room.
  void push_front(std::string_view v);
  /// Adds `v` at the tail; no allocation while the tail block has room.
  void push_back(std::string_view v);
  /// Removes and returns the head element. Precondition: !empty().
  std::string pop_front();
  /// Removes and returns the tail element. Precondition: !empty().
  std::string pop_back();

  /// The head element. Precondition: !empty().
  std::string_view front() const;
  /// The tail element. Precondition: !empty().
  std::string_view back() const;
  /// Element `index` (0-based). Precondition: index < size(). O(distance to the nearer end).
  /// In a compressed block the view is of a copy that lives until the next at() call.
  std::string_view at(std::size_t index) const;
  /// Replaces element `index`. Precondition: index < size().
  void set(std::size_t index, std::string_view v);

  /// Inserts `v` before (after if `after`) the first element equal to `pivot`, searching
  /// from the head. Returns false, changing nothing, if `pivot` is absent. (LINSERT)
  bool insert_at_pivot(std::string_view pivot, std::string_view v, bool after);
  /// LREM: count > 0 removes up to count matches head to tail, count < 0 up to -count tail
  /// to head, 0 all of them. Returns how many were removed.
  std::size_t remove(std::string_view v, long long count);
  /// LTRIM: keeps [start, stop]. Precondition: start <= stop < size(). O(removed).
  void keep_range(std::size_t start, std::size_t stop);
  /// Drops the first `n` elements (all if n >= size()). O(n).
  void erase_front(std::size_t n);
  /// Drops the last `n` elements (all if n >= size()). O(n).
  void erase_back(std::size_t n);
  /// Removes everything and frees all memory.
  void clear() noexcept;

  /// Calls f(std::string_view) for elements [start, stop] in order; stop is clamped to
  /// size() - 1. O(distance of start to the nearer end + count). f must not mutate the list.
  template <class F>
  void for_each_in_range(std::size_t start, std::size_t stop, F&& f) const;
  /// Calls f(index, view) from the head on; stops when f returns false (f may return void).
  template <class F>
  void scan_forward(F&& f) const;
  /// Calls f(index, view) from the tail backwards; stops when f returns false.
  template <class F>
  void scan_backward(F&& f) const;

  /// Bytes allocated by this list (headers and blocks, as requested from malloc, which for
  /// glibc equals the usable size); excludes sizeof(PackedList) itself. (MEMORY USAGE)
  std::size_t memory_usage() const noexcept;
  /// Number of blocks: 0 when empty, 1 in the small form, else the chain's node count.
  std::size_t block_count() const noexcept;
  /// Blocks stored LZF-compressed (walks the chain). For tests and introspection.
  std::size_t compressed_block_count() const noexcept;
  /// The compress depth this list was given when it became a chain (0 in the small form).
  std::size_t compress_depth() const noexcept;
  /// Walks every block and checks counts, links, entry framing, byte totals and, with a
  /// compress depth, that end blocks are raw and inner ones compressed or tried. For tests.
  bool invariants_hold() const;

 private:
  // A cursor on element `index` (< size()), found from the nearer end.
  detail::Cursor cursor_at(std::size_t index) const;
  detail::Cursor cursor_back() const;

  bool is_chain() const noexcept { return (bits_ & 1u) != 0; }
  detail::SmallHeader* small() const noexcept {
    return reinterpret_cast<detail::SmallHeader*>(bits_);
  }
  detail::Chain* chain() const noexcept {
    return reinterpret_cast<detail::Chain*>(bits_ & ~std::uintptr_t{1});
  }
  void set_small(detail::SmallHeader* h) noexcept { bits_ = reinterpret_cast<std::uintptr_t>(h); }
  void set_chain(detail::Chain* c) noexcept { bits_ = reinterpret_cast<std::uintptr_t>(c) | 1u; }

  void push_generic(std::string_view v, bool front);
  void drop_one(bool front);
  detail::Chain* to_chain();     // converts the small form; returns the chain
  void after_shrink() noexcept;  // small-form shrink / chain back to small / free when empty
                                 // (a chain is settled first: its single block is raw)

  std::uintptr_t bits_ = 0;  // 0: empty; low bit 0: SmallHeader*; low bit 1: Chain*
};

template <class F>
void PackedList::for_each_in_range(std::size_t start, std::size_t stop, F&& f) const {
  const std::size_t n = size();
  if (n == 0 || start >= n || start > stop) return;
  if (stop >= n) stop = n - 1;
  detail::Cursor c = cursor_at(start);
  for (std::size_t left = stop - start + 1;;) {
    const detail::Entry e = c.entry();
    f(std::string_view(e.data, e.len));
    if (--left == 0 || !c.next(e.size)) return;
  }
}

template <class F>
void PackedList::scan_forward(F&& f) const {
  if (empty()) return;
  detail::Cursor c = cursor_at(0);
  for (std::size_t i = 0;; ++i) {
    const detail::Entry e = c.entry();
    if constexpr (std::is_void_v<std::invoke_result_t<F&, std::size_t, std::string_view>>) {
      f(i, std::string_view(e.data, e.len));
    } else {
      if (!f(i, std::string_view(e.data, e.len))) return;
    }
    if (!c.next(e.size)) return;
  }
}

template <class F>
void PackedList::scan_backward(F&& f) const {
  if (empty()) return;
  detail::Cursor c = cursor_back();
  for (std::size_t i = size() - 1;; --i) {
    const detail::Entry e = c.entry();
    if constexpr (std::is_void_v<std::invoke_result_t<F&, std::size_t, std::string_view>>) {
      f(i, std::string_view(e.data, e.len));
    } else {
      if (!f(i, std::string_view(e.data, e.len))) return;
    }
    if (i == 0 || !c.prev()) return;
  }
}

}  // namespace listd::store
