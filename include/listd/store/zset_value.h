// ZSetValue: the sorted-set type (8-byte handle): members ordered by (score, member bytes).
//
// API: score / insert / update / erase / rank / partition_point / at_rank (a ZCursor that walks
//   both ways) / erase_ranks / for_each / scan / clone / memory_usage / encoding_name.
// Forms (like Redis 7): "listpack" = one block [u32 used][u32 count] of entries
//   [u8 score kind * 80 + member len][score: zigzag varint if integral, 4-byte float if exact,
//   else the 8-byte double][member][back-length], sorted (zset_value.cpp has the details); new
//   members go in while it stays within zset-max-listpack-entries members of at most
//   zset-max-listpack-value bytes (encoding_limits.h), a loaded listpack keeps members of any
//   length (only its count decides, as in Redis' RDB load), and none passes 1 GB;
//   "skiplist" = Redis' skip list (p = 1/4, 32 levels, spans for ranks, backward links) whose nodes
//   embed the member, plus a BlockSet (set_value.h) over the same nodes for member -> score in
//   O(1). insert, update, erase, rank, partition_point and at_rank are O(log N); erase_ranks is
//   O(log N + M). The listpack moves to the skip list when a new member would exceed its limits;
//   back only through convert_to_listpack_if_fits (Redis zsetConvertToListpackIfNeeded).
// Scores are never NaN (the commands reject NaN before calling in). Views (cursor members,
// for_each) live until the next mutation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "listd/store/set_value.h"

namespace listd::store {

/// A position in a sorted set: valid() until it walks off either end. Invalidated by any
/// mutation of the set.
class ZCursor {
 public:
  bool valid() const noexcept { return valid_; }
  std::string_view member() const noexcept { return member_; }
  double score() const noexcept { return score_; }
  /// Moves to the next (higher) element.
  void next() noexcept;
  /// Moves to the previous (lower) element.
  void prev() noexcept;

 private:
  friend class ZSetValue;
  void load() noexcept;

  const void* node_ = nullptr;          // skip-list node (skip-list form)
  const std::uint8_t* base_ = nullptr;  // entries (listpack form)
  std::size_t off_ = 0;
  std::size_t used_ = 0;
  std::size_t entry_size_ = 0;
  std::string_view member_;
  double score_ = 0;
  bool valid_ = false;
  bool packed_ = false;
};

class ZSetValue {
 public:
  enum class Encoding : std::uint8_t { kPacked, kSkiplist };

  ZSetValue() noexcept = default;
  ZSetValue(const ZSetValue&) = delete;
  ZSetValue& operator=(const ZSetValue&) = delete;
  ZSetValue(ZSetValue&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  ZSetValue& operator=(ZSetValue&& other) noexcept;
  ~ZSetValue();

  /// A new sorted set as Redis 7.0's ZADD makes one: a listpack unless zset-max-listpack-entries
  /// is 0 or its first member is longer than zset-max-listpack-value, however many members
  /// follow (7.2's zsetTypeCreate also looks at their number). Not a detail: the listpack stores
  /// an integral score as an integer, so -0 added into a new set becomes 0 even once it
  /// converts to a skip list.
  static ZSetValue create(std::size_t first_member_len);
  /// An empty skip list (Redis createZsetObject).
  static ZSetValue create_skiplist();
  /// For the RDB load of a listpack or ziplist blob of `count` members: a skip list when over
  /// zset-max-listpack-entries, else a listpack that load_member fills whatever the lengths.
  static ZSetValue for_load(std::size_t count);

  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }
  Encoding encoding() const noexcept;
  /// "listpack" or "skiplist" (OBJECT ENCODING).
  std::string_view encoding_name() const noexcept;

  /// The score of `member`, or nullopt.
  std::optional<double> score(std::string_view member) const noexcept;
  /// Adds `member` (which must be absent) with `score`; a listpack converts first when the new
  /// member would take it over zset-max-listpack-entries, is longer than
  /// zset-max-listpack-value or would take it past 1 GB (Redis zsetAdd).
  void insert(std::string_view member, double score);
  /// As insert() without the limits (only the 1 GB bound converts): see for_load.
  void load_member(std::string_view member, double score);
  /// A skip list becomes a listpack when it fits one (Redis zsetConvertToListpackIfNeeded:
  /// ZUNIONSTORE & co, GEOSEARCHSTORE, the RDB load of a plain sorted set).
  void convert_to_listpack_if_fits();
  /// Changes the score of `member` (present, currently `old_score`) to `new_score`.
  void update(std::string_view member, double old_score, double new_score);
  /// Removes `member`; returns whether it was there.
  bool erase(std::string_view member) noexcept;
  /// 0-based ascending rank of `member`, or nullopt.
  std::optional<std::size_t> rank(std::string_view member) const noexcept;

  /// Number of leading elements (in order) for which pred(score, member) holds; pred must be
  /// true on a prefix (e.g. "score < min"). The skip list answers in O(log N).
  template <class P>
  std::size_t partition_point(P&& pred) const {
    return partition_point_impl(&call_pred<P>, const_cast<void*>(static_cast<const void*>(&pred)));
  }
  /// A cursor on the element of 0-based rank `r` (invalid if r >= size()).
  ZCursor at_rank(std::size_t r) const noexcept;
  /// Removes the elements of ranks [lo, hi).
  void erase_ranks(std::size_t lo, std::size_t hi) noexcept;

  /// f(std::string_view member, double score) in ascending order.
  template <class F>
  void for_each(F&& f) const {
    for (ZCursor c = at_rank(0); c.valid(); c.next()) f(c.member(), c.score());
  }
  /// ZSCAN step: visits one cursor step's elements (f(member, score)) and returns the next
  /// cursor (0 when done); the listpack is visited whole, as Redis does.
  template <class F>
  std::uint64_t scan(std::uint64_t cursor, F&& f) const {
    return scan_step(cursor, &call_visit<F>, const_cast<void*>(static_cast<const void*>(&f)));
  }

  ZSetValue clone() const;
  /// Bytes allocated (MEMORY USAGE).
  std::size_t memory_usage() const noexcept;

 private:
  using Pred = bool (*)(void* ctx, double score, std::string_view member);
  using Visitor = void (*)(void* ctx, std::string_view member, double score);
  template <class P>
  static bool call_pred(void* ctx, double score, std::string_view member) {
    return (*static_cast<std::remove_reference_t<P>*>(ctx))(score, member);
  }
  template <class F>
  static void call_visit(void* ctx, std::string_view member, double score) {
    (*static_cast<std::remove_reference_t<F>*>(ctx))(member, score);
  }
  std::size_t partition_point_impl(Pred pred, void* ctx) const;
  std::uint64_t scan_step(std::uint64_t cursor, Visitor f, void* ctx) const;
  void to_skiplist();
  std::size_t packed_bytes() const noexcept;
  void release() noexcept;

  std::uintptr_t bits_ = 0;  // block pointer | form tag (low bit); 0 = empty listpack
};

}  // namespace listd::store
