// CLIENT and its subcommands: ID, SETNAME, GETNAME, LIST, INFO, KILL, SETINFO, REPLY, NO-EVICT,
// NO-TOUCH, UNBLOCK, PAUSE, UNPAUSE, HELP; the tracking subcommands are
// client_tracking_commands.cpp.
#include <fmt/format.h>

#include "client_tracking.h"

#include "listd/base/number.h"
#include "listd/server/acl.h"
#include "listd/server/client_info.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/output_buffer_limits.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// Redis getClientTypeByName for CLIENT LIST / KILL TYPE: the class, with `master` set for the
// master type (our master's link, Client::master, has no output class of its own). False if
// unknown.
bool parse_client_type(std::string_view name, std::optional<config::ClientClass>& type,
                       bool& master) {
  master = false;
  if (base::iequals(name, "normal")) {
    type = config::ClientClass::kNormal;
  } else if (base::iequals(name, "pubsub")) {
    type = config::ClientClass::kPubsub;
  } else if (base::iequals(name, "replica") || base::iequals(name, "slave")) {
    type = config::ClientClass::kReplica;
  } else if (base::iequals(name, "master")) {
    type = config::ClientClass::kNormal;
    master = true;
  } else {
    return false;
  }
  return true;
}

std::string client_info_line(Executor& exec, const Client& c) {
  return client_info_string(c, exec.clock().monotonic_ms()) + "\n";
}

// CLIENT ID
void cmd_client_id(CommandContext& ctx) {
  ctx.reply().integer(static_cast<long long>(ctx.client().id));
}

// CLIENT SETNAME connection-name
void cmd_client_setname(CommandContext& ctx) {
  if (!valid_client_name(ctx.arg(2))) {
    ctx.reply().error(kClientNameErr);
    return;
  }
  ctx.client().name = std::string(ctx.arg(2));
  ctx.reply().ok();
}

// CLIENT GETNAME
void cmd_client_getname(CommandContext& ctx) {
  if (ctx.client().name.empty())
    ctx.reply().null();
  else
    ctx.reply().bulk(ctx.client().name);
}

// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID client-id ...]
void cmd_client_list(CommandContext& ctx) {
  Executor& exec = ctx.exec();
  std::vector<std::uint64_t> ids;
  bool master_type = false;
  std::optional<config::ClientClass> type;  // Redis getClientType
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (base::iequals(ctx.arg(i), "type") && i + 1 < ctx.argc()) {
      const std::string_view name = ctx.arg(++i);
      if (parse_client_type(name, type, master_type)) continue;
      ctx.reply().error("ERR Unknown client type '" + std::string(until_nul(name)) + "'");
      return;
    }
    if (base::iequals(ctx.arg(i), "id") && i + 1 < ctx.argc()) {
      for (++i; i < ctx.argc(); ++i) {
        long long id = 0;
        if (!base::parse_strict_integer(ctx.arg(i), id) || id <= 0) {
          ctx.reply().error("ERR Invalid client ID");
          return;
        }
        ids.push_back(static_cast<std::uint64_t>(id));
      }
      break;
    }
    ctx.reply().error(kSyntaxErr);
    return;
  }
  std::vector<const Client*> rows;
  exec.clients().for_each([&](Client& c) { rows.push_back(&c); });
  std::sort(rows.begin(), rows.end(),
            [](const Client* a, const Client* b) { return a->id < b->id; });
  std::string text;
  for (const Client* c : rows) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), c->id) == ids.end()) continue;
    if (type && (master_type ? !c->master : (c->master || client_class(*c) != *type))) continue;
    text += client_info_line(exec, *c);
  }
  ctx.reply().verbatim(text);
}

// CLIENT INFO
void cmd_client_info(CommandContext& ctx) {
  ctx.reply().verbatim(client_info_line(ctx.exec(), ctx.client()));
}

// CLIENT KILL ip:port, the old form: replies OK or an error.
void client_kill_by_address(CommandContext& ctx) {
  Executor& exec = ctx.exec();
  Client* victim = nullptr;
  exec.clients().for_each([&](Client& c) {
    if (c.addr == ctx.arg(2)) victim = &c;
  });
  if (!victim) {
    ctx.reply().error(kNoSuchClientErr);
    return;
  }
  exec.clients().request_kill(*victim);
  ctx.reply().ok();
}

// CLIENT KILL ip:port | CLIENT KILL <filter> <value> ...
void cmd_client_kill(CommandContext& ctx) {
  if (ctx.argc() == 3) return client_kill_by_address(ctx);
  Executor& exec = ctx.exec();
  if ((ctx.argc() - 2) % 2 != 0) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  std::optional<std::uint64_t> id;
  std::optional<std::string_view> addr, laddr;
  bool skipme = true;
  std::optional<config::ClientClass> type;
  bool master_type = false;  // TYPE master: our master's link
  std::optional<long long> maxage;
  const AclUser* user = nullptr;
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view opt = ctx.arg(i), val = ctx.arg(i + 1);
    long long n = 0;
    if (base::iequals(opt, "id")) {
      if (!base::parse_strict_integer(val, n) || n <= 0) {
        ctx.reply().error("ERR client-id should be greater than 0");
        return;
      }
      id = static_cast<std::uint64_t>(n);
    } else if (base::iequals(opt, "addr")) {
      addr = val;
    } else if (base::iequals(opt, "laddr")) {
      laddr = val;
    } else if (base::iequals(opt, "user")) {
      user = exec.acl().find(val);  // Redis ACLGetUserByName: case-sensitive
      if (!user) {
        ctx.reply().error("ERR No such user '" + std::string(until_nul(val)) + "'");
        return;
      }
    } else if (base::iequals(opt, "type")) {
      if (!parse_client_type(val, type, master_type)) {
        ctx.reply().error("ERR Unknown client type '" + std::string(until_nul(val)) + "'");
        return;
      }
    } else if (base::iequals(opt, "skipme")) {
      if (base::iequals(val, "yes"))
        skipme = true;
      else if (base::iequals(val, "no"))
        skipme = false;
      else {
        ctx.reply().error(kSyntaxErr);
        return;
      }
    } else if (base::iequals(opt, "maxage")) {
      if (!base::parse_strict_integer(val, n)) {
        ctx.reply().error(kNotIntegerErr);
        return;
      }
      maxage = n;
    } else {
      ctx.reply().error(kSyntaxErr);
      return;
    }
  }
  const std::uint64_t now = exec.clock().monotonic_ms();
  std::vector<Client*> victims;
  exec.clients().for_each([&](Client& c) {
    if (type && (master_type ? !c.master : (c.master || client_class(c) != *type))) return;
    if (id && c.id != *id) return;
    if (addr && c.addr != *addr) return;
    if (laddr && c.laddr != *laddr) return;
    if (user && c.user != user) return;
    if (maxage && static_cast<long long>((now - c.created_ms) / 1000) < *maxage) return;
    if (skipme && &c == &ctx.client()) return;
    victims.push_back(&c);
  });
  for (Client* c : victims) exec.clients().request_kill(*c);
  ctx.reply().integer(static_cast<long long>(victims.size()));
}

// CLIENT SETINFO LIB-NAME libname | LIB-VER libver
void cmd_client_setinfo(CommandContext& ctx) {
  const std::string_view attr = ctx.arg(2), val = ctx.arg(3);
  const bool name = base::iequals(attr, "lib-name");
  if (!name && !base::iequals(attr, "lib-ver")) {
    ctx.reply().error("ERR Unrecognized option '" + std::string(until_nul(attr)) + "'");
    return;
  }
  for (unsigned char ch : val) {
    if (ch < '!' || ch > '~') {
      ctx.reply().error("ERR " + std::string(name ? "lib-name" : "lib-ver") +
                        " cannot contain spaces, newlines or special characters.");
      return;
    }
  }
  (name ? ctx.client().lib_name : ctx.client().lib_ver) = std::string(val);
  ctx.reply().ok();
}

// CLIENT REPLY ON|OFF|SKIP
void cmd_client_reply(CommandContext& ctx) {
  Client& c = ctx.client();
  const std::string_view mode = ctx.arg(2);
  if (base::iequals(mode, "on")) {
    c.reply_mode = ReplyMode::kOn;
    ctx.reply().ok();
  } else if (base::iequals(mode, "off")) {
    c.reply_mode = ReplyMode::kOff;
  } else if (base::iequals(mode, "skip")) {
    if (c.reply_mode == ReplyMode::kOn) c.reply_mode = ReplyMode::kSkip;
  } else {
    ctx.reply().error(kSyntaxErr);
  }
}

bool parse_on_off(CommandContext& ctx, bool& out) {
  if (base::iequals(ctx.arg(2), "on"))
    out = true;
  else if (base::iequals(ctx.arg(2), "off"))
    out = false;
  else {
    ctx.reply().error(kSyntaxErr);
    return false;
  }
  return true;
}

// CLIENT NO-EVICT ON|OFF
void cmd_client_no_evict(CommandContext& ctx) {
  if (parse_on_off(ctx, ctx.client().no_evict)) ctx.reply().ok();
}

// CLIENT NO-TOUCH ON|OFF
void cmd_client_no_touch(CommandContext& ctx) {
  if (parse_on_off(ctx, ctx.client().no_touch)) ctx.reply().ok();
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]
void cmd_client_unblock(CommandContext& ctx) {
  long long id = 0;
  if (!ctx.parse_integer(2, id)) return;
  bool with_error = false;
  if (ctx.argc() == 4) {
    if (base::iequals(ctx.arg(3), "error"))
      with_error = true;
    else if (!base::iequals(ctx.arg(3), "timeout")) {
      ctx.reply().error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      return;
    }
  }
  Client* target = ctx.exec().clients().find(static_cast<std::uint64_t>(id));
  if (!target || !target->blocked()) {
    ctx.reply().integer(0);
    return;
  }
  ctx.exec().blocking().time_out(
      *target, with_error ? "UNBLOCKED client unblocked via CLIENT UNBLOCK" : std::string_view{});
  ctx.reply().integer(1);
}

// CLIENT PAUSE timeout [WRITE|ALL]
void cmd_client_pause(CommandContext& ctx) {
  if (ctx.argc() > 4) {  // Redis matches `argc == 3 || argc == 4` inside CLIENT's handler
    ctx.reply().error(subcommand_syntax_error(ctx.arg(0), ctx.arg(1)));
    return;
  }
  PauseMode mode = PauseMode::kAll;
  if (ctx.argc() == 4) {  // the mode is checked before the timeout, as in Redis
    if (base::iequals(ctx.arg(3), "write")) {
      mode = PauseMode::kWrite;
    } else if (!base::iequals(ctx.arg(3), "all")) {
      ctx.reply().error("ERR CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  long long timeout = 0;  // milliseconds (Redis getTimeoutFromObjectOrReply, UNIT_MILLISECONDS)
  if (!base::parse_strict_integer(ctx.arg(2), timeout)) {
    ctx.reply().error("ERR timeout is not an integer or out of range");
    return;
  }
  if (timeout < 0) {
    ctx.reply().error("ERR timeout is negative");
    return;
  }
  ctx.exec().pause_clients(mode, timeout);
  ctx.reply().ok();
}

// CLIENT UNPAUSE
void cmd_client_unpause(CommandContext& ctx) {
  ctx.exec().unpause_clients();
  ctx.reply().ok();
}

// CLIENT HELP
void cmd_client_help(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are: ID, ADDR, LADDR, TYPE, USER, SKIPME, MAXAGE.",
      "LIST [options ...]",
      "    Return information about client connections (TYPE, ID).",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "SETINFO <option> <value>",
      "    Set client meta attr (LIB-NAME, LIB-VER).",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "NO-TOUCH (ON|OFF)",
      "    Commands of this client do not touch the LRU/LFU of keys."};
  reply_help(ctx, kLines);
}

}  // namespace

void register_client_commands(CommandTable& table) {
  CommandFamily t = table.family("connection");
  const std::uint32_t conn = kNoScript | kLoading | kStale;
  CommandSpec& client = t.add("client", -2, kSentinel, kNoKeys, nullptr, "2.4.0",
                              "A container for client connection commands");
  t.add_subcommand(client, "id", 2, conn, kNoKeys, &cmd_client_id, "5.0.0",
                   "Returns the client ID for the current connection");
  t.add_subcommand(client, "setname", 3, conn, kNoKeys, &cmd_client_setname, "2.6.9",
                   "Set the current connection name");
  t.add_subcommand(client, "getname", 2, conn, kNoKeys, &cmd_client_getname, "2.6.9",
                   "Get the current connection name");
  t.add_subcommand(client, "list", -2, kAdmin | conn, kNoKeys, &cmd_client_list, "2.4.0",
                   "Get the list of client connections");
  t.add_subcommand(client, "info", 2, conn, kNoKeys, &cmd_client_info, "6.2.0",
                   "Returns information about the current client connection.");
  t.add_subcommand(client, "kill", -3, kAdmin | conn, kNoKeys, &cmd_client_kill, "2.4.0",
                   "Kill the connection of a client");
  t.add_subcommand(client, "setinfo", 4, conn, kNoKeys, &cmd_client_setinfo, "7.2.0",
                   "Set client or connection specific info");
  t.add_subcommand(client, "reply", 3, conn, kNoKeys, &cmd_client_reply, "3.2.0",
                   "Instruct the server whether to reply to commands");
  t.add_subcommand(client, "no-evict", 3, kAdmin | conn, kNoKeys, &cmd_client_no_evict, "7.0.0",
                   "Set client eviction mode for the current connection");
  t.add_subcommand(client, "no-touch", 3, conn, kNoKeys, &cmd_client_no_touch, "7.2.0",
                   "Controls whether commands sent by the client will alter the LRU/LFU "
                   "of the keys they access.");
  t.add_subcommand(client, "unblock", -3, kAdmin | conn, kNoKeys, &cmd_client_unblock, "5.0.0",
                   "Unblock a client blocked in a blocking command from a different connection");
  t.add_subcommand(client, "pause", -3, kAdmin | conn, kNoKeys, &cmd_client_pause, "2.9.50",
                   "Stop processing commands from clients for some time");
  t.add_subcommand(client, "unpause", 2, kAdmin | conn, kNoKeys, &cmd_client_unpause, "6.2.0",
                   "Resume processing of clients that were paused");
  add_client_tracking_subcommands(t, client);
  t.add_subcommand(client, "help", 2, kLoading | kStale, kNoKeys, &cmd_client_help, "5.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
