// LATENCY LATEST | HISTORY | RESET | GRAPH | DOCTOR | HISTOGRAM | HELP (Redis 7.0 latency.c):
// the latency monitor's events (latency_monitor.h) and the per-command latency histograms
// (latency_histogram.h). GRAPH and DOCTOR are human-readable text in listd's own words, with
// the figures Redis reports.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"

namespace listd::server {
namespace {

std::int64_t now_s(CommandContext& ctx) { return ctx.now_ms() / 1000; }

// LATENCY LATEST
void cmd_latency_latest(CommandContext& ctx) {
  const auto& events = ctx.exec().latency_monitor().events();
  ctx.reply().array_header(events.size());
  for (const auto& [name, ts] : events) {
    ctx.reply().array_header(4);
    ctx.reply().bulk(name);
    ctx.reply().integer(ts.latest().time_s);
    ctx.reply().integer(static_cast<long long>(ts.latest().latency_ms));
    ctx.reply().integer(static_cast<long long>(ts.max_ms));
  }
}

/// The used samples of a series, oldest first.
template <class F>
void for_each_sample(const LatencyMonitor::Series& ts, F&& f) {
  for (std::size_t j = 0; j < LatencyMonitor::kSamples; ++j) {
    const auto& s = ts.samples[(ts.next + j) % LatencyMonitor::kSamples];
    if (s.time_s != 0) f(s);
  }
}

// LATENCY HISTORY event
void cmd_latency_history(CommandContext& ctx) {
  const LatencyMonitor::Series* ts = ctx.exec().latency_monitor().find(ctx.arg(2));
  if (!ts) {
    ctx.reply().array_header(0);
    return;
  }
  std::size_t n = 0;
  for_each_sample(*ts, [&](const auto&) { ++n; });
  ctx.reply().array_header(n);
  for_each_sample(*ts, [&](const LatencyMonitor::Sample& s) {
    ctx.reply().array_header(2);
    ctx.reply().integer(s.time_s);
    ctx.reply().integer(static_cast<long long>(s.latency_ms));
  });
}

// LATENCY RESET [event ...]
void cmd_latency_reset(CommandContext& ctx) {
  LatencyMonitor& monitor = ctx.exec().latency_monitor();
  if (ctx.argc() == 2) {
    ctx.reply().integer(monitor.reset_all());
    return;
  }
  int resets = 0;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    // Redis compares event names without case here (and only here).
    std::string found;
    for (const auto& [name, ts] : monitor.events())
      if (base::iequals(name, ctx.arg(j))) found = name;
    if (!found.empty()) resets += monitor.reset(found);
  }
  ctx.reply().integer(resets);
}

/// "12s", "3m", "2h", "1d": how long ago, as Redis labels the graph's columns.
std::string age_label(std::int64_t elapsed) {
  if (elapsed < 60) return fmt::format("{}s", elapsed);
  if (elapsed < 3600) return fmt::format("{}m", elapsed / 60);
  if (elapsed < 86400) return fmt::format("{}h", elapsed / 3600);
  return fmt::format("{}d", elapsed / 86400);
}

// LATENCY GRAPH event: Redis' title line, then one column per sample (oldest first), four
// rows of '#' scaled between the lowest and highest sample, and the age of each column.
void cmd_latency_graph(CommandContext& ctx) {
  const LatencyMonitor::Series* ts = ctx.exec().latency_monitor().find(ctx.arg(2));
  if (!ts) {
    ctx.reply().error(fmt::format("ERR No samples available for event '{}'", ctx.arg(2)));
    return;
  }
  std::vector<LatencyMonitor::Sample> samples;
  for_each_sample(*ts, [&](const LatencyMonitor::Sample& s) { samples.push_back(s); });
  if (samples.size() > 80) samples.erase(samples.begin(), samples.end() - 80);
  std::uint64_t lo = samples.empty() ? 0 : samples.front().latency_ms, hi = lo;
  for (const auto& s : samples) {
    lo = std::min(lo, s.latency_ms);
    hi = std::max(hi, s.latency_ms);
  }
  std::string graph = fmt::format("{} - high {} ms, low {} ms (all time high {} ms)\n", ctx.arg(2),
                                  hi, lo, ts->max_ms);
  graph += std::string(80, '-') + "\n";
  constexpr int kRows = 4;
  for (int row = kRows; row >= 1; --row) {
    for (const auto& s : samples) {
      const double level = hi == lo ? kRows
                                    : 1.0 + (kRows - 1.0) * static_cast<double>(s.latency_ms - lo) /
                                                static_cast<double>(hi - lo);
      graph += level >= row ? '#' : ' ';
    }
    graph += '\n';
  }
  for (const auto& s : samples) graph += age_label(now_s(ctx) - s.time_s) + ' ';
  graph += '\n';
  ctx.reply().verbatim(graph);
}

struct EventSummary {
  int samples = 0;
  std::uint64_t avg = 0, mad = 0;
  std::int64_t period = 0;
};

/// Redis analyzeLatencyForEvent: sample count, mean, mean absolute deviation, time span.
EventSummary summarize(const LatencyMonitor::Series& ts, std::int64_t now) {
  EventSummary s;
  std::uint64_t sum = 0;
  std::int64_t oldest = 0;
  for_each_sample(ts, [&](const LatencyMonitor::Sample& x) {
    ++s.samples;
    sum += x.latency_ms;
    if (oldest == 0 || x.time_s < oldest) oldest = x.time_s;
  });
  if (!s.samples) return s;
  s.avg = sum / static_cast<std::uint64_t>(s.samples);
  s.period = std::max<std::int64_t>(now - oldest, 1);
  std::uint64_t dev = 0;
  for_each_sample(ts, [&](const LatencyMonitor::Sample& x) {
    const auto d = static_cast<std::int64_t>(s.avg) - static_cast<std::int64_t>(x.latency_ms);
    dev += static_cast<std::uint64_t>(d < 0 ? -d : d);
  });
  s.mad = dev / static_cast<std::uint64_t>(s.samples);
  return s;
}

/// DOCTOR's hint for an event listd records.
std::string_view advice_for(std::string_view event) {
  if (event == "command")
    return "Slow commands: SLOWLOG GET names them; O(N) commands on large keys are the usual "
           "cause.";
  if (event == "fast-command")
    return "O(1) commands were slow: the process was likely not given CPU time (a busy or "
           "overcommitted host).";
  if (event == "fork")
    return "fork() was slow: it copies the page tables, so it grows with the dataset; a VM "
           "without fast fork support or transparent huge pages make it worse.";
  if (event == "expire-cycle")
    return "Active expiry ran long: many keys expired at about the same time.";
  if (event == "aof-write-pending-fsync" || event == "aof-write-alone" ||
      event == "aof-write-active-child" || event == "aof-write")
    return "Writes to the AOF were slow: the disk is busy or slow (a local SSD helps); during a "
           "child's save, no-appendfsync-on-rewrite yes avoids waiting on its I/O.";
  if (event == "aof-fsync-always")
    return "fdatasync with appendfsync always was slow: each turn waits for the disk; everysec "
           "bounds the loss to about a second of writes.";
  if (event == "eviction-del") return "Evicting a key was slow: large keys take long to free.";
  if (event == "eviction-cycle")
    return "An eviction cycle was slow: writes outrun maxmemory by a lot at once; a higher "
           "limit or a lower maxmemory-eviction-tenacity spreads the work.";
  return "";
}

// LATENCY DOCTOR
void cmd_latency_doctor(CommandContext& ctx) {
  const LatencyMonitor& monitor = ctx.exec().latency_monitor();
  const long long threshold = ctx.exec().config().settings().latency_monitor_threshold;
  std::string report;
  if (monitor.events().empty()) {
    report = threshold == 0
                 ? "The latency monitor is off (latency-monitor-threshold is 0). Enable it with "
                   "CONFIG SET latency-monitor-threshold <milliseconds>.\n"
                 : "No latency spike was recorded so far.\n";
    ctx.reply().verbatim(report);
    return;
  }
  report =
      fmt::format("Latency spikes of at least {} ms recorded by this instance:\n\n", threshold);
  int n = 0;
  for (const auto& [name, ts] : monitor.events()) {
    const EventSummary s = summarize(ts, now_s(ctx));
    report += fmt::format(
        "{}. {}: {} latency spikes (average {}ms, mean deviation {}ms, period {:.2f} sec). "
        "Worst all time event {}ms.",
        ++n, name, s.samples, s.avg, s.mad,
        s.samples ? static_cast<double>(s.period) / s.samples : 0.0, ts.max_ms);
    if (const std::string_view a = advice_for(name); !a.empty()) report += fmt::format(" {}", a);
    report += '\n';
  }
  ctx.reply().verbatim(report);
}

/// One command's entry of LATENCY HISTOGRAM: {calls, histogram_usec: {bucket: cumulative}}.
void reply_histogram(CommandContext& ctx, const CommandSpec& spec, const LatencyHistogram& h) {
  ctx.reply().bulk(spec.full_name);
  ctx.reply().map_header(2);
  ctx.reply().bulk("calls");
  ctx.reply().integer(static_cast<long long>(h.total()));
  ctx.reply().bulk("histogram_usec");
  std::size_t buckets = 0;
  h.for_each_log_bucket([&](std::uint64_t, std::uint64_t) { ++buckets; });
  ctx.reply().map_header(buckets);
  h.for_each_log_bucket([&](std::uint64_t us, std::uint64_t cumulative) {
    ctx.reply().integer(static_cast<long long>(us));
    ctx.reply().integer(static_cast<long long>(cumulative));
  });
}

// LATENCY HISTOGRAM [command ...]
void cmd_latency_histogram(CommandContext& ctx) {
  const auto& histograms = ctx.exec().latency_histograms();
  std::vector<const CommandSpec*> chosen;
  auto take = [&](const CommandSpec& spec) {
    if (histograms[spec.slot].total()) chosen.push_back(&spec);
  };
  if (ctx.argc() == 2) {
    for (const CommandSpec* spec : ctx.exec().commands().by_slot()) take(*spec);
  } else {
    for (std::size_t j = 2; j < ctx.argc(); ++j) {
      const std::string_view name = ctx.arg(j);
      const std::size_t bar = name.find('|');
      const CommandSpec* spec = ctx.exec().commands().find(name.substr(0, bar));
      if (spec && bar != std::string_view::npos)
        spec = spec->subcommands.empty() ? nullptr : spec->find_subcommand(name.substr(bar + 1));
      if (!spec) continue;
      take(*spec);
      for (const auto& sub : spec->subcommands) take(*sub);
    }
  }
  ctx.reply().map_header(chosen.size());
  for (const CommandSpec* spec : chosen) reply_histogram(ctx, *spec, histograms[spec->slot]);
}

// LATENCY HELP
void cmd_latency_help(CommandContext& ctx) {
  reply_help(ctx, {
                      "DOCTOR",
                      "    Return a human readable latency analysis report.",
                      "GRAPH <event>",
                      "    Return an ASCII latency graph for the <event> class.",
                      "HISTORY <event>",
                      "    Return time-latency samples for the <event> class.",
                      "LATEST",
                      "    Return the latest latency samples for all events.",
                      "RESET [<event> ...]",
                      "    Reset latency data of one or more <event> classes.",
                      "    (default: reset all data for all event classes)",
                      "HISTOGRAM [COMMAND ...]",
                      "    Return a cumulative distribution of latencies in the format of a "
                      "histogram for the specified command names.",
                      "    If no commands are specified then all histograms are replied.",
                  });
}

}  // namespace

void register_latency_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  constexpr std::uint32_t kFlags = kAdmin | kNoScript | kLoading | kStale;
  CommandSpec& latency = t.add("latency", -2, 0, kNoKeys, nullptr, "2.8.13",
                               "A container for latency diagnostics commands");
  t.add_subcommand(latency, "latest", 2, kFlags, kNoKeys, &cmd_latency_latest, "2.8.13",
                   "Return the latest latency samples for all events.");
  t.add_subcommand(latency, "history", 3, kFlags, kNoKeys, &cmd_latency_history, "2.8.13",
                   "Return timestamp-latency samples for the event.");
  t.add_subcommand(latency, "reset", -2, kFlags, kNoKeys, &cmd_latency_reset, "2.8.13",
                   "Reset latency data for one or more events.");
  t.add_subcommand(latency, "graph", 3, kFlags, kNoKeys, &cmd_latency_graph, "2.8.13",
                   "Return a latency graph for the event.");
  t.add_subcommand(latency, "doctor", 2, kFlags, kNoKeys, &cmd_latency_doctor, "2.8.13",
                   "Return a human readable latency analysis report.");
  t.add_subcommand(latency, "histogram", -2, kFlags, kNoKeys, &cmd_latency_histogram, "7.0.0",
                   "Return the cumulative distribution of latencies of a subset of commands or "
                   "all.");
  t.add_subcommand(latency, "help", 2, kLoading | kStale, kNoKeys, &cmd_latency_help, "2.8.13",
                   "Show helpful text about the different subcommands.");
}

}  // namespace listd::server
