// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. The state machine is Transaction
// (transaction.h); Executor::execute validates a command before queueing it.
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

// MULTI
void cmd_multi(CommandContext& ctx) {
  Client& c = ctx.client();
  if (c.in_multi) {
    ctx.reply().error(kMultiNestedErr);
    return;
  }
  ctx.exec().transactions().begin(c);
  ctx.reply().ok();
}

// EXEC
void cmd_exec(CommandContext& ctx) { ctx.exec().transactions().exec(ctx.client()); }

// DISCARD
void cmd_discard(CommandContext& ctx) {
  Client& c = ctx.client();
  if (!c.in_multi) {
    ctx.reply().error(kDiscardWithoutMultiErr);
    return;
  }
  ctx.exec().transactions().discard(c);
  ctx.reply().ok();
}

// WATCH key [key ...]
void cmd_watch(CommandContext& ctx) {
  Client& c = ctx.client();
  if (c.in_multi) {
    ctx.reply().error(kWatchInMultiErr);
    return;
  }
  for (std::size_t i = 1; i < ctx.argc(); ++i) ctx.exec().transactions().watch(c, c.db, ctx.arg(i));
  ctx.reply().ok();
}

// UNWATCH
void cmd_unwatch(CommandContext& ctx) {
  ctx.exec().transactions().unwatch_all(ctx.client());
  ctx.reply().ok();
}

}  // namespace

void register_transaction_commands(CommandTable& table) {
  CommandFamily t = table.family("transactions");
  const std::uint32_t common = kNoScript | kLoading | kStale | kFast | kAllowBusy;
  t.add("multi", 1, common | kNotQueued, kNoKeys, &cmd_multi, "1.2.0",
        "Mark the start of a transaction block");
  t.add("exec", 1, kNoScript | kLoading | kStale | kSkipSlowlog | kNotQueued | kExecCommand,
        kNoKeys, &cmd_exec, "1.2.0", "Execute all commands issued after MULTI");
  t.add("discard", 1, common | kNotQueued, kNoKeys, &cmd_discard, "2.0.0",
        "Discard all commands issued after MULTI");
  t.add("watch", -2, common | kNotQueued, {1, -1, 1}, &cmd_watch, "2.2.0",
        "Watch the given keys to determine execution of the MULTI/EXEC block");
  t.add("unwatch", 1, common, kNoKeys, &cmd_unwatch, "2.2.0", "Forget about all watched keys");
}

}  // namespace listd::server
