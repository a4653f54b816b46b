// Small text helpers shared by command families (option keywords, client names).
#pragma once

#include <string_view>

#include "listd/base/redis_text.h"

namespace listd::server {

/// The part of `s` before its first NUL byte: what Redis prints when it formats an argument
/// with "%s" into an error message (the C string stops there).
inline std::string_view until_nul(std::string_view s) noexcept { return s.substr(0, s.find('\0')); }

/// Redis' rule for CLIENT SETNAME: printable ASCII, no spaces.
inline bool valid_client_name(std::string_view name) noexcept {
  for (unsigned char c : name)
    if (c < '!' || c > '~') return false;
  return true;
}

}  // namespace listd::server
