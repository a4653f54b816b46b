// List operations shared by the list commands and the blocking commands' serving path, so that
// a served BLPOP/BLMOVE/BLMPOP runs exactly the code LPOP/LMOVE/LMPOP run (one truth).
//
// API: list_pop / list_pop_one (pop into strings), list_pop_reply / list_pop_one_reply (pop
// straight into a reply, no copies), list_push (push, creating the key through
// Executor::add_key so that its waiters wake up).
// They work on a database and a key; type checks stay in the handlers. Invariant kept by every
// function: a list that becomes empty is deleted from `db` at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "listd/protocol/reply_writer.h"
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

/// Like list_pop, but writes the popped elements to `reply` as one array (in pop order: head
/// first for kHead, tail first for kTail) instead of copying them out. The list must be
/// non-empty. Returns how many were popped. (LPOP key count, LMPOP, BLMPOP)
std::size_t list_pop_reply(protocol::ReplyWriter reply, store::Database& db, store::Entry* entry,
                           End end, std::size_t count);

/// Like list_pop_one, but writes the element to `reply` as a bulk string. (LPOP key)
void list_pop_one_reply(protocol::ReplyWriter reply, store::Database& db, store::Entry* entry,
                        End end);

/// Pushes `value` at `end` of the list at `key`: into `entry` if it is the key's existing list,
/// else into a new list created through Executor::add_key (which wakes the key's waiters).
/// Returns the new length.
std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::string_view value);

/// The effect of a pop, as Redis 7.0 logs every list pop (LMPOP, BLPOP, BLMPOP, a served
/// waiter): `LPOP|RPOP key`, or `LPOP|RPOP key <n popped>` for the multi-pop forms.
void emit_list_pop(Executor& exec, int db, std::string_view key, End end, bool with_count,
                   std::size_t popped);
/// The effect of a move (BLMOVE, BRPOPLPUSH served): `LMOVE src dst left|right left|right`, or
/// `RPOPLPUSH src dst` when the client asked for it by that name.
void emit_list_move(Executor& exec, int db, std::string_view src, std::string_view dst,
                    End from, End to, bool as_rpoplpush);

}  // namespace listd::server
