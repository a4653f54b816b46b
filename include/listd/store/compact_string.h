// A string value in 8 bytes: one pointer to a heap block [uint32 length][bytes], or null for
// the empty string, with the string's form in the pointer's low 2 bits (malloc aligns to at
// least 8). Used for the string type so that a key's value slot stays pointer-sized.
//
// The form records how Redis 7.0 would hold the same string, because its OBJECT ENCODING and
// OBJECT REFCOUNT depend on the command that made it, not on the bytes alone: `APPEND k 5` on
// an existing key is "raw", `INCRBYFLOAT k 3` is "embstr", `SET k 3` is "int" (a shared object).
#pragma once

#include <cstdint>
#include <string_view>

namespace listd::store {

enum class StringForm : std::uint8_t {
  /// A stored argument or an integer result (Redis tryObjectEncoding): "int" when the bytes are
  /// a canonical integer of <= 20 characters (0..9999 are Redis' shared objects), else "embstr"
  /// up to 44 bytes, else "raw". RDB loading gives this form too.
  kEncoded = 0,
  /// Edited in place (APPEND to an existing string, SETRANGE): always "raw".
  kRaw = 1,
  /// Text the server formatted (INCRBYFLOAT): "embstr" up to 44 bytes, else "raw"; never "int".
  kFormatted = 2,
  /// A COPY of a kEncoded string: the same encoding, but never a shared object.
  kUnshared = 3,
};

class CompactString {
 public:
  CompactString() noexcept = default;
  explicit CompactString(std::string_view bytes, StringForm form = StringForm::kEncoded);
  CompactString(const CompactString&) = delete;
  CompactString& operator=(const CompactString&) = delete;
  CompactString(CompactString&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  CompactString& operator=(CompactString&& other) noexcept;
  ~CompactString();

  std::string_view view() const noexcept;
  std::size_t size() const noexcept;
  StringForm form() const noexcept { return static_cast<StringForm>(bits_ & kFormMask); }
  /// The OBJECT ENCODING reply: "int", "embstr" or "raw", as Redis 7.0 gives for this form.
  std::string_view encoding_name() const noexcept;
  /// True for Redis' shared integer objects 0..9999 (OBJECT REFCOUNT answers INT_MAX).
  bool shared_integer() const noexcept;
  /// The copy COPY makes (Redis dupStringObject: same encoding, a shared integer is unshared).
  CompactString clone() const;
  /// The bytes for editing in place, first grown to at least `min_size` with zero bytes; the
  /// form becomes kRaw (Redis' sdsgrowzero on an unshared raw string: SETBIT, BITFIELD). Null
  /// only for an empty string asked for 0 bytes.
  char* edit_raw(std::size_t min_size);
  /// Bytes allocated, for MEMORY USAGE.
  std::size_t memory_usage() const noexcept;

 private:
  static constexpr std::uintptr_t kFormMask = 3;
  char* block() const noexcept { return reinterpret_cast<char*>(bits_ & ~kFormMask); }

  std::uintptr_t bits_ = 0;  // block pointer | StringForm
};

}  // namespace listd::store
