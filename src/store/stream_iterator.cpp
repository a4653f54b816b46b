// StreamIterator: Redis streamIteratorGetID over our node map.
#include "listd/store/stream_value.h"
#include "stream_node.h"

namespace listd::store {

using namespace stream_node;

StreamIterator::StreamIterator(const StreamValue& s, StreamId start, StreamId end, bool rev,
                               bool skip_tombstones) noexcept
    : nodes_(&s.nodes()), start_(start), end_(end), rev_(rev), skip_tombstones_(skip_tombstones) {
  // The node holding the first id to visit is the last one whose master id is <= that id.
  node_ = nodes_->upper_bound(rev ? end : start);
  if (node_ != nodes_->begin()) {
    --node_;
  } else if (rev || node_ == nodes_->end()) {
    done_ = true;
  }
}

void StreamIterator::enter_node() noexcept {
  lp_ = &node_->second;
  master_ = node_->first;
  const NodeHeader h = read_header(*lp_);
  master_fields_ = h.master_fields;
  master_count_ = h.master_count;
  entries_ = h.entries;
  pos_ = entries_;
  if (rev_) {
    rev_entries_.clear();
    for (std::size_t p = entries_; p != StreamPack::kNone;
         p = lp_->next(decode_entry(*lp_, master_, master_count_, p).lp_count))
      rev_entries_.push_back(p);
  }
  in_node_ = true;
}

// Decodes the entry at pos_ and moves pos_ to its neighbour; false when the node is done.
bool StreamIterator::step_in_node() noexcept {
  std::size_t flags_pos = pos_;
  if (rev_) {
    if (rev_entries_.empty()) return false;
    flags_pos = rev_entries_.back();
    rev_entries_.pop_back();
  } else if (pos_ == StreamPack::kNone) {
    return false;
  }
  const EntryAt e = decode_entry(*lp_, master_, master_count_, flags_pos);
  if (!rev_) pos_ = lp_->next(e.lp_count);
  id_ = e.id;
  numfields_ = e.numfields;
  fields_ = e.fields;
  same_fields_ = e.flags & kFlagSameFields;
  deleted_ = e.flags & kFlagDeleted;
  return true;
}

bool StreamIterator::next() noexcept {
  while (!done_) {
    if (!in_node_) enter_node();
    if (!step_in_node()) {
      in_node_ = false;
      if (rev_) {
        if (node_ == nodes_->begin()) done_ = true;
        if (!done_) --node_;
      } else if (++node_ == nodes_->end()) {
        done_ = true;
      }
      continue;
    }
    if (rev_ ? id_ > end_ : id_ < start_) continue;
    // A tombstone is skipped before the range test, as Redis does: ids in a node may go down
    // after one (the top entry deleted, XSETID below it, then XADD into the same node).
    if (deleted_ && skip_tombstones_) continue;
    if (rev_ ? id_ < start_ : id_ > end_) {
      done_ = true;
      break;
    }
    return true;
  }
  return false;
}

}  // namespace listd::store
