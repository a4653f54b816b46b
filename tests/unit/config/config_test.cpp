#include "listd/config/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/config/config_file.h"
#include "support/temp_dir.h"

namespace listd::config {
namespace {

using List = Config::NameValueList;

std::map<std::string, std::string> all_values(const Config& cfg) {
  std::map<std::string, std::string> out;
  for (auto& [name, value] : cfg.get("*")) out[name] = value;
  return out;
}

// Applies config-file text line by line (what the app's loader does, minus include).
void apply_text(Config& cfg, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto argv = base::split_args(line);
    ASSERT_TRUE(argv.has_value()) << line;
    if (argv->empty()) continue;
    const auto err = cfg.apply_directive(*argv);
    ASSERT_FALSE(err.has_value()) << line << ": " << *err;
  }
}

std::string set_failed(const std::string& name, const std::string& why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
}

using listd::testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- Defaults -------------------------------------------------------------------------------

TEST(ConfigTest, EveryOptionHasItsDefault) {
  const Config cfg;
  const std::map<std::string, std::string> expected = {
      {"port", "6379"},
      {"bind", "127.0.0.1"},
      {"requirepass", ""},
      {"databases", "16"},
      {"maxclients", "10000"},
      {"timeout", "0"},
      {"tcp-keepalive", "300"},
      {"loglevel", "notice"},
      {"logfile", ""},
      {"proto-max-bulk-len", "536870912"},
      {"client-query-buffer-limit", "1073741824"},
      {"daemonize", "no"},
      {"save", ""},
      {"appendonly", "no"},
      {"appendfsync", "everysec"},
      {"dir", std::filesystem::current_path().string()},
      {"dbfilename", "dump.rdb"},
      {"appenddirname", "appendonlydir"},
      {"appendfilename", "appendonly.aof"},
      {"auto-aof-rewrite-percentage", "100"},
      {"auto-aof-rewrite-min-size", "67108864"},
      {"aof-load-truncated", "yes"},
      {"aof-timestamp-enabled", "no"},
      {"no-appendfsync-on-rewrite", "no"},
      {"aof-use-rdb-preamble", "yes"},
      {"stop-writes-on-bgsave-error", "yes"},
      {"rdbcompression", "yes"},
      {"stream-node-max-bytes", "4096"},
      {"stream-node-max-entries", "100"},
      {"hz", "10"},
      {"maxmemory", "0"},
      {"maxmemory-policy", "noeviction"},
      {"maxmemory-samples", "5"},
      {"maxmemory-eviction-tenacity", "10"},
      {"lfu-log-factor", "10"},
      {"lfu-decay-time", "1"},
      {"list-max-listpack-size", "-2"},
      {"list-max-ziplist-size", "-2"},
      {"list-compress-depth", "0"},
      {"pidfile", ""},
      {"unixsocket", ""},
      {"protected-mode", "yes"},
      {"tcp-backlog", "511"},
      {"slowlog-log-slower-than", "10000"},
      {"slowlog-max-len", "128"},
      {"latency-monitor-threshold", "0"},
      {"hll-sparse-max-bytes", "3000"},
      {"latency-tracking", "yes"},
      {"tracking-table-max-keys", "1000000"},
      {"latency-tracking-info-percentiles", "50 99 99.9"},
      {"busy-reply-threshold", "5000"},
      {"lua-time-limit", "5000"},
      {"notify-keyspace-events", ""},
      {"lazyfree-lazy-user-del", "no"},
      {"activerehashing", "yes"},
      {"enable-protected-configs", "no"},
      {"client-output-buffer-limit",
       "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
      {"repl-backlog-size", "1048576"},
      {"repl-backlog-ttl", "3600"},
      {"repl-ping-replica-period", "10"},
      {"repl-ping-slave-period", "10"},
      {"repl-timeout", "60"},
      {"repl-diskless-sync", "yes"},
      {"repl-diskless-sync-delay", "5"},
      {"repl-diskless-sync-max-replicas", "0"},
      {"replicaof", ""},
      {"slaveof", ""},
      {"masterauth", ""},
      {"masteruser", ""},
      {"replica-read-only", "yes"},
      {"slave-read-only", "yes"},
      {"replica-priority", "100"},
      {"slave-priority", "100"},
      {"replica-announce-ip", ""},
      {"slave-announce-ip", ""},
      {"replica-announce-port", "0"},
      {"slave-announce-port", "0"},
      {"acl-pubsub-default", "resetchannels"},
      {"acllog-max-len", "128"},
      {"aclfile", ""},
      {"metrics-port", "0"},
      {"io-backend", "auto"},
      {"queue-stats-max-keys", "1024"},
      {"sync-replicas", "0"},
      {"sync-replicas-timeout", "2000"},
  };
  // The options listd acts on; the inert ones' defaults are in inert_option_test.cpp.
  const std::map<std::string, std::string> all = all_values(cfg);
  for (const auto& [name, value] : expected) EXPECT_EQ(all.at(name), value) << name;
  // Redis 7.0.15's CONFIG GET *, aliases included, and listd's own script-cache-max-eval,
  // metrics-port, queue-stats-max-keys, io-backend, sync-replicas and sync-replicas-timeout
  EXPECT_EQ(all.size(), 198U);
}

TEST(ConfigTest, TypedSettingsStartAtTheTableDefaults) {
  const Config cfg;
  ServerSettings expected;
  expected.dir = std::filesystem::current_path().string();
  EXPECT_EQ(cfg.settings(), expected);
  EXPECT_EQ(cfg.settings().proto_max_bulk_len, 512LL * 1024 * 1024);
  EXPECT_EQ(cfg.settings().bind, std::vector<std::string>{"127.0.0.1"});
  // Nothing differs from its default, so a rewrite forces only save, dir and the latency
  // percentiles (as Redis does).
  for (const RewriteEntry& e : cfg.rewrite_entries()) {
    EXPECT_EQ(e.force,
              e.name == "save" || e.name == "dir" || e.name == "latency-tracking-info-percentiles")
        << e.name;
  }
}

TEST(ConfigTest, OptionTableDescribesFlags) {
  const OptionInfo* port = Config::find_option("PORT");
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->name, "port");
  EXPECT_FALSE(port->immutable());  // re-listens (net::Server's apply hook), as Redis 7.0
  EXPECT_FALSE(Config::find_option("tls-port")->immutable());
  EXPECT_FALSE(Config::find_option("bind")->immutable());  // re-binds both ports, as 7.0
  EXPECT_TRUE(Config::find_option("databases")->immutable());
  EXPECT_TRUE(Config::find_option("requirepass")->sensitive());
  EXPECT_EQ(Config::find_option("list-max-ziplist-size")->name, "list-max-listpack-size");
  EXPECT_EQ(Config::find_option("maxmemory")->type, OptionType::kMemory);
  EXPECT_EQ(Config::find_option("nosuch"), nullptr);
  EXPECT_EQ(Config::options().front().name, "port");
}

// ---- Memory sizes -----------------------------------------------------------------------------

TEST(ConfigTest, MemorySizesAcceptRedisUnits) {
  EXPECT_EQ(parse_memory_size("100"), 100ULL);
  EXPECT_EQ(parse_memory_size("100b"), 100ULL);
  EXPECT_EQ(parse_memory_size("64k"), 64000ULL);
  EXPECT_EQ(parse_memory_size("64kb"), 65536ULL);
  EXPECT_EQ(parse_memory_size("64KB"), 65536ULL);
  EXPECT_EQ(parse_memory_size("2m"), 2000000ULL);
  EXPECT_EQ(parse_memory_size("512mb"), 512ULL * 1024 * 1024);
  EXPECT_EQ(parse_memory_size("1g"), 1000000000ULL);
  EXPECT_EQ(parse_memory_size("1gb"), 1024ULL * 1024 * 1024);
  EXPECT_EQ(parse_memory_size("1Gb"), 1024ULL * 1024 * 1024);
  // strtoull("") is 0 without an error in Redis.
  EXPECT_EQ(parse_memory_size(""), 0ULL);
  EXPECT_EQ(parse_memory_size("kb"), 0ULL);
}

TEST(ConfigTest, MemorySizesRejectGarbage) {
  EXPECT_EQ(parse_memory_size("12xb"), std::nullopt);
  EXPECT_EQ(parse_memory_size("-1"), std::nullopt);
  EXPECT_EQ(parse_memory_size("+1"), std::nullopt);
  EXPECT_EQ(parse_memory_size(" 1"), std::nullopt);
  EXPECT_EQ(parse_memory_size("1 "), std::nullopt);
  EXPECT_EQ(parse_memory_size("1.5gb"), std::nullopt);
  EXPECT_EQ(parse_memory_size("1tb"), std::nullopt);
  EXPECT_EQ(parse_memory_size("99999999999999999999"), std::nullopt);
  EXPECT_EQ(parse_memory_size("18446744073709551615gb"), std::nullopt);
}

TEST(ConfigTest, MemoryOptionsAreReportedInBytes) {
  Config cfg;
  EXPECT_EQ(cfg.set("maxmemory", "1gb"), std::nullopt);
  EXPECT_EQ(cfg.value("maxmemory"), "1073741824");
  EXPECT_EQ(cfg.settings().maxmemory, 1073741824ULL);
  EXPECT_EQ(cfg.set("proto-max-bulk-len", "64mb"), std::nullopt);
  EXPECT_EQ(cfg.value("proto-max-bulk-len"), "67108864");
  EXPECT_EQ(cfg.settings().proto_max_bulk_len, 64LL * 1024 * 1024);
  EXPECT_EQ(cfg.set("client-query-buffer-limit", "2048kb"), std::nullopt);
  EXPECT_EQ(cfg.settings().client_query_buffer_limit, 2048U * 1024);
  EXPECT_EQ(cfg.set("maxmemory", "12xb"),
            set_failed("maxmemory", "argument must be a memory value"));
}

TEST(ConfigTest, MemoryOptionMinimumIsEnforced) {
  Config cfg;
  EXPECT_EQ(cfg.set("proto-max-bulk-len", "1000"),
            set_failed("proto-max-bulk-len",
                       "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(cfg.set("client-query-buffer-limit", "1kb"),
            set_failed("client-query-buffer-limit",
                       "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(cfg.set("proto-max-bulk-len", "1mb"), std::nullopt);
  EXPECT_EQ(cfg.settings().proto_max_bulk_len, 1048576);
}

// ---- Integers, bools, enums -------------------------------------------------------------------

TEST(ConfigTest, IntegersAreParsedStrictly) {
  Config cfg;
  const std::string not_int = "argument couldn't be parsed into an integer";
  EXPECT_EQ(cfg.set("maxclients", "abc"), set_failed("maxclients", not_int));
  EXPECT_EQ(cfg.set("timeout", "01"), set_failed("timeout", not_int));
  EXPECT_EQ(cfg.set("timeout", "+1"), set_failed("timeout", not_int));
  EXPECT_EQ(cfg.set("timeout", " 1"), set_failed("timeout", not_int));
  EXPECT_EQ(cfg.set("timeout", "1k"), set_failed("timeout", not_int));
  EXPECT_EQ(cfg.set("timeout", "30"), std::nullopt);
  EXPECT_EQ(cfg.settings().timeout, 30);
}

TEST(ConfigTest, IntegerBoundsUseRedisTexts) {
  Config cfg;
  EXPECT_EQ(cfg.set("maxclients", "0"),
            set_failed("maxclients", "argument must be between 1 and 4294967295 inclusive"));
  // Unsigned options compare as unsigned, so -1 is huge.
  EXPECT_EQ(cfg.set("maxclients", "-1"),
            set_failed("maxclients", "argument must be between 1 and 4294967295 inclusive"));
  EXPECT_EQ(cfg.set("timeout", "-1"),
            set_failed("timeout", "argument must be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(cfg.set("slowlog-log-slower-than", "-2"),
            set_failed("slowlog-log-slower-than",
                       "argument must be between -1 and 9223372036854775807 inclusive"));
  EXPECT_EQ(cfg.set("slowlog-log-slower-than", "-1"), std::nullopt);
  EXPECT_EQ(cfg.set("list-max-listpack-size", "-5"), std::nullopt);
  EXPECT_EQ(cfg.get("list-max-listpack-size"), (List{{"list-max-listpack-size", "-5"}}));
}

TEST(ConfigTest, HzIsClampedLikeRedis) {
  Config cfg;
  EXPECT_EQ(cfg.set("hz", "1000"), std::nullopt);
  EXPECT_EQ(cfg.value("hz"), "500");
  EXPECT_EQ(cfg.set("hz", "0"), std::nullopt);
  EXPECT_EQ(cfg.settings().hz, 1);
}

TEST(ConfigTest, BoolsAcceptOnlyYesOrNoInAnyCase) {
  Config cfg;
  EXPECT_EQ(cfg.set("appendonly", "YES"), std::nullopt);
  EXPECT_TRUE(cfg.settings().appendonly);
  EXPECT_EQ(cfg.value("appendonly"), "yes");
  EXPECT_EQ(cfg.set("appendonly", "No"), std::nullopt);
  EXPECT_FALSE(cfg.settings().appendonly);
  EXPECT_TRUE(cfg.settings().rdbcompression);  // read by every RDB save and DUMP
  EXPECT_EQ(cfg.set("rdbcompression", "no"), std::nullopt);
  EXPECT_FALSE(cfg.settings().rdbcompression);
  EXPECT_EQ(cfg.value("rdbcompression"), "no");
  for (const char* bad : {"true", "1", "on", "", "yes "}) {
    EXPECT_EQ(cfg.set("protected-mode", bad),
              set_failed("protected-mode", "argument must be 'yes' or 'no'"))
        << bad;
  }
}

TEST(ConfigTest, EnumsAcceptTheirNamesInAnyCase) {
  Config cfg;
  EXPECT_EQ(cfg.set("loglevel", "WARNING"), std::nullopt);
  EXPECT_EQ(cfg.settings().loglevel, LogLevel::kWarning);
  EXPECT_EQ(cfg.value("loglevel"), "warning");
  EXPECT_EQ(
      cfg.set("loglevel", "loud"),
      set_failed("loglevel",
                 "argument(s) must be one of the following: debug, verbose, notice, warning"));
  EXPECT_EQ(
      cfg.set("appendfsync", "bogus"),
      set_failed("appendfsync", "argument(s) must be one of the following: everysec, always, no"));
  // All eight policies of 7.0 are accepted (the seven evicting ones act: eviction.h).
  for (const char* policy : {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
                             "allkeys-lru", "allkeys-lfu", "allkeys-random"}) {
    EXPECT_EQ(cfg.set("maxmemory-policy", policy), std::nullopt) << policy;
    EXPECT_EQ(cfg.value("maxmemory-policy"), policy);
  }
  EXPECT_EQ(cfg.set("maxmemory-samples", "0"),
            set_failed("maxmemory-samples", "argument must be between 1 and 2147483647 inclusive"));
  EXPECT_EQ(
      cfg.set("maxmemory-eviction-tenacity", "101"),
      set_failed("maxmemory-eviction-tenacity", "argument must be between 0 and 100 inclusive"));
  EXPECT_EQ(cfg.set("lfu-log-factor", "-1"),
            set_failed("lfu-log-factor", "argument must be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(cfg.set("lfu-decay-time", "0"), std::nullopt);
  EXPECT_EQ(cfg.settings().lfu_decay_time, 0);
  EXPECT_EQ(cfg.set("maxmemory-policy", "NoEviction"), std::nullopt);
  EXPECT_EQ(cfg.settings().maxmemory_policy, MaxmemoryPolicy::kNoeviction);
  EXPECT_EQ(cfg.set("maxmemory-policy", "lru"),
            set_failed("maxmemory-policy",
                       "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                       "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                       "noeviction"));
}

// ---- Special options --------------------------------------------------------------------------

TEST(ConfigTest, SaveTakesPairsAndAnEmptyValue) {
  Config cfg;
  EXPECT_EQ(cfg.set("save", "900 1 300 10"), std::nullopt);
  EXPECT_EQ(cfg.value("save"), "900 1 300 10");
  EXPECT_EQ(cfg.settings().save, (std::vector<SavePoint>{{900, 1}, {300, 10}}));
  EXPECT_EQ(cfg.set("save", "60 5"), std::nullopt);
  EXPECT_EQ(cfg.value("save"), "60 5");
  EXPECT_EQ(cfg.set("save", ""), std::nullopt);
  EXPECT_EQ(cfg.value("save"), "");
  EXPECT_TRUE(cfg.settings().save.empty());
  EXPECT_EQ(cfg.set("save", "900"), set_failed("save", "Invalid save parameters"));
  EXPECT_EQ(cfg.set("save", "0 1"), set_failed("save", "Invalid save parameters"));
  EXPECT_EQ(cfg.set("save", "10 -1"), set_failed("save", "Invalid save parameters"));
  EXPECT_EQ(cfg.set("save", "10 x"), set_failed("save", "Invalid save parameters"));
}

TEST(ConfigTest, NotifyKeyspaceEventsIsCanonicalised) {
  Config cfg;
  EXPECT_EQ(cfg.set("notify-keyspace-events", "KEA"), std::nullopt);
  EXPECT_EQ(cfg.value("notify-keyspace-events"), "AKE");
  EXPECT_EQ(cfg.set("notify-keyspace-events", "Kl"), std::nullopt);
  EXPECT_EQ(cfg.value("notify-keyspace-events"), "lK");
  EXPECT_EQ(cfg.settings().notify_keyspace_events, kNotifyKeyspace | kNotifyList);
  // Redis 7.0 drops 'n' from the text once "A" is printed.
  EXPECT_EQ(cfg.set("notify-keyspace-events", "AnK"), std::nullopt);
  EXPECT_EQ(cfg.value("notify-keyspace-events"), "AK");
  EXPECT_EQ(cfg.set("notify-keyspace-events", "Kq"),
            set_failed("notify-keyspace-events",
                       "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."));
  EXPECT_EQ(cfg.set("notify-keyspace-events", ""), std::nullopt);
  EXPECT_EQ(cfg.settings().notify_keyspace_events, 0);
}

TEST(ConfigTest, StringValidatorsUseRedisTexts) {
  Config cfg;
  ASSERT_EQ(cfg.apply_directive(std::vector<std::string>{"enable-protected-configs", "yes"}),
            std::nullopt);
  EXPECT_EQ(cfg.set("dbfilename", "a/b.rdb"),
            set_failed("dbfilename", "dbfilename can't be a path, just a filename"));
  EXPECT_EQ(cfg.set("dbfilename", "x.rdb"), std::nullopt);
  EXPECT_EQ(cfg.settings().dbfilename, "x.rdb");
  EXPECT_EQ(cfg.apply_directive(std::vector<std::string>{"appendfilename", ""}),
            "appendfilename can't be empty");
  EXPECT_EQ(cfg.apply_directive(std::vector<std::string>{"appenddirname", "a/b"}),
            "appenddirname can't be a path, just a dirname");
}

TEST(ConfigTest, DirMustExistAndIsReportedAbsolute) {
  TempDir tmp;
  Config cfg;
  ASSERT_EQ(cfg.apply_directive(std::vector<std::string>{"enable-protected-configs", "yes"}),
            std::nullopt);
  EXPECT_EQ(cfg.set("dir", tmp.path()), std::nullopt);
  EXPECT_EQ(cfg.value("dir"), std::filesystem::canonical(tmp.path()).string());
  EXPECT_EQ(cfg.set("dir", tmp.file("missing")), set_failed("dir", "No such file or directory"));
  std::ofstream(tmp.file("plain")) << "x";
  EXPECT_EQ(cfg.set("dir", tmp.file("plain")), set_failed("dir", "Not a directory"));
}

// Debian's redis.conf says `daemonize yes`: accepted (app forks); like `supervised`, Redis'
// values and texts, immutable at run time.
TEST(ConfigTest, DaemonizeAndSupervisedAreStartUpOptions) {
  Config cfg;
  EXPECT_EQ(load_config_text("daemonize yes\nsupervised auto\n", cfg), std::nullopt);
  EXPECT_TRUE(cfg.settings().daemonize);
  EXPECT_EQ(cfg.settings().supervised, config::SupervisedMode::kAuto);
  EXPECT_EQ(cfg.value("supervised"), "auto");
  for (const char* mode : {"no", "upstart", "systemd", "auto"})
    EXPECT_EQ(Config().apply_directive(std::vector<std::string>{"supervised", mode}), std::nullopt);
  EXPECT_EQ(cfg.set("daemonize", "no"), set_failed("daemonize", "can't set immutable config"));
  EXPECT_EQ(cfg.set("supervised", "no"), set_failed("supervised", "can't set immutable config"));
  Config bad;
  const std::optional<std::string> err = load_config_text("supervised sometimes\n", bad);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("argument(s) must be one of the following: upstart, systemd, auto, no"),
            std::string::npos)
      << *err;
}

TEST(ConfigTest, ReplicaofTakesHostAndPortOrNoOne) {
  Config cfg;
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.apply_directive(V{"slaveof", "10.0.0.1", "6380"}), std::nullopt);
  EXPECT_EQ(cfg.settings().replicaof_host, "10.0.0.1");
  EXPECT_EQ(cfg.settings().replicaof_port, 6380);
  EXPECT_EQ(cfg.value("replicaof"), "10.0.0.1 6380");
  EXPECT_EQ(cfg.apply_directive(V{"replicaof", "h", "x"}), "Invalid master port");
  EXPECT_EQ(cfg.apply_directive(V{"replicaof", "h"}), "wrong number of arguments");
  EXPECT_EQ(cfg.set("replicaof", "h 1"), set_failed("replicaof", "can't set immutable config"));
  EXPECT_EQ(cfg.apply_directive(V{"replicaof", "NO", "one"}), std::nullopt);
  EXPECT_EQ(cfg.value("replicaof"), "");
  // Writable replicas would serve pops from their own data: refused (a config file's final
  // value is checked once the whole file is read, so the command line may take a line back).
  Config loaded;
  const std::optional<std::string> err = load_config_text("slave-read-only no\n", loaded);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("listd replicas are read-only (replica-read-only yes)"), std::string::npos)
      << *err;
}

// ---- CONFIG SET rules -------------------------------------------------------------------------

TEST(ConfigTest, MaxmemoryClientsIsBytesOrAPercentageAsRedis) {
  Config cfg;
  using List = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(cfg.get("maxmemory-clients"), (List{{"maxmemory-clients", "0"}}));
  EXPECT_EQ(cfg.set("maxmemory-clients", "abc"),
            set_failed("maxmemory-clients", "argument must be a memory or percent value"));
  EXPECT_EQ(cfg.set("maxmemory-clients", "101%"),
            set_failed("maxmemory-clients", "percentage argument must be less or equal to 100"));
  EXPECT_EQ(cfg.set("maxmemory-clients", "-1%"),
            set_failed("maxmemory-clients", "argument must be a memory or percent value"));
  EXPECT_EQ(cfg.set("maxmemory-clients", "10%"), std::nullopt);
  EXPECT_EQ(cfg.settings().maxmemory_clients, -10);
  EXPECT_EQ(cfg.get("maxmemory-clients"), (List{{"maxmemory-clients", "10%"}}));
  EXPECT_EQ(
      rewrite_config_content("maxmemory-clients 1mb\n", cfg).rfind("maxmemory-clients 10%\n", 0),
      0u);
  EXPECT_EQ(cfg.set("maxmemory-clients", "2mb"), std::nullopt);
  EXPECT_EQ(cfg.get("maxmemory-clients"), (List{{"maxmemory-clients", "2097152"}}));
  EXPECT_EQ(cfg.set("maxmemory-clients", "0%"), std::nullopt);
  EXPECT_EQ(cfg.get("maxmemory-clients"), (List{{"maxmemory-clients", "0"}}));
}

TEST(ConfigTest, ImmutableOptionIsRefusedWithTheTypedName) {
  Config cfg;
  EXPECT_EQ(cfg.set("Databases", "1"), set_failed("Databases", "can't set immutable config"));
  EXPECT_EQ(cfg.set("DAEMONIZE", "yes"), set_failed("DAEMONIZE", "can't set immutable config"));
  EXPECT_EQ(cfg.settings().databases, 16);
}

TEST(ConfigTest, UnknownOptionError) {
  Config cfg;
  EXPECT_EQ(cfg.set("nosuch", "1"),
            "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
}

TEST(ConfigTest, ProtectedOptionNeedsEnableProtectedConfigs) {
  Config cfg;
  EXPECT_EQ(cfg.set("dir", "/"), set_failed("dir", "can't set protected config"));
  EXPECT_EQ(cfg.set("dbfilename", "x.rdb"), set_failed("dbfilename", "can't set protected config"));

  Config local;
  ASSERT_EQ(local.apply_directive(std::vector<std::string>{"enable-protected-configs", "local"}),
            std::nullopt);
  EXPECT_EQ(local.set("dbfilename", "x.rdb"),
            set_failed("dbfilename", "can't set protected config"));
  EXPECT_EQ(local.set("dbfilename", "x.rdb", /*client_is_local=*/true), std::nullopt);
}

TEST(ConfigTest, NamesAreCaseInsensitiveAndAliasesWork) {
  Config cfg;
  EXPECT_EQ(cfg.set("MAXMEMORY", "10mb"), std::nullopt);
  EXPECT_EQ(cfg.settings().maxmemory, 10ULL * 1024 * 1024);
  EXPECT_EQ(cfg.set("list-max-ziplist-size", "8"), std::nullopt);
  EXPECT_EQ(cfg.get("list-max-listpack-size"), (List{{"list-max-listpack-size", "8"}}));
  // Redis names the option it matched (the alias) in the error, not the typed spelling.
  EXPECT_EQ(cfg.set("LIST-MAX-ZIPLIST-SIZE", "x"),
            set_failed("list-max-ziplist-size", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(cfg.set("MAXCLIENTS", "x"),
            set_failed("maxclients", "argument couldn't be parsed into an integer"));
}

TEST(ConfigTest, MultiSetIsAtomic) {
  Config cfg;
  int calls = 0;
  cfg.on_change([&](std::string_view) { ++calls; });
  const std::vector<Config::NameValue> pairs = {
      {"maxmemory", "10mb"}, {"timeout", "5"}, {"maxclients", "abc"}};
  EXPECT_EQ(cfg.set_many(pairs),
            set_failed("maxclients", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(cfg.settings().maxmemory, 0ULL);
  EXPECT_EQ(cfg.settings().timeout, 0);
  EXPECT_EQ(calls, 0);
}

TEST(ConfigTest, MultiSetChecksNamesBeforeSettingAnything) {
  Config cfg;
  const std::vector<Config::NameValue> immutable = {{"timeout", "5"}, {"databases", "1"}};
  EXPECT_EQ(cfg.set_many(immutable), set_failed("databases", "can't set immutable config"));
  const std::vector<Config::NameValue> unknown = {{"timeout", "5"}, {"nope", "1"}, {"port", "1"}};
  EXPECT_EQ(cfg.set_many(unknown),
            "ERR Unknown option or number of arguments for CONFIG SET - 'nope'");
  const std::vector<Config::NameValue> twice = {{"timeout", "5"}, {"TIMEOUT", "6"}};
  EXPECT_EQ(cfg.set_many(twice), set_failed("TIMEOUT", "duplicate parameter"));
  EXPECT_EQ(cfg.settings().timeout, 0);
}

TEST(ConfigTest, MultiSetAppliesAllAndNotifiesEachChangedOptionOnce) {
  Config cfg;
  std::vector<std::string> changed;
  cfg.on_change([&](std::string_view name) { changed.emplace_back(name); });
  const std::vector<Config::NameValue> pairs = {
      {"requirepass", "secret"}, {"timeout", "0"}, {"list-max-ziplist-size", "4"}, {"hz", "20"}};
  EXPECT_EQ(cfg.set_many(pairs), std::nullopt);
  EXPECT_EQ(cfg.settings().requirepass, "secret");
  EXPECT_EQ(cfg.get("list-max-listpack-size"), (List{{"list-max-listpack-size", "4"}}));
  EXPECT_EQ(cfg.settings().hz, 20);
  // timeout kept its value, so no notification; the alias reports the primary name.
  EXPECT_EQ(changed, (std::vector<std::string>{"requirepass", "list-max-listpack-size", "hz"}));
}

TEST(ConfigTest, ObserversSeeTheNewValue) {
  Config cfg;
  std::string seen;
  cfg.on_change([&](std::string_view name) {
    if (name == "requirepass") seen = cfg.settings().requirepass;
  });
  EXPECT_EQ(cfg.set("requirepass", "pw"), std::nullopt);
  EXPECT_EQ(seen, "pw");
}

// ---- CONFIG GET -------------------------------------------------------------------------------

TEST(ConfigTest, GetStarReturnsEveryOptionOnceInTableOrder) {
  const Config cfg;
  const auto all = cfg.get("*");
  // + 19 aliases (list-max-ziplist-size, slaveof, slave-priority, ...), - 1 hidden option
  // (loading-process-events-interval-bytes, named only exactly): Redis 7.0.15's 192, and
  // listd's own script-cache-max-eval, metrics-port, queue-stats-max-keys, io-backend,
  // sync-replicas and sync-replicas-timeout
  EXPECT_EQ(all.size(), Config::options().size() + 19 - 1);
  EXPECT_EQ(all.size(), 198U);
  EXPECT_EQ(all.front().first, "port");
}

TEST(ConfigTest, GetGlobIsCaseInsensitive) {
  const Config cfg;
  EXPECT_EQ(cfg.get("max*"), (List{{"maxclients", "10000"},
                                   {"maxmemory", "0"},
                                   {"maxmemory-policy", "noeviction"},
                                   {"maxmemory-samples", "5"},
                                   {"maxmemory-eviction-tenacity", "10"},
                                   {"maxmemory-clients", "0"}}));
  EXPECT_EQ(cfg.get("MAX*"), (List{{"maxclients", "10000"},
                                   {"maxmemory", "0"},
                                   {"maxmemory-policy", "noeviction"},
                                   {"maxmemory-samples", "5"},
                                   {"maxmemory-eviction-tenacity", "10"},
                                   {"maxmemory-clients", "0"}}));
  EXPECT_EQ(cfg.get("list-max-*"),
            (List{{"list-max-listpack-size", "-2"}, {"list-max-ziplist-size", "-2"}}));
  EXPECT_EQ(cfg.get("t?meout"), (List{{"timeout", "0"}}));
  EXPECT_TRUE(cfg.get("nosuch*").empty());
}

TEST(ConfigTest, GetExactNameEchoesTheTypedSpelling) {
  const Config cfg;
  EXPECT_EQ(cfg.get("port"), (List{{"port", "6379"}}));
  EXPECT_EQ(cfg.get("PORT"), (List{{"PORT", "6379"}}));
  EXPECT_EQ(cfg.get("save"), (List{{"save", ""}}));
  EXPECT_TRUE(cfg.get("nosuch").empty());
}

TEST(ConfigTest, GetSeveralPatternsReportsEachOptionOnce) {
  const Config cfg;
  const std::vector<std::string_view> patterns = {"port", "po*", "timeout", "port"};
  EXPECT_EQ(cfg.get(patterns), (List{{"port", "6379"}, {"timeout", "0"}}));
}

// ---- Config-file directives -------------------------------------------------------------------

TEST(ConfigTest, DirectiveErrorsUseRedisTexts) {
  Config cfg;
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.apply_directive(V{"nosuch", "1"}), "Bad directive or wrong number of arguments");
  EXPECT_EQ(cfg.apply_directive(V{"port"}), "wrong number of arguments");
  EXPECT_EQ(cfg.apply_directive(V{"port", "1", "2"}), "wrong number of arguments");
  EXPECT_EQ(cfg.apply_directive(V{"port", "abc"}), "argument couldn't be parsed into an integer");
  EXPECT_EQ(cfg.apply_directive(V{"port", "70000"}),
            "argument must be between 0 and 65535 inclusive");
  // Retired list settings are still accepted and ignored.
  EXPECT_EQ(cfg.apply_directive(V{"list-max-ziplist-entries", "512"}), std::nullopt);
}

TEST(ConfigTest, DirectivesMaySetImmutableOptionsAndIgnoreCase) {
  Config cfg;
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.apply_directive(V{"PORT", "7000"}), std::nullopt);
  EXPECT_EQ(cfg.settings().port, 7000);
  EXPECT_EQ(cfg.apply_directive(V{"bind", "10.0.0.1", "::1"}), std::nullopt);
  EXPECT_EQ(cfg.settings().bind, (V{"10.0.0.1", "::1"}));
  EXPECT_EQ(cfg.value("bind"), "10.0.0.1 ::1");
  EXPECT_EQ(cfg.apply_directive(V{"bind", ""}), std::nullopt);
  EXPECT_TRUE(cfg.settings().bind.empty());
}

// A fuzzer finding: an empty address among others loads (as in 7.0.15), and Redis' rewrite joins
// the addresses bare, so its file reads back without it. listd quotes the words that need it.
TEST(ConfigTest, RewriteQuotesBindAddressesThatAreNotOneBareWord) {
  const std::string text = "bind 127.0.0.1 -d FLUSHALL \"\" \"a b\"\n";
  Config cfg;
  ASSERT_EQ(load_config_text(text, cfg), std::nullopt);
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.settings().bind, (V{"127.0.0.1", "-d", "FLUSHALL", "", "a b"}));
  const std::string rewritten = rewrite_config_content(text, cfg);
  EXPECT_NE(rewritten.find("bind 127.0.0.1 -d FLUSHALL \"\" \"a b\"\n"), std::string::npos);
  Config again;
  ASSERT_EQ(load_config_text(rewritten, again), std::nullopt);
  EXPECT_EQ(again.settings().bind, cfg.settings().bind);
}

TEST(ConfigTest, MultiWordDirectiveGivenAsOneWordIsSplit) {
  Config cfg;
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.apply_directive(V{"save", "900 1 300 10"}), std::nullopt);
  EXPECT_EQ(cfg.value("save"), "900 1 300 10");
  EXPECT_EQ(cfg.apply_directive(V{"bind", "127.0.0.1 ::1"}), std::nullopt);
  EXPECT_EQ(cfg.settings().bind, (V{"127.0.0.1", "::1"}));
}

TEST(ConfigTest, SaveLinesAccumulateAndEmptySaveClears) {
  Config cfg;
  using V = std::vector<std::string>;
  EXPECT_EQ(cfg.apply_directive(V{"save", "900", "1"}), std::nullopt);
  EXPECT_EQ(cfg.apply_directive(V{"save", "300", "10"}), std::nullopt);
  EXPECT_EQ(cfg.value("save"), "900 1 300 10");
  EXPECT_EQ(cfg.apply_directive(V{"save", ""}), std::nullopt);
  EXPECT_EQ(cfg.value("save"), "");
  EXPECT_EQ(cfg.apply_directive(V{"save", "1"}), "Invalid save parameters");
}

// ---- CONFIG REWRITE ---------------------------------------------------------------------------

TEST(ConfigTest, RewriteUpdatesLinesInPlaceAndAppendsNewOnes) {
  Config cfg;
  apply_text(cfg, "port 7000\nmaxmemory 1gb\nsave 900 1\nsave 300 10\n");
  ASSERT_EQ(cfg.set("maxmemory", "2gb"), std::nullopt);
  ASSERT_EQ(cfg.set("save", "60 1"), std::nullopt);
  ASSERT_EQ(cfg.set("timeout", "30"), std::nullopt);
  ASSERT_EQ(cfg.set("requirepass", "p w"), std::nullopt);

  const std::string old =
      "# my config\n"
      "Port 7000\n"
      "\n"
      "\n"
      "maxmemory 1gb\n"
      "include /etc/extra.conf\n"
      "save 900 1\n"
      "save 300 10\n"
      "rdbcompression yes\n";
  const std::string expected =
      "# my config\n"
      "port 7000\n"
      "\n"
      "maxmemory 2gb\n"
      "include /etc/extra.conf\n"
      "save 60 1\n"
      "\n"
      "rdbcompression yes\n"
      "\n"
      "# Generated by CONFIG REWRITE\n"
      "requirepass \"p w\"\n"
      "timeout 30\n"
      "dir " +
      base::repr(cfg.settings().dir) + "\nlatency-tracking-info-percentiles 50 99 99.9\n";
  EXPECT_EQ(rewrite_config_content(old, cfg), expected);
}

TEST(ConfigTest, RewriteOfAFreshConfigWritesOnlyForcedOptions) {
  const Config cfg;
  EXPECT_EQ(rewrite_config_content("", cfg),
            "# Generated by CONFIG REWRITE\n"
            "save \"\"\n"
            "dir " +
                base::repr(cfg.settings().dir) +
                "\nlatency-tracking-info-percentiles 50 99 99.9\n");
}

TEST(ConfigTest, RewriteRemovesOptionsBackAtTheirNullDefault) {
  Config cfg;
  const std::string out = rewrite_config_content("requirepass old\nbind 10.0.0.1\nhz 10\n", cfg);
  // requirepass is empty and bind is back to default: their lines go; hz stays as written.
  EXPECT_EQ(out,
            "\n"
            "hz 10\n"
            "\n"
            "# Generated by CONFIG REWRITE\n"
            "save \"\"\n"
            "dir " +
                base::repr(cfg.settings().dir) +
                "\nlatency-tracking-info-percentiles 50 99 99.9\n");
}

TEST(ConfigTest, RewriteRoundTripRestoresEveryValue) {
  TempDir tmp;
  Config cfg;
  apply_text(cfg,
             "port 7001\nbind 10.0.0.1 ::1\nrequirepass \"s e\\\"cret\"\nmaxmemory 3mb\n"
             "loglevel warning\nsave 900 1\nsave 300 10\nnotify-keyspace-events KEl\n"
             "list-max-ziplist-size 16\nappendonly yes\nproto-max-bulk-len 1000000000\n"
             "maxclients 50\ndbfilename d.rdb\nhz 1000\n");
  const std::string path = tmp.file("listd.conf");
  std::string err;
  ASSERT_TRUE(rewrite_config_file(path, cfg, err)) << err;

  Config reloaded;
  apply_text(reloaded, read_file(path));
  EXPECT_EQ(reloaded.settings(), cfg.settings());
  EXPECT_EQ(all_values(reloaded), all_values(cfg));

  // Rewriting again keeps the content; like Redis, the second pass turns the file's final
  // newline into one trailing blank line, and from then on the file is stable.
  const std::string first = read_file(path);
  ASSERT_TRUE(rewrite_config_file(path, cfg, err)) << err;
  const std::string second = read_file(path);
  EXPECT_EQ(second, first + "\n");
  ASSERT_TRUE(rewrite_config_file(path, cfg, err)) << err;
  EXPECT_EQ(read_file(path), second);
}

TEST(ConfigTest, RewriteFileKeepsCommentsAndReplacesAtomically) {
  TempDir tmp;
  const std::string path = tmp.file("listd.conf");
  std::ofstream(path) << "# keep me\ntimeout 5\n";
  Config cfg;
  ASSERT_EQ(cfg.set("timeout", "9"), std::nullopt);
  std::string err;
  ASSERT_TRUE(rewrite_config_file(path, cfg, err)) << err;
  const std::string text = read_file(path);
  EXPECT_EQ(text.rfind("# keep me\ntimeout 9\n", 0), 0U) << text;
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(tmp.path()))
    ++files;
  EXPECT_EQ(files, 1U);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IRUSR);
}

TEST(ConfigTest, RewriteFileReportsErrno) {
  Config cfg;
  std::string err;
  EXPECT_FALSE(rewrite_config_file("/nonexistent-dir-for-listd/x.conf", cfg, err));
  EXPECT_EQ(err, "No such file or directory");
}

}  // namespace
}  // namespace listd::config
