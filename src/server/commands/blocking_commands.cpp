// Blocking list commands: BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BLMPOP, and their serving half,
// serve_blocked_client (called by Executor::drain_ready_keys for the oldest waiter of a ready
// key).
//
// Each handler first tries to answer at once, exactly like its non-blocking form (LPOP, LMOVE,
// LMPOP), through the list_ops.h pop/push functions; only when every key is absent does it park
// the client with CommandContext::block_on. A parked client gets no reply until it is served
// here, times out (Executor::tick replies the null array) or is unblocked (CLIENT UNBLOCK).
// Argument checks follow Redis 7.0.15 t_list.c in order: positions / numkeys / COUNT, then the
// timeout, then the key types (only up to the first non-empty key).
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/list_ops.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// Redis getListPositionFromObjectOrReply: LEFT | RIGHT, any case.
bool parse_end(CommandContext& ctx, std::size_t i, End& out) {
  const std::string_view a = ctx.arg(i);
  if (base::iequals(a, "left")) {
    out = End::kHead;
    return true;
  }
  if (base::iequals(a, "right")) {
    out = End::kTail;
    return true;
  }
  ctx.reply().error(kSyntaxErr);
  return false;
}

/// Moves one element from the live, non-empty list `src_entry` to the list at `dst`
/// (`dst_entry`: its live list, or null when absent; the caller checked the type). Returns the
/// element. LMOVE semantics: a one-element list moved onto itself stays as
/// it is (Redis pops and pushes the same object, so the key, its TTL and its waiters are
/// untouched).
std::string move_element(Executor& exec, store::Database& db, store::Entry* src_entry,
                         std::string_view dst, store::Entry* dst_entry, End from, End to) {
  store::PackedList& list = src_entry->value.as_list();
  if (src_entry == dst_entry && list.size() == 1) return std::string(list.front());
  std::string value = list_pop_one(db, src_entry, from);
  // The pop may have deleted the source key. Entries never move, so `dst_entry` (another key,
  // or the same still non-empty list) stays valid; peek again anyway, so the push can never
  // write into a freed entry whatever list_pop_one does.
  list_push(exec, db, dst, db.peek(dst), to, value);
  return value;
}

/// Pops from `entry` and replies [key, element] (BLPOP/BRPOP), or [key, [elements...]] with up
/// to `count` elements (BLMPOP): the LPOP / LMPOP reply code, straight from the list. Returns
/// the number of elements popped.
std::size_t pop_and_reply(protocol::ReplyWriter reply, store::Database& db, store::Entry* entry,
                          std::string_view key, End end, bool multi, std::size_t count) {
  reply.array_header(2);
  reply.bulk(key);
  if (multi) return list_pop_reply(reply, db, entry, end, count);
  list_pop_one_reply(reply, db, entry, end);
  return 1;
}

/// BLPOP/BRPOP/BLMPOP once the arguments are parsed: serve the first non-empty key in argument
/// order (WRONGTYPE for a wrong-typed key before it), else answer nil inside EXEC, else block.
/// Redis 7.0 blockingPopGenericCommand.
void blocking_pop_generic(CommandContext& ctx, std::span<const std::string_view> keys, End end,
                          long long timeout_ms, bool multi, long long count) {
  for (std::string_view key : keys) {
    auto [e, wrong_type] = ctx.write(key, store::ValueType::kList);
    if (wrong_type) return;
    if (!e || e->value.as_list().empty()) continue;
    const std::size_t n =
        pop_and_reply(ctx.reply(), ctx.db(), e, key, end, multi, static_cast<std::size_t>(count));
    ctx.mark_dirty(static_cast<long long>(n));
    ctx.changed_key(key);  // WATCH: only the key served from changed
    emit_list_pop(ctx.exec(), ctx.db().index(), key, end, multi, n);  // the pop it performed
    return;
  }
  if (ctx.in_exec()) {
    // A transaction must never block: answer as a timeout would.
    ctx.reply().null_array();
    return;
  }
  BlockSpec spec;
  spec.kind = multi ? BlockSpec::Kind::kMultiPop : BlockSpec::Kind::kPop;
  spec.from = end;
  spec.count = count;
  ctx.block_on(keys, timeout_ms, std::move(spec));
}

/// BLPOP/BRPOP: key [key ...] timeout.
void bpop_generic(CommandContext& ctx, End end) {
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(ctx.argc() - 1, timeout_ms)) return;
  blocking_pop_generic(ctx, ctx.argv().subspan(1, ctx.argc() - 2), end, timeout_ms, false, 1);
}

/// BRPOPLPUSH/BLMOVE once parsed: source argv[1], destination argv[2]. Redis 7.0
/// blmoveGenericCommand + lmoveGenericCommand.
void blmove_generic(CommandContext& ctx, End from, End to, long long timeout_ms,
                    bool as_rpoplpush) {
  const std::string_view src = ctx.arg(1);
  const std::string_view dst = ctx.arg(2);
  auto [s, wrong_type] = ctx.write(src, store::ValueType::kList);
  if (wrong_type) return;
  if (s && !s->value.as_list().empty()) {
    // The source has data: exactly LMOVE, destination type checked only now.
    auto [d, dst_wrong_type] = ctx.write(dst, store::ValueType::kList);
    if (dst_wrong_type) return;
    const std::string value = move_element(ctx.exec(), ctx.db(), s, dst, d, from, to);
    ctx.reply().bulk(value);
    ctx.mark_dirty();
    // Redis lmoveGenericCommand: BLMOVE -> LMOVE with the directions as sent, BRPOPLPUSH ->
    // RPOPLPUSH.
    if (as_rpoplpush)
      ctx.propagate_as({"RPOPLPUSH", src, dst});
    else
      ctx.propagate_as({"LMOVE", src, dst, ctx.arg(3), ctx.arg(4)});
    return;
  }
  if (ctx.in_exec()) {
    ctx.reply().null();  // Redis answers $-1 here (not the *-1 of a timeout)
    return;
  }
  BlockSpec spec;
  spec.kind = BlockSpec::Kind::kMove;
  spec.from = from;
  spec.to = to;
  spec.destination = std::string(dst);
  spec.as_rpoplpush = as_rpoplpush;
  const std::string_view keys[] = {src};
  ctx.block_on(keys, timeout_ms, std::move(spec));
}

// BLPOP key [key ...] timeout
void cmd_blpop(CommandContext& ctx) { bpop_generic(ctx, End::kHead); }

// BRPOP key [key ...] timeout
void cmd_brpop(CommandContext& ctx) { bpop_generic(ctx, End::kTail); }

// BRPOPLPUSH source destination timeout
void cmd_brpoplpush(CommandContext& ctx) {
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(3, timeout_ms)) return;
  blmove_generic(ctx, End::kTail, End::kHead, timeout_ms, true);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
void cmd_blmove(CommandContext& ctx) {
  End from = End::kHead;
  End to = End::kHead;
  if (!parse_end(ctx, 3, from) || !parse_end(ctx, 4, to)) return;
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(5, timeout_ms)) return;
  blmove_generic(ctx, from, to, timeout_ms, false);
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
void cmd_blmpop(CommandContext& ctx) {
  // Redis 7.0 lmpopGenericCommand(c, 2, 1): numkeys, position, COUNT, and only then the
  // timeout (in blockingPopGenericCommand).
  long long numkeys = 0;
  if (!ctx.parse_integer(2, numkeys, kNumkeysErr)) return;
  if (numkeys < 1) {
    ctx.reply().error(kNumkeysErr);
    return;
  }
  const std::size_t argc = ctx.argc();
  if (static_cast<unsigned long long>(numkeys) >= argc - 3) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  const std::size_t where_idx = 3 + static_cast<std::size_t>(numkeys);
  End end = End::kHead;
  if (!parse_end(ctx, where_idx, end)) return;
  long long count = -1;
  for (std::size_t j = where_idx + 1; j < argc; ++j) {
    const bool more_args = j + 1 < argc;
    if (count == -1 && more_args && base::iequals(ctx.arg(j), "count")) {
      ++j;
      if (!ctx.parse_integer(j, count, kCountGreaterThanZeroErr)) return;
      if (count < 1) {
        ctx.reply().error(kCountGreaterThanZeroErr);
        return;
      }
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  if (count == -1) count = 1;
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(1, timeout_ms)) return;
  blocking_pop_generic(ctx, ctx.argv().subspan(3, static_cast<std::size_t>(numkeys)), end,
                       timeout_ms, true, count);
}

}  // namespace

ServeResult serve_blocked_client(Executor& exec, Client& c, const blocking::BlockKey& key) {
  const BlockSpec& spec = c.block;
  if (spec.kind == BlockSpec::Kind::kZPop || spec.kind == BlockSpec::Kind::kZMultiPop)
    return serve_zset_waiter(exec, c, key);

  store::Database& db = exec.keyspace().db(key.db);
  store::Entry* e = db.lookup(key.key, exec.clock().unix_ms());
  // Gone again (popped later in the same transaction, expired): nobody can be served.
  if (!e) return ServeResult::kNoData;
  // Re-created as a sorted set: sorted-set waiters behind this one may still be served.
  if (!e->value.is(store::ValueType::kList)) return ServeResult::kSkip;

  protocol::ReplyWriter reply = c.reply();
  std::size_t changes = 1;
  switch (spec.kind) {
    case BlockSpec::Kind::kPop:
    case BlockSpec::Kind::kMultiPop:
      changes = pop_and_reply(reply, db, e, key.key, spec.from,
                              spec.kind == BlockSpec::Kind::kMultiPop,
                              static_cast<std::size_t>(spec.count));
      emit_list_pop(exec, key.db, key.key, spec.from, spec.kind == BlockSpec::Kind::kMultiPop,
                    changes);
      break;
    case BlockSpec::Kind::kMove: {
      store::Entry* d = db.lookup(spec.destination, exec.clock().unix_ms());
      if (d && !d->value.is(store::ValueType::kList)) {
        // Redis 7.0: this waiter gets WRONGTYPE and is unblocked; nothing is popped, so the
        // element is there for the next waiter.
        reply.error(kWrongTypeErr);
        ++exec.stats().total_error_replies;
        exec.finish_block(c);
        return ServeResult::kServed;
      }
      const std::string value =
          move_element(exec, db, e, spec.destination, d, spec.from, spec.to);
      reply.bulk(value);
      exec.touch_key(key.db, spec.destination);
      emit_list_move(exec, key.db, key.key, spec.destination, spec.from, spec.to,
                     spec.as_rpoplpush);
      break;
    }
    case BlockSpec::Kind::kZPop:
    case BlockSpec::Kind::kZMultiPop:
      break;  // handled above
  }
  exec.touch_key(key.db, key.key);
  exec.stats().dirty += static_cast<long long>(changes);
  exec.finish_block(c);
  return ServeResult::kServed;
}

void register_blocking_commands(CommandTable& t) {
  t.add({"blpop", -3, kWrite | kNoScript | kBlocking | kOwnEffect, {1, -2, 1}, &cmd_blpop, "list", "2.0.0",
         "Remove and get the first element in a list, or block until one is available"});
  t.add({"brpop", -3, kWrite | kNoScript | kBlocking | kOwnEffect, {1, -2, 1}, &cmd_brpop, "list", "2.0.0",
         "Remove and get the last element in a list, or block until one is available"});
  t.add({"brpoplpush", 4, kWrite | kDenyOom | kNoScript | kBlocking | kOwnEffect, {1, 2, 1}, &cmd_brpoplpush,
         "list", "2.2.0",
         "Pop an element from a list, push it to another list and return it; or block until one "
         "is available"});
  t.add({"blmove", 6, kWrite | kDenyOom | kNoScript | kBlocking | kOwnEffect, {1, 2, 1}, &cmd_blmove, "list",
         "6.2.0",
         "Pop an element from a list, push it to another list and return it; or block until one "
         "is available"});
  t.add({"blmpop", -5, kWrite | kBlocking | kOwnEffect, {0, 0, 0, 2}, &cmd_blmpop, "list", "7.0.0",
         "Pop elements from a list, or block until one is available"});
}

}  // namespace listd::server
