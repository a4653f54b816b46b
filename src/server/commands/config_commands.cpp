// CONFIG GET / SET / RESETSTAT / REWRITE / HELP, over the option table (the config part).
#include "listd/config/config.h"
#include "listd/config/config_file.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

// CONFIG GET parameter [parameter ...]
void cmd_config_get(CommandContext& ctx) {
  const config::Config::NameValueList pairs = ctx.exec().config().get(ctx.argv().subspan(2));
  auto r = ctx.reply();
  r.map_header(pairs.size());
  for (const auto& [name, value] : pairs) {
    r.bulk(name);
    r.bulk(value);
  }
}

// CONFIG SET parameter value [parameter value ...]
void cmd_config_set(CommandContext& ctx) {
  if ((ctx.argc() - 2) % 2 != 0) {
    ctx.reply().error("ERR wrong number of arguments for 'config|set' command");
    return;
  }
  std::vector<config::Config::NameValue> pairs;
  for (std::size_t i = 2; i + 1 < ctx.argc(); i += 2) {
    pairs.emplace_back(ctx.arg(i), ctx.arg(i + 1));
    // A sensitive value (requirepass) reads "(redacted)" in the slow log, even on an error.
    const config::OptionInfo* option = config::Config::find_option(ctx.arg(i));
    if (option && option->sensitive()) ctx.exec().redact_argument(i + 1);
  }
  const bool local =
      ctx.client().addr.rfind("127.", 0) == 0 || ctx.client().addr.rfind("::1", 0) == 0;
  if (auto err = ctx.exec().config().set_many(pairs, local))
    ctx.reply().error(*err);
  else
    ctx.reply().ok();
}

// CONFIG RESETSTAT
void cmd_config_resetstat(CommandContext& ctx) {
  ctx.exec().reset_stats();
  ctx.reply().ok();
}

// CONFIG REWRITE
void cmd_config_rewrite(CommandContext& ctx) {
  const config::Config& cfg = ctx.exec().config();
  if (cfg.config_file().empty()) {
    ctx.reply().error(config::kConfigNoFileErr);
    return;
  }
  std::string err;
  if (!config::rewrite_config_file(cfg.config_file(), cfg, err))
    ctx.reply().error("ERR Rewriting config file: " + err);
  else
    ctx.reply().ok();
}

// CONFIG HELP
void cmd_config_help(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file."};
  reply_help(ctx, kLines);
}

}  // namespace

void register_config_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  const std::uint32_t admin = kAdmin | kNoScript | kLoading | kStale;
  CommandSpec& config = t.add("config", -2, 0, kNoKeys, nullptr, "2.0.0",
                              "A container for server configuration commands");
  t.add_subcommand(config, "get", -3, admin, kNoKeys, &cmd_config_get, "2.0.0",
                   "Get the values of configuration parameters");
  t.add_subcommand(config, "set", -4, admin, kNoKeys, &cmd_config_set, "2.0.0",
                   "Set configuration parameters to the given values");
  t.add_subcommand(config, "resetstat", 2, admin, kNoKeys, &cmd_config_resetstat, "2.0.0",
                   "Reset the stats returned by INFO");
  t.add_subcommand(config, "rewrite", 2, admin, kNoKeys, &cmd_config_rewrite, "2.8.0",
                   "Rewrite the configuration file with the in memory configuration");
  t.add_subcommand(config, "help", 2, kLoading | kStale, kNoKeys, &cmd_config_help, "5.0.0",
                   "Show helpful text about the different subcommands");
}

}  // namespace listd::server
