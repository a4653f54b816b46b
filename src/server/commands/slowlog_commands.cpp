// SLOWLOG GET / LEN / RESET / HELP (Redis slowlog.c), over the executor's SlowLog.
#include "listd/base/number.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/slowlog.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// SLOWLOG GET [count]
void cmd_slowlog_get(CommandContext& ctx) {
  if (ctx.argc() > 3) {  // Redis accepts the arity -2 but answers its syntax error
    ctx.reply().error(subcommand_syntax_error("SLOWLOG", ctx.arg(1)));
    return;
  }
  const SlowLog& log = ctx.exec().slowlog();
  long long count = 10;
  if (ctx.argc() == 3) {
    if (!base::parse_strict_integer(ctx.arg(2), count) || count < -1) {
      ctx.reply().error("ERR count should be greater than or equal to -1");
      return;
    }
    if (count == -1) count = static_cast<long long>(log.size());
  }
  const std::size_t sent = std::min(log.size(), static_cast<std::size_t>(count));
  auto r = ctx.reply();
  r.array_header(sent);
  for (std::size_t i = 0; i < sent; ++i) {
    const SlowLog::Entry& e = log.entries()[i];
    r.array_header(6);
    r.integer(e.id);
    r.integer(e.unix_s);
    r.integer(static_cast<long long>(e.duration_us));
    r.array_header(e.args.size());
    for (const std::string& a : e.args) r.bulk(a);
    r.bulk(e.peer);
    r.bulk(e.name);
  }
}

// SLOWLOG LEN
void cmd_slowlog_len(CommandContext& ctx) {
  ctx.reply().integer(static_cast<long long>(ctx.exec().slowlog().size()));
}

// SLOWLOG RESET
void cmd_slowlog_reset(CommandContext& ctx) {
  ctx.exec().slowlog().reset();
  ctx.reply().ok();
}

// SLOWLOG HELP
void cmd_slowlog_help(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog."};
  reply_help(ctx, kLines);
}

}  // namespace

void register_slowlog_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  const std::uint32_t admin = kAdmin | kLoading | kStale;
  CommandSpec& slowlog =
      t.add("slowlog", -2, 0, kNoKeys, nullptr, "2.2.12", "A container for slow log commands");
  t.add_subcommand(slowlog, "get", -2, admin, kNoKeys, &cmd_slowlog_get, "2.2.12",
                   "Get the slow log's entries");
  t.add_subcommand(slowlog, "len", 2, admin, kNoKeys, &cmd_slowlog_len, "2.2.12",
                   "Get the slow log's length");
  t.add_subcommand(slowlog, "reset", 2, admin, kNoKeys, &cmd_slowlog_reset, "2.2.12",
                   "Clear all entries from the slow log");
  t.add_subcommand(slowlog, "help", 2, kLoading | kStale, kNoKeys, &cmd_slowlog_help, "6.2.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
