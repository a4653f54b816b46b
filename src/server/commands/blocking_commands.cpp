// Blocking list commands: BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BLMPOP, and their serving half,
// serve_blocked_client (called by Executor::drain_ready_keys for the oldest waiter of a ready
// key).
//
// Each handler first tries to answer at once, exactly like its non-blocking form (LPOP, LMOVE,
// LMPOP), through the list_ops.h pop/move functions; only when every key is absent does it park
// the client with CommandContext::block_on. A parked client gets no reply until it is served
// here, times out (Executor::tick replies the null array) or is unblocked (CLIENT UNBLOCK).
// Argument checks follow Redis 7.0.15 t_list.c in order: positions / numkeys / COUNT, then the
// timeout, then the key types (only up to the first non-empty key).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/blocking_service.h"
#include "listd/server/command_args.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/list_ops.h"

namespace listd::server {
namespace {

/// Pops from `entry` and replies [key, element] (BLPOP/BRPOP), or [key, [elements...]] with up
/// to `count` elements (BLMPOP): the LPOP / LMPOP reply code, straight from the list. Returns
/// the number of elements popped.
std::size_t pop_and_reply(protocol::ReplyWriter reply, Executor& exec, store::Database& db,
                          store::Entry* entry, std::string_view key, End end, bool multi,
                          std::size_t count) {
  reply.array_header(2);
  reply.bulk(key);
  if (multi) return list_pop_reply(reply, exec, db, entry, end, count);
  list_pop_one_reply(reply, exec, db, entry, end);
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
    const std::size_t n = pop_and_reply(ctx.reply(), ctx.exec(), ctx.db(), e, key, end, multi,
                                        static_cast<std::size_t>(count));
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
    list_move(ctx.reply(), ctx.exec(), ctx.db(), s, dst, d, from, to);
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
  const std::optional<MpopArgs> args = parse_mpop_args(ctx, 2, kListEnds);
  if (!args) return;
  long long timeout_ms = 0;
  if (!ctx.parse_timeout_ms(1, timeout_ms)) return;
  blocking_pop_generic(ctx, args->keys, args->where, timeout_ms, true, args->count);
}

}  // namespace

ServeResult serve_blocked_client(Executor& exec, Client& c, const store::DbKey& key) {
  const BlockSpec& spec = c.block;
  if (spec.kind == BlockSpec::Kind::kZPop || spec.kind == BlockSpec::Kind::kZMultiPop)
    return serve_zset_waiter(exec, c, key);
  if (spec.kind == BlockSpec::Kind::kXRead || spec.kind == BlockSpec::Kind::kXReadGroup)
    return serve_stream_waiter(exec, c, key);

  store::Database& db = exec.keyspace().db(key.db);
  store::Entry* e = db.lookup(key.key, exec.blocking().serving_unix_ms());
  // Gone again (popped later in the same transaction, expired): nobody can be served.
  if (!e) return ServeResult::kNoData;
  // Re-created as a sorted set: sorted-set waiters behind this one may still be served.
  if (!e->value.is(store::ValueType::kList)) return ServeResult::kSkip;
  if (!exec.blocking().claim(c)) return ServeResult::kSkip;

  protocol::ReplyWriter reply = c.reply();
  std::size_t changes = 1;
  switch (spec.kind) {
    case BlockSpec::Kind::kPop:
    case BlockSpec::Kind::kMultiPop:
      changes = pop_and_reply(reply, exec, db, e, key.key, spec.from,
                              spec.kind == BlockSpec::Kind::kMultiPop,
                              static_cast<std::size_t>(spec.count));
      emit_list_pop(exec, key.db, key.key, spec.from, spec.kind == BlockSpec::Kind::kMultiPop,
                    changes);
      break;
    case BlockSpec::Kind::kMove: {
      store::Entry* d = db.lookup(spec.destination, exec.blocking().serving_unix_ms());
      if (d && !d->value.is(store::ValueType::kList)) {
        // Redis 7.0: this waiter gets WRONGTYPE and is unblocked; nothing is popped, so the
        // element is there for the next waiter.
        reply.error(kWrongTypeErr);
        ++exec.stats().total_error_replies;
        exec.error_stats().count(kWrongTypeErr);
        exec.blocking().finish(c);
        return ServeResult::kServed;
      }
      list_move(reply, exec, db, e, spec.destination, d, spec.from, spec.to);
      exec.touch_key(key.db, spec.destination);
      emit_list_move(exec, key.db, key.key, spec.destination, spec.from, spec.to,
                     spec.as_rpoplpush);
      break;
    }
    case BlockSpec::Kind::kZPop:
    case BlockSpec::Kind::kZMultiPop:
    case BlockSpec::Kind::kXRead:
    case BlockSpec::Kind::kXReadGroup: break;  // handled above
  }
  exec.touch_key(key.db, key.key);
  exec.stats().dirty += static_cast<long long>(changes);
  exec.blocking().finish(c);
  return ServeResult::kServed;
}

void register_blocking_commands(CommandTable& table) {
  CommandFamily t = table.family("list");
  t.add("blpop", -3, kWrite | kNoScript | kBlocking | kOwnEffect, {1, -2, 1}, &cmd_blpop, "2.0.0",
        "Remove and get the first element in a list, or block until one is available");
  t.add("brpop", -3, kWrite | kNoScript | kBlocking | kOwnEffect, {1, -2, 1}, &cmd_brpop, "2.0.0",
        "Remove and get the last element in a list, or block until one is available");
  t.add("brpoplpush", 4, kWrite | kDenyOom | kNoScript | kBlocking | kOwnEffect, kFirstTwoKeys,
        &cmd_brpoplpush, "2.2.0",
        "Pop an element from a list, push it to another list and return it; or block until one is "
        "available");
  t.add("blmove", 6, kWrite | kDenyOom | kNoScript | kBlocking | kOwnEffect, kFirstTwoKeys,
        &cmd_blmove, "6.2.0",
        "Pop an element from a list, push it to another list and return it; or block until one is "
        "available");
  t.add("blmpop", -5, kWrite | kBlocking | kOwnEffect, KeySpec::numkeys(2), &cmd_blmpop, "7.0.0",
        "Pop elements from a list, or block until one is available");
}

}  // namespace listd::server
