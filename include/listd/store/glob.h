// Moved to listd/base/glob.h; this forwarder goes with the final rename commit.
#pragma once

#include "listd/base/glob.h"

namespace listd::store {
using base::glob_match;
}  // namespace listd::store
