#include "listd/server/replication_backlog.h"

#include <algorithm>

namespace listd::server {

ReplicationBacklog::ReplicationBacklog(std::size_t capacity, long long end_offset)
    : ring_(std::max<std::size_t>(capacity, 1), '\0'), end_offset_(end_offset) {}

void ReplicationBacklog::append(std::string_view bytes) {
  end_offset_ += static_cast<long long>(bytes.size());
  const std::size_t cap = ring_.size();
  if (bytes.size() >= cap) {  // only the newest `cap` bytes survive
    bytes.remove_prefix(bytes.size() - cap);
    ring_.assign(bytes);
    next_ = 0;
    histlen_ = cap;
    return;
  }
  const std::size_t first = std::min(bytes.size(), cap - next_);
  ring_.replace(next_, first, bytes.substr(0, first));
  ring_.replace(0, bytes.size() - first, bytes.substr(first));
  next_ = (next_ + bytes.size()) % cap;
  histlen_ = std::min(cap, histlen_ + bytes.size());
}

void ReplicationBacklog::copy_from(long long offset, std::string& out) const {
  const auto len = static_cast<std::size_t>(end_offset_ + 1 - offset);
  const std::size_t cap = ring_.size();
  if (len == 0) return;
  const std::size_t start = (next_ + cap - len % cap) % cap;  // len == cap: the oldest is next_
  if (start + len <= cap) {
    out.append(ring_, start, len);
  } else {
    out.append(ring_, start, cap - start);
    out.append(ring_, 0, len - (cap - start));
  }
}

void ReplicationBacklog::resize(std::size_t capacity) {
  capacity = std::max<std::size_t>(capacity, 1);
  if (capacity == ring_.size()) return;
  std::string kept;
  const std::size_t keep = std::min(histlen_, capacity);
  copy_from(end_offset_ + 1 - static_cast<long long>(keep), kept);
  ring_.assign(capacity, '\0');
  ring_.replace(0, kept.size(), kept);
  next_ = kept.size() % capacity;
  histlen_ = kept.size();
}

}  // namespace listd::server
