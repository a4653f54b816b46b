// Scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD|EXISTS|FLUSH|KILL|HELP, with
// Redis 7.0's replies. The cache and the run are Scripting's (scripting.h).
#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

constexpr std::string_view kNoScriptErr = "NOSCRIPT No matching script. Please use EVAL.";

// EVAL script numkeys key... arg... (and the sha / _RO forms).
void eval_generic(CommandContext& ctx, bool by_sha, bool read_only) {
  long long numkeys = 0;
  if (!ctx.parse_integer(2, numkeys)) return;
  const auto extra = static_cast<long long>(ctx.argc()) - 3;
  if (numkeys > extra) {
    ctx.reply().error("ERR Number of keys can't be greater than number of args");
    return;
  }
  if (numkeys < 0) {
    ctx.reply().error("ERR Number of keys can't be negative");
    return;
  }
  Scripting& scripting = ctx.exec().scripting();
  std::string sha;
  if (by_sha) {
    sha = base::to_lower(ctx.arg(1));
    scripting.touch(sha);
  } else {
    std::string error;
    sha = scripting.load(ctx.arg(1), error);
    if (sha.empty()) {
      ctx.reply().error(error);
      return;
    }
  }
  const Scripting::Script* script = scripting.find(sha);
  if (!script) {
    ctx.reply().error(kNoScriptErr);
    return;
  }
  const auto argv = ctx.argv();
  const auto keys = argv.subspan(3, static_cast<std::size_t>(numkeys));
  const auto args = argv.subspan(3 + static_cast<std::size_t>(numkeys));
  scripting.run(ctx.client(), sha, *script, keys, args, read_only);
}

void cmd_eval(CommandContext& ctx) { eval_generic(ctx, false, false); }
void cmd_evalsha(CommandContext& ctx) { eval_generic(ctx, true, false); }
void cmd_eval_ro(CommandContext& ctx) { eval_generic(ctx, false, true); }
void cmd_evalsha_ro(CommandContext& ctx) { eval_generic(ctx, true, true); }

// SCRIPT LOAD script
void cmd_script_load(CommandContext& ctx) {
  std::string error;
  const std::string sha = ctx.exec().scripting().load(ctx.arg(2), error, /*by_script_load=*/true);
  if (sha.empty())
    ctx.reply().error(error);
  else
    ctx.reply().bulk(sha);
}

// SCRIPT EXISTS sha [sha ...]
void cmd_script_exists(CommandContext& ctx) {
  const Scripting& scripting = ctx.exec().scripting();
  ctx.reply().array_header(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    ctx.reply().integer(scripting.find(ctx.arg(i)) ? 1 : 0);
}

// SCRIPT FLUSH [ASYNC|SYNC]: both free at once (the Lua state is small; nothing to defer to).
void cmd_script_flush(CommandContext& ctx) {
  if (ctx.argc() > 3 || (ctx.argc() == 3 && !base::iequals(ctx.arg(2), "sync") &&
                         !base::iequals(ctx.arg(2), "async"))) {
    ctx.reply().error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  ctx.exec().scripting().flush();
  ctx.reply().ok();
}

// SCRIPT KILL: stops a busy EVAL that has not written (run from the script's hook).
void cmd_script_kill(CommandContext& ctx) {
  const std::string error = ctx.exec().scripting().kill(/*function_kill=*/false);
  if (error.empty())
    ctx.reply().ok();
  else
    ctx.reply().error(error);
}

// SCRIPT HELP: Redis' own text, whose last line says "Prints" where addReplyHelp says "Print".
void cmd_script_help(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help."};
  protocol::ReplyWriter r = ctx.reply();
  r.array_header(std::size(kLines));
  for (std::string_view line : kLines) r.simple(line);
}

}  // namespace

void register_script_commands(CommandTable& table) {
  CommandFamily t = table.family("scripting");
  const std::uint32_t eval = kNoScript | kStale | kSkipMonitor;
  const KeySpec keys = KeySpec::numkeys(2);
  // may-replicate: a script without a shebang may write (CLIENT PAUSE WRITE postpones it).
  t.add("eval", -3, eval | kMayReplicate, keys, &cmd_eval, "2.6.0",
        "Execute a Lua script server side");
  t.add("evalsha", -3, eval | kMayReplicate, keys, &cmd_evalsha, "2.6.0",
        "Execute a Lua script server side");
  t.add("eval_ro", -3, eval | kReadonly, keys, &cmd_eval_ro, "7.0.0",
        "Execute a read-only Lua script server side");
  t.add("evalsha_ro", -3, eval | kReadonly, keys, &cmd_evalsha_ro, "7.0.0",
        "Execute a read-only Lua script server side");
  CommandSpec& script = t.add("script", -2, 0, kNoKeys, nullptr, "2.6.0",
                              "A container for Lua scripts management commands");
  t.add_subcommand(script, "load", 3, kNoScript | kStale, kNoKeys, &cmd_script_load, "2.6.0",
                   "Load a Lua script into the script cache");
  t.add_subcommand(script, "exists", -3, kNoScript, kNoKeys, &cmd_script_exists, "2.6.0",
                   "Check existence of scripts in the script cache");
  t.add_subcommand(script, "flush", -2, kNoScript, kNoKeys, &cmd_script_flush, "2.6.0",
                   "Remove all the scripts from the script cache");
  t.add_subcommand(script, "kill", 2, kNoScript | kAllowBusy, kNoKeys, &cmd_script_kill, "2.6.0",
                   "Kill the script currently in execution");
  t.add_subcommand(script, "help", 2, kLoading | kStale, kNoKeys, &cmd_script_help, "5.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
