#include "listd/store/compact_string.h"

#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <new>
#include <stdexcept>

namespace listd::store {

CompactString::CompactString(std::string_view bytes) {
  if (bytes.empty()) return;
  if (bytes.size() > UINT32_MAX) throw std::length_error("string too long");
  block_ = static_cast<char*>(std::malloc(sizeof(std::uint32_t) + bytes.size()));
  if (!block_) throw std::bad_alloc();
  const auto len = static_cast<std::uint32_t>(bytes.size());
  std::memcpy(block_, &len, sizeof len);
  std::memcpy(block_ + sizeof len, bytes.data(), bytes.size());
}

CompactString& CompactString::operator=(CompactString&& other) noexcept {
  if (this != &other) {
    std::free(block_);
    block_ = other.block_;
    other.block_ = nullptr;
  }
  return *this;
}

CompactString::~CompactString() { std::free(block_); }

std::size_t CompactString::size() const noexcept {
  if (!block_) return 0;
  std::uint32_t len;
  std::memcpy(&len, block_, sizeof len);
  return len;
}

std::string_view CompactString::view() const noexcept {
  if (!block_) return {};
  return {block_ + sizeof(std::uint32_t), size()};
}

std::size_t CompactString::memory_usage() const noexcept {
  return block_ ? malloc_usable_size(block_) : 0;
}

}  // namespace listd::store
