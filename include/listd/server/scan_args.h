// Arguments shared by the SCAN family (SCAN, HSCAN, SSCAN, ZSCAN): the cursor and the
// MATCH/COUNT options, parsed as Redis 7.0's parseScanCursorOrReply / scanGenericCommand do.
#pragma once

#include <cstdint>
#include <string_view>

namespace listd::server {

class CommandContext;

struct ScanOptions {
  long long count = 10;
  std::string_view pattern;
  bool use_pattern = false;  ///< false for no MATCH and for MATCH *
  std::string_view type;     ///< SCAN's TYPE filter (empty: none); only when allowed
};

/// argv[i] as a cursor (strtoull; "-1" wraps like Redis); replies "ERR invalid cursor" and
/// returns false otherwise.
bool parse_scan_cursor(CommandContext& ctx, std::size_t i, std::uint64_t& out);

/// The option pairs from argv[i] on: COUNT n (n >= 1), MATCH pattern, and TYPE t when
/// `allow_type` (SCAN only). Replies the Redis error and returns false on bad input.
bool parse_scan_options(CommandContext& ctx, std::size_t i, bool allow_type, ScanOptions& out);

/// The reply for a missing key: cursor "0" and no elements.
void reply_empty_scan(CommandContext& ctx);

}  // namespace listd::server
