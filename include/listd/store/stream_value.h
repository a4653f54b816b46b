// StreamValue: the stream type (8-byte handle), Redis 7.0's stream (stream.h, t_stream.c).
//
// API: length / first_id / last_id / max_deleted_id / entries_added (and their setters for
//   XSETID and loading) / append / erase / trim / edge_id / StreamIterator / nodes (RDB) /
//   append_node (loading) / groups / clone / memory_usage.
// Layout: entries in id order in nodes keyed by their master id (std::map: O(log N) seek, O(1)
//   append at the tail); each node is a StreamPack (Redis' listpack elements without their
//   back-lengths, to_listpack() gives Redis' bytes) in Redis' own stream-node layout:
//   [count][deleted][master field count][master fields...][0] then per entry
//   [flags][ms - master ms][seq - master seq]([field count][field value...] | [value...] when
//   the fields equal the master's)[element count of the entry]. A new node starts when the
//   tail would reach StreamNodeLimits::max_bytes or holds max_entries entries (live and
//   deleted), Redis' stream-node-max-bytes / -entries, so `~` trims remove what Redis removes.
// Deleting marks the entry's flag; a node whose live count reaches 0 goes.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "listd/store/listpack.h"
#include "listd/store/stream_group.h"
#include "listd/store/stream_id.h"
#include "listd/store/stream_pack.h"

namespace listd::store {

struct StreamTrim {
  enum class Strategy : std::uint8_t { kNone, kMaxLen, kMinId };
  Strategy strategy = Strategy::kNone;
  bool approx = false;
  long long limit = 0;  // 0 = no limit on removed entries
  long long maxlen = 0;
  StreamId minid;
};

/// Where a new node starts (Redis' stream-node-max-bytes / stream-node-max-entries).
struct StreamNodeLimits {
  std::size_t max_bytes = 4096;  // 0: Redis' 1 GB listpack cap
  long long max_entries = 100;   // 0: no limit
};

class StreamValue {
 public:
  StreamValue();
  StreamValue(const StreamValue&) = delete;
  StreamValue& operator=(const StreamValue&) = delete;
  StreamValue(StreamValue&&) noexcept;
  StreamValue& operator=(StreamValue&&) noexcept;
  ~StreamValue();

  std::uint64_t length() const noexcept;
  /// 0-0 when the stream is empty.
  StreamId first_id() const noexcept;
  StreamId last_id() const noexcept;
  StreamId max_deleted_id() const noexcept;
  std::uint64_t entries_added() const noexcept;
  void set_last_id(StreamId id) noexcept;
  void set_max_deleted_id(StreamId id) noexcept;
  void set_entries_added(std::uint64_t n) noexcept;
  void set_first_id(StreamId id) noexcept;
  void set_length(std::uint64_t n) noexcept;

  /// Appends an entry; `id` must exceed last_id(); `field_values` alternates field, value.
  /// A new node starts when the tail node reaches `limits`.
  void append(StreamId id, std::span<const std::string_view> field_values,
              StreamNodeLimits limits = {});
  /// Deletes entry `id` (XDEL): returns whether it existed; updates first and max-deleted ids.
  bool erase(StreamId id);
  /// streamTrim: removes entries from the head; returns how many.
  std::int64_t trim(const StreamTrim& how);
  /// streamGetEdgeID with tombstones skipped: the first or last live id (0-0 / max-max sentinel
  /// as Redis when empty: first = UINT64_MAX-UINT64_MAX, last = 0-0).
  StreamId edge_id(bool first, bool skip_tombstones = true) const noexcept;
  /// Whether entry `id` is live.
  bool contains(StreamId id) const noexcept;

  /// The nodes in id order (master id -> node), for the RDB writer and the iterator.
  const std::map<StreamId, StreamPack>& nodes() const noexcept;
  /// Loading: adds a node as read from an RDB (ids above every present node).
  void append_node(StreamId master, const Listpack& lp);

  std::map<std::string, StreamGroup, std::less<>>& groups() noexcept;
  const std::map<std::string, StreamGroup, std::less<>>& groups() const noexcept;

  StreamValue clone() const;
  std::size_t memory_usage() const noexcept;

 private:
  std::int64_t trim_inside_first_node(const StreamTrim& how);

  struct Data;
  std::unique_ptr<Data> d_;
};

/// Walks the live entries between two ids (both inclusive), forwards or backwards.
/// Invalidated by any mutation of the stream.
class StreamIterator {
 public:
  StreamIterator(const StreamValue& s, StreamId start, StreamId end, bool rev,
                 bool skip_tombstones = true) noexcept;
  /// Moves to the next entry in range; false when there is none.
  bool next() noexcept;
  StreamId id() const noexcept { return id_; }
  std::size_t field_count() const noexcept { return static_cast<std::size_t>(numfields_); }
  /// f(std::string_view field, std::string_view value) for each field of the current entry.
  template <class F>
  void for_each_field(F&& f) const {
    char fb[24];
    char vb[24];
    if (same_fields_) {
      std::size_t fpos = master_fields_;
      std::size_t vpos = fields_;
      for (std::int64_t i = 0; i < numfields_; ++i) {
        f(lp_->at(fpos).text(fb), lp_->at(vpos).text(vb));
        fpos = lp_->next(fpos);
        vpos = lp_->next(vpos);
      }
      return;
    }
    std::size_t p = fields_;
    for (std::int64_t i = 0; i < numfields_; ++i) {
      const std::size_t v = lp_->next(p);
      f(lp_->at(p).text(fb), lp_->at(v).text(vb));
      p = lp_->next(v);
    }
  }

 private:
  void enter_node() noexcept;
  bool step_in_node() noexcept;

  using NodeIt = std::map<StreamId, StreamPack>::const_iterator;
  const std::map<StreamId, StreamPack>* nodes_;
  NodeIt node_;
  StreamId start_, end_;
  bool rev_;
  bool skip_tombstones_;
  bool in_node_ = false;
  bool done_ = false;
  const StreamPack* lp_ = nullptr;
  StreamId master_;
  std::size_t master_fields_ = 0;  // position of the first master field
  std::int64_t master_count_ = 0;  // master field count
  std::size_t entries_ = 0;        // the node's first entry (its flags)
  std::size_t pos_ = 0;            // the next entry's flags (forward)
  // Reverse: the node's entries' flags offsets, scanned forward (StreamPack has no
  // back-lengths); the next entry is the top one.
  std::vector<std::size_t> rev_entries_;
  StreamId id_;
  std::int64_t numfields_ = 0;
  std::size_t fields_ = 0;  // first field (or value, with same fields) of the current entry
  bool same_fields_ = false;
  bool deleted_ = false;
};

}  // namespace listd::store
