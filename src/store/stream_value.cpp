#include "listd/store/stream_value.h"

#include <utility>

#include "stream_node.h"

namespace listd::store {
namespace {

using namespace stream_node;

bool fields_match_master(const StreamPack& lp, const NodeHeader& h,
                         std::span<const std::string_view> fv) noexcept {
  if (static_cast<std::size_t>(h.master_count) * 2 != fv.size()) return false;
  std::size_t p = h.master_fields;
  char buf[24];
  for (std::size_t i = 0; i < fv.size(); i += 2, p = lp.next(p))
    if (lp.at(p).text(buf) != fv[i]) return false;
  return true;
}

}  // namespace

struct StreamValue::Data {
  std::map<StreamId, StreamPack> nodes;
  std::uint64_t length = 0;
  StreamId last_id;
  StreamId first_id;
  StreamId max_deleted;
  std::uint64_t entries_added = 0;
  std::map<std::string, StreamGroup, std::less<>> groups;
};

StreamValue::StreamValue() : d_(std::make_unique<Data>()) {}
StreamValue::~StreamValue() = default;
StreamValue::StreamValue(StreamValue&&) noexcept = default;
StreamValue& StreamValue::operator=(StreamValue&&) noexcept = default;

std::uint64_t StreamValue::length() const noexcept { return d_->length; }
StreamId StreamValue::first_id() const noexcept { return d_->first_id; }
StreamId StreamValue::last_id() const noexcept { return d_->last_id; }
StreamId StreamValue::max_deleted_id() const noexcept { return d_->max_deleted; }
std::uint64_t StreamValue::entries_added() const noexcept { return d_->entries_added; }
void StreamValue::set_last_id(StreamId id) noexcept { d_->last_id = id; }
void StreamValue::set_max_deleted_id(StreamId id) noexcept { d_->max_deleted = id; }
void StreamValue::set_entries_added(std::uint64_t n) noexcept { d_->entries_added = n; }
void StreamValue::set_first_id(StreamId id) noexcept { d_->first_id = id; }
void StreamValue::set_length(std::uint64_t n) noexcept { d_->length = n; }
const std::map<StreamId, StreamPack>& StreamValue::nodes() const noexcept { return d_->nodes; }
std::map<std::string, StreamGroup, std::less<>>& StreamValue::groups() noexcept {
  return d_->groups;
}
const std::map<std::string, StreamGroup, std::less<>>& StreamValue::groups() const noexcept {
  return d_->groups;
}

void StreamValue::append(StreamId id, std::span<const std::string_view> fv,
                         StreamNodeLimits limits) {
  constexpr std::size_t kListpackMaxSize = std::size_t{1} << 30;  // STREAM_LISTPACK_MAX_SIZE
  const std::size_t max_bytes = limits.max_bytes == 0 || limits.max_bytes > kListpackMaxSize
                                    ? kListpackMaxSize
                                    : limits.max_bytes;
  const auto numfields = static_cast<std::int64_t>(fv.size() / 2);
  std::size_t total = 0;
  for (const auto s : fv) total += s.size();
  StreamPack* lp = d_->nodes.empty() ? nullptr : &d_->nodes.rbegin()->second;
  if (lp) {
    const NodeHeader h = read_header(*lp);
    const std::int64_t entries = lp->int_at(h.count_pos) + lp->int_at(h.deleted_pos);
    if (lp->bytes() + total >= max_bytes ||
        (limits.max_entries != 0 && entries >= limits.max_entries)) {
      lp->shrink_to_fit();
      lp = nullptr;
    }
  }
  std::int64_t flags = 0;
  StreamId master = id;
  if (!lp) {
    StreamPack node;
    node.append_int(1);
    node.append_int(0);
    node.append_int(numfields);
    for (std::size_t i = 0; i < fv.size(); i += 2) node.append_string(fv[i]);
    node.append_int(0);
    lp = &d_->nodes.emplace_hint(d_->nodes.end(), id, std::move(node))->second;
    flags = kFlagSameFields;
  } else {
    master = d_->nodes.rbegin()->first;
    const NodeHeader h = read_header(*lp);
    lp->replace_int(h.count_pos, lp->int_at(h.count_pos) + 1);
    if (fields_match_master(*lp, read_header(*lp), fv)) flags = kFlagSameFields;
  }
  lp->mark_last_entry();
  lp->append_int(flags);
  lp->append_int(static_cast<std::int64_t>(id.ms - master.ms));
  lp->append_int(static_cast<std::int64_t>(id.seq - master.seq));
  const bool same = flags & kFlagSameFields;
  if (!same) lp->append_int(numfields);
  for (std::size_t i = 0; i < fv.size(); i += 2) {
    if (!same) lp->append_string(fv[i]);
    lp->append_string(fv[i + 1]);
  }
  lp->append_int(numfields + 3 + (same ? 0 : numfields + 1));
  ++d_->length;
  ++d_->entries_added;
  d_->last_id = id;
  if (d_->length == 1) d_->first_id = id;
}

bool StreamValue::erase(StreamId id) {
  auto it = d_->nodes.upper_bound(id);
  if (it == d_->nodes.begin()) return false;
  --it;
  StreamPack& lp = it->second;
  NodeHeader h = read_header(lp);
  for (std::size_t p = h.entries; p != StreamPack::kNone;) {
    const EntryAt e = decode_entry(lp, it->first, h.master_count, p);
    // Tombstones first, as Redis' iterator: ids may go down after one (see StreamIterator).
    if (e.flags & kFlagDeleted) {
      p = lp.next(e.lp_count);
      continue;
    }
    if (e.id > id) return false;
    if (e.id == id) {
      lp.replace_int(p, e.flags | kFlagDeleted);
      const std::int64_t live = lp.int_at(h.count_pos) - 1;
      lp.replace_int(h.count_pos, live);
      h = read_header(lp);  // the count's width may have changed
      lp.replace_int(h.deleted_pos, lp.int_at(h.deleted_pos) + 1);
      if (live == 0) d_->nodes.erase(it);
      --d_->length;
      if (d_->length == 0)
        d_->first_id = StreamId{};
      else if (id == d_->first_id)
        d_->first_id = edge_id(true);
      if (id > d_->max_deleted) d_->max_deleted = id;
      return true;
    }
    p = lp.next(e.lp_count);
  }
  return false;
}

// streamTrim: whole nodes from the head while they fit the strategy; then, unless `approx`,
// entries of the first remaining node are marked deleted one by one.
std::int64_t StreamValue::trim(const StreamTrim& how) {
  if (how.strategy == StreamTrim::Strategy::kNone) return 0;
  const bool by_len = how.strategy == StreamTrim::Strategy::kMaxLen;
  const auto maxlen = static_cast<std::uint64_t>(how.maxlen);
  std::int64_t deleted = 0;
  auto& nodes = d_->nodes;
  while (!nodes.empty()) {
    if (by_len && d_->length <= maxlen) break;
    auto it = nodes.begin();
    StreamPack& lp = it->second;
    NodeHeader h = read_header(lp);
    const std::int64_t entries = lp.int_at(h.count_pos);
    if (how.limit && deleted + entries > how.limit) break;
    bool remove_node = false;
    if (by_len) {
      remove_node = d_->length - static_cast<std::uint64_t>(entries) >= maxlen;
    } else {
      // A node without entries (only from an RDB) holds nothing to keep.
      const std::size_t last_flags = lp.last_entry();
      remove_node = last_flags == StreamPack::kNone ||
                    decode_entry(lp, it->first, h.master_count, last_flags).id < how.minid;
    }
    if (remove_node) {
      nodes.erase(it);
      d_->length -= static_cast<std::uint64_t>(entries);
      deleted += entries;
      continue;
    }
    if (how.approx) break;
    deleted += trim_inside_first_node(how);
    break;
  }
  if (d_->length == 0)
    d_->first_id = StreamId{};
  else if (deleted)
    d_->first_id = edge_id(true);
  return deleted;
}

std::int64_t StreamValue::trim_inside_first_node(const StreamTrim& how) {
  const bool by_len = how.strategy == StreamTrim::Strategy::kMaxLen;
  auto it = d_->nodes.begin();
  StreamPack& lp = it->second;
  NodeHeader h = read_header(lp);
  std::int64_t removed = 0;
  for (std::size_t p = h.entries; p != StreamPack::kNone;) {
    const EntryAt e = decode_entry(lp, it->first, h.master_count, p);
    if (by_len ? d_->length <= static_cast<std::uint64_t>(how.maxlen) : e.id >= how.minid) break;
    std::size_t lp_count = e.lp_count;
    if (!(e.flags & kFlagDeleted)) {
      // The flag stays one byte wide (1 or 3), so later positions do not move.
      lp.replace_int(p, e.flags | kFlagDeleted);
      ++removed;
      --d_->length;
    }
    p = lp.next(lp_count);
  }
  const std::int64_t live = lp.int_at(h.count_pos) - removed;
  lp.replace_int(h.count_pos, live);
  h = read_header(lp);
  lp.replace_int(h.deleted_pos, lp.int_at(h.deleted_pos) + removed);
  return removed;
}

bool StreamValue::contains(StreamId id) const noexcept {
  StreamIterator it(*this, id, id, false);
  return it.next();
}

StreamId StreamValue::edge_id(bool first, bool skip_tombstones) const noexcept {
  // The newest node knows where its last entry starts: unless that entry is a tombstone to skip,
  // it is the answer without a walk (a reverse walk scans the node forward, up to 100 entries,
  // and XREAD/XREADGROUP ask this on every call).
  if (!first && !d_->nodes.empty()) {
    const auto& [master, lp] = *d_->nodes.rbegin();
    if (lp.last_entry() != StreamPack::kNone) {
      const EntryAt e = decode_entry(lp, master, read_header(lp).master_count, lp.last_entry());
      if (!skip_tombstones || !(e.flags & kFlagDeleted)) return e.id;
    }
  }
  StreamIterator it(*this, StreamId{}, StreamId::max(), !first, skip_tombstones);
  if (it.next()) return it.id();
  return first ? StreamId::max() : StreamId{};
}

void StreamValue::append_node(StreamId master, const Listpack& lp) {
  StreamPack node = StreamPack::from_listpack(lp);
  const NodeHeader h = read_header(node);
  std::size_t last = StreamPack::kNone;
  for (std::size_t p = h.entries; p != StreamPack::kNone;
       p = node.next(decode_entry(node, master, h.master_count, p).lp_count))
    last = p;
  node.set_last_entry(last);
  d_->nodes.emplace_hint(d_->nodes.end(), master, std::move(node));
}

StreamValue StreamValue::clone() const {
  StreamValue copy;
  Data& c = *copy.d_;
  c.nodes = d_->nodes;
  c.length = d_->length;
  c.last_id = d_->last_id;
  c.first_id = d_->first_id;
  c.max_deleted = d_->max_deleted;
  c.entries_added = d_->entries_added;
  for (const auto& [name, g] : d_->groups) c.groups.emplace(name, g.clone());
  return copy;
}

std::size_t StreamValue::memory_usage() const noexcept {
  // Node payloads plus the map's node overhead (three pointers, colour, key).
  std::size_t bytes = sizeof(Data);
  for (const auto& [id, lp] : d_->nodes) bytes += lp.memory_usage() + sizeof(StreamPack) + 48;
  for (const auto& [name, g] : d_->groups)
    bytes += name.size() + sizeof(StreamGroup) + g.pel.size() * (sizeof(StreamNack) + 96) +
             g.consumers.size() * (sizeof(StreamConsumer) + 48);
  return bytes;
}

}  // namespace listd::store
