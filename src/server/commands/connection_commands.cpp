// Connection commands: PING, ECHO, QUIT, SELECT, AUTH, HELLO, RESET.
#include "listd/base/number.h"
#include "listd/server/acl.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/text.h"
#include "listd/server/version.h"

namespace listd::server {
namespace {

// Redis ACLAuthenticateUser: the client becomes `user`, or the failure goes to ACL LOG.
bool authenticate(CommandContext& ctx, std::string_view user, std::string_view pass) {
  Executor& exec = ctx.exec();
  if (AclUser* u = exec.acl().authenticate(user, pass)) {
    ctx.client().authenticated = true;
    ctx.client().user = u;
    return true;
  }
  exec.acl_log(ctx.client(), AclLogReason::kAuth, std::string(ctx.arg(0)), std::string(user));
  return false;
}

// Redis clientSetDefaultAuth.
void set_default_auth(Executor& exec, Client& c) {
  c.user = &exec.acl().default_user();
  c.authenticated = c.user->nopass() && c.user->enabled();
}

// PING [message]
// The table's arity is -1 as in Redis, so PING queues inside MULTI; more than one message is an
// arity error from the handler (Redis pingCommand).
void cmd_ping(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    ctx.reply().error(arity_error(ctx.spec().full_name));
    return;
  }
  if (ctx.client().pubsub.subscribed() && !ctx.reply().resp3()) {
    ctx.reply().array_header(2);  // RESP2 subscribed mode: a frame the subscriber can parse
    ctx.reply().bulk("pong");
    ctx.reply().bulk(ctx.argc() == 2 ? ctx.arg(1) : std::string_view());
  } else if (ctx.argc() == 2)
    ctx.reply().bulk(ctx.arg(1));
  else
    ctx.reply().simple("PONG");
}

// ECHO message
void cmd_echo(CommandContext& ctx) { ctx.reply().bulk(ctx.arg(1)); }

// QUIT
void cmd_quit(CommandContext& ctx) {
  ctx.reply().ok();
  ctx.client().close_after_reply = true;
}

// SELECT index
void cmd_select(CommandContext& ctx) {
  long long index = 0;
  if (!ctx.parse_integer(1, index)) return;
  if (index < 0 || index >= ctx.exec().keyspace().database_count()) {
    ctx.reply().error(kDbIndexOutOfRangeErr);
    return;
  }
  ctx.switch_db(static_cast<int>(index));
  ctx.reply().ok();
}

// AUTH [username] password
void cmd_auth(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  const bool with_user = ctx.argc() == 3;
  // Passwords never reach the slow log (Redis redacts them before any check).
  ctx.exec().redact_argument(1);
  if (with_user) ctx.exec().redact_argument(2);
  if (!with_user && ctx.exec().acl().default_user().nopass()) {
    ctx.reply().error(kAuthNotConfiguredErr);
    return;
  }
  const std::string_view user = with_user ? ctx.arg(1) : std::string_view("default");
  if (authenticate(ctx, user, ctx.arg(ctx.argc() - 1))) {
    ctx.reply().ok();
  } else {
    ctx.reply().error(kWrongPassErr);
  }
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void cmd_hello(CommandContext& ctx) {
  Client& c = ctx.client();
  long long version = static_cast<long long>(c.resp);
  std::size_t i = 1;
  if (ctx.argc() >= 2) {
    if (!base::parse_strict_integer(ctx.arg(1), version)) {
      ctx.reply().error("ERR Protocol version is not an integer or out of range");
      return;
    }
    if (version < 2 || version > 3) {
      ctx.reply().error(kNoProtoErr);
      return;
    }
    i = 2;
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (; i < ctx.argc(); ++i) {
    const std::string_view opt = ctx.arg(i);
    const std::size_t more = ctx.argc() - i - 1;
    if (base::iequals(opt, "auth") && more >= 2) {
      has_auth = true;
      ctx.exec().redact_argument(i + 1);
      ctx.exec().redact_argument(i + 2);
      user = ctx.arg(i + 1);
      pass = ctx.arg(i + 2);
      i += 2;
    } else if (base::iequals(opt, "setname") && more >= 1) {
      has_name = true;
      name = ctx.arg(++i);
    } else {
      ctx.reply().error("ERR Syntax error in HELLO option '" + std::string(until_nul(opt)) + "'");
      return;
    }
  }
  if (has_auth) {
    if (!authenticate(ctx, user, pass)) {
      ctx.reply().error(kWrongPassErr);
      return;
    }
  }
  if (!c.authenticated) {
    ctx.reply().error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
        "AUTH <user> <pass> option can be used to authenticate the client and select "
        "the RESP protocol version at the same time");
    return;
  }
  if (has_name) {
    if (!valid_client_name(name)) {
      ctx.reply().error(kClientNameErr);
      return;
    }
    c.name = std::string(name);
  }
  c.resp = static_cast<protocol::RespVersion>(version);
  auto r = ctx.reply();
  r.map_header(7);
  r.bulk("server");
  r.bulk("redis");
  r.bulk("version");
  r.bulk(kRedisCompatVersion);
  r.bulk("proto");
  r.integer(version);
  r.bulk("id");
  r.integer(static_cast<long long>(c.id));
  r.bulk("mode");
  r.bulk("standalone");
  r.bulk("role");
  r.bulk("master");
  r.bulk("modules");
  r.array_header(0);
}

// RESET
void cmd_reset(CommandContext& ctx) {
  Client& c = ctx.client();
  Executor& exec = ctx.exec();
  exec.transactions().discard(c);
  exec.pubsub().leave_all(c);
  exec.tracking().disable(c);
  ctx.switch_db(0);
  c.resp = protocol::RespVersion::kResp2;
  c.reply_mode = ReplyMode::kOn;
  c.no_evict = false;
  c.no_touch = false;
  c.name.clear();
  set_default_auth(exec, c);
  ctx.reply().simple("RESET");
}

}  // namespace

void register_connection_commands(CommandTable& table) {
  CommandFamily t = table.family("connection");
  t.add("ping", -1, kFast | kSentinel | kDeniedOnDiskError | kAllowedWhenSubscribed, kNoKeys,
        &cmd_ping, "1.0.0", "Ping the server");
  t.add("echo", 2, kLoading | kStale | kFast, kNoKeys, &cmd_echo, "1.0.0", "Echo the given string");
  t.add("quit", -1,
        kNoScript | kAllowBusy | kNoAuth | kLoading | kStale | kFast | kNotQueued |
            kAllowedWhenSubscribed,
        kNoKeys, &cmd_quit, "1.0.0", "Close the connection");
  t.add("select", 2, kLoading | kStale | kFast, kNoKeys, &cmd_select, "1.0.0",
        "Change the selected database for the current connection");
  t.add("auth", -2, kNoScript | kLoading | kStale | kFast | kNoAuth | kSentinel | kAllowBusy,
        kNoKeys, &cmd_auth, "1.0.0", "Authenticate to the server");
  t.add("hello", -1, kNoScript | kLoading | kStale | kFast | kNoAuth | kSentinel | kAllowBusy,
        kNoKeys, &cmd_hello, "6.0.0", "Handshake with Redis");
  t.add("reset", 1,
        kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy | kNotQueued |
            kAllowedWhenSubscribed,
        kNoKeys, &cmd_reset, "6.2.0", "Reset the connection");
}

}  // namespace listd::server
