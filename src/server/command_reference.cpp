#include "listd/server/command_reference.h"

#include <algorithm>

namespace listd::server {

std::span<const KeySpecFlagName> key_spec_flag_names() noexcept {
  static constexpr KeySpecFlagName kNames[] = {
      {kKeySpecRo, "RO"},
      {kKeySpecRw, "RW"},
      {kKeySpecOw, "OW"},
      {kKeySpecRm, "RM"},
      {kKeySpecAccess, "access"},
      {kKeySpecUpdate, "update"},
      {kKeySpecInsert, "insert"},
      {kKeySpecDelete, "delete"},
      {kKeySpecNotKey, "not_key"},
      {kKeySpecIncomplete, "incomplete"},
      {kKeySpecVariableFlags, "variable_flags"},
  };
  return kNames;
}

std::span<const ReferenceKeySpec> CommandReference::key_specs() const noexcept {
  return kCommandReferenceKeySpecs.subspan(key_spec_begin, key_spec_count);
}

std::span<const std::string_view> CommandReference::tips() const noexcept {
  return kCommandReferenceTips.subspan(tip_begin, tip_count);
}

std::span<const DocToken> CommandReference::doc_tokens() const noexcept {
  return kCommandReferenceDocTokens.subspan(doc_begin, doc_count);
}

const CommandReference* command_reference(std::string_view full_name) noexcept {
  const CommandReference* begin = kCommandReferences;
  const CommandReference* end = begin + kCommandReferenceCount;
  const auto* it = std::lower_bound(
      begin, end, full_name, [](const auto& row, std::string_view n) { return row.name < n; });
  return it != end && it->name == full_name ? it : nullptr;
}

}  // namespace listd::server
