// Moved to listd/base/number.h; this forwarder goes with the final rename commit.
#pragma once

#include "listd/base/number.h"

namespace listd::store {
using base::format_long_double_human;
using base::parse_double;
using base::parse_long_double;
using base::parse_strict_integer;
}  // namespace listd::store
