#include "listd/store/retired_block.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace listd::store {
namespace {

constexpr std::uintptr_t kPage = 4096;

}  // namespace

void RetiredBlock::retire(void* block, std::size_t bytes) noexcept {
  if (!block) return;
  if (bytes < kInlineFreeBytes) {
    std::free(block);
    return;
  }
  free_now();
  block_ = block;
  bytes_ = bytes;
  released_ = 0;
}

bool RetiredBlock::release_some(std::size_t max_bytes) noexcept {
  if (!block_) return false;
  // Only whole pages inside the block: the first and last may hold malloc's bookkeeping or a
  // neighbour.
  const auto start = reinterpret_cast<std::uintptr_t>(block_);
  const std::uintptr_t first = (start + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t end = (start + bytes_) & ~(kPage - 1);
  const std::uintptr_t from = first + released_;
  if (from < end) {
    const std::uintptr_t to = std::min<std::uintptr_t>(end, from + (max_bytes & ~(kPage - 1)));
    if (to > from) {
      ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
      released_ += to - from;
    }
    if (to < end) return true;
  }
  free_now();  // nothing resident is left to unmap: a short free
  return true;
}

void RetiredBlock::free_now() noexcept {
  std::free(block_);
  block_ = nullptr;
  bytes_ = released_ = 0;
}

}  // namespace listd::store
