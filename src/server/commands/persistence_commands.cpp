// Persistence commands: SAVE, BGSAVE, BGREWRITEAOF (LASTSAVE is in server_commands.cpp). The
// work is Persistence's (src/server/persistence.cpp), which says what happened; these parse the
// arguments and word the reply as Redis does.
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// SAVE
void cmd_save(CommandContext& ctx) {
  const Status s = ctx.exec().persistence().save();
  if (s)
    ctx.reply().ok();
  else
    ctx.reply().error(s.error());
}

// BGSAVE [SCHEDULE]
void cmd_bgsave(CommandContext& ctx) {
  if (ctx.argc() > 2 || (ctx.argc() == 2 && !base::iequals(ctx.arg(1), "schedule"))) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  const Status s = ctx.exec().persistence().bgsave();
  if (s)
    ctx.reply().simple("Background saving started");
  else
    ctx.reply().error(s.error());
}

// BGREWRITEAOF
void cmd_bgrewriteaof(CommandContext& ctx) {
  const Result<RewriteStart> r = ctx.exec().persistence().bgrewriteaof();
  if (!r)
    ctx.reply().error(r.error());
  else if (*r == RewriteStart::kScheduled)
    ctx.reply().simple("Background append only file rewriting scheduled");
  else
    ctx.reply().simple("Background append only file rewriting started");
}

}  // namespace

void register_persistence_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  t.add("save", 1, kAdmin | kNoScript | kNoMulti, kNoKeys, &cmd_save, "1.0.0",
        "Synchronously save the dataset to disk");
  t.add("bgsave", -1, kAdmin | kNoScript, kNoKeys, &cmd_bgsave, "1.0.0",
        "Asynchronously save the dataset to disk");
  t.add("bgrewriteaof", 1, kAdmin | kNoScript, kNoKeys, &cmd_bgrewriteaof, "1.0.0",
        "Asynchronously rewrite the append-only file");
}

}  // namespace listd::server
