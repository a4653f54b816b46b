// ACL SETUSER / GETUSER / DELUSER / USERS / LIST / WHOAMI / CAT / GENPASS / LOG / DRYRUN /
// HELP (Redis 7.0 acl.c aclCommand), over the executor's Acl. LOAD and SAVE: acl_file.cpp.
#include <random>

#include "listd/base/number.h"
#include "listd/server/acl.h"
#include "listd/server/acl_file.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// ACL SETUSER username [rule [rule ...]]
void cmd_acl_setuser(CommandContext& ctx) {
  for (std::size_t i = 2; i < ctx.argc(); ++i) ctx.exec().redact_argument(i);
  const std::string_view name = ctx.arg(2);
  if (has_space_or_nul(name)) {
    ctx.reply().error("ERR Usernames can't contain spaces or null characters");
    return;
  }
  std::vector<std::string_view> raw(ctx.argv().begin() + 3, ctx.argv().end());
  std::string error;
  const std::vector<std::string> rules = merge_selector_arguments(raw, error);
  if (!error.empty()) {
    ctx.reply().error("ERR " + error);
    return;
  }
  std::vector<std::string_view> views(rules.begin(), rules.end());
  std::unique_ptr<AclUser> previous;
  error = ctx.exec().acl().set_user(name, views, previous);
  if (!error.empty()) {
    ctx.reply().error("ERR " + error);
    return;
  }
  if (previous) ctx.exec().acl_user_changed(*ctx.exec().acl().find(name));
  ctx.reply().ok();
}

// ACL DELUSER username [username ...]
void cmd_acl_deluser(CommandContext& ctx) {
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (ctx.arg(i) == "default") {
      ctx.reply().error("ERR The 'default' user cannot be removed");
      return;
    }
  }
  Acl& acl = ctx.exec().acl();
  long long deleted = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    AclUser* user = acl.find(ctx.arg(i));
    if (!user) continue;
    ctx.exec().acl_user_deleted(*user);
    acl.remove(ctx.arg(i));
    ++deleted;
  }
  ctx.reply().integer(deleted);
}

void reply_selector(protocol::ReplyWriter& r, const AclSelector& s) {
  r.bulk("commands");
  r.bulk(s.describe_commands());
  r.bulk("keys");
  r.bulk(s.describe_keys());
  r.bulk("channels");
  r.bulk(s.describe_channels());
}

// ACL GETUSER username
void cmd_acl_getuser(CommandContext& ctx) {
  const AclUser* user = ctx.exec().acl().find(ctx.arg(2));
  auto r = ctx.reply();
  if (!user) {
    r.null();
    return;
  }
  r.map_header(6);
  r.bulk("flags");
  const auto flags = user->flags();
  r.set_header(flags.size());
  for (std::string_view f : flags) r.bulk(f);
  r.bulk("passwords");
  r.array_header(user->passwords().size());
  for (const auto& p : user->passwords()) r.bulk(p);
  reply_selector(r, user->selectors().front());  // the root selector, at the top level
  r.bulk("selectors");
  r.array_header(user->selectors().size() - 1);
  for (std::size_t i = 1; i < user->selectors().size(); ++i) {
    r.map_header(3);
    reply_selector(r, user->selectors()[i]);
  }
}

// ACL LIST | ACL USERS
void list_users(CommandContext& ctx, bool names_only) {
  const auto& users = ctx.exec().acl().users();
  auto r = ctx.reply();
  r.array_header(users.size());
  for (const auto& [name, user] : users)
    r.bulk(names_only ? name : "user " + name + " " + user->describe());
}
void cmd_acl_list(CommandContext& ctx) { list_users(ctx, false); }
void cmd_acl_users(CommandContext& ctx) { list_users(ctx, true); }

// ACL WHOAMI
void cmd_acl_whoami(CommandContext& ctx) {
  if (const AclUser* user = ctx.client().user)
    ctx.reply().bulk(user->name());
  else
    ctx.reply().null();
}

// ACL CAT [category]
void cmd_acl_cat(CommandContext& ctx) {
  auto r = ctx.reply();
  if (ctx.argc() == 2) {
    r.array_header(acl_category_names().size());
    for (const auto& c : acl_category_names()) r.bulk(c.name);
    return;
  }
  if (ctx.argc() > 3) {
    r.error("ERR unknown subcommand or wrong number of arguments for 'cat'. Try ACL HELP.");
    return;
  }
  const std::uint32_t flag = acl_category_flag(ctx.arg(2));
  if (!flag) {
    r.error("ERR Unknown category '" + std::string(until_nul(ctx.arg(2)).substr(0, 128)) + "'");
    return;
  }
  // Redis 7.0 lists every command of its table in the category: the catalog's, which holds
  // the commands listd lacks too (as they are for ACL rules), after listd's own.
  const AclCatalog& catalog = ctx.exec().acl().catalog();
  std::vector<std::string_view> names;
  catalog.for_each([&](const CommandSpec& cmd) {
    if (catalog.info[cmd.slot].categories & flag) names.push_back(cmd.full_name);
  });
  r.array_header(names.size());
  for (std::string_view n : names) r.bulk(n);
}

// ACL GENPASS [bits]
void cmd_acl_genpass(CommandContext& ctx) {
  constexpr long long kMaxBits = 4096;
  long long bits = 256;
  if (ctx.argc() > 3) {
    ctx.reply().error(
        "ERR unknown subcommand or wrong number of arguments for 'genpass'. Try ACL HELP.");
    return;
  }
  if (ctx.argc() == 3 && !ctx.parse_integer(2, bits)) return;
  if (bits <= 0 || bits > kMaxBits) {
    ctx.reply().error(
        "ERR ACL GENPASS argument must be the number of bits for the output password, a "
        "positive number up to 4096");
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;  // the kernel's generator: passwords must not be predictable
  std::string pass(static_cast<std::size_t>((bits + 3) / 4), '0');
  for (char& c : pass) c = kHex[random() & 15];
  ctx.reply().bulk(pass);
}

std::string_view reason_name(AclLogReason r) {
  switch (r) {
    case AclLogReason::kCommand: return "command";
    case AclLogReason::kKey: return "key";
    case AclLogReason::kChannel: return "channel";
    case AclLogReason::kAuth: return "auth";
  }
  return "unknown";
}

std::string_view context_name(AclLogContext c) {
  switch (c) {
    case AclLogContext::kToplevel: return "toplevel";
    case AclLogContext::kMulti: return "multi";
    case AclLogContext::kLua: return "lua";
  }
  return "unknown";
}

// ACL LOG [count | RESET]
void cmd_acl_log(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply().error(
        "ERR unknown subcommand or wrong number of arguments for 'log'. Try ACL HELP.");
    return;
  }
  auto& log = ctx.exec().acl().log_entries();
  long long count = 10;
  if (ctx.argc() == 3) {
    if (base::iequals(ctx.arg(2), "reset")) {
      log.clear();
      ctx.reply().ok();
      return;
    }
    if (!ctx.parse_integer(2, count)) return;
    if (count < 0) count = 0;
  }
  const std::size_t sent = std::min(log.size(), static_cast<std::size_t>(count));
  const std::int64_t now = ctx.exec().clock().unix_ms();
  auto r = ctx.reply();
  r.array_header(sent);
  for (std::size_t i = 0; i < sent; ++i) {
    const AclLogEntry& e = log[i];
    r.map_header(7);
    r.bulk("count");
    r.integer(e.count);
    r.bulk("reason");
    r.bulk(reason_name(e.reason));
    r.bulk("context");
    r.bulk(context_name(e.context));
    r.bulk("object");
    r.bulk(e.object);
    r.bulk("username");
    r.bulk(e.username);
    r.bulk("age-seconds");
    r.double_value(static_cast<double>(now - e.ctime_unix_ms) / 1000);
    r.bulk("client-info");
    r.bulk(e.client_info);
  }
}

// ACL DRYRUN username command [arg ...]
void cmd_acl_dryrun(CommandContext& ctx) {
  const AclUser* user = ctx.exec().acl().find(ctx.arg(2));
  if (!user) {
    ctx.reply().error("ERR User '" + std::string(until_nul(ctx.arg(2))) + "' not found");
    return;
  }
  const std::span<const std::string_view> argv = ctx.argv().subspan(3);
  const CommandSpec* spec = ctx.exec().commands().find(argv[0]);
  if (spec && !spec->subcommands.empty() && argv.size() >= 2) spec = spec->find_subcommand(argv[1]);
  if (!spec) {
    ctx.reply().error("ERR Command '" + std::string(until_nul(argv[0])) + "' not found");
    return;
  }
  const auto argc = static_cast<long long>(argv.size());
  if ((spec->arity > 0 && spec->arity != argc) || argc < -spec->arity) {
    ctx.reply().error("ERR wrong number of arguments for '" + spec->full_name + "' command");
    return;
  }
  std::size_t at = 0;
  switch (user->check(*spec, argv, at)) {
    case AclDenial::kNone: ctx.reply().ok(); return;
    case AclDenial::kCommand:
      ctx.reply().bulk("This user has no permissions to run the '" + spec->full_name + "' command");
      return;
    case AclDenial::kKey:
      ctx.reply().bulk("This user has no permissions to access the '" + std::string(argv[at]) +
                       "' key");
      return;
    case AclDenial::kChannel:
      ctx.reply().bulk("This user has no permissions to access the '" + std::string(argv[at]) +
                       "' channel");
      return;
  }
}

constexpr std::string_view kNoAclFileErr =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

// ACL LOAD: the aclfile replaces every user, all or nothing; the clients of the users it
// replaces are closed (Redis ACLFreeUsersSet), those of `default` stay.
void cmd_acl_load(CommandContext& ctx) {
  const std::string& path = ctx.exec().config().settings().aclfile;
  if (path.empty()) {
    ctx.reply().error(kNoAclFileErr);
    return;
  }
  std::string text, error;
  AclUserSet users;
  if (!read_acl_file(path, text, error) ||
      !(error = parse_acl_file(ctx.exec().acl(), text, path, users)).empty()) {
    ctx.reply().error("ERR " + error);
    return;
  }
  for (const auto& old : ctx.exec().acl().replace_users(std::move(users)))
    ctx.exec().acl_user_deleted(*old);
  ctx.reply().ok();
}

// ACL SAVE
void cmd_acl_save(CommandContext& ctx) {
  const std::string& path = ctx.exec().config().settings().aclfile;
  if (path.empty()) {
    ctx.reply().error(kNoAclFileErr);
    return;
  }
  if (!write_acl_file(path, acl_file_text(ctx.exec().acl()))) {
    ctx.reply().error(
        "ERR There was an error trying to save the ACLs. Please check the server logs for more "
        "information");
    return;
  }
  ctx.reply().ok();
}

// ACL HELP
void cmd_acl_help(CommandContext& ctx) {
  reply_help(ctx, {
                      "CAT [<category>]",
                      "    List all commands that belong to <category>, or all command categories",
                      "    when no category is specified.",
                      "DELUSER <username> [<username> ...]",
                      "    Delete a list of users.",
                      "DRYRUN <username> <command> [<arg> ...]",
                      "    Returns whether the user can execute the given command without "
                      "executing the command.",
                      "GETUSER <username>",
                      "    Get the user's details.",
                      "GENPASS [<bits>]",
                      "    Generate a secure 256-bit user password. The optional `bits` argument "
                      "can",
                      "    be used to specify a different size.",
                      "LIST",
                      "    Show users details in config file format.",
                      "LOAD",
                      "    Reload users from the ACL file.",
                      "LOG [<count> | RESET]",
                      "    Show the ACL log entries.",
                      "SAVE",
                      "    Save the current config to the ACL file.",
                      "SETUSER <username> <attribute> [<attribute> ...]",
                      "    Create or modify a user with the specified attributes.",
                      "USERS",
                      "    List all the registered usernames.",
                      "WHOAMI",
                      "    Return the current connection username.",
                  });
}

}  // namespace

void register_acl_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  constexpr std::uint32_t kAdminSub = kAdmin | kNoScript | kLoading | kStale;
  constexpr std::uint32_t kPlainSub = kNoScript | kLoading | kStale;
  CommandSpec& acl = t.add("acl", -2, kSentinel, kNoKeys, nullptr, "6.0.0",
                           "A container for Access List Control commands ");
  t.add_subcommand(acl, "cat", -2, kPlainSub, kNoKeys, &cmd_acl_cat, "6.0.0",
                   "List the ACL categories or the commands inside a category");
  t.add_subcommand(acl, "deluser", -3, kAdminSub, kNoKeys, &cmd_acl_deluser, "6.0.0",
                   "Remove the specified ACL users and the associated rules");
  t.add_subcommand(acl, "dryrun", -4, kAdminSub, kNoKeys, &cmd_acl_dryrun, "7.0.0",
                   "Returns whether the user can execute the given command without executing "
                   "the command.");
  t.add_subcommand(acl, "genpass", -2, kPlainSub, kNoKeys, &cmd_acl_genpass, "6.0.0",
                   "Generate a pseudorandom secure password to use for ACL users");
  t.add_subcommand(acl, "getuser", 3, kAdminSub, kNoKeys, &cmd_acl_getuser, "6.0.0",
                   "Get the rules for a specific ACL user");
  t.add_subcommand(acl, "help", 2, kLoading | kStale, kNoKeys, &cmd_acl_help, "6.0.0",
                   "Show helpful text about the different subcommands");
  t.add_subcommand(acl, "list", 2, kAdminSub, kNoKeys, &cmd_acl_list, "6.0.0",
                   "List the current ACL rules in ACL config file format");
  t.add_subcommand(acl, "load", 2, kAdminSub, kNoKeys, &cmd_acl_load, "6.0.0",
                   "Reload the ACLs from the configured ACL file");
  t.add_subcommand(acl, "log", -2, kAdminSub, kNoKeys, &cmd_acl_log, "6.0.0",
                   "List latest events denied because of ACLs in place");
  t.add_subcommand(acl, "save", 2, kAdminSub, kNoKeys, &cmd_acl_save, "6.0.0",
                   "Save the current ACL rules in the configured ACL file");
  t.add_subcommand(acl, "setuser", -3, kAdminSub, kNoKeys, &cmd_acl_setuser, "6.0.0",
                   "Modify or create the rules for a specific ACL user");
  t.add_subcommand(acl, "users", 2, kAdminSub, kNoKeys, &cmd_acl_users, "6.0.0",
                   "List the username of all the configured ACL rules");
  t.add_subcommand(acl, "whoami", 2, kPlainSub, kNoKeys, &cmd_acl_whoami, "6.0.0",
                   "Return the name of the user associated to the current connection");
}

}  // namespace listd::server
