// A large block that is no longer used, given back to the system a few MiB at a time before it
// is freed. free() of a large array whose pages are resident unmaps them all at once: the
// 64 MiB bucket array that an 8M-key dictionary leaves behind when its rehash finishes took
// 2-9 ms to free, a stall of the one command that finished the rehash (BENCHMARKS, "Keyspace
// growth"). Its pages are dropped in steps instead (madvise MADV_DONTNEED, from the cron), and
// the block is freed once none is resident.
//
// API: retire (small blocks are freed at once), release_some (one step), pending, free_now.
// Invariant: the block is never read or written once retired; the destructor frees it.
#pragma once

#include <cstddef>

namespace listd::store {

class RetiredBlock {
 public:
  /// Blocks smaller than this are freed at once (their free is short).
  static constexpr std::size_t kInlineFreeBytes = 1 << 20;

  RetiredBlock() = default;
  RetiredBlock(const RetiredBlock&) = delete;
  RetiredBlock& operator=(const RetiredBlock&) = delete;
  ~RetiredBlock() { free_now(); }

  /// Takes `block` (from malloc / calloc, `bytes` long). A block already retired is freed first.
  void retire(void* block, std::size_t bytes) noexcept;
  /// Drops up to `max_bytes` more of the block's pages; frees it once all are dropped. Returns
  /// whether it did anything.
  bool release_some(std::size_t max_bytes) noexcept;
  bool pending() const noexcept { return block_ != nullptr; }
  void free_now() noexcept;

 private:
  void* block_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t released_ = 0;  // bytes from the first whole page on, already dropped
};

}  // namespace listd::store
