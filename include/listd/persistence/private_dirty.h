// The copy-on-write a fork child caused: the bytes of its pages that are private and dirty
// (Redis zmalloc_get_private_dirty: the Private_Dirty lines of /proc/self/smaps, summed).
// Called in the child, after the fork: no allocation, only open/read/close on a fixed buffer.
#pragma once

#include <cstddef>
#include <optional>

namespace listd::persistence {

/// Private_Dirty of the calling process in bytes (smaps_rollup, else smaps); nullopt when /proc
/// cannot be read.
std::optional<std::size_t> private_dirty_bytes() noexcept;

}  // namespace listd::persistence
