// The values of the options listd validates, reports and rewrites as Redis 7.0 does but does not
// act on (docs/COMPATIBILITY.md, "Options accepted but inert"), kept by primary name. Only values
// that differ from Redis' default are held, so an empty map means "all at their defaults" and the
// start-up notice (app) lists exactly the entries. The option table (src/config/
// inert_option_table.cpp) owns the names, types and defaults; this header only holds the values,
// so adding an inert option never changes a widely included header.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace listd::config {

struct InertValues {
  /// primary option name -> its CONFIG GET text, only while it differs from the default.
  std::map<std::string, std::string, std::less<>> non_default;
  bool operator==(const InertValues&) const = default;
};

}  // namespace listd::config
