#include "option_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "option_builders.h"

namespace listd::config {
namespace detail {
namespace {

constexpr std::size_t kMaxBindAddresses = 16;  // Redis CONFIG_BINDADDR_MAX
constexpr int kMinHz = 1;                      // Redis CONFIG_MIN_HZ
constexpr int kMaxHz = 500;                    // Redis CONFIG_MAX_HZ

using base::iequals;

// ---- Validators ------------------------------------------------------------------------------

// A writable replica would serve blocking pops from its own data and diverge (the research
// note's E5): listd offers the read-only form only.
const char* read_only_replica_only(bool value) {
  return value ? nullptr : "listd replicas are read-only (replica-read-only yes)";
}

const char* rdb_preamble_only(bool value) {
  return value ? nullptr : "listd writes the AOF base as an RDB preamble only";
}

// Redis pathIsBaseName.
bool is_base_name(std::string_view v) {
  return v.find('/') == std::string_view::npos && v.find('\\') == std::string_view::npos;
}

const char* no_unixsocket(std::string_view v) {
  return v.empty() ? nullptr : "listd does not listen on a unix socket (unixsocket must be empty)";
}

const char* valid_dbfilename(std::string_view v) {
  return is_base_name(v) ? nullptr : "dbfilename can't be a path, just a filename";
}

const char* valid_appendfilename(std::string_view v) {
  if (v.empty()) return "appendfilename can't be empty";
  return is_base_name(v) ? nullptr : "appendfilename can't be a path, just a filename";
}

const char* valid_appenddirname(std::string_view v) {
  if (v.empty()) return "appenddirname can't be empty";
  return is_base_name(v) ? nullptr : "appenddirname can't be a path, just a dirname";
}

// ---- Special options -------------------------------------------------------------------------

// Redis parses save points with strtoll and only checks that the whole word was consumed.
bool parse_c_integer(const std::string& word, long long& out) {
  char* end = nullptr;
  out = std::strtoll(word.c_str(), &end, 10);
  return *end == '\0';
}

bool set_save(ServerSettings& s, Args args, bool from_file, std::string& err) {
  // A single empty word means "no save points".
  if (args.size() == 1 && args[0].empty()) args = {};
  if (args.size() % 2 != 0) {
    err = "Invalid save parameters";
    return false;
  }
  std::vector<SavePoint> points;
  for (std::size_t j = 0; j < args.size(); j += 2) {
    long long seconds = 0;
    long long changes = 0;
    if (!parse_c_integer(args[j], seconds) || seconds < 1 ||
        !parse_c_integer(args[j + 1], changes) || changes < 0) {
      err = "Invalid save parameters";
      return false;
    }
    points.push_back({seconds, static_cast<int>(changes)});
  }
  // Config-file lines accumulate ("save 900 1" then "save 300 10"); CONFIG SET replaces.
  // Deviation: Redis ignores `save ""` after an earlier save line of the same file; listd clears.
  if (!from_file || points.empty()) s.save.clear();
  s.save.insert(s.save.end(), points.begin(), points.end());
  return true;
}

std::string get_save(const ServerSettings& s) {
  std::string out;
  for (const SavePoint& p : s.save) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{} {}", p.seconds, p.changes);
  }
  return out;
}

RewriteEntry rewrite_save(const ServerSettings& s) {
  RewriteEntry e{"save", {}, true};
  if (s.save.empty()) e.lines.emplace_back("save \"\"");
  for (const SavePoint& p : s.save)
    e.lines.push_back(fmt::format("save {} {}", p.seconds, p.changes));
  return e;
}

const std::vector<std::string>& default_bind() {
  static const std::vector<std::string> kDefault{"127.0.0.1"};
  return kDefault;
}

bool set_bind(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() > kMaxBindAddresses) {
    err = "Too many bind addresses specified.";
    return false;
  }
  if (args.size() == 1 && args[0].empty()) args = {};
  s.bind.assign(args.begin(), args.end());
  return true;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::string get_bind(const ServerSettings& s) { return join_words(s.bind); }

// Quoted when not one bare word ("" among others): Redis writes it bare and reads back less.
RewriteEntry rewrite_bind(const ServerSettings& s) {
  if (s.bind == default_bind()) return {"bind", {}, false};
  std::string line = s.bind.empty() ? "bind \"\"" : "bind";
  for (const std::string& a : s.bind)
    line += ' ' + (a.empty() || base::needs_repr(a) ? base::repr(a) : a);
  return {"bind", {line}, true};
}

// replicaof <host> <port> | replicaof no one (Redis setConfigReplicaOfOption).
bool set_replicaof(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() != 2) {
    err = "wrong number of arguments";
    return false;
  }
  if (iequals(args[0], "no") && iequals(args[1], "one")) {
    s.replicaof_host.clear();
    s.replicaof_port = 0;
    return true;
  }
  long long port = 0;
  if (!base::parse_strict_integer(args[1], port) || port < 0 || port > 65535) {
    err = "Invalid master port";
    return false;
  }
  s.replicaof_host = args[0];
  s.replicaof_port = static_cast<int>(port);
  return true;
}

std::string get_replicaof(const ServerSettings& s) {
  return s.replicaof_host.empty() ? "" : fmt::format("{} {}", s.replicaof_host, s.replicaof_port);
}

RewriteEntry rewrite_replicaof(const ServerSettings& s) {
  if (s.replicaof_host.empty()) return {"replicaof", {}, false};
  return {"replicaof", {fmt::format("replicaof {} {}", s.replicaof_host, s.replicaof_port)}, true};
}

// latency-tracking-info-percentiles: percentiles between 0 and 100, or none ("").
bool set_percentiles(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() == 1 && args[0].empty()) args = {};
  std::vector<double> out;
  for (const std::string& a : args) {
    long double p = 0;
    if (!base::parse_long_double(a, p)) {
      err = "Invalid latency-tracking-info-percentiles parameters";
      return false;
    }
    if (p > 100.0L || p < 0.0L) {
      err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      return false;
    }
    out.push_back(static_cast<double>(p));
  }
  s.latency_tracking_info_percentiles = std::move(out);
  return true;
}

std::string get_percentiles(const ServerSettings& s) {
  std::string out;
  for (double p : s.latency_tracking_info_percentiles) {
    std::string one = fmt::format("{:f}", p);  // Redis "%f", then trimDoubleString
    while (one.back() == '0') one.pop_back();
    if (one.back() == '.') one.pop_back();
    if (!out.empty()) out += ' ';
    out += one;
  }
  return out;
}

RewriteEntry rewrite_percentiles(const ServerSettings& s) {
  const std::string value = get_percentiles(s);
  return {"latency-tracking-info-percentiles",
          {"latency-tracking-info-percentiles " + (value.empty() ? std::string("\"\"") : value)},
          true};  // Redis always writes this line
}

// Redis chdir()s; listd validates as Redis does and stores the absolute path (app chdirs).
bool set_dir(ServerSettings& s, Args args, bool, std::string& err) {
  if (args.size() != 1) {
    err = "wrong number of arguments";
    return false;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(args[0], ec);
  if (ec) {
    err = std::generic_category().message(ec.value());
    return false;
  }
  if (!fs::is_directory(st)) {
    err = std::strerror(ENOTDIR);
    return false;
  }
  const fs::path resolved = fs::canonical(args[0], ec);
  if (ec) {
    err = std::generic_category().message(ec.value());
    return false;
  }
  s.dir = resolved.string();
  return true;
}

std::string get_dir(const ServerSettings& s) { return s.dir; }

RewriteEntry rewrite_dir(const ServerSettings& s) {
  return {"dir", {"dir " + base::repr(s.dir)}, true};
}

// ---- The table -------------------------------------------------------------------------------

constexpr EnumValue kSupervisedModes[] = {
    {"upstart", static_cast<int>(SupervisedMode::kUpstart)},
    {"systemd", static_cast<int>(SupervisedMode::kSystemd)},
    {"auto", static_cast<int>(SupervisedMode::kAuto)},
    {"no", static_cast<int>(SupervisedMode::kNo)},
};
constexpr EnumValue kLogLevels[] = {
    {"debug", static_cast<int>(LogLevel::kDebug)},
    {"verbose", static_cast<int>(LogLevel::kVerbose)},
    {"notice", static_cast<int>(LogLevel::kNotice)},
    {"warning", static_cast<int>(LogLevel::kWarning)},
};

constexpr EnumValue kAppendFsyncs[] = {
    {"everysec", static_cast<int>(AppendFsync::kEverysec)},
    {"always", static_cast<int>(AppendFsync::kAlways)},
    {"no", static_cast<int>(AppendFsync::kNo)},
};

constexpr EnumValue kMaxmemoryPolicies[] = {
    {"volatile-lru", static_cast<int>(MaxmemoryPolicy::kVolatileLru)},
    {"volatile-lfu", static_cast<int>(MaxmemoryPolicy::kVolatileLfu)},
    {"volatile-random", static_cast<int>(MaxmemoryPolicy::kVolatileRandom)},
    {"volatile-ttl", static_cast<int>(MaxmemoryPolicy::kVolatileTtl)},
    {"allkeys-lru", static_cast<int>(MaxmemoryPolicy::kAllkeysLru)},
    {"allkeys-lfu", static_cast<int>(MaxmemoryPolicy::kAllkeysLfu)},
    {"allkeys-random", static_cast<int>(MaxmemoryPolicy::kAllkeysRandom)},
    {"noeviction", static_cast<int>(MaxmemoryPolicy::kNoeviction)},
};

constexpr EnumValue kProtectedActions[] = {
    {"no", static_cast<int>(ProtectedAction::kNo)},
    {"yes", static_cast<int>(ProtectedAction::kYes)},
    {"local", static_cast<int>(ProtectedAction::kLocal)},
};

constexpr EnumValue kAclPubsubDefaults[] = {
    {"resetchannels", 0},
    {"allchannels", 1},
};

constexpr EnumValue kTlsAuthClients[] = {
    {"no", static_cast<int>(TlsAuthClients::kNo)},
    {"yes", static_cast<int>(TlsAuthClients::kYes)},
    {"optional", static_cast<int>(TlsAuthClients::kOptional)},
};

// The replication options, master side then replica side (one function: table() is long).
void add_replication_options(std::vector<OptionSpec>& t) {
  using S = ServerSettings;
  constexpr unsigned kNone = 0;
  const std::vector<OptionSpec> options = {
      memory<&S::repl_backlog_size>("repl-backlog-size", kNone, 1, LLONG_MAX, kMb, false),
      integer<&S::repl_backlog_ttl>("repl-backlog-ttl", kNone, 0, LONG_MAX, 3600),
      integer<&S::repl_ping_replica_period>("repl-ping-replica-period", kNone, 1, INT_MAX, 10,
                                            "repl-ping-slave-period"),
      integer<&S::repl_timeout>("repl-timeout", kNone, 1, INT_MAX, 60),
      boolean("repl-diskless-sync", kNone, &S::repl_diskless_sync, true),
      integer<&S::repl_diskless_sync_delay>("repl-diskless-sync-delay", kNone, 0, INT_MAX, 5),
      integer<&S::repl_diskless_sync_max_replicas>("repl-diskless-sync-max-replicas", kNone, 0,
                                                   INT_MAX, 0),
      aliased(special("replicaof", kOptionImmutable | kOptionMultiArg,
                      {&set_replicaof, &get_replicaof, &rewrite_replicaof}),
              "slaveof"),
      str_option("masterauth", kOptionSensitive, &S::masterauth, "", true),
      str_option("masteruser", kOptionSensitive, &S::masteruser, "", true),
      aliased(
          boolean("replica-read-only", kNone, &S::replica_read_only, true, &read_only_replica_only),
          "slave-read-only"),
      aliased(boolean("replica-serve-stale-data", kNone, &S::replica_serve_stale_data, true),
              "slave-serve-stale-data"),
      integer<&S::replica_priority>("replica-priority", kNone, 0, INT_MAX, 100, "slave-priority"),
      boolean("replica-announced", kNone, &S::replica_announced, true),
      aliased(str_option("replica-announce-ip", kNone, &S::replica_announce_ip, "", true),
              "slave-announce-ip"),
      integer<&S::replica_announce_port>("replica-announce-port", kNone, 0, 65535, 0,
                                         "slave-announce-port"),
      integer<&S::min_replicas_to_write>("min-replicas-to-write", kNone, 0, INT_MAX, 0,
                                         "min-slaves-to-write"),
      integer<&S::min_replicas_max_lag>("min-replicas-max-lag", kNone, 0, INT_MAX, 10,
                                        "min-slaves-max-lag"),
      integer<&S::sync_replicas>("sync-replicas", kNone, 0, INT_MAX, 0),
      integer<&S::sync_replicas_timeout>("sync-replicas-timeout", kNone, 1, LLONG_MAX, 2000),
  };
  t.insert(t.end(), options.begin(), options.end());
}

// The TLS options (net/tls_context.h; tls-cluster stays inert). tls-port, as `port`, is applied
// by net::Server's apply hook (it re-listens).
void add_tls_options(std::vector<OptionSpec>& t) {
  using S = ServerSettings;
  constexpr unsigned kNone = 0;
  const std::vector<OptionSpec> options = {
      integer<&S::tls_port>("tls-port", kNone, 0, 65535, 0),
      integer<&S::tls_session_cache_size>("tls-session-cache-size", kNone, 0, INT_MAX, 20 * 1024),
      integer<&S::tls_session_cache_timeout>("tls-session-cache-timeout", kNone, 0, INT_MAX, 300),
      enumeration<&S::tls_auth_clients>("tls-auth-clients", kNone, kTlsAuthClients,
                                        static_cast<int>(TlsAuthClients::kYes)),
      boolean("tls-prefer-server-ciphers", kNone, &S::tls_prefer_server_ciphers, false),
      boolean("tls-session-caching", kNone, &S::tls_session_caching, true),
      str_option("tls-cert-file", kNone, &S::tls_cert_file, "", true),
      str_option("tls-key-file", kNone, &S::tls_key_file, "", true),
      str_option("tls-key-file-pass", kNone, &S::tls_key_file_pass, "", true),
      str_option("tls-dh-params-file", kNone, &S::tls_dh_params_file, "", true),
      str_option("tls-ca-cert-file", kNone, &S::tls_ca_cert_file, "", true),
      str_option("tls-ca-cert-dir", kNone, &S::tls_ca_cert_dir, "", true),
      str_option("tls-protocols", kNone, &S::tls_protocols, "", true),
      str_option("tls-ciphers", kNone, &S::tls_ciphers, "", true),
      str_option("tls-ciphersuites", kNone, &S::tls_ciphersuites, "", true),
      boolean("tls-replication", kNone, &S::tls_replication, false),
      str_option("tls-client-cert-file", kNone, &S::tls_client_cert_file, "", true),
      str_option("tls-client-key-file", kNone, &S::tls_client_key_file, "", true),
      str_option("tls-client-key-file-pass", kNone, &S::tls_client_key_file_pass, "", true),
  };
  t.insert(t.end(), options.begin(), options.end());
}

// All but the ACL, replication and TLS options; `port` re-listens (net::Server's apply hook),
// `bind` is immutable (Redis re-binds).
std::vector<OptionSpec> base_options() {
  using S = ServerSettings;
  constexpr unsigned kNone = 0;
  return {
      integer<&S::port>("port", kNone, 0, 65535, 6379),
      special("bind", kOptionMultiArg, {&set_bind, &get_bind, &rewrite_bind}),
      str_option("requirepass", kOptionSensitive, &S::requirepass, "", true),
      integer<&S::databases>("databases", kOptionImmutable, 1, INT_MAX, 16),
      unsigned_integer<&S::maxclients>("maxclients", kNone, 1, UINT_MAX, 10000),
      integer<&S::timeout>("timeout", kNone, 0, INT_MAX, 0),
      integer<&S::tcp_keepalive>("tcp-keepalive", kNone, 0, INT_MAX, 300),
      enumeration<&S::loglevel>("loglevel", kNone, kLogLevels, static_cast<int>(LogLevel::kNotice)),
      str_option("logfile", kOptionImmutable, &S::logfile, "", false),
      memory<&S::proto_max_bulk_len>("proto-max-bulk-len", kNone, kMb, LONG_MAX, 512 * kMb, false),
      memory<&S::client_query_buffer_limit>("client-query-buffer-limit", kNone, kMb, LONG_MAX,
                                            1024 * kMb, true),
      boolean("daemonize", kOptionImmutable, &S::daemonize, false),
      enumeration<&S::supervised>("supervised", kOptionImmutable, kSupervisedModes,
                                  static_cast<int>(SupervisedMode::kNo)),
      special("save", kOptionMultiArg, {&set_save, &get_save, &rewrite_save}),
      boolean("appendonly", kNone, &S::appendonly, false),
      enumeration<&S::appendfsync>("appendfsync", kNone, kAppendFsyncs,
                                   static_cast<int>(AppendFsync::kEverysec)),
      special("dir", kOptionProtected, {&set_dir, &get_dir, &rewrite_dir}),
      str_option("dbfilename", kOptionProtected, &S::dbfilename, "dump.rdb", false,
                 &valid_dbfilename),
      str_option("appenddirname", kOptionImmutable, &S::appenddirname, "appendonlydir", false,
                 &valid_appenddirname),
      str_option("appendfilename", kOptionImmutable, &S::appendfilename, "appendonly.aof", false,
                 &valid_appendfilename),
      integer<&S::auto_aof_rewrite_percentage>("auto-aof-rewrite-percentage", kNone, 0, INT_MAX,
                                               100),
      memory<&S::auto_aof_rewrite_min_size>("auto-aof-rewrite-min-size", kNone, 0, LLONG_MAX,
                                            64 * kMb, false),
      boolean("aof-load-truncated", kNone, &S::aof_load_truncated, true),
      boolean("aof-timestamp-enabled", kNone, &S::aof_timestamp_enabled, false),
      boolean("no-appendfsync-on-rewrite", kNone, &S::no_appendfsync_on_rewrite, false),
      boolean("aof-use-rdb-preamble", kNone, &S::aof_use_rdb_preamble, true, &rdb_preamble_only),
      boolean("stop-writes-on-bgsave-error", kNone, &S::stop_writes_on_bgsave_error, true),
      boolean("rdbcompression", kNone, &S::rdbcompression, true),
      integer<&S::hz>("hz", kNone, 0, INT_MAX, 10),
      memory<&S::maxmemory>("maxmemory", kNone, 0, static_cast<long long>(ULLONG_MAX), 0, true),
      enumeration<&S::maxmemory_policy>("maxmemory-policy", kNone, kMaxmemoryPolicies,
                                        static_cast<int>(MaxmemoryPolicy::kNoeviction)),
      integer<&S::maxmemory_samples>("maxmemory-samples", kNone, 1, INT_MAX, 5),
      integer<&S::maxmemory_eviction_tenacity>("maxmemory-eviction-tenacity", kNone, 0, 100, 10),
      integer<&S::lfu_log_factor>("lfu-log-factor", kNone, 0, INT_MAX, 10),
      integer<&S::lfu_decay_time>("lfu-decay-time", kNone, 0, INT_MAX, 1),
      integer<&S::list_compress_depth>("list-compress-depth", kNone, 0, INT_MAX, 0),
      memory<&S::stream_node_max_bytes>("stream-node-max-bytes", kNone, 0, LONG_MAX, 4096, true),
      integer<&S::stream_node_max_entries>("stream-node-max-entries", kNone, 0, LLONG_MAX, 100),
      str_option("pidfile", kOptionImmutable, &S::pidfile, "", true),
      // Only empty: listd listens on TCP alone, and a path would claim a socket nobody serves.
      str_option("unixsocket", kOptionImmutable, &S::unixsocket, "", true, &no_unixsocket),
      boolean("protected-mode", kNone, &S::protected_mode, true),
      integer<&S::tcp_backlog>("tcp-backlog", kOptionImmutable, 0, INT_MAX, 511),
      integer<&S::slowlog_log_slower_than>("slowlog-log-slower-than", kNone, -1, LLONG_MAX, 10000),
      integer<&S::slowlog_max_len>("slowlog-max-len", kNone, 0, LONG_MAX, 128),
      integer<&S::latency_monitor_threshold>("latency-monitor-threshold", kNone, 0, LLONG_MAX, 0),
      memory<&S::hll_sparse_max_bytes>("hll-sparse-max-bytes", kNone, 0, LONG_MAX, 3000, false),
      boolean("latency-tracking", kNone, &S::latency_tracking, true),
      special("latency-tracking-info-percentiles", kOptionMultiArg,
              {&set_percentiles, &get_percentiles, &rewrite_percentiles}),
      integer<&S::busy_reply_threshold>("busy-reply-threshold", kNone, 0, LONG_MAX, 5000,
                                        "lua-time-limit"),
      integer<&S::loading_process_events_interval_bytes>("loading-process-events-interval-bytes",
                                                         kOptionHidden, 1024, INT_MAX, 2 * kMb),
      // listd's own: an EVAL cache bound (7.0 has none), the queue view's port (queue_view.h).
      integer<&S::script_cache_max_eval>("script-cache-max-eval", kNone, 0, LONG_MAX, 500),
      integer<&S::metrics_port>("metrics-port", kOptionImmutable, 0, 65535, 0),
      special("notify-keyspace-events", kNone, {&set_notify, &get_notify, &rewrite_notify}),
      enumeration<&S::enable_protected_configs>("enable-protected-configs", kOptionImmutable,
                                                kProtectedActions,
                                                static_cast<int>(ProtectedAction::kNo)),
      special(
          "client-output-buffer-limit", kOptionMultiArg,
          {&set_output_buffer_limits, &get_output_buffer_limits, &rewrite_output_buffer_limits}),
  };
}

void add_acl_options(std::vector<OptionSpec>& t) {
  using S = ServerSettings;
  t.push_back(
      enumeration<&S::acl_pubsub_default_all>("acl-pubsub-default", 0, kAclPubsubDefaults, 0));
  t.push_back(integer<&S::acllog_max_len>("acllog-max-len", 0, 0, LONG_MAX, 128));
  t.push_back(str_option("aclfile", kOptionImmutable, &S::aclfile, "", false));
}

}  // namespace
const std::vector<OptionSpec>& table() {
  static const std::vector<OptionSpec> kTable = [] {
    std::vector<OptionSpec> t = base_options();
    add_acl_options(t);
    add_replication_options(t);
    add_tls_options(t);
    t.push_back(io_backend_option());
    add_encoding_options(t);
    t.push_back(tracking_table_max_keys_option());
    t.push_back(maxmemory_clients_option());
    using S = ServerSettings;  // queue-stats-max-keys is listd's own (queue_stats.h)
    t.push_back(boolean("activerehashing", 0, &S::activerehashing, true));
    t.push_back(integer<&S::queue_stats_max_keys>("queue-stats-max-keys", 0, 0, LLONG_MAX, 1024));
    return with_inert_options(std::move(t));
  }();
  return kTable;
}

Lookup lookup(std::string_view name) noexcept {
  for (const OptionSpec& spec : table()) {
    if (iequals(spec.info.name, name)) return {&spec, spec.info.name};
    if (!spec.info.alias.empty() && iequals(spec.info.alias, name)) return {&spec, spec.info.alias};
  }
  return {};
}

namespace {

// ---- Set / get / rewrite per type ------------------------------------------------------------

std::string bounds_error(const NumericSpec& n) {
  if (n.unsigned_bounds) {
    return fmt::format("argument must be between {} and {} inclusive",
                       static_cast<unsigned long long>(n.lo),
                       static_cast<unsigned long long>(n.hi));
  }
  return fmt::format("argument must be between {} and {} inclusive", n.lo, n.hi);
}

bool set_numeric(const NumericSpec& n, OptionType type, std::string_view name, ServerSettings& s,
                 const std::string& text, std::string& err) {
  long long v = 0;
  if (type == OptionType::kMemory) {
    const std::optional<unsigned long long> bytes = parse_memory_size(text);
    if (!bytes) {
      err = "argument must be a memory value";
      return false;
    }
    v = static_cast<long long>(*bytes);
  } else if (!base::parse_strict_integer(text, v)) {
    err = "argument couldn't be parsed into an integer";
    return false;
  }
  const bool out_of_range =
      n.unsigned_bounds
          ? (static_cast<unsigned long long>(v) > static_cast<unsigned long long>(n.hi) ||
             static_cast<unsigned long long>(v) < static_cast<unsigned long long>(n.lo))
          : (v > n.hi || v < n.lo);
  if (out_of_range) {
    err = bounds_error(n);
    return false;
  }
  // Redis accepts any hz and caps it: "hz is more a hint from the user".
  if (name == "hz") v = std::clamp<long long>(v, kMinHz, kMaxHz);
  n.store(s, v);
  return true;
}

std::string get_numeric(const NumericSpec& n, OptionType type, const ServerSettings& s) {
  const long long v = n.load(s);
  if (type == OptionType::kMemory) return std::to_string(static_cast<unsigned long long>(v));
  return std::to_string(v);
}

}  // namespace

// Redis rewriteConfigFormatMemory.
std::string format_memory_for_file(long long bytes) {
  constexpr long long kKb = 1024;
  constexpr long long kGb = 1024 * kMb;
  if (bytes != 0 && bytes % kGb == 0) return fmt::format("{}gb", bytes / kGb);
  if (bytes != 0 && bytes % kMb == 0) return fmt::format("{}mb", bytes / kMb);
  if (bytes != 0 && bytes % kKb == 0) return fmt::format("{}kb", bytes / kKb);
  return std::to_string(bytes);
}

namespace {

std::string_view enum_name(const EnumSpec& e, int value) {
  for (const EnumValue& v : e.values) {
    if (v.value == value) return v.name;
  }
  return "unknown";
}

}  // namespace

bool set_option(const OptionSpec& spec, ServerSettings& s, Args args, bool from_file,
                std::string& err) {
  return std::visit(
      [&](const auto& impl) -> bool {
        using T = std::decay_t<decltype(impl)>;
        if constexpr (std::is_same_v<T, SpecialSpec>) {
          return impl.set(s, args, from_file, err);
        } else if constexpr (std::is_same_v<T, InertSpec>) {
          return set_inert(spec, impl, s, args[0], from_file, err);
        } else {
          // Single-word options always get exactly one word here (CONFIG SET passes the value,
          // the file loader checks the count first).
          const std::string& text = args[0];
          if constexpr (std::is_same_v<T, BoolSpec>) {
            bool v;
            if (iequals(text, "yes")) {
              v = true;
            } else if (iequals(text, "no")) {
              v = false;
            } else {
              err = "argument must be 'yes' or 'no'";
              return false;
            }
            if (impl.validate != nullptr && !from_file) {
              if (const char* e = impl.validate(v)) {
                err = e;
                return false;
              }
            }
            s.*impl.field = v;
            return true;
          } else if constexpr (std::is_same_v<T, NumericSpec>) {
            return set_numeric(impl, spec.info.type, spec.info.name, s, text, err);
          } else if constexpr (std::is_same_v<T, EnumSpec>) {
            for (const EnumValue& v : impl.values) {
              if (iequals(v.name, text)) {
                if (impl.validate != nullptr && !from_file) {
                  if (const char* e = impl.validate(v.value)) {
                    err = e;
                    return false;
                  }
                }
                impl.store(s, v.value);
                return true;
              }
            }
            err = "argument(s) must be one of the following: ";
            for (std::size_t i = 0; i < impl.values.size(); ++i) {
              if (i != 0) err += ", ";
              err += impl.values[i].name;
            }
            return false;
          } else {
            if (impl.validate != nullptr) {
              if (const char* e = impl.validate(text)) {
                err = e;
                return false;
              }
            }
            s.*impl.field = text;
            return true;
          }
        }
      },
      spec.impl);
}

std::string get_option(const OptionSpec& spec, const ServerSettings& s) {
  return std::visit(
      [&](const auto& impl) -> std::string {
        using T = std::decay_t<decltype(impl)>;
        if constexpr (std::is_same_v<T, BoolSpec>) {
          return s.*impl.field ? "yes" : "no";
        } else if constexpr (std::is_same_v<T, NumericSpec>) {
          return get_numeric(impl, spec.info.type, s);
        } else if constexpr (std::is_same_v<T, EnumSpec>) {
          return std::string(enum_name(impl, impl.load(s)));
        } else if constexpr (std::is_same_v<T, StringSpec>) {
          return s.*impl.field;
        } else if constexpr (std::is_same_v<T, InertSpec>) {
          return get_inert(spec, impl, s);
        } else {
          return impl.get(s);
        }
      },
      spec.impl);
}

RewriteEntry rewrite_option(const OptionSpec& spec, const ServerSettings& s) {
  const std::string_view name = spec.info.name;
  return std::visit(
      [&](const auto& impl) -> RewriteEntry {
        using T = std::decay_t<decltype(impl)>;
        if constexpr (std::is_same_v<T, BoolSpec>) {
          const bool v = s.*impl.field;
          return {name, {fmt::format("{} {}", name, v ? "yes" : "no")}, v != impl.def};
        } else if constexpr (std::is_same_v<T, NumericSpec>) {
          const long long v = impl.load(s);
          const std::string text =
              spec.info.type == OptionType::kMemory ? format_memory_for_file(v) : std::to_string(v);
          return {name, {fmt::format("{} {}", name, text)}, v != impl.def};
        } else if constexpr (std::is_same_v<T, EnumSpec>) {
          const int v = impl.load(s);
          return {name, {fmt::format("{} {}", name, enum_name(impl, v))}, v != impl.def};
        } else if constexpr (std::is_same_v<T, StringSpec>) {
          const std::string& v = s.*impl.field;
          if (impl.empty_is_null && v.empty()) return {name, {}, false};
          const bool force = impl.empty_is_null || v != impl.def;
          return {name, {fmt::format("{} {}", name, base::repr(v))}, force};
        } else if constexpr (std::is_same_v<T, InertSpec>) {
          return rewrite_inert(spec, impl, s);
        } else {
          return impl.rewrite(s);
        }
      },
      spec.impl);
}

std::optional<std::string> refused_after_load(const ServerSettings& s) {
  for (const OptionSpec& spec : table()) {
    const char* why = std::visit(
        [&](const auto& impl) -> const char* {
          using T = std::decay_t<decltype(impl)>;
          if constexpr (std::is_same_v<T, BoolSpec>) {
            return impl.validate != nullptr ? impl.validate(s.*impl.field) : nullptr;
          } else if constexpr (std::is_same_v<T, EnumSpec>) {
            return impl.validate != nullptr ? impl.validate(impl.load(s)) : nullptr;
          } else if constexpr (std::is_same_v<T, InertSpec>) {
            return impl.refuse != nullptr ? impl.refuse(get_inert(spec, impl, s)) : nullptr;
          } else {
            return nullptr;
          }
        },
        spec.impl);
    if (why != nullptr) {
      return fmt::format("'{} {}': {}", spec.info.name, get_option(spec, s), why);
    }
  }
  return std::nullopt;
}

}  // namespace detail

// ---- Free functions --------------------------------------------------------------------------

std::optional<unsigned long long> parse_memory_size(std::string_view text) noexcept {
  // Redis walks a C string.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    text = text.substr(0, nul);
  }
  if (!text.empty() && text[0] == '-') return std::nullopt;
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string_view unit = text.substr(digits);
  static constexpr std::pair<std::string_view, unsigned long long> kUnits[] = {
      {"", 1},
      {"b", 1},
      {"k", 1000},
      {"kb", 1024},
      {"m", 1000 * 1000},
      {"mb", 1024 * 1024},
      {"g", 1000ULL * 1000 * 1000},
      {"gb", 1024ULL * 1024 * 1024}};
  unsigned long long mul = 0;
  for (const auto& [name, factor] : kUnits)
    if (base::iequals(unit, name)) mul = factor;
  if (mul == 0) return std::nullopt;
  // No digits at all ("", "kb") is 0 in Redis: strtoull("") returns 0 without an error.
  unsigned long long value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const unsigned d = static_cast<unsigned>(text[i] - '0');
    if (value > (ULLONG_MAX - d) / 10) return std::nullopt;
    value = value * 10 + d;
  }
  // Redis lets value*mul wrap around; listd rejects the overflow instead.
  if (value != 0 && mul > ULLONG_MAX / value) return std::nullopt;
  return value * mul;
}

}  // namespace listd::config
