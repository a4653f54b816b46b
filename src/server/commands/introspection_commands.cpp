// COMMAND and its subcommands (COUNT, INFO, DOCS, GETKEYS, LIST, HELP), in Redis 7.0's reply
// shapes, generated from the command table.
#include "listd/base/glob.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

struct FlagName {
  std::uint32_t bit;
  std::string_view name;
};

constexpr FlagName kFlagNames[] = {
    {kWrite, "write"},
    {kReadonly, "readonly"},
    {kDenyOom, "denyoom"},
    {kAdmin, "admin"},
    {kPubsub, "pubsub"},
    {kNoScript, "noscript"},
    {kBlocking, "blocking"},
    {kLoading, "loading"},
    {kStale, "stale"},
    {kSkipMonitor, "skip_monitor"},
    {kSkipSlowlog, "skip_slowlog"},
    {kFast, "fast"},
    {kNoAuth, "no_auth"},
    // kMayReplicate is not shown: Redis 7.0 hides it on purpose.
    {kNoMulti, "no_multi"},
    {kAllowBusy, "allow_busy"},
};

std::vector<std::string> acl_categories(const CommandSpec& c) {
  std::vector<std::string> out;
  if (c.flags & kWrite) out.emplace_back("@write");
  std::string_view group = c.parent ? c.parent->group : c.group;
  // Redis: readonly implies @read except for scripting commands (EVAL_RO), whose @scripting
  // comes after the speed category (ACL category bit order).
  const bool scripting = group == "scripting";
  if ((c.flags & kReadonly) && !scripting) out.emplace_back("@read");
  if (group == "generic") group = "keyspace";
  if (group == "transactions") group = "transaction";
  if (group == "sorted-set") group = "sortedset";
  if (group == "pubsub" && !(c.flags & kPubsub)) group = {};  // Redis: @pubsub follows the flag
  if (!group.empty() && !scripting) out.push_back("@" + std::string(group));
  if (c.flags & kAdmin) {
    out.emplace_back("@admin");
    out.emplace_back("@dangerous");
  }
  out.emplace_back((c.flags & kFast) ? "@fast" : "@slow");
  if (c.flags & kBlocking) out.emplace_back("@blocking");
  if (scripting) out.emplace_back("@scripting");
  return out;
}

void write_key_specs(protocol::ReplyWriter& r, const CommandSpec& c) {
  if (c.keys.numkeys_at == 0 && c.keys.first == 0) {
    r.array_header(0);
    return;
  }
  r.array_header(1);
  r.map_header(3);
  r.bulk("flags");
  r.array_header(1);
  r.simple(c.keys.not_key ? "not_key" : (c.flags & kWrite) ? "RW" : "RO");
  r.bulk("begin_search");
  r.map_header(2);
  r.bulk("type");
  r.bulk("index");
  r.bulk("spec");
  r.map_header(1);
  r.bulk("index");
  r.integer(c.keys.numkeys_at ? c.keys.numkeys_at : c.keys.first);
  r.bulk("find_keys");
  r.map_header(2);
  if (c.keys.numkeys_at) {
    r.bulk("type");
    r.bulk("keynum");
    r.bulk("spec");
    r.map_header(3);
    r.bulk("keynumidx");
    r.integer(0);
    r.bulk("firstkey");
    r.integer(1);
    r.bulk("keystep");
    r.integer(1);
  } else {
    r.bulk("type");
    r.bulk("range");
    r.bulk("spec");
    r.map_header(3);
    r.bulk("lastkey");
    r.integer(c.keys.last < 0 ? c.keys.last : c.keys.last - c.keys.first);
    r.bulk("keystep");
    r.integer(c.keys.step);
    r.bulk("limit");
    r.integer(0);
  }
}

void write_command_info(protocol::ReplyWriter& r, const CommandSpec& c) {
  r.array_header(10);
  r.bulk(c.full_name);
  r.integer(c.arity);
  std::size_t nflags = 0;
  for (const auto& f : kFlagNames) nflags += (c.flags & f.bit) ? 1 : 0;
  r.set_header(nflags);
  for (const auto& f : kFlagNames)
    if (c.flags & f.bit) r.simple(f.name);
  // Redis reports the fixed keys only: none for ZUNION, the destination for ZUNIONSTORE.
  const bool numkeys = c.keys.numkeys_at != 0 && c.keys.first == 0;
  r.integer(numkeys ? 0 : c.keys.first);
  r.integer(numkeys ? 0 : c.keys.last);
  r.integer(numkeys ? 0 : c.keys.step);
  const auto cats = acl_categories(c);
  r.set_header(cats.size());
  for (const auto& cat : cats) r.simple(cat);
  r.array_header(0);  // tips
  write_key_specs(r, c);
  r.array_header(c.subcommands.size());
  for (const auto& sub : c.subcommands) write_command_info(r, *sub);
}

void write_command_docs(protocol::ReplyWriter& r, const CommandSpec& c) {
  const bool has_subs = !c.subcommands.empty();
  r.map_header(has_subs ? 4 : 3);
  r.bulk("summary");
  r.bulk(c.summary);
  r.bulk("since");
  r.bulk(c.since);
  r.bulk("group");
  r.bulk(c.parent ? c.parent->group : c.group);
  if (has_subs) {
    r.bulk("subcommands");
    r.map_header(c.subcommands.size());
    for (const auto& sub : c.subcommands) {
      r.bulk(sub->full_name);
      write_command_docs(r, *sub);
    }
  }
}

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

// COMMAND DOCS [command-name ...]
void cmd_command_docs(CommandContext& ctx) {
  const CommandTable& t = ctx.exec().commands();
  if (ctx.argc() == 2) {
    // Deliberate: without argument specs our docs would leave redis-cli with no hints at all,
    // while this error makes it fall back to its complete built-in help (docs/COMPATIBILITY.md).
    ctx.reply().error(
        "ERR COMMAND DOCS needs command names on listd: it keeps no argument docs; "
        "redis-cli falls back to its built-in help");
    return;
  }
  std::vector<const CommandSpec*> found;
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    if (const CommandSpec* c = find_by_full_name(t, ctx.arg(i))) found.push_back(c);
  auto r = ctx.reply();
  r.map_header(found.size());
  for (const CommandSpec* c : found) {
    r.bulk(c->full_name);
    write_command_docs(r, *c);
  }
}

// Redis' doesCommandHaveKeys: a fixed, counted or scanned key (shard channels are not keys).
bool getkeys_command_has_keys(const CommandSpec& c) {
  return !c.keys.not_key && (c.keys.first > 0 || c.keys.numkeys_at > 0 || c.keys.scanned());
}

// COMMAND GETKEYS command [arg ...], Redis' order of checks: the command, whether it has keys at
// all, its arity, then the keys found (none is an error but for the scripts' NO_MANDATORY_KEYS).
void cmd_command_getkeys(CommandContext& ctx) {
  const auto argv = ctx.argv().subspan(2);
  const CommandSpec* c = ctx.exec().commands().find(argv[0]);
  if (c && !c->subcommands.empty() && argv.size() >= 2) c = c->find_subcommand(argv[1]);
  if (!c) {
    ctx.reply().error("ERR Invalid command specified");
    return;
  }
  if (!getkeys_command_has_keys(*c)) {
    ctx.reply().error("ERR The command has no key arguments");
    return;
  }
  const auto n = static_cast<long long>(argv.size());
  if ((c->arity > 0 && n != c->arity) || n < -c->arity) {
    ctx.reply().error("ERR Invalid number of arguments specified for command");
    return;
  }
  const std::vector<int> keys = c->key_positions(argv);
  const bool no_mandatory_keys = c->name.starts_with("eval") || c->name.starts_with("fcall");
  if (keys.empty() && !no_mandatory_keys) {
    ctx.reply().error("ERR Invalid arguments specified for command");
    return;
  }
  auto r = ctx.reply();
  r.array_header(keys.size());
  for (int k : keys) r.bulk(argv[static_cast<std::size_t>(k)]);
}

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
    if (!aclcat.empty()) {
      bool hit = false;
      for (const auto& cat : acl_categories(c))
        hit = hit || base::iequals(std::string_view(cat).substr(1), aclcat);
      if (!hit) return;
    }
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
      "    Return details about all commands.",
      "COUNT",
      "    Return the total number of commands in this server.",
      "LIST",
      "    Return a list of all commands in this server.",
      "INFO [<command-name> ...]",
      "    Return details about the named commands.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about the named commands.",
      "GETKEYS <full-command>",
      "    Return the keys from a full command."};
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
  t.add_subcommand(command, "list", -2, f, kNoKeys, &cmd_command_list, "7.0.0",
                   "Get an array of Redis command names");
  t.add_subcommand(command, "help", 2, f, kNoKeys, &cmd_command_help, "5.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
