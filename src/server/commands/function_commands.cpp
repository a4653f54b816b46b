// Functions: FCALL, FCALL_RO and FUNCTION LOAD|DELETE|FLUSH|LIST|DUMP|RESTORE|STATS|KILL|HELP,
// with Redis 7.0's replies (functions.c). The libraries are FunctionLibraries', the run is
// Scripting's; LOAD, DELETE, FLUSH and RESTORE are logged as they were called (their argv).
#include "listd/base/glob.h"
#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/persistence/rdb.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/persistence.h"
#include "listd/server/scripting.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// FCALL function numkeys key... arg... (and FCALL_RO), in fcallCommandGeneric's order.
void fcall_generic(CommandContext& ctx, bool read_only) {
  Scripting& scripting = ctx.exec().scripting();
  const FunctionInfo* f = scripting.functions().find(ctx.arg(1));
  if (!f) {
    ctx.reply().error("ERR Function not found");
    return;
  }
  long long numkeys = 0;
  if (!base::parse_strict_integer(ctx.arg(2), numkeys)) {
    ctx.reply().error("ERR Bad number of keys provided");
    return;
  }
  if (numkeys > static_cast<long long>(ctx.argc()) - 3) {
    ctx.reply().error("ERR Number of keys can't be greater than number of args");
    return;
  }
  if (numkeys < 0) {
    ctx.reply().error("ERR Number of keys can't be negative");
    return;
  }
  scripting.run_function(ctx.client(), *f, ctx.argv(), static_cast<std::size_t>(numkeys),
                         read_only);
}

void cmd_fcall(CommandContext& ctx) { fcall_generic(ctx, false); }
void cmd_fcall_ro(CommandContext& ctx) { fcall_generic(ctx, true); }

// FUNCTION LOAD [REPLACE] function-code
void cmd_function_load(CommandContext& ctx) {
  bool replace = false;
  std::size_t at = 2;
  for (; at + 1 < ctx.argc(); ++at) {
    if (!base::iequals(ctx.arg(at), "replace")) {
      ctx.reply().error("ERR Unknown option given: " + std::string(ctx.arg(at)));
      return;
    }
    replace = true;
  }
  if (at >= ctx.argc()) {
    ctx.reply().error("ERR Function code is missing");
    return;
  }
  // No timeout when replaying the AOF (Redis mustObeyClient).
  const std::uint64_t timeout =
      ctx.exec().persistence().loading() ? 0 : FunctionLibraries::kLoadTimeoutMs;
  std::string error;
  const std::string name =
      ctx.exec().scripting().functions().load(ctx.arg(at), replace, timeout, error);
  if (name.empty()) {
    ctx.reply().error(error);
    return;
  }
  ctx.mark_dirty();
  ctx.reply().bulk(name);
}

// FUNCTION DELETE library-name
void cmd_function_delete(CommandContext& ctx) {
  if (!ctx.exec().scripting().functions().remove(ctx.arg(2))) {
    ctx.reply().error("ERR Library not found");
    return;
  }
  ctx.mark_dirty();
  ctx.reply().ok();
}

// FUNCTION FLUSH [ASYNC|SYNC]: both free at once, as SCRIPT FLUSH does.
void cmd_function_flush(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply().error(subcommand_syntax_error("FUNCTION", ctx.arg(1)));
    return;
  }
  if (ctx.argc() == 3 && !base::iequals(ctx.arg(2), "sync") &&
      !base::iequals(ctx.arg(2), "async")) {
    ctx.reply().error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  ctx.exec().scripting().functions().flush();
  ctx.mark_dirty();
  ctx.reply().ok();
}

void reply_function(protocol::ReplyWriter& r, const FunctionInfo& f) {
  r.map_header(3);
  r.bulk("name");
  r.bulk(f.name);
  r.bulk("description");
  if (f.description)
    r.bulk(*f.description);
  else
    r.null();
  r.bulk("flags");
  const auto names = script::script_flag_names(f.flags);
  r.set_header(names.size());
  for (std::string_view name : names) r.simple(name);
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]
void cmd_function_list(CommandContext& ctx) {
  bool with_code = false;
  std::optional<std::string_view> pattern;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (!with_code && base::iequals(ctx.arg(i), "withcode")) {
      with_code = true;
      continue;
    }
    if (!pattern && base::iequals(ctx.arg(i), "libraryname")) {
      if (i + 1 >= ctx.argc()) {
        ctx.reply().error("ERR library name argument was not given");
        return;
      }
      pattern = ctx.arg(++i);
      continue;
    }
    ctx.reply().error("ERR Unknown argument " + std::string(ctx.arg(i)));
    return;
  }
  std::vector<const Library*> shown;
  for (const auto& [name, library] : ctx.exec().scripting().functions().libraries())
    if (!pattern || base::glob_match(*pattern, name, /*nocase=*/true)) shown.push_back(&library);
  protocol::ReplyWriter r = ctx.reply();
  r.array_header(shown.size());
  for (const Library* library : shown) {
    r.map_header(with_code ? 4 : 3);
    r.bulk("library_name");
    r.bulk(library->name);
    r.bulk("engine");
    r.bulk("LUA");
    r.bulk("functions");
    r.array_header(library->functions.size());
    for (const FunctionInfo& f : library->functions) reply_function(r, f);
    if (with_code) {
      r.bulk("library_code");
      r.bulk(library->code);
    }
  }
}

// FUNCTION DUMP: RDB_OPCODE_FUNCTION2 + code per library, RDB version, CRC-64 (Redis' DUMP).
void cmd_function_dump(CommandContext& ctx) {
  ctx.reply().bulk(persistence::encode_function_payload(
      ctx.exec().scripting().functions().codes(), ctx.exec().config().settings().rdbcompression));
}

// FUNCTION RESTORE serialized-value [FLUSH|APPEND|REPLACE]
void cmd_function_restore(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    ctx.reply().error(subcommand_syntax_error("FUNCTION", ctx.arg(1)));
    return;
  }
  RestorePolicy policy = RestorePolicy::kAppend;
  if (ctx.argc() == 4) {
    const std::string_view p = ctx.arg(3);
    if (base::iequals(p, "append")) {
      policy = RestorePolicy::kAppend;
    } else if (base::iequals(p, "replace")) {
      policy = RestorePolicy::kReplace;
    } else if (base::iequals(p, "flush")) {
      policy = RestorePolicy::kFlush;
    } else {
      ctx.reply().error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  }
  std::vector<std::string> codes;
  std::string error = persistence::decode_function_payload(ctx.arg(2), codes);
  if (error.empty()) error = ctx.exec().scripting().functions().restore(codes, policy);
  if (!error.empty()) {
    ctx.reply().error(error);
    return;
  }
  ctx.mark_dirty();
  ctx.reply().ok();
}

// FUNCTION STATS: the running function (nil when none), then the engine's counts.
void cmd_function_stats(CommandContext& ctx) {
  const Scripting& scripting = ctx.exec().scripting();
  if (scripting.running_eval()) {
    ctx.reply().error(scripting.busy_error());
    return;
  }
  protocol::ReplyWriter r = ctx.reply();
  r.map_header(2);
  r.bulk("running_script");
  if (const auto running = scripting.running_function()) {
    r.map_header(3);
    r.bulk("name");
    r.bulk(running->name);
    r.bulk("command");
    r.array_header(running->argv.size());
    for (const std::string& arg : running->argv) r.bulk(arg);
    r.bulk("duration_ms");
    r.integer(static_cast<long long>(running->duration_ms));
  } else {
    r.null();
  }
  r.bulk("engines");
  r.map_header(1);
  r.bulk("LUA");
  r.map_header(2);
  r.bulk("libraries_count");
  r.integer(static_cast<long long>(scripting.functions().libraries().size()));
  r.bulk("functions_count");
  r.integer(static_cast<long long>(scripting.functions().function_count()));
}

// FUNCTION KILL: stops a busy function that has not written (run from the script's hook).
void cmd_function_kill(CommandContext& ctx) {
  const std::string error = ctx.exec().scripting().kill(/*function_kill=*/true);
  if (error.empty())
    ctx.reply().ok();
  else
    ctx.reply().error(error);
}

void cmd_function_help(CommandContext& ctx) {
  reply_help(
      ctx,
      {"LOAD [REPLACE] <FUNCTION CODE>",
       "    Create a new library with the given library name and code.",
       "DELETE <LIBRARY NAME>",
       "    Delete the given library.",
       "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
       "    Return general information on all the libraries:",
       "    * Library name",
       "    * The engine used to run the Library",
       "    * Library description",
       "    * Functions list",
       "    * Library code (if WITHCODE is given)",
       "    It also possible to get only function that matches a pattern using LIBRARYNAME "
       "argument.",
       "STATS",
       "    Return information about the current function running:",
       "    * Function name",
       "    * Command used to run the function",
       "    * Duration in MS that the function is running",
       "    If no function is running, return nil",
       "    In addition, returns a list of available engines.",
       "KILL",
       "    Kill the current running function.",
       "FLUSH [ASYNC|SYNC]",
       "    Delete all the libraries.",
       "    When called without the optional mode argument, the behavior is determined by the",
       "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
       "    * ASYNC: Asynchronously flush the libraries.",
       "    * SYNC: Synchronously flush the libraries.",
       "DUMP",
       "    Return a serialized payload representing the current libraries, can be restored "
       "using FUNCTION RESTORE command",
       "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
       "    Restore the libraries represented by the given payload, it is possible to give a "
       "restore policy to",
       "    control how to handle existing libraries (default APPEND):",
       "    * FLUSH: delete all existing libraries.",
       "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
       "abort.",
       "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
       "replace the old",
       "      libraries with the new libraries (notice that even on this option there is a "
       "chance of failure",
       "      in case of functions name collision with another library)."});
}

}  // namespace

void register_function_commands(CommandTable& table) {
  CommandFamily t = table.family("scripting");
  const KeySpec keys = KeySpec::numkeys(2);
  const std::uint32_t fcall = kNoScript | kSkipMonitor | kStale;
  t.add("fcall", -3, fcall | kMayReplicate, keys, &cmd_fcall, "7.0.0", "Invoke a function");
  t.add("fcall_ro", -3, fcall | kReadonly, keys, &cmd_fcall_ro, "7.0.0",
        "Invoke a read-only function");
  CommandSpec& function =
      t.add("function", -2, 0, kNoKeys, nullptr, "7.0.0", "A container for function commands");
  t.add_subcommand(function, "load", -3, kNoScript | kWrite | kDenyOom, kNoKeys, &cmd_function_load,
                   "7.0.0", "Create a function with the given arguments (name, code, description)");
  t.add_subcommand(function, "delete", 3, kNoScript | kWrite, kNoKeys, &cmd_function_delete,
                   "7.0.0", "Delete a function by name");
  t.add_subcommand(function, "flush", -2, kNoScript | kWrite, kNoKeys, &cmd_function_flush, "7.0.0",
                   "Deleting all functions");
  t.add_subcommand(function, "list", -2, kNoScript, kNoKeys, &cmd_function_list, "7.0.0",
                   "List information about all the functions");
  t.add_subcommand(function, "dump", 2, kNoScript, kNoKeys, &cmd_function_dump, "7.0.0",
                   "Dump all functions into a serialized binary payload");
  t.add_subcommand(function, "restore", -3, kNoScript | kWrite | kDenyOom, kNoKeys,
                   &cmd_function_restore, "7.0.0",
                   "Restore all the functions on the given payload");
  t.add_subcommand(function, "stats", 2, kNoScript | kAllowBusy, kNoKeys, &cmd_function_stats,
                   "7.0.0",
                   "Return information about the function currently running (name, "
                   "description, duration)");
  t.add_subcommand(function, "kill", 2, kNoScript | kAllowBusy, kNoKeys, &cmd_function_kill,
                   "7.0.0", "Kill the function currently in execution.");
  t.add_subcommand(function, "help", 2, kLoading | kStale, kNoKeys, &cmd_function_help, "7.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
