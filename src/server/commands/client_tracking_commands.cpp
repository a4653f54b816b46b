// CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO (Redis 7.0
// networking.c clientCommand): the options in Redis' order of checks; the tables are Tracking's.
#include "client_tracking.h"

#include <string>
#include <vector>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

using base::iequals;

// The options after ON|OFF; false once an error was replied.
bool parse_tracking_options(CommandContext& ctx, TrackingOptions& o,
                            std::vector<std::string_view>& prefixes) {
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const bool more = j + 1 < ctx.argc();
    if (iequals(opt, "redirect") && more) {
      ++j;
      if (o.redirect != 0) {
        ctx.reply().error(kTrackingOneRedirectErr);
        return false;
      }
      long long id = 0;
      if (!base::parse_strict_integer(ctx.arg(j), id)) {
        ctx.reply().error(kNotIntegerErr);
        return false;
      }
      // The client must exist now; it may leave later (then the redirect is broken).
      if (id <= 0 || !ctx.exec().clients().find(static_cast<std::uint64_t>(id))) {
        ctx.reply().error(kTrackingNoSuchRedirectErr);
        return false;
      }
      o.redirect = static_cast<std::uint64_t>(id);
    } else if (iequals(opt, "bcast")) {
      o.bcast = true;
    } else if (iequals(opt, "optin")) {
      o.optin = true;
    } else if (iequals(opt, "optout")) {
      o.optout = true;
    } else if (iequals(opt, "noloop")) {
      o.noloop = true;
    } else if (iequals(opt, "prefix") && more) {
      prefixes.push_back(ctx.arg(++j));
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

// Why `c` may not turn tracking on with `o` (Redis' checks, in its order), or "".
std::string_view tracking_on_refusal(const Client& c, const TrackingOptions& o,
                                     std::size_t prefix_count) {
  if (!o.bcast && prefix_count > 0) return kTrackingPrefixNeedsBcastErr;
  if (c.tracking.on && c.tracking.bcast != o.bcast) return kTrackingSwitchBcastErr;
  if (o.bcast && (o.optin || o.optout)) return kTrackingBcastOptErr;
  if (o.optin && o.optout) return kTrackingOptinOptoutErr;
  if ((o.optin && c.tracking.optout) || (o.optout && c.tracking.optin))
    return kTrackingSwitchOptErr;
  return {};
}

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX prefix ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
void cmd_client_tracking(CommandContext& ctx) {
  TrackingOptions options;
  std::vector<std::string_view> prefixes;
  if (!parse_tracking_options(ctx, options, prefixes)) return;
  Client& c = ctx.client();
  Tracking& tracking = ctx.exec().tracking();
  if (iequals(ctx.arg(2), "on")) {
    if (const std::string_view why = tracking_on_refusal(c, options, prefixes.size());
        !why.empty()) {
      ctx.reply().error(why);
      return;
    }
    if (options.bcast)
      if (const std::string overlap = tracking.prefix_collision(c, prefixes); !overlap.empty()) {
        ctx.reply().error(overlap);
        return;
      }
    tracking.enable(c, options, prefixes);
  } else if (iequals(ctx.arg(2), "off")) {
    tracking.disable(c);
  } else {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  ctx.reply().ok();
}

// CLIENT CACHING YES|NO
void cmd_client_caching(CommandContext& ctx) {
  TrackingMode& m = ctx.client().tracking;
  if (!m.on) {
    ctx.reply().error(kCachingNotTrackingErr);
    return;
  }
  if (iequals(ctx.arg(2), "yes")) {
    if (!m.optin) {
      ctx.reply().error(kCachingYesErr);
      return;
    }
  } else if (iequals(ctx.arg(2), "no")) {
    if (!m.optout) {
      ctx.reply().error(kCachingNoErr);
      return;
    }
  } else {
    ctx.reply().error(kSyntaxErr);
    return;
  }
  m.caching = true;  // for the next command (Executor::execute clears it after that)
  ctx.reply().ok();
}

// The id invalidations go to: -1 when not tracking, 0 when to the client itself.
long long redirect_of(const Client& c) {
  return c.tracking.on ? static_cast<long long>(c.tracking.redirect) : -1;
}

// CLIENT GETREDIR
void cmd_client_getredir(CommandContext& ctx) { ctx.reply().integer(redirect_of(ctx.client())); }

// CLIENT TRACKINGINFO
void cmd_client_trackinginfo(CommandContext& ctx) {
  const Client& c = ctx.client();
  const TrackingMode& m = c.tracking;
  std::vector<std::string_view> flags{m.on ? "on" : "off"};
  if (m.bcast) flags.push_back("bcast");
  if (m.optin) flags.push_back("optin");
  if (m.optin && m.caching) flags.push_back("caching-yes");
  if (m.optout) flags.push_back("optout");
  if (m.optout && m.caching) flags.push_back("caching-no");
  if (m.noloop) flags.push_back("noloop");
  if (m.broken_redirect) flags.push_back("broken_redirect");
  auto reply = ctx.reply();
  reply.map_header(3);
  reply.bulk("flags");
  reply.set_header(flags.size());
  for (std::string_view f : flags) reply.bulk(f);
  reply.bulk("redirect");
  reply.integer(redirect_of(c));
  reply.bulk("prefixes");
  const std::vector<std::string> prefixes = ctx.exec().tracking().prefixes_of(c);
  reply.array_header(prefixes.size());
  for (const std::string& p : prefixes) reply.bulk(p);
}

}  // namespace

void add_client_tracking_subcommands(CommandFamily& t, CommandSpec& client) {
  const std::uint32_t conn = kNoScript | kLoading | kStale;
  t.add_subcommand(client, "tracking", -3, conn, kNoKeys, &cmd_client_tracking, "6.0.0",
                   "Enable or disable server assisted client side caching support");
  t.add_subcommand(client, "caching", 3, conn, kNoKeys, &cmd_client_caching, "6.0.0",
                   "Instruct the server about tracking or not keys in the next request");
  t.add_subcommand(client, "getredir", 2, conn, kNoKeys, &cmd_client_getredir, "6.0.0",
                   "Get tracking notifications redirection client ID if any");
  t.add_subcommand(client, "trackinginfo", 2, conn, kNoKeys, &cmd_client_trackinginfo, "6.2.0",
                   "Return information about server assisted client side caching for the "
                   "current connection");
}

}  // namespace listd::server
