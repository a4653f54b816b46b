// List operations shared by the list commands and the blocking commands' serving path, so that
// a served BLPOP/BLMOVE/BLMPOP runs exactly the code LPOP/LMOVE/LMPOP run (one truth).
//
// They work on a database and a key; type checks and replies stay in the handlers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "listd/server/client.h"
#include "listd/store/database.h"

namespace listd::server {

class Executor;

/// Pops up to `count` (>= 1) elements from `end` of the list held by `entry` (the live entry of
/// `key` in `db`), deleting the key when it becomes empty. `entry` is invalid afterwards if the
/// key was deleted.
std::vector<std::string> list_pop(store::Database& db, store::Entry* entry, End end,
                                  std::size_t count);

/// Pops exactly one element (the list must be non-empty).
std::string list_pop_one(store::Database& db, store::Entry* entry, End end);

/// Pushes `value` at `end` of the list at `key`: into `entry` if it is the key's existing list,
/// else into a new list created through Executor::add_key (which wakes the key's waiters).
/// Returns the new length.
std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::string_view value);

}  // namespace listd::server
