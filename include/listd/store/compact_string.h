// A string value in 8 bytes: one pointer to a heap block [uint32 length][bytes], or null for
// the empty string. Used for the string type so that a key's value slot stays pointer-sized.
#pragma once

#include <cstdint>
#include <string_view>

namespace listd::store {

class CompactString {
 public:
  CompactString() noexcept = default;
  explicit CompactString(std::string_view bytes);
  CompactString(const CompactString&) = delete;
  CompactString& operator=(const CompactString&) = delete;
  CompactString(CompactString&& other) noexcept : block_(other.block_) { other.block_ = nullptr; }
  CompactString& operator=(CompactString&& other) noexcept;
  ~CompactString();

  std::string_view view() const noexcept;
  std::size_t size() const noexcept;
  CompactString clone() const { return CompactString(view()); }
  /// Bytes allocated, for MEMORY USAGE.
  std::size_t memory_usage() const noexcept;

 private:
  char* block_ = nullptr;
};

}  // namespace listd::store
