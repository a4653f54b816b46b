// COMMAND and its subcommands (COUNT, INFO, DOCS, GETKEYS, GETKEYSANDFLAGS, LIST, HELP), in
// Redis 7.0's reply shapes, from the command table and its reference rows (command_info_reply.h).
#include "command_info_reply.h"
#include "listd/base/glob.h"
#include "listd/server/acl_categories.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/key_finder.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

/// Finds "name" or "container|sub".
const CommandSpec* find_by_full_name(const CommandTable& t, std::string_view name) {
  const auto bar = name.find('|');
  if (bar == std::string_view::npos) return t.find(name);
  const CommandSpec* parent = t.find(name.substr(0, bar));
  return parent ? parent->find_subcommand(name.substr(bar + 1)) : nullptr;
}

// COMMAND
void cmd_command(CommandContext& ctx) {
  const CommandTable& t = ctx.exec().commands();
  auto r = ctx.reply();
  r.array_header(t.size());
  t.for_each([&](const CommandSpec& c) { write_command_info(r, c); });
}

// COMMAND COUNT
void cmd_command_count(CommandContext& ctx) {
  ctx.reply().integer(static_cast<long long>(ctx.exec().commands().size()));
}

// COMMAND INFO [command-name ...]
void cmd_command_info(CommandContext& ctx) {
  if (ctx.argc() == 2) {
    cmd_command(ctx);
    return;
  }
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const CommandSpec* c = find_by_full_name(ctx.exec().commands(), ctx.arg(i));
    if (c)
      write_command_info(r, *c);
    else
      r.null();
  }
}

// COMMAND DOCS [command-name ...]: every command without names; unknown names are left out.
void cmd_command_docs(CommandContext& ctx) {
  const CommandTable& t = ctx.exec().commands();
  std::vector<const CommandSpec*> found;
  if (ctx.argc() == 2) t.for_each([&](const CommandSpec& c) { found.push_back(&c); });
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    if (const CommandSpec* c = find_by_full_name(t, ctx.arg(i))) found.push_back(c);
  auto r = ctx.reply();
  r.map_header(found.size());
  for (const CommandSpec* c : found) {
    r.bulk(c->full_name);
    write_command_docs(r, *c);
  }
}

// COMMAND GETKEYS / GETKEYSANDFLAGS command [arg ...], Redis' order of checks: the command,
// whether it has keys at all, its arity, then the keys found (none is an error but for the
// NO_MANDATORY_KEYS scripts).
void getkeys_generic(CommandContext& ctx, bool with_flags) {
  const auto argv = ctx.argv().subspan(2);
  const CommandSpec* c = ctx.exec().commands().find(argv[0]);
  if (c && !c->subcommands.empty() && argv.size() >= 2) c = c->find_subcommand(argv[1]);
  if (!c) {
    ctx.reply().error("ERR Invalid command specified");
    return;
  }
  if (!command_has_keys(*c)) {
    ctx.reply().error("ERR The command has no key arguments");
    return;
  }
  const auto n = static_cast<long long>(argv.size());
  if ((c->arity > 0 && n != c->arity) || n < -c->arity) {
    ctx.reply().error("ERR Invalid number of arguments specified for command");
    return;
  }
  const std::vector<KeyReference> keys = find_command_keys(*c, argv);
  if (keys.empty() && !command_keys_optional(*c)) {
    ctx.reply().error("ERR Invalid arguments specified for command");
    return;
  }
  auto r = ctx.reply();
  r.array_header(keys.size());
  for (const KeyReference& k : keys) {
    if (with_flags) r.array_header(2);
    r.bulk(argv[static_cast<std::size_t>(k.pos)]);
    if (with_flags) write_key_spec_flags(r, k.flags);
  }
}

// COMMAND GETKEYS command [arg ...]
void cmd_command_getkeys(CommandContext& ctx) { getkeys_generic(ctx, false); }

// COMMAND GETKEYSANDFLAGS command [arg ...]
void cmd_command_getkeysandflags(CommandContext& ctx) { getkeys_generic(ctx, true); }

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
void cmd_command_list(CommandContext& ctx) {
  std::string_view pattern, aclcat;
  bool module_filter = false;
  if (ctx.argc() == 5 && base::iequals(ctx.arg(2), "filterby")) {
    if (base::iequals(ctx.arg(3), "pattern"))
      pattern = ctx.arg(4);
    else if (base::iequals(ctx.arg(3), "aclcat"))
      aclcat = ctx.arg(4);
    else if (base::iequals(ctx.arg(3), "module"))
      module_filter = true;
    else {
      ctx.reply().error("ERR syntax error");
      return;
    }
  } else if (ctx.argc() != 2) {
    ctx.reply().error("ERR syntax error");
    return;
  }
  std::vector<std::string_view> names;
  auto consider = [&](const CommandSpec& c) {
    if (module_filter) return;
    if (!pattern.empty() && !base::glob_match(pattern, c.full_name, true)) return;
    if (!aclcat.empty() && !(command_acl_categories(c) & acl_category_flag(aclcat))) return;
    names.push_back(c.full_name);
  };
  ctx.exec().commands().for_each([&](const CommandSpec& c) {
    consider(c);
    for (const auto& sub : c.subcommands) consider(*sub);
  });
  auto r = ctx.reply();
  r.array_header(names.size());
  for (std::string_view n : names) r.bulk(n);
}

// COMMAND HELP
void cmd_command_help(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command."};
  reply_help(ctx, kLines);
}

}  // namespace

void register_introspection_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  const std::uint32_t f = kLoading | kStale;
  CommandSpec& command = t.add("command", -1, f, kNoKeys, &cmd_command, "2.8.13",
                               "Get array of Redis command details");
  t.add_subcommand(command, "count", 2, f, kNoKeys, &cmd_command_count, "2.8.13",
                   "Get total number of Redis commands");
  t.add_subcommand(
      command, "info", -2, f, kNoKeys, &cmd_command_info, "2.8.13",
      "Get array of specific Redis command details, or all when no argument is given.");
  t.add_subcommand(command, "docs", -2, f, kNoKeys, &cmd_command_docs, "7.0.0",
                   "Get array of specific Redis command documentation");
  t.add_subcommand(command, "getkeys", -4, f, kNoKeys, &cmd_command_getkeys, "2.8.13",
                   "Extract keys given a full Redis command");
  t.add_subcommand(command, "getkeysandflags", -4, f, kNoKeys, &cmd_command_getkeysandflags,
                   "7.0.0", "Extract keys and access flags given a full Redis command");
  t.add_subcommand(command, "list", -2, f, kNoKeys, &cmd_command_list, "7.0.0",
                   "Get an array of Redis command names");
  t.add_subcommand(command, "help", 2, f, kNoKeys, &cmd_command_help, "5.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
