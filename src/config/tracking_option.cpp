// tracking-table-max-keys (Redis 7.0's size_t config, 0..LONG_MAX): the bound of CLIENT
// TRACKING's key table (server/tracking.h). A file of its own: option_table.cpp is at its size
// limit.
#include <climits>

#include "option_table.h"

namespace listd::config::detail {
namespace {

long long load_tracking_max(const ServerSettings& s) { return s.tracking_table_max_keys; }
void store_tracking_max(ServerSettings& s, long long v) { s.tracking_table_max_keys = v; }

}  // namespace

OptionSpec tracking_table_max_keys_option() {
  return {{"tracking-table-max-keys", {}, OptionType::kInteger, 0},
          NumericSpec{&load_tracking_max, &store_tracking_max, 0, LONG_MAX, true, 1000000}};
}

}  // namespace listd::config::detail
