// listd's own count of the heap it holds (Redis zmalloc's used_memory). The link wraps malloc,
// calloc, realloc, free and posix_memalign of every object file of ours (ld --wrap, set on the
// base library in CMakeLists.txt), and the global operator new / delete are replaced by ones
// that call the wrapped malloc / free: the store's blocks, the Lua heap, strings and containers
// are all counted (memory_accounting.cpp).
// API: used_memory().
// Invariants: the count is the usable size of each live block (malloc_usable_size, as zmalloc
// counts), so it includes the allocator's rounding but not its headers or free lists; relaxed
// atomics, because background threads allocate too. Blocks libc or a shared library allocates
// and frees itself (stdio buffers, glob) are not counted.
#pragma once

#include <cstddef>

namespace listd::base {

/// Bytes of live heap blocks allocated by listd's code.
std::size_t used_memory() noexcept;

}  // namespace listd::base
