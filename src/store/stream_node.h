// The stream node layout (Redis t_stream.c) shared by StreamValue and StreamIterator: the
// master entry's header and one entry decoded from its flags element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "listd/store/stream_id.h"
#include "listd/store/stream_pack.h"

namespace listd::store::stream_node {

constexpr std::int64_t kFlagDeleted = 1;
constexpr std::int64_t kFlagSameFields = 2;

// The master entry of a node: [count][deleted][field count][fields...][0].
struct NodeHeader {
  std::size_t count_pos = 0;
  std::size_t deleted_pos = 0;
  std::int64_t master_count = 0;
  std::size_t master_fields = 0;
  std::size_t entries = StreamPack::kNone;  // first entry's flags
};

inline NodeHeader read_header(const StreamPack& lp) noexcept {
  NodeHeader h;
  h.count_pos = lp.first();
  h.deleted_pos = lp.next(h.count_pos);
  const std::size_t nf = lp.next(h.deleted_pos);
  h.master_count = lp.int_at(nf);
  std::size_t p = lp.next(nf);
  h.master_fields = p;
  for (std::int64_t i = 0; i < h.master_count; ++i) p = lp.next(p);
  h.entries = lp.next(p);  // past the 0 terminator
  return h;
}

struct EntryAt {
  std::int64_t flags = 0;
  StreamId id;
  std::int64_t numfields = 0;
  std::size_t fields = 0;    // first field (or value, with same fields)
  std::size_t lp_count = 0;  // the entry's last element
};

inline EntryAt decode_entry(const StreamPack& lp, StreamId master, std::int64_t master_count,
                            std::size_t flags_pos) noexcept {
  EntryAt e;
  e.flags = lp.int_at(flags_pos);
  std::size_t p = lp.next(flags_pos);
  e.id.ms = master.ms + static_cast<std::uint64_t>(lp.int_at(p));
  p = lp.next(p);
  e.id.seq = master.seq + static_cast<std::uint64_t>(lp.int_at(p));
  p = lp.next(p);
  std::int64_t skip = 0;
  if (e.flags & kFlagSameFields) {
    e.numfields = master_count;
    skip = master_count;
  } else {
    e.numfields = lp.int_at(p);
    p = lp.next(p);
    skip = 2 * e.numfields;
  }
  e.fields = p;
  for (std::int64_t i = 0; i < skip; ++i) p = lp.next(p);
  e.lp_count = p;
  return e;
}

}  // namespace listd::store::stream_node
