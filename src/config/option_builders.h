// The option table's builders: one OptionSpec per option from its name, flags, bounds and
// default, over the ServerSettings member that holds it. Private to the config part (used by
// option_table.cpp and encoding_options.cpp), not installed under include/.
#pragma once

#include <string_view>
#include <type_traits>

#include "option_table.h"

namespace listd::config::detail {

template <auto Member>
long long load_number(const ServerSettings& s) {
  return static_cast<long long>(s.*Member);
}

template <auto Member>
void store_number(ServerSettings& s, long long v) {
  using T = std::remove_reference_t<decltype(s.*Member)>;
  s.*Member = static_cast<T>(v);
}

template <auto Member>
int load_enum(const ServerSettings& s) {
  return static_cast<int>(s.*Member);
}

template <auto Member>
void store_enum(ServerSettings& s, int v) {
  using T = std::remove_reference_t<decltype(s.*Member)>;
  s.*Member = static_cast<T>(v);
}

constexpr long long kMb = 1024LL * 1024;

inline OptionSpec boolean(std::string_view name, unsigned flags, bool ServerSettings::*field,
                          bool def, const char* (*validate)(bool) = nullptr) {
  return {{name, {}, OptionType::kBool, flags}, BoolSpec{field, def, validate}};
}

template <auto Member>
OptionSpec integer(std::string_view name, unsigned flags, long long lo, long long hi, long long def,
                   std::string_view alias = {}) {
  return {{name, alias, OptionType::kInteger, flags},
          NumericSpec{&load_number<Member>, &store_number<Member>, lo, hi, false, def}};
}

template <auto Member>
OptionSpec unsigned_integer(std::string_view name, unsigned flags, long long lo, long long hi,
                            long long def) {
  return {{name, {}, OptionType::kInteger, flags},
          NumericSpec{&load_number<Member>, &store_number<Member>, lo, hi, true, def}};
}

template <auto Member>
OptionSpec memory(std::string_view name, unsigned flags, long long lo, long long hi, long long def,
                  bool unsigned_bounds) {
  return {{name, {}, OptionType::kMemory, flags},
          NumericSpec{&load_number<Member>, &store_number<Member>, lo, hi, unsigned_bounds, def}};
}

template <auto Member>
OptionSpec enumeration(std::string_view name, unsigned flags, std::span<const EnumValue> values,
                       int def, const char* (*validate)(int) = nullptr) {
  return {{name, {}, OptionType::kEnum, flags},
          EnumSpec{&load_enum<Member>, &store_enum<Member>, values, def, validate}};
}

inline OptionSpec str_option(std::string_view name, unsigned flags,
                             std::string ServerSettings::*field, std::string_view def,
                             bool empty_is_null,
                             const char* (*validate)(std::string_view) = nullptr) {
  return {{name, {}, OptionType::kString, flags}, StringSpec{field, def, empty_is_null, validate}};
}

inline OptionSpec special(std::string_view name, unsigned flags, SpecialSpec spec) {
  return {{name, {}, OptionType::kSpecial, flags}, spec};
}

// An option's other name: Redis' old "slave" and "ziplist" names.
inline OptionSpec aliased(OptionSpec spec, std::string_view alias) {
  spec.info.alias = alias;
  return spec;
}

}  // namespace listd::config::detail
