// The options listd accepts and reports but does not act on (inert_option_table.cpp,
// inert_special_options.cpp): Redis 7.0's parsing and texts, the refusals of values listd would
// have to act on, the values kept in ServerSettings::inert, and CONFIG REWRITE's lines. The
// same texts are compared with a live redis-server in tests/python/test_stock_config.py.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/config/config.h"
#include "listd/config/config_file.h"

namespace listd::config {
namespace {

std::string set_failed(std::string_view name, std::string_view why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(why);
}

std::string value_of(const Config& cfg, std::string_view name) { return *cfg.value(name); }

const RewriteEntry* entry_for(const std::vector<RewriteEntry>& entries, std::string_view name) {
  for (const RewriteEntry& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST(InertOptionTest, DefaultsAreRedisAndNothingIsHeld) {
  Config cfg;
  EXPECT_EQ(value_of(cfg, "cluster-replica-validity-factor"), "10");
  EXPECT_EQ(value_of(cfg, "cluster-slave-validity-factor"), "10");
  EXPECT_EQ(value_of(cfg, "proc-title-template"), "{title} {listen-addr} {server-mode}");
  EXPECT_EQ(value_of(cfg, "latency-tracking-info-percentiles"), "50 99 99.9");
  EXPECT_EQ(value_of(cfg, "oom-score-adj-values"), "0 200 800");
  EXPECT_EQ(value_of(cfg, "active-defrag-ignore-bytes"), "104857600");
  EXPECT_EQ(value_of(cfg, "replicaof"), "");
  EXPECT_EQ(value_of(cfg, "shutdown-on-sigterm"), "default");
  EXPECT_TRUE(cfg.settings().inert.non_default.empty());
}

TEST(InertOptionTest, ValuesRoundTripInTheirCanonicalText) {
  Config cfg;
  EXPECT_EQ(cfg.set("dynamic-hz", "NO"), std::nullopt);
  EXPECT_EQ(cfg.set("cluster-link-sendbuf-limit", "1kb"), std::nullopt);
  EXPECT_EQ(cfg.set("oom-score-adj", "relative"), std::nullopt);
  EXPECT_EQ(cfg.set("active-expire-effort", "7"), std::nullopt);
  EXPECT_EQ(cfg.set("oom-score-adj-values", "0 100 +900"), std::nullopt);
  EXPECT_EQ(cfg.set("latency-tracking-info-percentiles", "99.990 50"), std::nullopt);
  EXPECT_EQ(value_of(cfg, "dynamic-hz"), "no");
  EXPECT_EQ(value_of(cfg, "cluster-link-sendbuf-limit"), "1024");
  EXPECT_EQ(value_of(cfg, "oom-score-adj"), "yes");  // Redis prints the value's first name
  EXPECT_EQ(value_of(cfg, "active-expire-effort"), "7");
  EXPECT_EQ(value_of(cfg, "oom-score-adj-values"), "0 100 900");
  EXPECT_EQ(value_of(cfg, "latency-tracking-info-percentiles"), "99.99 50");
  EXPECT_EQ(cfg.settings().inert.non_default.at("active-expire-effort"), "7");
  // Back at the default: nothing is held, so the start-up notice has nothing to say.
  EXPECT_EQ(cfg.set("active-expire-effort", "1"), std::nullopt);
  EXPECT_EQ(cfg.settings().inert.non_default.count("active-expire-effort"), 0U);
}

TEST(InertOptionTest, ParseErrorsAreRedisTexts) {
  Config cfg;
  EXPECT_EQ(cfg.set("dynamic-hz", "maybe"),
            set_failed("dynamic-hz", "argument must be 'yes' or 'no'"));
  EXPECT_EQ(cfg.set("active-expire-effort", "11"),
            set_failed("active-expire-effort", "argument must be between 1 and 10 inclusive"));
  EXPECT_EQ(cfg.set("acllog-max-len", "x"),
            set_failed("acllog-max-len", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(cfg.set("stream-node-max-bytes", "-1"),
            set_failed("stream-node-max-bytes", "argument must be a memory value"));
  EXPECT_EQ(cfg.set("active-defrag-max-scan-fields", "0"),
            set_failed("active-defrag-max-scan-fields",
                       "argument must be between 1 and 9223372036854775807 inclusive"));
  EXPECT_EQ(cfg.set("repl-diskless-load", "sometimes"),
            set_failed("repl-diskless-load",
                       "argument(s) must be one of the following: disabled, on-empty-db, swapdb"));
  EXPECT_EQ(cfg.set("cluster-announce-hostname", "a_b"),
            set_failed("cluster-announce-hostname",
                       "Hostnames may only contain alphanumeric characters, hyphens or dots"));
  EXPECT_EQ(cfg.set("proc-title-template", "{title} {nope}"),
            set_failed("proc-title-template",
                       "template format is invalid or contains unknown variables"));
  EXPECT_EQ(cfg.set("proc-title-template", " {title} "),
            set_failed("proc-title-template",
                       "template format is invalid or contains unknown variables"));
  EXPECT_EQ(cfg.set("io-threads", "4"), set_failed("io-threads", "can't set immutable config"));
  EXPECT_EQ(cfg.set("oom-score-adj-values", "0 200"),
            set_failed("oom-score-adj-values", "wrong number of arguments"));
  EXPECT_EQ(cfg.set("oom-score-adj-values", "0 200 2001"),
            set_failed("oom-score-adj-values",
                       "Invalid oom-score-adj-values, elements must be between -2000 and 2000."));
  EXPECT_EQ(cfg.set("latency-tracking-info-percentiles", "101"),
            set_failed("latency-tracking-info-percentiles",
                       "latency-tracking-info-percentiles parameters should sit between "
                       "[0.0,100.0]"));
  EXPECT_EQ(cfg.set("shutdown-on-sigterm", "save nosave"),
            set_failed("shutdown-on-sigterm",
                       "shutdown options SAVE and NOSAVE can't be used simultaneously"));
  EXPECT_EQ(cfg.set("activedefrag", "yes"),
            set_failed("activedefrag",
                       "Active defragmentation cannot be enabled: it requires a Redis server "
                       "compiled with a modified Jemalloc like the one shipped by default with "
                       "the Redis source distribution"));
  EXPECT_TRUE(cfg.settings().inert.non_default.empty());
}

TEST(InertOptionTest, OctalOptionsParseAsRedis) {
  Config cfg;
  const std::vector<std::string> perm = {"unixsocketperm", "0"};
  EXPECT_EQ(cfg.apply_directive(perm), std::nullopt);
  EXPECT_EQ(cfg.apply_directive(std::vector<std::string>{"unixsocketperm", "9"}),
            "argument couldn't be parsed as an octal number");
  EXPECT_EQ(cfg.apply_directive(std::vector<std::string>{"unixsocketperm", "1000"}),
            "argument must be between 0 and 777 inclusive");
}

// A value that would claim a protection or a mode listd does not have is refused, with the
// option's name in the text; the default is accepted (a stock redis.conf sets most of them).
TEST(InertOptionTest, ValuesListdWouldHaveToActOnAreRefused) {
  Config cfg;
  using Argv = std::vector<std::string>;
  const std::pair<Argv, Argv> cases[] = {
      {{"cluster-enabled", "no"}, {"cluster-enabled", "yes"}},
      {{"syslog-enabled", "no"}, {"syslog-enabled", "yes"}},
      {{"unixsocketperm", "0"}, {"unixsocketperm", "700"}},
      {{"unixsocket", ""}, {"unixsocket", "/run/listd.sock"}},
      {{"enable-debug-command", "yes"}, {"enable-debug-command", "local"}},
      {{"enable-module-command", "no"}, {"enable-module-command", "yes"}},
      {{"shutdown-on-sigint", "default"}, {"shutdown-on-sigint", "nosave", "now"}},
  };
  for (const auto& [accepted, refused] : cases) {
    EXPECT_EQ(cfg.apply_directive(accepted), std::nullopt) << accepted[0];
    // A config file load refuses the final value (replicaof and shutdown-on-* at their line).
    std::string text;
    for (const std::string& word : refused) text += (text.empty() ? "" : " ") + base::repr(word);
    Config loaded;
    std::optional<std::string> err = load_config_text(text + "\n", loaded);
    ASSERT_TRUE(err.has_value()) << refused[0];
    EXPECT_NE(err->find("listd"), std::string::npos) << *err;
    EXPECT_NE(err->find("listd"), std::string::npos) << *err;
    EXPECT_NE(err->find(refused[0]), std::string::npos) << *err;
  }
  // The command line (appended to the file) may take a refused line back.
  Config overridden;
  EXPECT_EQ(load_config_text(
                "cluster-enabled yes\nsyslog-enabled yes\ncluster-enabled no\nsyslog-enabled no\n",
                overridden),
            std::nullopt);
  EXPECT_EQ(cfg.apply_directive(std::vector<std::string>{"replicaof", "host", "70000"}),
            "Invalid master port");
  EXPECT_TRUE(cfg.settings().inert.non_default.empty());
}

TEST(InertOptionTest, RewriteWritesRedisLines) {
  Config cfg;
  ASSERT_EQ(cfg.set("cluster-link-sendbuf-limit", "1kb"), std::nullopt);
  ASSERT_EQ(cfg.set("masteruser", "repl"), std::nullopt);
  ASSERT_EQ(cfg.set("oom-score-adj-values", "0 100 800"), std::nullopt);
  const std::vector<RewriteEntry> entries = cfg.rewrite_entries();
  const RewriteEntry* value = entry_for(entries, "cluster-link-sendbuf-limit");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->lines, std::vector<std::string>{"cluster-link-sendbuf-limit 1kb"});
  EXPECT_TRUE(value->force);
  const RewriteEntry* user = entry_for(entries, "masteruser");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(user->lines, std::vector<std::string>{"masteruser \"repl\""});
  const RewriteEntry* oom = entry_for(entries, "oom-score-adj-values");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->lines, std::vector<std::string>{"oom-score-adj-values 0 100 800"});
  EXPECT_TRUE(oom->force);
  // At their defaults: not forced, and a NULL-when-empty string is removed from the file.
  const RewriteEntry* io = entry_for(entries, "io-threads");
  ASSERT_NE(io, nullptr);
  EXPECT_FALSE(io->force);
  const RewriteEntry* auth = entry_for(entries, "masterauth");
  ASSERT_NE(auth, nullptr);
  EXPECT_TRUE(auth->lines.empty());
  // Redis always writes the percentiles.
  const RewriteEntry* pct = entry_for(entries, "latency-tracking-info-percentiles");
  ASSERT_NE(pct, nullptr);
  EXPECT_TRUE(pct->force);
  const RewriteEntry* replicaof = entry_for(entries, "replicaof");
  ASSERT_NE(replicaof, nullptr);
  EXPECT_TRUE(replicaof->lines.empty());
}

}  // namespace
}  // namespace listd::config
