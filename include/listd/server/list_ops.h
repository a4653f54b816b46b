// List operations shared by the list commands and the blocking commands' serving path, so that
// a served BLPOP/BLMOVE/BLMPOP runs exactly the code LPOP/LMOVE/LMPOP run (one truth, as Redis'
// t_list.c has one lmoveGenericCommand and one listPopRangeAndReplyWithKey).
//
// API: list_pop_reply / list_pop_one_reply (pop straight into a reply, no copies: a deliberate
// break from an Op/Cmd split, it saves a copy per element), list_push (push; the one door
// through which a push creates a list), list_move (LMOVE's rule, rotation included), and the
// effects Redis logs for pops and moves.
// They work on a database and a key; type checks stay in the handlers. Invariants kept by every
// function: a list that becomes empty is deleted from `db` at once; pops and moves send their
// keyspace events (lpop/rpop, lpush/rpush, del) where Redis 7.0 t_list.c sends them.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "listd/protocol/reply_writer.h"
#include "listd/server/list_end.h"
#include "listd/store/database.h"

namespace listd::server {

class Executor;

/// Pops up to `count` (>= 1) elements from `end` and writes them to `reply` as one array (in pop
/// order: head first for kHead, tail first for kTail) instead of copying them out. The list must
/// be non-empty. Returns how many were popped; `entry` is invalid afterwards if the key was
/// deleted. (LPOP key count, LMPOP, BLMPOP)
std::size_t list_pop_reply(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
                           store::Entry* entry, End end, std::size_t count);

/// Like list_pop_reply for one element, written as a bulk string. (LPOP key, BLPOP)
void list_pop_one_reply(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
                        store::Entry* entry, End end);

/// Pushes `values` in order at `end` of the list at `key`: into `entry` if it is the key's live
/// list, else into a new list. Every list a push creates is created here, through
/// Executor::add_key (which wakes the key's waiters), its access time the command's time.
/// Returns the new length.
std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::span<const std::string_view> values);
/// The same for one value.
std::size_t list_push(Executor& exec, store::Database& db, std::string_view key,
                      store::Entry* entry, End end, std::string_view value);

/// Redis lmoveGenericCommand's move once both types are checked: pops from `from` of the live,
/// non-empty list `src_entry`, pushes at `to` of the list at `dst` (`dst_entry`: its live list,
/// or null when absent) and replies the element. When source and destination are the same list
/// it is a rotation: the list is never emptied in between, so even a one-element list keeps its
/// key, its TTL and its waiters (Redis pops and pushes the same object). Events as Redis 7.0
/// (lmoveGenericCommand, and a served BLMOVE alike): `new` of a created destination, the push,
/// the reply, the pop, `del` of an emptied source.
void list_move(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
               store::Entry* src_entry, std::string_view dst, store::Entry* dst_entry, End from,
               End to);

/// The `lpush` / `rpush` event of a push into `key` (the caller sends it after its reply, as
/// Redis pushGenericCommand).
void notify_push(Executor& exec, int db, std::string_view key, End end);

/// The effect of a pop, as Redis 7.0 logs every list pop (LMPOP, BLPOP, BLMPOP, a served
/// waiter): `LPOP|RPOP key`, or `LPOP|RPOP key <n popped>` for the multi-pop forms.
void emit_list_pop(Executor& exec, int db, std::string_view key, End end, bool with_count,
                   std::size_t popped);
/// The effect of a move (BLMOVE, BRPOPLPUSH served): `LMOVE src dst left|right left|right`, or
/// `RPOPLPUSH src dst` when the client asked for it by that name.
void emit_list_move(Executor& exec, int db, std::string_view src, std::string_view dst, End from,
                    End to, bool as_rpoplpush);

}  // namespace listd::server
