// A key's access word (store::Entry::lru, key_access.h) in an RDB file, as Redis 7.0 keeps it:
// written as an IDLE record under an LRU maxmemory-policy or a FREQ record under an LFU one
// (rdbSaveKeyValuePair), and turned back into a word when dump.rdb or a master's snapshot
// loads (rdbLoad's objectSetLRUOrLFU), under the loading server's policy.
//
// API: record_access (fills RdbSaveOptions), restore_access (fills RdbLoadOptions).
#pragma once

#include <cstdint>

#include "listd/config/config.h"
#include "listd/persistence/rdb.h"

namespace listd::server {

/// Sets `o`'s access record for the policy in `s`, the numbers taken at `now_ms`.
void record_access(persistence::RdbSaveOptions& o, const config::ServerSettings& s,
                   std::int64_t now_ms);
/// Sets `o` to give each loaded key the word of its record, or a new key's word at `now_ms`.
void restore_access(persistence::RdbLoadOptions& o, const config::ServerSettings& s,
                    std::int64_t now_ms);

}  // namespace listd::server
