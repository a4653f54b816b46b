// Redis 7.0.15's reference data per command and subcommand, generated from redis-server's own
// COMMAND and COMMAND DOCS replies (scripts/gen_command_reference.py ->
// src/server/command_reference_data.cpp): the key specs (which drive key finding: COMMAND GETKEYS,
// GETKEYSANDFLAGS and the ACL key checks), the legacy (first, last, step), the COMMAND INFO flags
// listd has no behaviour for, the tips, and the COMMAND DOCS map as reply tokens.
//
// Behaviour (arity, the CommandFlag bits) stays in the command table; this is what Redis reports.
// Rows exist for every Redis command, whether listd has it or not; a listd command of its own has
// none. Kept out of command_table.h so that a regeneration rebuilds only its few users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace listd::server {

/// Redis' key-spec flags (CMD_KEY_*), in COMMAND INFO's order; combine with |.
enum KeySpecFlag : std::uint16_t {
  kKeySpecRo = 1u << 0,
  kKeySpecRw = 1u << 1,
  kKeySpecOw = 1u << 2,
  kKeySpecRm = 1u << 3,
  kKeySpecAccess = 1u << 4,
  kKeySpecUpdate = 1u << 5,
  kKeySpecInsert = 1u << 6,
  kKeySpecDelete = 1u << 7,
  kKeySpecNotKey = 1u << 8,
  kKeySpecIncomplete = 1u << 9,
  kKeySpecVariableFlags = 1u << 10,
};

/// The flag names COMMAND INFO prints for `flags`, in Redis' order ("RO", "access", ...).
struct KeySpecFlagName {
  std::uint16_t bit;
  std::string_view name;
};
std::span<const KeySpecFlagName> key_spec_flag_names() noexcept;

/// One Redis key spec: where the search begins, then how the keys are found from there.
struct ReferenceKeySpec {
  enum class BeginSearch : std::uint8_t { kIndex, kKeyword, kUnknown };
  enum class FindKeys : std::uint8_t { kRange, kKeynum, kUnknown };

  std::uint16_t flags = 0;  ///< KeySpecFlag bits
  std::string_view notes{};
  BeginSearch begin_search = BeginSearch::kIndex;
  std::string_view keyword{};  ///< kKeyword: the keyword searched for
  int begin = 0;               ///< kIndex: the index; kKeyword: startfrom (< 0 from the end)
  FindKeys find_keys = FindKeys::kRange;
  /// kRange: lastkey, keystep, limit; kKeynum: keynumidx, firstkey, keystep.
  int find[3] = {0, 0, 0};
};

/// One token of a reply (COMMAND DOCS): a container with its element count, or a scalar.
struct DocToken {
  enum Kind : std::uint8_t { kMap, kSet, kArray, kBulk, kInteger, kSimple };
  Kind kind = kBulk;
  std::string_view text{};  ///< kBulk, kSimple
  long long number = 0;     ///< kMap (pairs), kSet / kArray (elements), kInteger
};

/// The bits of CommandReference::info_flags: COMMAND INFO flags outside CommandFlag.
enum ReferenceInfoFlag : std::uint8_t {
  kInfoMovableKeys = 1u << 0,
  kInfoNoMandatoryKeys = 1u << 1,
  kInfoNoAsyncLoading = 1u << 2,
  kInfoAsking = 1u << 3,
};

/// One command's row. The spans' offsets point into the generated arrays.
struct CommandReference {
  std::string_view name;                          ///< full name, "get" or "config|get"
  int first_key = 0, last_key = 0, key_step = 0;  ///< COMMAND INFO's legacy range
  std::uint8_t info_flags = 0;                    ///< ReferenceInfoFlag bits
  std::uint16_t key_spec_begin = 0, key_spec_count = 0;
  std::uint16_t tip_begin = 0, tip_count = 0;
  std::uint32_t doc_begin = 0, doc_count = 0;
  std::uint8_t doc_pairs = 0;  ///< entries of the DOCS map, its "subcommands" left out

  std::span<const ReferenceKeySpec> key_specs() const noexcept;
  std::span<const std::string_view> tips() const noexcept;
  /// The DOCS map's entries (doc_pairs key/value pairs) as tokens, "subcommands" left out.
  std::span<const DocToken> doc_tokens() const noexcept;
};

/// The row of `full_name` (lower case), or null for a command Redis 7.0.15 does not have.
const CommandReference* command_reference(std::string_view full_name) noexcept;

/// The generated arrays (src/server/command_reference_data.cpp); rows sorted by name.
extern const CommandReference kCommandReferences[];
extern const std::size_t kCommandReferenceCount;
extern const std::span<const ReferenceKeySpec> kCommandReferenceKeySpecs;
extern const std::span<const std::string_view> kCommandReferenceTips;
extern const std::span<const DocToken> kCommandReferenceDocTokens;

}  // namespace listd::server
