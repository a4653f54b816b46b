// The malloc wrappers and the replaced global operator new / delete (memory_accounting.h).
// Each allocation costs a malloc_usable_size call and one relaxed atomic add, the price
// zmalloc pays in Redis.
#include "listd/base/memory_accounting.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>

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
