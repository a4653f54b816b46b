#include "listd/store/compact_string.h"

#include <malloc.h>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "listd/base/number.h"

namespace listd::store {

// The form lives in the low bits of a malloc'ed pointer.
static_assert(alignof(std::max_align_t) >= 4);

CompactString::CompactString(std::string_view bytes, StringForm form)
    : bits_(static_cast<std::uintptr_t>(form)) {
  if (bytes.empty()) return;
  if (bytes.size() > UINT32_MAX) throw std::length_error("string too long");
  char* p = static_cast<char*>(std::malloc(sizeof(std::uint32_t) + bytes.size()));
  if (!p) throw std::bad_alloc();
  const auto len = static_cast<std::uint32_t>(bytes.size());
  std::memcpy(p, &len, sizeof len);
  std::memcpy(p + sizeof len, bytes.data(), bytes.size());
  bits_ |= reinterpret_cast<std::uintptr_t>(p);
}

CompactString& CompactString::operator=(CompactString&& other) noexcept {
  if (this != &other) {
    std::free(block());
    bits_ = other.bits_;
    other.bits_ = 0;
  }
  return *this;
}

CompactString::~CompactString() { std::free(block()); }

std::size_t CompactString::size() const noexcept {
  if (!block()) return 0;
  std::uint32_t len;
  std::memcpy(&len, block(), sizeof len);
  return len;
}

std::string_view CompactString::view() const noexcept {
  if (!block()) return {};
  return {block() + sizeof(std::uint32_t), size()};
}

std::string_view CompactString::encoding_name() const noexcept {
  // Redis 7.0 object.c: OBJ_ENCODING_EMBSTR_SIZE_LIMIT is 44; tryObjectEncoding makes "int" of
  // what string2l accepts in at most 20 characters.
  const std::size_t n = size();
  switch (form()) {
    case StringForm::kRaw: return "raw";
    case StringForm::kFormatted: return n <= 44 ? "embstr" : "raw";
    case StringForm::kEncoded:
    case StringForm::kUnshared: {
      long long ignored;
      if (n <= 20 && base::parse_strict_integer(view(), ignored)) return "int";
      return n <= 44 ? "embstr" : "raw";
    }
  }
  return "raw";
}

bool CompactString::shared_integer() const noexcept {
  long long v = 0;
  return form() == StringForm::kEncoded && size() <= 20 && base::parse_strict_integer(view(), v) &&
         v >= 0 && v < 10000;
}

CompactString CompactString::clone() const {
  return CompactString(view(), form() == StringForm::kEncoded ? StringForm::kUnshared : form());
}

char* CompactString::edit_raw(std::size_t min_size) {
  const std::size_t old_size = size();
  if (min_size > old_size) {
    if (min_size > UINT32_MAX) throw std::length_error("string too long");
    char* p = static_cast<char*>(std::realloc(block(), sizeof(std::uint32_t) + min_size));
    if (!p) throw std::bad_alloc();
    std::memset(p + sizeof(std::uint32_t) + old_size, 0, min_size - old_size);
    const auto len = static_cast<std::uint32_t>(min_size);
    std::memcpy(p, &len, sizeof len);
    bits_ = reinterpret_cast<std::uintptr_t>(p);
  }
  bits_ = (bits_ & ~kFormMask) | static_cast<std::uintptr_t>(StringForm::kRaw);
  return block() ? block() + sizeof(std::uint32_t) : nullptr;
}

std::size_t CompactString::memory_usage() const noexcept {
  return block() ? malloc_usable_size(block()) : 0;
}

}  // namespace listd::store
