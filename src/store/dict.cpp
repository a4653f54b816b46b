#include "listd/store/dict.h"

#include <malloc.h>
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

Dict::Dict(Dict&& other) noexcept
    : buckets_(std::exchange(other.buckets_, nullptr)),
      mask_(std::exchange(other.mask_, 0)),
      size_(std::exchange(other.size_, 0)) {}

Dict& Dict::operator=(Dict&& other) noexcept {
  if (this != &other) {
    clear();
    std::free(buckets_);
    buckets_ = std::exchange(other.buckets_, nullptr);
    mask_ = std::exchange(other.mask_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Dict::~Dict() {
  clear();
  std::free(buckets_);
}

std::size_t Dict::bucket_of(std::string_view key) const noexcept { return hash_bytes(key) & mask_; }

Entry* Dict::find(std::string_view key) const noexcept {
  if (!buckets_) return nullptr;
  for (Entry* e = buckets_[bucket_of(key)]; e; e = e->next)
    if (e->key_len == key.size() && std::memcmp(e + 1, key.data(), key.size()) == 0) return e;
  return nullptr;
}

void Dict::resize(std::size_t buckets) {
  auto** fresh = static_cast<Entry**>(std::calloc(buckets, sizeof(Entry*)));
  if (!fresh) throw std::bad_alloc();
  const std::size_t new_mask = buckets - 1;
  for (std::size_t b = 0; buckets_ && b <= mask_; ++b) {
    for (Entry* e = buckets_[b]; e;) {
      Entry* next = e->next;
      const std::size_t nb = hash_bytes(e->key()) & new_mask;
      e->next = fresh[nb];
      fresh[nb] = e;
      e = next;
    }
  }
  std::free(buckets_);
  buckets_ = fresh;
  mask_ = new_mask;
}

void Dict::insert_entry(Entry* entry) {
  if (!buckets_)
    resize(4);
  else if (size_ >= mask_ + 1)
    resize((mask_ + 1) * 2);
  const std::size_t b = bucket_of(entry->key());
  entry->next = buckets_[b];
  buckets_[b] = entry;
  ++size_;
}

Entry* Dict::insert(std::string_view key, Value value) {
  Entry* e = Entry::create(key, std::move(value));
  insert_entry(e);
  return e;
}

Entry* Dict::detach(std::string_view key) noexcept {
  if (!buckets_) return nullptr;
  Entry** link = &buckets_[bucket_of(key)];
  for (Entry* e = *link; e; link = &e->next, e = e->next) {
    if (e->key_len == key.size() && std::memcmp(e + 1, key.data(), key.size()) == 0) {
      *link = e->next;
      e->next = nullptr;
      --size_;
      maybe_shrink();
      return e;
    }
  }
  return nullptr;
}

void Dict::maybe_shrink() {
  // Shrink at 1/8 load so a delete/insert pair at the boundary cannot thrash.
  const std::size_t buckets = mask_ + 1;
  if (buckets > 64 && size_ * 8 < buckets) {
    try {
      resize(buckets / 4);
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
  for (std::size_t b = 0; buckets_ && b <= mask_; ++b) {
    for (Entry* e = buckets_[b]; e;) {
      Entry* next = e->next;
      Entry::destroy(e);
      e = next;
    }
    buckets_[b] = nullptr;
  }
  size_ = 0;
}

Entry* Dict::random_entry(std::mt19937_64& rng) const noexcept {
  if (size_ == 0) return nullptr;
  Entry* head = nullptr;
  while (!head) head = buckets_[rng() & mask_];
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
  // Every bucket is visited at most once, so a sample as large as the dict returns it whole.
  const std::size_t start = rng() & mask_;
  for (std::size_t step = 0; step <= mask_ && n < out.size(); ++step)
    for (Entry* e = buckets_[(start + step) & mask_]; e && n < out.size(); e = e->next)
      out[n++] = e;
  return n;
}

}  // namespace listd::store
