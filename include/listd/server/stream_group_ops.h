// Consumer-group reads shared by XREADGROUP (immediate and served from a block), XCLAIM,
// XAUTOCLAIM and XINFO (Redis 7.0.15 t_stream.c): the group's entries-read counter and lag
// (streamEstimateDistanceFromFirstEverEntry, streamRangeHasTombstones, streamReplyWithCGLag),
// the delivery of new entries to a consumer (streamReplyWithRange with a group), the replay of
// a consumer's own history (streamReplyWithRangeFromConsumerPEL), and the effects 7.0
// propagates for them (streamPropagateXCLAIM, streamPropagateGroupID,
// streamPropagateConsumerCreation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "listd/protocol/reply_writer.h"
#include "listd/store/stream_value.h"

namespace listd::server {

class EffectStream;

/// Where a group read's effects go: the key and group names as the client sent them, the db.
struct GroupEffectTarget {
  EffectStream* effects = nullptr;  // null: nothing is propagated
  int db = 0;
  std::string_view key;
  std::string_view group;
};

/// SCG_INVALID_ENTRIES_READ.
inline constexpr long long kInvalidEntriesRead = -1;

/// The logical read counter of `id` (its distance from the first entry ever added), or
/// kInvalidEntriesRead when tombstones or the id's position make it unknowable.
long long estimate_entries_read(const store::StreamValue& s, store::StreamId id) noexcept;
/// Whether a deleted entry may lie in [start, max-max].
bool range_has_tombstones(const store::StreamValue& s, store::StreamId start) noexcept;
/// The group's lag (entries not yet delivered), or nullopt when unknowable.
std::optional<long long> group_lag(const store::StreamValue& s,
                                   const store::StreamGroup& g) noexcept;

/// Delivers the entries from `start` (at most `count`, 0 = all) to consumer `c` and replies
/// them as an array: the group's last id and entries-read advance, each entry enters both PELs
/// unless `noack` (an entry pending for another consumer moves to `c` with count 1), and each
/// is propagated as XCLAIM ... FORCE JUSTID LASTID (NOACK: one XGROUP SETID). Returns how many.
std::size_t deliver_new_entries(protocol::ReplyWriter r, const store::StreamValue& s,
                                store::StreamGroup& g, store::StreamConsumer& c,
                                store::StreamId start, std::size_t count, bool noack,
                                std::int64_t now_ms, const GroupEffectTarget& target);
/// Replies consumer `c`'s pending entries from `start` (at most `count`, 0 = all): an entry no
/// longer in the stream as [id, null]; the others have their delivery time and count updated.
std::size_t reply_consumer_history(protocol::ReplyWriter r, const store::StreamValue& s,
                                   store::StreamConsumer& c, store::StreamId start,
                                   std::size_t count, std::int64_t now_ms);

/// XCLAIM <key> <group> <consumer> 0 <id> TIME <ms> RETRYCOUNT <n> FORCE JUSTID LASTID <last>
/// (`id` as the client wrote it, for XCLAIM's own ids).
void emit_xclaim(const GroupEffectTarget& t, const store::StreamGroup& g, std::string_view id,
                 const store::StreamNack& nack);
/// XGROUP SETID <key> <group> <last id> ENTRIESREAD <n>.
void emit_group_setid(const GroupEffectTarget& t, const store::StreamGroup& g);
/// XGROUP CREATECONSUMER <key> <group> <consumer>.
void emit_consumer_creation(const GroupEffectTarget& t, std::string_view consumer);

/// Replies one entry by id ([id, fields]); false (nothing replied) when it is not in the stream.
bool reply_entry_by_id(protocol::ReplyWriter r, const store::StreamValue& s, store::StreamId id);

}  // namespace listd::server
