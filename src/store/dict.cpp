#include "listd/store/dict.h"

#include <malloc.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "listd/store/hash.h"

namespace listd::store {

Entry* Entry::create(std::string_view key, Value value) {
  void* mem = std::malloc(sizeof(Entry) + key.size());
  if (!mem) throw std::bad_alloc();
  auto* e = new (mem) Entry(static_cast<std::uint32_t>(key.size()), std::move(value));
  std::memcpy(reinterpret_cast<char*>(e + 1), key.data(), key.size());
  return e;
}

void Entry::destroy(Entry* entry) noexcept {
  if (!entry) return;
  ++destroyed_count_;
  entry->~Entry();
  std::free(entry);
}

std::size_t Entry::overhead() const noexcept {
  return malloc_usable_size(const_cast<Entry*>(this));
}

namespace {

std::size_t dict_next_power(std::size_t n) noexcept {
  std::size_t p = 4;
  while (p < n) p *= 2;
  return p;
}

bool dict_key_is(const Entry* e, std::string_view key) noexcept {
  return e->key_len == key.size() && std::memcmp(e + 1, key.data(), key.size()) == 0;
}

}  // namespace

Dict::Dict(Dict&& other) noexcept
    : rehash_idx_(std::exchange(other.rehash_idx_, -1)), size_(std::exchange(other.size_, 0)) {
  for (int i = 0; i < 2; ++i) t_[i] = std::exchange(other.t_[i], Table{});
}

Dict& Dict::operator=(Dict&& other) noexcept {
  if (this != &other) {
    clear();
    for (int i = 0; i < 2; ++i) t_[i] = std::exchange(other.t_[i], Table{});
    rehash_idx_ = std::exchange(other.rehash_idx_, -1);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Dict::~Dict() { clear(); }

bool Dict::may_step() const noexcept {
  if (!rehashing() || paused_ > 0) return false;
  if (!resize_avoided_) return true;
  // A fork child shares our pages: relink only if the tables' size ratio is extreme.
  const std::size_t s0 = t_[0].buckets(), s1 = t_[1].buckets();
  return s1 > s0 ? s1 / s0 >= kForceRatio : s0 / s1 >= kForceRatio;
}

void Dict::step_once() const noexcept {
  if (may_step()) rehash_steps_impl(1);
}

bool Dict::rehash_steps_impl(std::size_t n) const noexcept {
  std::size_t empty_visits = n * 10;
  Table& from = t_[0];
  Table& to = t_[1];
  while (n-- > 0 && from.used != 0) {
    while (!from.slots[rehash_idx_]) {
      ++rehash_idx_;
      if (--empty_visits == 0) return true;
    }
    for (Entry* e = from.slots[rehash_idx_]; e;) {
      Entry* next = e->next;
      const std::size_t nb = hash_bytes(e->key()) & to.mask;
      e->next = to.slots[nb];
      to.slots[nb] = e;
      --from.used;
      ++to.used;
      e = next;
    }
    from.slots[rehash_idx_++] = nullptr;
  }
  if (from.used != 0) return true;
  // A large old array is dropped over the next cron ticks (retired_block.h), not in this step.
  retired_.retire(from.slots, from.buckets() * sizeof(Entry*));
  from = std::exchange(to, Table{});
  rehash_idx_ = -1;
  return false;
}

bool Dict::rehash_steps(std::size_t buckets) noexcept {
  if (!rehashing()) return false;
  return rehash_steps_impl(buckets);
}

std::size_t Dict::rehash_for_us(std::uint64_t budget_us) noexcept {
  // A finished rehash's old array: a few MiB of its pages per tick (about 0.3 ms).
  const bool released = release_old_table();
  if (!rehashing()) maybe_shrink();
  if (!may_step()) return released ? 1 : 0;
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::microseconds(budget_us);
  std::size_t moved = 0;
  for (;;) {
    moved += 100;
    if (!rehash_steps_impl(100)) break;
    if (std::chrono::steady_clock::now() - start >= budget) break;
  }
  return moved;
}

void Dict::start_rehash(std::size_t buckets) {
  auto** fresh = static_cast<Entry**>(std::calloc(buckets, sizeof(Entry*)));
  if (!fresh) throw std::bad_alloc();
  if (t_[0].used == 0) {  // nothing to move: swap the table in at once
    std::free(t_[0].slots);
    t_[0] = Table{fresh, buckets - 1, 0};
    return;
  }
  t_[1] = Table{fresh, buckets - 1, 0};
  rehash_idx_ = 0;
}

Entry* Dict::find(std::string_view key) const noexcept {
  if (size_ == 0) return nullptr;
  step_once();
  const std::uint64_t h = hash_bytes(key);
  for (int i = 0; i <= (rehashing() ? 1 : 0); ++i)
    for (Entry* e = t_[i].slots[h & t_[i].mask]; e; e = e->next)
      if (dict_key_is(e, key)) return e;
  return nullptr;
}

void Dict::insert_entry(Entry* entry) {
  if (!t_[0].slots) {
    start_rehash(4);
  } else if (!rehashing()) {
    const std::size_t buckets = t_[0].buckets();
    if (t_[0].used >= buckets && (!resize_avoided_ || t_[0].used / buckets > kForceRatio)) {
      try {
        start_rehash(dict_next_power(t_[0].used + 1));
      } catch (const std::bad_alloc&) {
        // A fuller chained table is still correct; the next insert tries again.
      }
    }
  } else {
    step_once();
  }
  Table& t = t_[rehashing() ? 1 : 0];
  const std::size_t b = hash_bytes(entry->key()) & t.mask;
  entry->next = t.slots[b];
  t.slots[b] = entry;
  ++t.used;
  ++size_;
}

Entry* Dict::insert(std::string_view key, Value value) {
  Entry* e = Entry::create(key, std::move(value));
  try {
    insert_entry(e);
  } catch (...) {
    Entry::destroy(e);
    throw;
  }
  return e;
}

Entry* Dict::detach(std::string_view key) noexcept {
  if (size_ == 0) return nullptr;
  step_once();
  const std::uint64_t h = hash_bytes(key);
  for (int i = 0; i <= (rehashing() ? 1 : 0); ++i) {
    Table& t = t_[i];
    Entry** link = &t.slots[h & t.mask];
    for (Entry* e = *link; e; link = &e->next, e = e->next) {
      if (!dict_key_is(e, key)) continue;
      *link = e->next;
      e->next = nullptr;
      --t.used;
      --size_;
      maybe_shrink();
      return e;
    }
  }
  return nullptr;
}

void Dict::maybe_shrink() noexcept {
  // Shrink at 1/8 load so a delete/insert pair at the boundary cannot thrash; never while a
  // rehash is under way or a fork child shares our pages (the cron retries).
  const std::size_t buckets = t_[0].buckets();
  if (rehashing() || resize_avoided_ || paused_ > 0) return;
  if (buckets > 64 && size_ * 8 < buckets) {
    try {
      start_rehash(buckets / 4);
    } catch (const std::bad_alloc&) {
      // Keeping the larger table is always correct.
    }
  }
}

bool Dict::erase(std::string_view key) noexcept {
  Entry* e = detach(key);
  Entry::destroy(e);
  return e != nullptr;
}

void Dict::clear() noexcept {
  for (Table& t : t_) {
    for (std::size_t b = 0; b < t.buckets(); ++b) {
      for (Entry* e = t.slots[b]; e;) {
        Entry* next = e->next;
        Entry::destroy(e);
        e = next;
      }
    }
    std::free(t.slots);
    t = Table{};
  }
  retired_.free_now();
  rehash_idx_ = -1;
  size_ = 0;
}

Entry* Dict::random_entry(std::mt19937_64& rng) const noexcept {
  if (size_ == 0) return nullptr;
  Entry* head = nullptr;
  if (!rehashing()) {
    while (!head) head = t_[0].slots[rng() & t_[0].mask];
  } else {
    // t_[0]'s buckets below rehash_idx_ are empty: draw from the rest of both tables.
    const std::size_t s0 = t_[0].buckets(), lo = static_cast<std::size_t>(rehash_idx_);
    const std::size_t span = s0 + t_[1].buckets() - lo;
    while (!head) {
      const std::size_t i = lo + rng() % span;
      head = i < s0 ? t_[0].slots[i] : t_[1].slots[i - s0];
    }
  }
  std::size_t len = 0;
  for (Entry* e = head; e; e = e->next) ++len;
  std::size_t pick = rng() % len;
  Entry* e = head;
  while (pick--) e = e->next;
  return e;
}

std::size_t Dict::sample(std::mt19937_64& rng, std::span<Entry*> out) const noexcept {
  if (size_ == 0 || out.empty()) return 0;
  std::size_t n = 0;
  // Every bucket of each table is visited at most once, so a sample as large as the dict
  // returns it whole; mid-rehash both tables advance together from the same start.
  const bool two = rehashing();
  const std::size_t m0 = t_[0].mask, m1 = two ? t_[1].mask : 0;
  const std::size_t start = rng();
  for (std::size_t step = 0; step <= std::max(m0, m1) && n < out.size(); ++step) {
    const std::size_t at = start + step;
    if (step <= m0)
      for (Entry* e = t_[0].slots[at & m0]; e && n < out.size(); e = e->next) out[n++] = e;
    if (two && step <= m1)
      for (Entry* e = t_[1].slots[at & m1]; e && n < out.size(); e = e->next) out[n++] = e;
  }
  return n;
}

}  // namespace listd::store
