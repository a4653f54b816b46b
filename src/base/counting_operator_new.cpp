// The global operator new / delete replaced over the wrapped malloc / free, so C++ allocations
// are counted by memory_accounting.cpp. A file of its own: a binary that defines its own
// operator new (request_parser_test counts allocations) does not pull this one from the archive.
// Not under AddressSanitizer: its runtime's operator new / delete is linked ahead of this archive
// and wins, and it is worth keeping (it finds new/delete mismatches). Sanitizer builds count
// only the malloc family (tests/unit/base/memory_accounting_test.cpp checks operator new in the
// optimized build).
#if !defined(__SANITIZE_ADDRESS__)
#include <cstddef>
#include <cstdlib>
#include <new>

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

#endif  // !__SANITIZE_ADDRESS__
