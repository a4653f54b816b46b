// The option registry: one table of options shared by the config file, the command line and
// CONFIG GET / SET / REWRITE, with Redis 7.0's parsing, formatting and error texts.
// API: Config::settings() (typed values for hot paths), get() (CONFIG GET, glob, nocase),
// set() / set_many() (CONFIG SET, atomic), apply_directive() (one config-file line),
// on_change() (observers), rewrite_entries() (what CONFIG REWRITE writes; the file side is in
// config_file.h). Config lines are split with base::split_args and quoted with base::repr.
// Invariants: settings() always holds valid values; a failed set_many() changes nothing;
// observers run after a successful change, once per changed option, with its primary name;
// the reference returned by settings() stays valid for the Config's lifetime.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "listd/config/inert_options.h"

namespace listd::config {

/// loglevel values, least to most severe.
enum class LogLevel { kDebug, kVerbose, kNotice, kWarning };
/// appendfsync values.
enum class AppendFsync { kEverysec, kAlways, kNo };
/// maxmemory-policy values (is_lfu / is_allkeys below classify them as Redis' flags do).
enum class MaxmemoryPolicy {
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kNoeviction,
};
constexpr bool is_lfu(MaxmemoryPolicy p) noexcept {
  return p == MaxmemoryPolicy::kVolatileLfu || p == MaxmemoryPolicy::kAllkeysLfu;
}
constexpr bool is_allkeys(MaxmemoryPolicy p) noexcept {
  return p == MaxmemoryPolicy::kAllkeysLru || p == MaxmemoryPolicy::kAllkeysLfu ||
         p == MaxmemoryPolicy::kAllkeysRandom;
}
/// supervised values (Redis SUPERVISED_*): how listd tells a supervisor it is ready.
enum class SupervisedMode { kNo, kUpstart, kSystemd, kAuto };
/// enable-protected-configs: may CONFIG SET touch protected options (dir, dbfilename)?
enum class ProtectedAction { kNo, kYes, kLocal };
/// io-backend (listd's own): how client sockets are driven; auto is io_uring when the kernel
/// allows it, else epoll.
enum class IoBackend { kAuto, kIoUring, kEpoll };
/// tls-auth-clients: must a TLS client present a certificate (yes), may it (optional)?
enum class TlsAuthClients { kNo, kYes, kOptional };

/// One `save <seconds> <changes>` point.
struct SavePoint {
  long long seconds = 0;
  int changes = 0;
  bool operator==(const SavePoint&) const = default;
};

/// client-output-buffer-limit classes (Redis CLIENT_TYPE_NORMAL, _SLAVE, _PUBSUB; the master
/// class exists in Redis but cannot be configured). The values index
/// ServerSettings::client_obuf_limits.
enum class ClientClass { kNormal = 0, kReplica = 1, kPubsub = 2 };
inline constexpr std::size_t kClientClassCount = 3;

/// One class of client-output-buffer-limit: 0 bytes disables that limit.
struct OutputBufferLimit {
  unsigned long long hard_bytes = 0;
  unsigned long long soft_bytes = 0;
  long long soft_seconds = 0;
  bool operator==(const OutputBufferLimit&) const = default;
};

/// Redis 7.0's defaults: normal 0 0 0, replica 256mb 64mb 60, pubsub 32mb 8mb 60.
inline constexpr std::array<OutputBufferLimit, kClientClassCount> kDefaultOutputBufferLimits{{
    {0, 0, 0},
    {256ULL << 20, 64ULL << 20, 60},
    {32ULL << 20, 8ULL << 20, 60},
}};

/// notify-keyspace-events classes, as bits of ServerSettings::notify_keyspace_events (Redis'
/// NOTIFY_* values).
inline constexpr int kNotifyKeyspace = 1 << 0;  // K
inline constexpr int kNotifyKeyevent = 1 << 1;  // E
inline constexpr int kNotifyGeneric = 1 << 2;   // g
inline constexpr int kNotifyString = 1 << 3;    // $
inline constexpr int kNotifyList = 1 << 4;      // l
inline constexpr int kNotifySet = 1 << 5;       // s
inline constexpr int kNotifyHash = 1 << 6;      // h
inline constexpr int kNotifyZset = 1 << 7;      // z
inline constexpr int kNotifyExpired = 1 << 8;   // x
inline constexpr int kNotifyEvicted = 1 << 9;   // e
inline constexpr int kNotifyStream = 1 << 10;   // t
inline constexpr int kNotifyKeyMiss = 1 << 11;  // m
inline constexpr int kNotifyModule = 1 << 13;   // d
inline constexpr int kNotifyNew = 1 << 14;      // n
/// "A": every class but key-miss and new, as in Redis 7.0.
inline constexpr int kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet |
                                  kNotifyHash | kNotifyZset | kNotifyExpired | kNotifyEvicted |
                                  kNotifyStream | kNotifyModule;

/// Typed current values of every option. Read these on hot paths (e.g. proto_max_bulk_len per
/// request) instead of string lookups. Defaults are listd's, which follow Redis 7.0 except
/// `bind` (127.0.0.1) and `save` (empty: no persistence).
struct ServerSettings {
  int port = 6379;
  std::vector<std::string> bind{"127.0.0.1"};
  std::string requirepass;  // empty: no password
  int databases = 16;
  unsigned maxclients = 10000;
  int timeout = 0;  // seconds of client idleness; 0 = never
  int tcp_keepalive = 300;
  LogLevel loglevel = LogLevel::kNotice;
  std::string logfile;  // empty: stdout
  long long proto_max_bulk_len = 512LL * 1024 * 1024;
  std::size_t client_query_buffer_limit = 1024UL * 1024 * 1024;
  bool daemonize = false;
  SupervisedMode supervised = SupervisedMode::kNo;
  std::vector<SavePoint> save;
  bool appendonly = false;
  AppendFsync appendfsync = AppendFsync::kEverysec;
  std::string dir;  // absolute path; the constructor sets it to the current directory
  std::string dbfilename = "dump.rdb";
  std::string appenddirname = "appendonlydir";
  std::string appendfilename = "appendonly.aof";
  int auto_aof_rewrite_percentage = 100;
  long long auto_aof_rewrite_min_size = 64LL * 1024 * 1024;
  bool aof_load_truncated = true;
  bool aof_timestamp_enabled = false;       // "#TS:<unix s>" annotations, as Redis 7.0
  bool no_appendfsync_on_rewrite = false;   // no fsync while a child saves (Redis' trade-off)
  bool aof_use_rdb_preamble = true;         // listd's base is always an RDB; "no" is refused
  bool stop_writes_on_bgsave_error = true;  // MISCONF after a failed BGSAVE, with save points
  bool rdbcompression = true;  // LZF for RDB strings of more than 20 bytes (files, DUMP payloads)
  int hz = 10;                 // clamped to 1..500 like Redis
  unsigned long long maxmemory = 0;
  MaxmemoryPolicy maxmemory_policy = MaxmemoryPolicy::kNoeviction;
  int maxmemory_samples = 5;  // keys sampled per db for each eviction (1..INT_MAX)
  // maxmemory-clients: bytes, or -N for N% of maxmemory (Redis keeps the percentage negative).
  long long maxmemory_clients = 0;
  int maxmemory_eviction_tenacity = 10;  // 0..100: how long one command may evict (evict.c)
  int lfu_log_factor = 10;               // the LFU counter's logarithm base
  int lfu_decay_time = 1;                // minutes per decrement of an idle LFU counter; 0: none
  // The small forms' limits (store/encoding_limits.h; the executor hands them to the store).
  std::size_t hash_max_listpack_entries = 512;
  std::size_t hash_max_listpack_value = 64;  // bytes of a field or value
  std::size_t zset_max_listpack_entries = 128;
  std::size_t zset_max_listpack_value = 64;  // bytes of a member
  std::size_t set_max_intset_entries = 512;
  int list_compress_depth = 0;  // blocks kept raw at each end of a list (store/encoding_limits.h)
  long long stream_node_max_bytes = 4096;   // a stream node's listpack size limit (0: 1 GB)
  long long stream_node_max_entries = 100;  // entries per stream node (0: no limit)
  std::string pidfile;
  std::string unixsocket;
  bool protected_mode = true;
  int tcp_backlog = 511;
  long long slowlog_log_slower_than = 10000;  // microseconds; -1 disables
  unsigned long slowlog_max_len = 128;
  long long latency_monitor_threshold = 0;  // ms; 0 disables the latency monitor
  bool latency_tracking = true;             // per-command latency histograms (INFO latencystats)
  std::vector<double> latency_tracking_info_percentiles{50.0, 99.0, 99.9};
  std::size_t hll_sparse_max_bytes = 3000;  // a sparse HyperLogLog's largest size, header included
  long long busy_reply_threshold = 5000;    // ms a script runs before others get -BUSY; 0: never
  // While loading at start-up, clients are served every this many bytes read (Redis' hidden
  // option of the same name).
  long long loading_process_events_interval_bytes = 2 * 1024 * 1024;
  long long script_cache_max_eval = 500;  // EVAL-only scripts kept (LRU); 0: no bound (7.0)
  long long metrics_port = 0;  // listd: the queue view's HTTP endpoint (/metrics, /); 0: off
  IoBackend io_backend = IoBackend::kAuto;      // listd: chosen at start-up (net/io_backend.h)
  long long tracking_table_max_keys = 1000000;  // CLIENT TRACKING's table bound; 0: none
  long long queue_stats_max_keys = 1024;        // listd: keys QueueStats tracks at once; 0: none
  int notify_keyspace_events = 0;               // kNotify* bits
  bool activerehashing = true;  // the cron moves keyspace rehash buckets (1 ms per tick)
  ProtectedAction enable_protected_configs = ProtectedAction::kNo;
  std::array<OutputBufferLimit, kClientClassCount> client_obuf_limits = kDefaultOutputBufferLimits;
  long long repl_backlog_size = 1024LL * 1024;  // bytes of stream kept for PSYNC (min 16 KB)
  long long repl_backlog_ttl = 3600;            // s without replicas before the backlog is freed
  int repl_ping_replica_period = 10;            // s between the stream's pings
  int repl_timeout = 60;                        // s of replica silence before it is dropped
  bool repl_diskless_sync = true;    // yes: the RDB goes to capa-eof replicas' sockets, no disk
  int repl_diskless_sync_delay = 5;  // s a diskless sync waits for more replicas to join
  int repl_diskless_sync_max_replicas = 0;  // that many waiting start it at once (0: no limit)
  std::string replicaof_host;  // `replicaof <host> <port>` at start-up; empty: a master
  int replicaof_port = 0;
  std::string masterauth;  // AUTH [masteruser] masterauth in the handshake
  std::string masteruser;
  bool replica_read_only = true;         // writes get -READONLY on a replica; "no" is refused
  bool replica_serve_stale_data = true;  // no: -MASTERDOWN while the master link is down
  int replica_priority = 100;            // INFO slave_priority (Sentinel's choice)
  bool replica_announced = true;         // INFO replica_announced: no hides us in SENTINEL REPLICAS
  std::string replica_announce_ip;       // REPLCONF ip-address
  int replica_announce_port = 0;         // REPLCONF listening-port (0: our port)
  // -NOREPLICAS for writes while fewer than this many replicas acked within the lag (0: off)
  int min_replicas_to_write = 0;
  int min_replicas_max_lag = 10;  // s since a replica's last ACK for it to count (0: off)
  // listd's synchronous replication (server/sync_replication.h): no reply leaves before this
  // many replicas acknowledged the writes it may show (0: off, Redis' asynchronous behaviour)
  int sync_replicas = 0;
  long long sync_replicas_timeout = 2000;  // ms a reply is held before its client is closed

  // ACL users (server/acl.h)
  bool acl_pubsub_default_all = false;  // acl-pubsub-default: allchannels (true) | resetchannels
  long long acllog_max_len = 128;
  std::string aclfile;  // empty: users come from `user` lines and ACL SETUSER
  /// The config file's `user <name> <rule> ...` lines, without "user", in file order (applied
  /// at start-up by server::load_users_at_startup, Redis ACLLoadConfiguredUsers).
  std::vector<std::vector<std::string>> acl_user_lines;

  // TLS (net/tls_context.h): the listener on tls_port and the server's SSL_CTX, whose
  // options are Redis 7.0's; empty strings are Redis' NULLs.
  int tls_port = 0;  // 0: no TLS listener
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_key_file_pass;
  std::string tls_ca_cert_file;
  std::string tls_ca_cert_dir;
  std::string tls_dh_params_file;
  TlsAuthClients tls_auth_clients = TlsAuthClients::kYes;
  std::string tls_protocols;  // empty: TLSv1.2 and TLSv1.3
  std::string tls_ciphers;
  std::string tls_ciphersuites;
  bool tls_prefer_server_ciphers = false;
  bool tls_session_caching = true;
  int tls_session_cache_size = 20 * 1024;
  int tls_session_cache_timeout = 300;
  // The replica's link to its master (net/replica_link.cpp): TLS when tls_replication, with the
  // tls-client-* certificate when both files are set, else tls-cert-file's (Redis 7.0).
  bool tls_replication = false;
  std::string tls_client_cert_file;
  std::string tls_client_key_file;
  std::string tls_client_key_file_pass;
  InertValues inert;  // options listd accepts and reports but does not act on

  bool operator==(const ServerSettings&) const = default;
};

/// How an option parses and prints its value (kMemory: byte sizes with units, printed in bytes).
enum class OptionType { kBool, kInteger, kMemory, kEnum, kString, kSpecial };

/// Option flags (bit mask in OptionInfo::flags).
inline constexpr unsigned kOptionImmutable = 1U << 0;  // CONFIG SET refuses it
inline constexpr unsigned kOptionProtected = 1U << 1;  // CONFIG SET needs enable-protected-configs
inline constexpr unsigned kOptionSensitive = 1U << 2;  // value must be redacted from logs
inline constexpr unsigned kOptionMultiArg = 1U << 3;   // takes several words (save, bind)
inline constexpr unsigned kOptionHidden = 1U << 4;     // CONFIG GET names it only exactly

/// Public description of one option of the table.
struct OptionInfo {
  std::string_view name;   // primary, lower-case
  std::string_view alias;  // empty when none (list-max-ziplist-size, lua-time-limit)
  OptionType type;
  unsigned flags;
  bool immutable() const noexcept { return (flags & kOptionImmutable) != 0; }
  bool sensitive() const noexcept { return (flags & kOptionSensitive) != 0; }
};

/// One line group that CONFIG REWRITE writes for an option (see rewrite_config_content).
struct RewriteEntry {
  std::string_view name;           // primary name
  std::vector<std::string> lines;  // empty: remove the option's lines from the file
  bool force = false;              // append even if the file does not mention the option
  /// Per-line `force` when not empty (one per line): Redis rewrites some multi-line options
  /// (client-output-buffer-limit) line by line, appending only the non-default lines.
  std::vector<bool> line_force = {};
};

/// CONFIG REWRITE's reply when the server was started without a config file.
inline constexpr std::string_view kConfigNoFileErr =
    "ERR The server is running without a config file";

/// Why an ApplyHook refused a change: the option named in the error and the reason.
struct ApplyFailure {
  std::string option;
  std::string message;
};

class Config {
 public:
  using ChangeObserver = std::function<void(std::string_view name)>;
  /// Redis' apply functions (e.g. the TLS context reload): run by set_many on the settings it
  /// is about to make current, with the primary names that change (argument order); a failure
  /// fails the batch and changes nothing.
  using ApplyHook = std::function<std::optional<ApplyFailure>(
      const ServerSettings& next, std::span<const std::string_view> changed)>;
  using NameValue = std::pair<std::string_view, std::string_view>;
  using NameValueList = std::vector<std::pair<std::string, std::string>>;

  /// Every option at its default; `dir` is the process' current directory.
  Config();

  /// Typed values; the reference stays valid and is updated in place by set/set_many.
  const ServerSettings& settings() const noexcept { return settings_; }

  /// CONFIG GET with one pattern: options whose name (or alias) matches the glob, nocase, each
  /// once, in table order. A pattern without `*?[` is an exact, case-insensitive lookup and is
  /// echoed back as typed (Redis 7.0 does the same).
  NameValueList get(std::string_view pattern) const;
  /// CONFIG GET with several patterns (Redis 7): the union, each option at most once.
  NameValueList get(std::span<const std::string_view> patterns) const;
  /// The CONFIG GET value of one option by exact name or alias, nullopt if unknown.
  std::optional<std::string> value(std::string_view name) const;

  /// CONFIG SET name value. Returns the full error reply ("ERR ...") or nullopt on success.
  std::optional<std::string> set(std::string_view name, std::string_view value,
                                 bool client_is_local = false);
  /// CONFIG SET n1 v1 n2 v2 ...: validates everything before applying anything (Redis 7).
  /// `client_is_local` matters only for enable-protected-configs=local. The caller checks the
  /// argument count (odd -> kSyntaxErr). Observers run after the whole batch is applied.
  std::optional<std::string> set_many(std::span<const NameValue> pairs,
                                      bool client_is_local = false);

  /// Applies one config-file directive, argv[0] being the option name (any case), with the
  /// config-file rules: immutable and protected options are allowed, a multi-word option given
  /// as one quoted word is split, `save` lines accumulate. Returns the bare error text Redis
  /// prints under ">>> 'line'" (e.g. "Bad directive or wrong number of arguments"), or
  /// nullopt. Observers are not called. `include` is the loader's business, not this one's.
  std::optional<std::string> apply_directive(std::span<const std::string> argv);

  /// Registers a callback run after each successful run-time change (set/set_many) with the
  /// primary name of the option that changed (e.g. "requirepass", "timeout", "maxclients").
  void on_change(ChangeObserver observer);
  /// Registers an ApplyHook (see above).
  void on_apply(ApplyHook hook);

  /// Absolute path of the config file the server was started with; empty if none.
  const std::string& config_file() const noexcept { return config_file_; }
  void set_config_file(std::string path) { config_file_ = std::move(path); }

  /// What CONFIG REWRITE writes for every option, in table order.
  std::vector<RewriteEntry> rewrite_entries() const;

  /// The option table.
  static std::span<const OptionInfo> options() noexcept;
  /// Looks an option up by name or alias, case-insensitively; nullptr if unknown.
  static const OptionInfo* find_option(std::string_view name) noexcept;

 private:
  ServerSettings settings_;
  std::vector<ChangeObserver> observers_;
  std::vector<ApplyHook> apply_hooks_;
  std::string config_file_;
};

/// Parses a Redis memory size exactly like memtoull: digits then an optional unit b, k (1000),
/// kb (1024), m, mb, g, gb, case-insensitive. No sign, no spaces. Overflow is rejected.
std::optional<unsigned long long> parse_memory_size(std::string_view text) noexcept;

}  // namespace listd::config
