// The malloc wrappers and the replaced global operator new / delete (memory_accounting.h).
// Each allocation costs a malloc_usable_size call and one relaxed atomic add, the price
// zmalloc pays in Redis.
#include "listd/base/memory_accounting.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

extern "C" {
void* __real_malloc(std::size_t size);
void* __real_calloc(std::size_t n, std::size_t size);
void* __real_realloc(void* p, std::size_t size);
void __real_free(void* p);
int __real_posix_memalign(void** out, std::size_t align, std::size_t size);
}

namespace listd::base {
namespace {

std::atomic<std::size_t> g_used{0};

void* counted(void* p) noexcept {
  if (p) g_used.fetch_add(::malloc_usable_size(p), std::memory_order_relaxed);
  return p;
}

void uncount(void* p) noexcept {
  if (p) g_used.fetch_sub(::malloc_usable_size(p), std::memory_order_relaxed);
}

}  // namespace

std::size_t used_memory() noexcept { return g_used.load(std::memory_order_relaxed); }

}  // namespace listd::base

extern "C" {

void* __wrap_malloc(std::size_t size) { return listd::base::counted(__real_malloc(size)); }

void* __wrap_calloc(std::size_t n, std::size_t size) {
  return listd::base::counted(__real_calloc(n, size));
}

void* __wrap_realloc(void* p, std::size_t size) {
  const std::size_t before = p ? ::malloc_usable_size(p) : 0;
  void* q = __real_realloc(p, size);
  if (!q && size != 0) return nullptr;  // failed: the old block is unchanged, still counted
  listd::base::g_used.fetch_sub(before, std::memory_order_relaxed);
  return listd::base::counted(q);
}

void __wrap_free(void* p) {
  listd::base::uncount(p);
  __real_free(p);
}

int __wrap_posix_memalign(void** out, std::size_t align, std::size_t size) {
  const int rc = __real_posix_memalign(out, align, size);
  if (rc == 0) listd::base::counted(*out);
  return rc;
}

}  // extern "C"

// ---- The replaceable global allocation functions ([new.delete]), over the wrapped malloc ----

namespace {

void* new_or_throw(std::size_t size, std::size_t align) {
  for (;;) {
    void* p = nullptr;
    if (align <= alignof(std::max_align_t)) {
      p = std::malloc(size ? size : 1);
    } else if (::posix_memalign(&p, align, size ? size : 1) != 0) {
      p = nullptr;
    }
    if (p) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* new_nothrow(std::size_t size, std::size_t align) noexcept {
  try {
    return new_or_throw(size, align);
  } catch (...) {
    return nullptr;
  }
}

constexpr std::size_t kPlain = alignof(std::max_align_t);

std::size_t align_of(std::align_val_t a) { return static_cast<std::size_t>(a); }

}  // namespace

void* operator new(std::size_t n) { return new_or_throw(n, kPlain); }
void* operator new[](std::size_t n) { return new_or_throw(n, kPlain); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return new_nothrow(n, kPlain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return new_nothrow(n, kPlain);
}
void* operator new(std::size_t n, std::align_val_t a) { return new_or_throw(n, align_of(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return new_or_throw(n, align_of(a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return new_nothrow(n, align_of(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return new_nothrow(n, align_of(a));
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
