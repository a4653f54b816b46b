#include "listd/store/database.h"

#include <algorithm>

namespace listd::store {

Entry* Database::lookup(std::string_view key, std::int64_t now_ms) {
  Entry* e = dict_.find(key);
  if (e && expired(*e, now_ms)) {
    if (!keep_expired_) delete_expired(e);
    return nullptr;
  }
  return e;
}

Entry* Database::add(std::string_view key, Value value) {
  if (keep_expired_) drop_kept_expired(key);
  return dict_.insert(key, std::move(value));
}

void Database::drop_kept_expired(std::string_view key) {
  // lookup hid it, so the caller adds it anew: a write replaces what reads saw as gone
  // (Redis deletes an expired key before a write to it on a writable replica).
  if (Entry* e = dict_.find(key)) delete_expired(e);
}

void Database::add_entry(Entry* entry) {
  if (keep_expired_) drop_kept_expired(entry->key());
  dict_.insert_entry(entry);
  if (entry->has_expire()) {
    const std::int64_t at = entry->expire_at_ms;
    entry->expire_at_ms = -1;
    set_expire(*entry, at);
  }
}

void Database::forget_expire(const Entry& e) noexcept {
  if (!e.has_expire()) return;
  --expires_;
  expire_sum_ -= static_cast<long double>(e.expire_at_ms);
}

Entry* Database::detach(std::string_view key) {
  Entry* e = dict_.detach(key);
  if (e) forget_expire(*e);
  return e;
}

bool Database::remove(std::string_view key) {
  Entry* e = detach(key);
  Entry::destroy(e);
  return e != nullptr;
}

void Database::set_expire(Entry& e, std::int64_t at_ms) {
  forget_expire(e);
  e.expire_at_ms = at_ms;
  ++expires_;
  expire_sum_ += static_cast<long double>(at_ms);
  heap_.push_back(Deadline{at_ms, std::string(e.key())});
  heap_key_bytes_ += key_heap_bytes(heap_.back().key);
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  if (heap_.size() > 64 && heap_.size() > 3 * expires_) compact_heap();
}

bool Database::persist(Entry& e) {
  if (!e.has_expire()) return false;
  forget_expire(e);
  e.expire_at_ms = -1;
  return true;
}

void Database::delete_expired(Entry* e) {
  const std::string key(e->key());
  if (expired_hook_) expired_hook_(*this, key);
  remove(key);
}

// A string past its inline buffer holds a heap block of capacity + 1 bytes. Moves between the
// heap's items hand blocks over whole, so the count changes only as items enter or leave.
std::size_t Database::key_heap_bytes(const std::string& key) noexcept {
  static const std::size_t inline_capacity = std::string().capacity();
  return key.capacity() > inline_capacity ? key.capacity() + 1 : 0;
}

void Database::compact_heap() {
  std::erase_if(heap_, [this](const Deadline& d) {
    const Entry* e = dict_.find(d.key);
    return !e || e->expire_at_ms != d.at_ms;
  });
  // Recounted: the moves inside erase_if can leave a short key in a long key's block.
  heap_key_bytes_ = 0;
  for (const Deadline& d : heap_) heap_key_bytes_ += key_heap_bytes(d.key);
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
}

std::size_t Database::expire_cycle(std::int64_t now_ms, std::size_t budget) {
  std::size_t removed = 0;
  if (keep_expired_) return 0;  // a replica waits for its master's DEL
  // Each iteration pops one heap item, live or stale, so the work is bounded by `budget`.
  for (std::size_t steps = 0; steps < budget && !heap_.empty(); ++steps) {
    if (heap_.front().at_ms > now_ms) break;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    Deadline d = std::move(heap_.back());
    heap_.pop_back();
    heap_key_bytes_ -= key_heap_bytes(d.key);
    Entry* e = dict_.find(d.key);
    if (e && e->expire_at_ms == d.at_ms) {
      delete_expired(e);
      ++removed;
    }
  }
  return removed;
}

std::int64_t Database::next_expire_hint() const noexcept {
  return heap_.empty() ? -1 : heap_.front().at_ms;
}

std::size_t Database::sample_volatile(std::mt19937_64& rng, std::span<Entry*> out) const {
  if (expires_ == 0) return 0;
  std::size_t n = 0;
  // The heap holds at least one live deadline in three (compact_heap), so a bounded number of
  // draws finds the sample; a stale or superseded deadline is skipped.
  for (std::size_t tries = 0; n < out.size() && tries < 4 * out.size() + 16; ++tries) {
    const Deadline& d = heap_[rng() % heap_.size()];
    Entry* e = dict_.find(d.key);
    if (e && e->expire_at_ms == d.at_ms) out[n++] = e;
  }
  // A small heap may be mostly stale (it is compacted past 64 items only): walk it then.
  for (std::size_t i = 0; n == 0 && i < heap_.size(); ++i) {
    Entry* e = dict_.find(heap_[i].key);
    if (e && e->expire_at_ms == heap_[i].at_ms) out[n++] = e;
  }
  return n;
}

long long Database::average_ttl(std::int64_t now_ms) const noexcept {
  if (expires_ == 0) return 0;
  const long double avg = expire_sum_ / static_cast<long double>(expires_) - now_ms;
  return avg > 0 ? static_cast<long long>(avg) : 0;
}

void Database::clear() noexcept {
  dict_.clear();
  expires_ = 0;
  expire_sum_ = 0;
  heap_.clear();
  heap_key_bytes_ = 0;
}

void Database::swap_contents(Database& other) noexcept {
  std::swap(dict_, other.dict_);
  std::swap(expires_, other.expires_);
  std::swap(expire_sum_, other.expire_sum_);
  std::swap(heap_, other.heap_);
  std::swap(heap_key_bytes_, other.heap_key_bytes_);
}

Keyspace::Keyspace(int databases) {
  dbs_.reserve(static_cast<std::size_t>(databases));
  for (int i = 0; i < databases; ++i) dbs_.emplace_back(i);
}

void Keyspace::swap(int a, int b) noexcept { db(a).swap_contents(db(b)); }

void Keyspace::set_expired_hook(const Database::ExpiredHook& hook) {
  for (auto& d : dbs_) d.set_expired_hook(hook);
}

}  // namespace listd::store
