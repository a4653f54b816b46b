// StreamGroup: a consumer group of a stream (Redis streamCG): its last delivered id, its
// entries-read counter, the group's pending entries list (PEL: id -> StreamNack) and its
// consumers, each with its own PEL (ids whose NACK names that consumer).
//
// API: find_consumer / create_consumer / delete_consumer / deliver (to a consumer, new or
//   re-assigned) / ack / clone_into.
// Invariants: every NACK in the group PEL names a consumer of the group, and is in that
//   consumer's PEL and no other; consumers are ordered by name (Redis' rax), PELs by id.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "listd/store/stream_id.h"

namespace listd::store {

struct StreamConsumer;

/// A delivered, not yet acknowledged entry (Redis streamNACK).
struct StreamNack {
  std::int64_t delivery_time = 0;  // unix ms of the last delivery
  std::uint64_t delivery_count = 0;
  StreamConsumer* consumer = nullptr;
};

struct StreamConsumer {
  std::string name;
  std::int64_t seen_time = 0;  // unix ms of the consumer's last interaction
  std::map<StreamId, StreamNack*> pel;
};

struct StreamGroup {
  StreamId last_id;
  long long entries_read = -1;  // SCG_INVALID_ENTRIES_READ when unknown
  std::map<StreamId, StreamNack> pel;
  std::map<std::string, StreamConsumer, std::less<>> consumers;

  StreamGroup() = default;
  StreamGroup(StreamId last, long long read) : last_id(last), entries_read(read) {}
  StreamGroup(const StreamGroup&) = delete;
  StreamGroup& operator=(const StreamGroup&) = delete;
  StreamGroup(StreamGroup&&) = default;

  StreamConsumer* find_consumer(std::string_view name) noexcept;
  /// The consumer `name`, created (seen now) if absent; `created` tells which.
  StreamConsumer& create_consumer(std::string_view name, std::int64_t now_ms, bool* created);
  /// Deletes the consumer and its pending entries from the group; returns how many it had.
  std::size_t delete_consumer(std::string_view name);
  /// Records `id` as delivered to `c` at `now_ms`: a new NACK (count 1), or an existing one
  /// moved to `c` with its count raised when `bump_count`.
  StreamNack& deliver(StreamId id, StreamConsumer& c, std::int64_t now_ms, bool bump_count);
  /// Moves an existing NACK to consumer `c` (XCLAIM / XAUTOCLAIM).
  void reassign(StreamNack& nack, StreamId id, StreamConsumer& c);
  /// Acknowledges `id`: removes it from both PELs; returns whether it was pending.
  bool ack(StreamId id);
  /// A deep copy with the consumer links re-pointed into the copy.
  StreamGroup clone() const;
};

}  // namespace listd::store
