// The SCAN family (SCAN, HSCAN, SSCAN, ZSCAN), written once as Redis 7.0's scanGenericCommand
// is: the cursor and the MATCH/COUNT/TYPE options (parseScanCursorOrReply and step 1), then
// scan_generic, the budgeted walk, the MATCH filter and the reply (steps 2-4). Each command
// supplies only how to walk its container and how to write one item.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "listd/protocol/reply_writer.h"
#include "listd/server/command_context.h"

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

/// Redis scanGenericCommand steps 2-4. `step(cursor, items)` walks one step of the container
/// from `cursor`, appends what it meets to `items` and returns the next cursor (0: the end).
/// Each item makes `width` reply elements (2 for field/value and member/score pairs) and COUNT
/// counts reply elements, as in Redis: the walk stops at the end, once `count` elements were
/// collected, or after count*10 steps (a sparse table must not block the server). Then the items
/// `keep` rejects are dropped (the MATCH filter) and the page is replied: the next cursor, then
/// `write(reply, item)` for each item.
template <class Item, class Step, class Keep, class Write>
void scan_generic(CommandContext& ctx, std::uint64_t cursor, long long count, std::size_t width,
                  Step&& step, Keep&& keep, Write&& write) {
  std::vector<Item> items;
  long long budget = count * 10;
  do {
    cursor = step(cursor, items);
  } while (cursor != 0 && --budget > 0 && static_cast<long long>(items.size() * width) < count);
  std::erase_if(items, [&](const Item& it) { return !keep(it); });
  protocol::ReplyWriter r = ctx.reply();
  r.array_header(2);
  r.bulk(std::to_string(cursor));
  r.array_header(items.size() * width);
  for (const Item& it : items) write(r, it);
}

}  // namespace listd::server
