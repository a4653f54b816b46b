#include "listd/server/info.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/memory_stats.h"
#include "listd/server/memory_usage.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"
#include "listd/server/scripting.h"
#include "listd/server/text.h"
#include "listd/server/version.h"

namespace listd::server {
namespace {

constexpr std::string_view kDefaultSections[] = {"server", "clients",     "memory", "persistence",
                                                 "stats",  "replication", "cpu",    "keyspace"};

std::string human_bytes(std::size_t n) {
  const double d = static_cast<double>(n);
  if (n < 1024) return fmt::format("{}B", n);
  if (n < 1024 * 1024) return fmt::format("{:.2f}K", d / 1024);
  if (n < 1024ull * 1024 * 1024) return fmt::format("{:.2f}M", d / (1024 * 1024));
  return fmt::format("{:.2f}G", d / (1024.0 * 1024 * 1024));
}

void section_server(Executor& exec, std::string& out) {
  utsname u{};
  ::uname(&u);
  const std::uint64_t uptime_ms = exec.clock().monotonic_ms() - exec.stats().start_ms;
  out += "# Server\r\n";
  out += fmt::format("redis_version:{}\r\n", kRedisCompatVersion);
  out += fmt::format("listd_version:{}\r\n", kListdVersion);
  out += "redis_git_sha1:00000000\r\nredis_git_dirty:0\r\nredis_build_id:0\r\n";
  out += "redis_mode:standalone\r\n";
  out += fmt::format("os:{} {} {}\r\n", u.sysname, u.release, u.machine);
  out += fmt::format("arch_bits:{}\r\n", sizeof(void*) * 8);
  out += fmt::format("multiplexing_api:{}\r\n", exec.stats().multiplexing_api);
  out += fmt::format("gcc_version:{}.{}.{}\r\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
  out += fmt::format("process_id:{}\r\n", ::getpid());
  out += fmt::format("run_id:{}\r\n", exec.replication().run_id());
  const config::ServerSettings& ports = exec.config().settings();
  out += fmt::format("tcp_port:{}\r\n", ports.port != 0 ? ports.port : ports.tls_port);
  out += fmt::format("server_time_usec:{}\r\n", exec.clock().unix_us());
  out += fmt::format("uptime_in_seconds:{}\r\n", uptime_ms / 1000);
  out += fmt::format("uptime_in_days:{}\r\n", uptime_ms / 86400000);
  out += fmt::format("hz:{}\r\n", exec.config().settings().hz);
  out += "io_threads_active:0\r\n";  // one thread does all I/O
  out += "executable:listd\r\n";
  out += fmt::format("config_file:{}\r\n", exec.config().config_file());
}

void section_clients(Executor& exec, std::string& out) {
  out += "# Clients\r\n";
  out += fmt::format("connected_clients:{}\r\n", exec.clients().count());
  out += "cluster_connections:0\r\n";
  out += fmt::format("maxclients:{}\r\n", exec.config().settings().maxclients);
  out += fmt::format("client_recent_max_input_buffer:{}\r\n",
                     exec.output_buffer_guard().recent_max_input());
  out += fmt::format("client_recent_max_output_buffer:{}\r\n",
                     exec.output_buffer_guard().recent_max_output());
  // Redis counts a client postponed by CLIENT PAUSE as blocked (blockClient BLOCKED_POSTPONE).
  out += fmt::format("blocked_clients:{}\r\n", exec.blocking().waiters().blocked_count() +
                                                   exec.client_pause().postponed_count());
  out += fmt::format("tracking_clients:{}\r\n", exec.tracking().tracking_clients());
  // Redis' clients_timeout_table: every client blocked with a deadline (pops, XREAD BLOCK,
  // WAIT); a block without one (timeout 0, a CLIENT PAUSE postponement) is not in it.
  out += fmt::format("clients_in_timeout_table:{}\r\n",
                     exec.blocking().timers().size() + exec.replication().timed_waits());
  out += fmt::format("total_blocking_keys:{}\r\n", exec.blocking().waiters().blocking_key_count());
  out += "total_blocking_keys_on_nokey:0\r\n";
}

// Redis 7.0's field order; the allocator_* and defrag fields of jemalloc are left out.
void section_memory(Executor& exec, std::string& out) {
  MemoryUsage& mem = exec.memory();
  const std::size_t used = mem.used();
  const std::size_t rss = resident_memory_bytes();
  const std::size_t peak = mem.peak();
  // MEMORY STATS' overhead.total, as Redis (object.c getMemoryOverheadData).
  const std::size_t overhead = std::min(used, memory_overhead(exec).overhead_total);
  const std::size_t dataset = used - overhead;
  const std::size_t net = used > mem.startup() ? used - mem.startup() : 0;
  auto perc = [](std::size_t part, std::size_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  out += "# Memory\r\n";
  out += fmt::format("used_memory:{}\r\nused_memory_human:{}\r\n", used, human_bytes(used));
  out += fmt::format("used_memory_rss:{}\r\nused_memory_rss_human:{}\r\n", rss, human_bytes(rss));
  out +=
      fmt::format("used_memory_peak:{}\r\nused_memory_peak_human:{}\r\n", peak, human_bytes(peak));
  out += fmt::format("used_memory_peak_perc:{:.2f}%\r\n", perc(used, peak));
  out +=
      fmt::format("used_memory_overhead:{}\r\nused_memory_startup:{}\r\n", overhead, mem.startup());
  out += fmt::format("used_memory_dataset:{}\r\nused_memory_dataset_perc:{:.2f}%\r\n", dataset,
                     perc(dataset, net));
  // EVAL's Lua heap and script cache, then the FUNCTION engine's heap and libraries.
  const Scripting& scripting = exec.scripting();
  const FunctionLibraries& functions = scripting.functions();
  const std::size_t lua = scripting.lua_memory();
  const std::size_t vm_functions = functions.lua_memory();
  const std::size_t scripts = scripting.scripts_memory() + functions.overhead();
  out += fmt::format("used_memory_lua:{}\r\nused_memory_vm_eval:{}\r\nused_memory_lua_human:{}\r\n",
                     lua, lua, human_bytes(lua));
  out += fmt::format("used_memory_scripts_eval:{}\r\nnumber_of_cached_scripts:{}\r\n",
                     scripting.scripts_memory(), scripting.script_count());
  out += fmt::format("number_of_functions:{}\r\nnumber_of_libraries:{}\r\n",
                     functions.function_count(), functions.libraries().size());
  out += fmt::format(
      "used_memory_vm_functions:{}\r\nused_memory_vm_total:{}\r\nused_memory_vm_total_human:{}\r\n",
      vm_functions, lua + vm_functions, human_bytes(lua + vm_functions));
  out += fmt::format("used_memory_functions:{}\r\n", functions.overhead());
  out += fmt::format("used_memory_scripts:{}\r\nused_memory_scripts_human:{}\r\n", scripts,
                     human_bytes(scripts));
  const config::ServerSettings& settings = exec.config().settings();
  out += fmt::format("maxmemory:{}\r\nmaxmemory_human:{}\r\nmaxmemory_policy:{}\r\n",
                     settings.maxmemory, human_bytes(settings.maxmemory),
                     exec.config().get("maxmemory-policy").front().second);
  out += fmt::format("mem_fragmentation_ratio:{:.2f}\r\nmem_fragmentation_bytes:{}\r\n",
                     used ? static_cast<double>(rss) / static_cast<double>(used) : 0.0,
                     static_cast<long long>(rss) - static_cast<long long>(used));
  out += fmt::format("mem_aof_buffer:{}\r\n", exec.persistence().pending_bytes().capacity());
  out += "mem_allocator:libc\r\n";
  // No defragmenter and no lazy-free thread: frees happen at once.
  out += "active_defrag_running:0\r\nlazyfree_pending_objects:0\r\nlazyfreed_objects:0\r\n";
}

void section_persistence(Executor& exec, std::string& out) {
  out += "# Persistence\r\n";
  exec.persistence().info(out);  // src/server/persistence.cpp
}

void section_stats(Executor& exec, std::string& out) {
  const ServerStats& s = exec.stats();
  out += "# Stats\r\n";
  out += fmt::format("total_connections_received:{}\r\n", s.total_connections);
  out += fmt::format("total_commands_processed:{}\r\n", s.total_commands);
  const InstantaneousMetrics& rate = exec.instantaneous();
  const auto kbps = [&](InstantMetric m) { return static_cast<double>(rate.per_second(m)) / 1024; };
  out += fmt::format("instantaneous_ops_per_sec:{}\r\n", rate.per_second(InstantMetric::kCommands));
  out += fmt::format("total_net_input_bytes:{}\r\n", s.total_net_input_bytes());
  out += fmt::format("total_net_output_bytes:{}\r\n", s.total_net_output_bytes());
  out += fmt::format("total_net_repl_input_bytes:{}\r\ntotal_net_repl_output_bytes:{}\r\n",
                     s.net_repl_input_bytes, s.net_repl_output_bytes);
  out += fmt::format("instantaneous_input_kbps:{:.2f}\r\ninstantaneous_output_kbps:{:.2f}\r\n",
                     kbps(InstantMetric::kNetInput), kbps(InstantMetric::kNetOutput));
  out += fmt::format(
      "instantaneous_input_repl_kbps:{:.2f}\r\ninstantaneous_output_repl_kbps:{:.2f}\r\n",
      kbps(InstantMetric::kNetReplInput), kbps(InstantMetric::kNetReplOutput));
  out += fmt::format("rejected_connections:{}\r\n", s.rejected_connections);
  exec.replication().info_stats(out);
  out += fmt::format("expired_keys:{}\r\n", s.expired_keys);
  out += fmt::format("expired_stale_perc:{:.2f}\r\n", s.expire_cycle.stale_percent());
  out +=
      fmt::format("expired_time_cap_reached_count:{}\r\n", s.expire_cycle.time_cap_reached_count);
  out += fmt::format("expire_cycle_cpu_milliseconds:{}\r\n", s.expire_cycle.cpu_milliseconds());
  out += fmt::format("evicted_keys:{}\r\n", exec.evictor().evicted_keys());
  out += fmt::format("evicted_clients:{}\r\n", exec.client_evictor().evicted_clients());
  out += fmt::format("total_eviction_exceeded_time:{}\r\ncurrent_eviction_exceeded_time:{}\r\n",
                     exec.evictor().total_exceeded_ms(), exec.evictor().current_exceeded_ms());
  // Redis 7.4 has this field; 7.0 has no bound on its EVAL scripts (script-cache-max-eval).
  out += fmt::format("evicted_scripts:{}\r\n", exec.scripting().evicted_scripts());
  out += fmt::format("keyspace_hits:{}\r\n", s.keyspace_hits);
  out += fmt::format("keyspace_misses:{}\r\n", s.keyspace_misses);
  const PubSub& ps = exec.pubsub();
  out += fmt::format("pubsub_channels:{}\r\npubsub_patterns:{}\r\npubsubshard_channels:{}\r\n",
                     ps.channel_count(ChannelScope::kGlobal), ps.pattern_count(),
                     ps.channel_count(ChannelScope::kShard));
  const persistence::ForkStats& forks = exec.persistence().fork_stats();
  out += fmt::format("latest_fork_usec:{}\r\ntotal_forks:{}\r\n", forks.latest_fork_usec,
                     forks.total_forks);
  out += fmt::format("migrate_cached_sockets:{}\r\n", exec.migrate_sockets().size());
  // Features listd does not have (replica-side expiry, active defrag, payload sanitizing, I/O
  // threads): their counters are truly zero.
  out += "slave_expires_tracked_keys:0\r\n";
  out += "active_defrag_hits:0\r\nactive_defrag_misses:0\r\n";
  out += "active_defrag_key_hits:0\r\nactive_defrag_key_misses:0\r\n";
  out += "total_active_defrag_time:0\r\ncurrent_active_defrag_time:0\r\n";
  const Tracking& tracking = exec.tracking();
  out += fmt::format("tracking_total_keys:{}\r\ntracking_total_items:{}\r\n", tracking.total_keys(),
                     tracking.total_items());
  out += fmt::format("tracking_total_prefixes:{}\r\n", tracking.total_prefixes());
  out += fmt::format("unexpected_error_replies:{}\r\n", s.unexpected_error_replies);
  out += fmt::format("total_error_replies:{}\r\n", s.total_error_replies);
  out += "dump_payload_sanitizations:0\r\n";
  out += fmt::format("total_reads_processed:{}\r\ntotal_writes_processed:{}\r\n",
                     s.total_reads_processed, s.total_writes_processed);
  out += "io_threaded_reads_processed:0\r\nio_threaded_writes_processed:0\r\n";
  // Replies go into one growing string per client: no reply buffer is ever resized the way
  // Redis' clientsCronResizeOutputBuffer does.
  out += "reply_buffer_shrinks:0\r\nreply_buffer_expands:0\r\n";
  // A later Redis' field (listd extension, docs/COMPATIBILITY.md).
  out += fmt::format("client_output_buffer_limit_disconnections:{}\r\n",
                     exec.output_buffer_guard().disconnections());
}

void section_replication(Executor& exec, std::string& out) {
  out += "# Replication\r\n";
  if (exec.replica_side().active()) {
    exec.replica_side().info(out);
    exec.replication().info_history(out);
  } else {
    exec.replication().info(out);
  }
}

void section_cpu(Executor&, std::string& out) {
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  out += "# CPU\r\n";
  out += fmt::format("used_cpu_sys:{:.6f}\r\n", secs(self.ru_stime));
  out += fmt::format("used_cpu_user:{:.6f}\r\n", secs(self.ru_utime));
  rusage children{}, main_thread{};
  ::getrusage(RUSAGE_CHILDREN, &children);
  ::getrusage(RUSAGE_THREAD, &main_thread);  // the executor runs on the main thread
  out += fmt::format("used_cpu_sys_children:{:.6f}\r\n", secs(children.ru_stime));
  out += fmt::format("used_cpu_user_children:{:.6f}\r\n", secs(children.ru_utime));
  out += fmt::format("used_cpu_sys_main_thread:{:.6f}\r\n", secs(main_thread.ru_stime));
  out += fmt::format("used_cpu_user_main_thread:{:.6f}\r\n", secs(main_thread.ru_utime));
}

void section_cluster(Executor&, std::string& out) { out += "# Cluster\r\ncluster_enabled:0\r\n"; }

void section_keyspace(Executor& exec, std::string& out) {
  out += "# Keyspace\r\n";
  const std::int64_t now = exec.clock().unix_ms();
  for (int i = 0; i < exec.keyspace().database_count(); ++i) {
    const store::Database& db = exec.keyspace().db(i);
    if (db.size() == 0) continue;
    out += fmt::format("db{}:keys={},expires={},avg_ttl={}\r\n", i, db.size(), db.expires_count(),
                       db.average_ttl(now));
  }
}

void section_commandstats(Executor& exec, std::string& out) {
  out += "# Commandstats\r\n";
  std::vector<std::pair<std::string_view, CommandStats>> rows;
  const auto& specs = exec.commands().by_slot();
  const auto& stats = exec.command_stats();
  for (std::size_t i = 0; i < stats.size() && i < specs.size(); ++i) {
    const CommandStats& cs = stats[i];
    if (cs.calls || cs.rejected || cs.failed) rows.emplace_back(specs[i]->full_name, cs);
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, cs] : rows) {
    out += fmt::format(
        "cmdstat_{}:calls={},usec={},usec_per_call={:.2f},rejected_calls={},failed_calls={}\r\n",
        name, cs.calls, cs.usec,
        cs.calls ? static_cast<double>(cs.usec) / static_cast<double>(cs.calls) : 0.0, cs.rejected,
        cs.failed);
  }
}

void section_errorstats(Executor& exec, std::string& out) {
  out += "# Errorstats\r\n";
  for (const auto& [code, count] : exec.error_stats().counts()) {
    std::string safe = code;  // Redis getSafeInfoString
    std::replace_if(
        safe.begin(), safe.end(), [](char ch) { return ch == ':' || ch == '\r' || ch == '\n'; },
        '_');
    out += fmt::format("errorstat_{}:count={}\r\n", safe, count);
  }
}

/// "%f" without its trailing zeros (Redis trimDoubleString): 50 -> "50", 99.9 -> "99.9".
std::string percentile_label(double p) {
  std::string s = fmt::format("{:f}", p);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

void section_latencystats(Executor& exec, std::string& out) {
  out += "# Latencystats\r\n";
  const config::ServerSettings& settings = exec.config().settings();
  if (!settings.latency_tracking) return;
  std::vector<std::pair<std::string_view, const LatencyHistogram*>> rows;
  const auto& specs = exec.commands().by_slot();
  const auto& histograms = exec.latency_histograms();
  for (std::size_t i = 0; i < histograms.size() && i < specs.size(); ++i)
    if (histograms[i].total()) rows.emplace_back(specs[i]->full_name, &histograms[i]);
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, h] : rows) {
    out += fmt::format("latency_percentiles_usec_{}:", name);
    const auto& percentiles = settings.latency_tracking_info_percentiles;
    for (std::size_t j = 0; j < percentiles.size(); ++j) {
      if (j) out += ',';
      out += fmt::format("p{}={:.3f}", percentile_label(percentiles[j]),
                         static_cast<double>(h->value_at_percentile(percentiles[j])) / 1000.0);
    }
    out += "\r\n";
  }
}

// listd's own: per-script calls and times (script_stats.h).
void section_scriptstats(Executor& exec, std::string& out) {
  const Scripting& scripting = exec.scripting();
  scripting.stats().append_info(scripting.functions(), out);
}

struct Section {
  std::string_view name;
  void (*emit)(Executor&, std::string&);
  bool in_default;
  bool in_all = true;  ///< false: only when named (listd's own sections)
};

constexpr Section kSections[] = {
    {"server", section_server, true},
    {"clients", section_clients, true},
    {"memory", section_memory, true},
    {"persistence", section_persistence, true},
    {"stats", section_stats, true},
    {"replication", section_replication, true},
    {"cpu", section_cpu, true},
    {"commandstats", section_commandstats, false},
    {"errorstats", section_errorstats, false},
    {"latencystats", section_latencystats, false},
    {"cluster", section_cluster, true},
    {"keyspace", section_keyspace, true},
    {"scriptstats", section_scriptstats, false, false},
};

}  // namespace

std::size_t resident_memory_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

std::string build_info(Executor& exec, std::span<const std::string_view> sections) {
  bool all = false, defaults = sections.empty();
  std::vector<std::string_view> wanted;
  for (std::string_view s : sections) {
    if (base::iequals(s, "all") || base::iequals(s, "everything"))
      all = true;
    else if (base::iequals(s, "default"))
      defaults = true;
    else
      wanted.push_back(s);
  }
  std::string out;
  for (const Section& sec : kSections) {
    bool include = (all && sec.in_all) || (defaults && sec.in_default);
    for (std::string_view w : wanted) include = include || base::iequals(w, sec.name);
    if (!include) continue;
    if (!out.empty()) out += "\r\n";
    sec.emit(exec, out);
  }
  return out;
}

}  // namespace listd::server
