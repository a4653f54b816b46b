// A stream as the commands that rebuild it, in Redis 7.0.15's AOF rewrite form (aof.c
// rewriteStreamObject): one `XADD <key> <id> <field> <value>...` per entry (an empty stream as
// `XADD <key> MAXLEN 0 0-1 x y`), then `XSETID <key> <last id> ENTRIESADDED <n> MAXDELETEDID
// <id>`, then per group (name order) `XGROUP CREATE <key> <group> <last id> ENTRIESREAD <n>`
// and per consumer (name order) either `XGROUP CREATECONSUMER <key> <group> <consumer>` (no
// pending entries) or one `XCLAIM <key> <group> <consumer> 0 <id> TIME <delivery ms>
// RETRYCOUNT <count> JUSTID FORCE` per pending entry (id order).
//
// API: append_stream_rewrite. This is the stream part of a rewrite without an RDB preamble;
// listd's rewrite still always writes its base as an RDB (docs/DURABILITY.md), because no
// other type has a command form yet, so nothing calls it there.
#pragma once

#include <string>
#include <string_view>

#include "listd/store/stream_value.h"

namespace listd::persistence {

/// Appends the RESP commands that rebuild `s` at `key` (no SELECT) to `out`.
void append_stream_rewrite(std::string& out, std::string_view key, const store::StreamValue& s);

}  // namespace listd::persistence
