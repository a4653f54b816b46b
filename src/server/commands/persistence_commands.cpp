// Persistence commands: SAVE, BGSAVE, BGREWRITEAOF (LASTSAVE is in server_commands.cpp). The
// work is Persistence's (src/server/persistence.cpp); these only parse and reply.
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// Writes a reply Persistence built as "+text\r\n" / "-ERR text\r\n" in the client's protocol.
void reply_status(CommandContext& ctx, std::string_view r) {
  if (r.size() >= 3) r.remove_suffix(2);
  if (!r.empty() && r[0] == '-')
    ctx.reply().error(r.substr(1));
  else
    ctx.reply().simple(r.substr(1));
}

// SAVE
void cmd_save(CommandContext& ctx) {
  const std::string err = ctx.exec().persistence().save();
  if (err.empty())
    ctx.reply().ok();
  else
    ctx.reply().error(err);
}

// BGSAVE [SCHEDULE]
void cmd_bgsave(CommandContext& ctx) {
  if (ctx.argc() > 2 || (ctx.argc() == 2 && !base::iequals(ctx.arg(1), "schedule"))) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  reply_status(ctx, ctx.exec().persistence().bgsave());
}

// BGREWRITEAOF
void cmd_bgrewriteaof(CommandContext& ctx) {
  reply_status(ctx, ctx.exec().persistence().bgrewriteaof());
}

}  // namespace

void register_persistence_commands(CommandTable& t) {
  t.add({"save", 1, kAdmin | kNoScript | kNoMulti, {}, &cmd_save, "server", "1.0.0",
         "Synchronously save the dataset to disk"});
  t.add({"bgsave", -1, kAdmin | kNoScript, {}, &cmd_bgsave, "server", "1.0.0",
         "Asynchronously save the dataset to disk"});
  t.add({"bgrewriteaof", 1, kAdmin | kNoScript, {}, &cmd_bgrewriteaof, "server", "1.0.0",
         "Asynchronously rewrite the append-only file"});
}

}  // namespace listd::server
