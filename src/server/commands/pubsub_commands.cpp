// Pub/Sub commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, SSUBSCRIBE,
// SUNSUBSCRIBE, SPUBLISH and PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|SHARDNUMSUB|HELP
// (Redis 7.0 pubsub.c). The registry and the frames are in src/server/pubsub.cpp.
#include <vector>

#include "listd/base/glob.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/pubsub.h"
#include "listd/server/replication_master.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

// SUBSCRIBE channel [channel ...]
void cmd_subscribe(CommandContext& ctx) {
  // Redis refuses it to a DENY_BLOCKING client except inside MULTI: always allowed here.
  for (std::size_t i = 1; i < ctx.argc(); ++i)
    ctx.exec().pubsub().subscribe(ctx.client(), ctx.arg(i), ChannelScope::kGlobal);
}

// SSUBSCRIBE shardchannel [shardchannel ...]
void cmd_ssubscribe(CommandContext& ctx) {
  if (ctx.in_exec()) {  // Redis: EXEC sets CLIENT_DENY_BLOCKING, and SSUBSCRIBE has no exception
    ctx.reply().error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
    return;
  }
  for (std::size_t i = 1; i < ctx.argc(); ++i)
    ctx.exec().pubsub().subscribe(ctx.client(), ctx.arg(i), ChannelScope::kShard);
}

void unsubscribe_in(CommandContext& ctx, ChannelScope scope) {
  PubSub& ps = ctx.exec().pubsub();
  if (ctx.argc() == 1) {
    ps.unsubscribe_all(ctx.client(), scope, true);
    return;
  }
  for (std::size_t i = 1; i < ctx.argc(); ++i)
    ps.unsubscribe(ctx.client(), ctx.arg(i), scope, true);
}

// UNSUBSCRIBE [channel ...]
void cmd_unsubscribe(CommandContext& ctx) { unsubscribe_in(ctx, ChannelScope::kGlobal); }

// SUNSUBSCRIBE [shardchannel ...]
void cmd_sunsubscribe(CommandContext& ctx) { unsubscribe_in(ctx, ChannelScope::kShard); }

// PSUBSCRIBE pattern [pattern ...]
void cmd_psubscribe(CommandContext& ctx) {
  for (std::size_t i = 1; i < ctx.argc(); ++i)
    ctx.exec().pubsub().psubscribe(ctx.client(), ctx.arg(i));
}

// PUNSUBSCRIBE [pattern ...]
void cmd_punsubscribe(CommandContext& ctx) {
  PubSub& ps = ctx.exec().pubsub();
  if (ctx.argc() == 1) {
    ps.punsubscribe_all(ctx.client(), true);
    return;
  }
  for (std::size_t i = 1; i < ctx.argc(); ++i) ps.punsubscribe(ctx.client(), ctx.arg(i), true);
}

// PUBLISH channel message / SPUBLISH shardchannel message
// Redis propagates both to replicas (forceCommandPropagation(PROPAGATE_REPL)) but never to the
// AOF: the command marks nothing dirty (no effect, no AOF record) and goes to the replicas'
// stream only, so their subscribers get the message too.
void publish_in(CommandContext& ctx, ChannelScope scope) {
  const std::size_t receivers =
      ctx.exec().pubsub().publish(ctx.arg(1), ctx.arg(2), scope, &ctx.client());
  ctx.reply().integer(static_cast<long long>(receivers));
  ctx.exec().replication().propagate_to_replicas(ctx.db().index(), ctx.argv());
}

void cmd_publish(CommandContext& ctx) { publish_in(ctx, ChannelScope::kGlobal); }
void cmd_spublish(CommandContext& ctx) { publish_in(ctx, ChannelScope::kShard); }

// PUBSUB CHANNELS [pattern] / PUBSUB SHARDCHANNELS [pattern]
void list_channels(CommandContext& ctx, ChannelScope scope) {
  if (ctx.argc() > 3) {
    ctx.reply().error(subcommand_syntax_error("PUBSUB", ctx.arg(1)));
    return;
  }
  const bool filtered = ctx.argc() == 3;
  std::vector<std::string_view> names;
  ctx.exec().pubsub().for_each_channel(scope, [&](std::string_view name) {
    if (!filtered || base::glob_match(ctx.arg(2), name)) names.push_back(name);
  });
  auto r = ctx.reply();
  r.array_header(names.size());
  for (std::string_view n : names) r.bulk(n);
}

void cmd_pubsub_channels(CommandContext& ctx) { list_channels(ctx, ChannelScope::kGlobal); }
void cmd_pubsub_shardchannels(CommandContext& ctx) { list_channels(ctx, ChannelScope::kShard); }

// PUBSUB NUMSUB [channel ...] / PUBSUB SHARDNUMSUB [shardchannel ...]
void count_subscribers(CommandContext& ctx, ChannelScope scope) {
  auto r = ctx.reply();
  r.array_header((ctx.argc() - 2) * 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    r.bulk(ctx.arg(i));
    r.integer(static_cast<long long>(ctx.exec().pubsub().subscriber_count(ctx.arg(i), scope)));
  }
}

void cmd_pubsub_numsub(CommandContext& ctx) { count_subscribers(ctx, ChannelScope::kGlobal); }
void cmd_pubsub_shardnumsub(CommandContext& ctx) { count_subscribers(ctx, ChannelScope::kShard); }

// PUBSUB NUMPAT
void cmd_pubsub_numpat(CommandContext& ctx) {
  ctx.reply().integer(static_cast<long long>(ctx.exec().pubsub().pattern_count()));
}

// PUBSUB HELP
void cmd_pubsub_help(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help."};
  auto r = ctx.reply();
  r.array_header(std::size(kLines));
  for (std::string_view l : kLines) r.simple(l);
}

}  // namespace

void register_pubsub_commands(CommandTable& table) {
  CommandFamily t = table.family("pubsub");
  const std::uint32_t subscriber = kPubsub | kNoScript | kLoading | kStale | kAllowedWhenSubscribed;
  const std::uint32_t publisher = kPubsub | kLoading | kStale | kFast;
  // Shard channels are declared as keys (cluster slot routing) flagged not_key.
  const KeySpec all_channels{1, -1, 1, 0, true};
  const KeySpec one_channel{1, 1, 1, 0, true};
  t.add("subscribe", -2, subscriber, kNoKeys, &cmd_subscribe, "2.0.0",
        "Listen for messages published to the given channels");
  t.add("unsubscribe", -1, subscriber, kNoKeys, &cmd_unsubscribe, "2.0.0",
        "Stop listening for messages posted to the given channels");
  t.add("psubscribe", -2, subscriber, kNoKeys, &cmd_psubscribe, "2.0.0",
        "Listen for messages published to channels matching the given patterns");
  t.add("punsubscribe", -1, subscriber, kNoKeys, &cmd_punsubscribe, "2.0.0",
        "Stop listening for messages posted to channels matching the given patterns");
  // may-replicate (Redis 7.0): replicas get PUBLISH, so CLIENT PAUSE WRITE postpones it and a
  // read-only script may not call it.
  t.add("publish", 3, publisher | kMayReplicate, kNoKeys, &cmd_publish, "2.0.0",
        "Post a message to a channel");
  t.add("ssubscribe", -2, subscriber, all_channels, &cmd_ssubscribe, "7.0.0",
        "Listen for messages published to the given shard channels");
  t.add("sunsubscribe", -1, subscriber, all_channels, &cmd_sunsubscribe, "7.0.0",
        "Stop listening for messages posted to the given shard channels");
  t.add("spublish", 3, publisher | kMayReplicate, one_channel, &cmd_spublish, "7.0.0",
        "Post a message to a shard channel");

  const std::uint32_t introspection = kPubsub | kLoading | kStale;
  CommandSpec& pubsub =
      t.add("pubsub", -2, 0, kNoKeys, nullptr, "2.8.0", "A container for Pub/Sub commands");
  t.add_subcommand(pubsub, "channels", -2, introspection, kNoKeys, &cmd_pubsub_channels, "2.8.0",
                   "List active channels");
  t.add_subcommand(pubsub, "numsub", -2, introspection, kNoKeys, &cmd_pubsub_numsub, "2.8.0",
                   "Get the count of subscribers for channels");
  t.add_subcommand(pubsub, "numpat", 2, introspection, kNoKeys, &cmd_pubsub_numpat, "2.8.0",
                   "Get the count of unique patterns pattern subscriptions");
  t.add_subcommand(pubsub, "help", 2, kLoading | kStale, kNoKeys, &cmd_pubsub_help, "6.2.0",
                   "Show helpful text about the different subcommands");
  t.add_subcommand(pubsub, "shardchannels", -2, introspection, kNoKeys, &cmd_pubsub_shardchannels,
                   "7.0.0", "List active shard channels");
  t.add_subcommand(pubsub, "shardnumsub", -2, introspection, kNoKeys, &cmd_pubsub_shardnumsub,
                   "7.0.0", "Get the count of subscribers for shard channels");
}

}  // namespace listd::server
