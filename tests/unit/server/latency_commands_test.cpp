// LATENCY and the error and latency statistics: the monitor's threshold, one sample per second
// (the worst), LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM; INFO errorstats by error
// code; INFO latencystats with the configured percentiles; CONFIG RESETSTAT.
#include <gtest/gtest.h>

#include <string>

#include "listd/base/memory_accounting.h"
#include "listd/server/eviction.h"
#include "listd/server/info.h"
#include "listd/server/latency_histogram.h"
#include "listd/server/latency_monitor.h"
#include "support/stepping_clock.h"
#include "support/test_server.h"

namespace listd::testing {
namespace {

using server::LatencyHistogram;
using server::LatencyMonitor;

/// An executor on the stepping clock, with one client.
struct SteppedServer {
  explicit SteppedServer(std::initializer_list<std::pair<std::string, std::string>> settings) {
    for (const auto& [k, v] : settings) config.set(k, v);
    exec = std::make_unique<server::Executor>(config, clock);
    client = &exec->create_client(&transport, "127.0.0.1:40000", "127.0.0.1:6379", -1);
  }
  std::string run(std::initializer_list<std::string_view> argv) {
    std::vector<std::string_view> v(argv);
    exec->execute(*client, v);
    std::string out;
    out.swap(client->out);
    return out;
  }
  config::Config config;
  SteppingClock clock;
  FakeTransport transport;
  std::unique_ptr<server::Executor> exec;
  server::Client* client = nullptr;
};

TEST(LatencyMonitor, KeepsTheWorstSampleOfASecondAndTheAllTimeMax) {
  LatencyMonitor m;
  m.add_if_needed("command", 0, 500, 100);  // threshold 0: off
  EXPECT_TRUE(m.events().empty());
  m.add_if_needed("command", 10, 9, 100);  // below the threshold
  EXPECT_TRUE(m.events().empty());
  m.add_if_needed("command", 10, 12, 100);
  m.add_if_needed("command", 10, 30, 100);
  m.add_if_needed("command", 10, 20, 100);
  m.add_if_needed("command", 10, 15, 101);
  const LatencyMonitor::Series* ts = m.find("command");
  ASSERT_NE(ts, nullptr);
  EXPECT_EQ(ts->latest().time_s, 101);
  EXPECT_EQ(ts->latest().latency_ms, 15u);
  EXPECT_EQ(ts->max_ms, 30u);
  EXPECT_EQ(ts->samples[0].latency_ms, 30u);
}

TEST(LatencyMonitor, KeepsTheLast160Seconds) {
  LatencyMonitor m;
  for (int s = 1; s <= 200; ++s) m.add("fork", static_cast<std::uint64_t>(s), s);
  const LatencyMonitor::Series* ts = m.find("fork");
  ASSERT_NE(ts, nullptr);
  std::size_t used = 0;
  for (const auto& s : ts->samples) used += s.time_s != 0;
  EXPECT_EQ(used, LatencyMonitor::kSamples);
  EXPECT_EQ(ts->samples[ts->next].time_s, 41);  // the oldest kept
  EXPECT_EQ(m.reset("fork"), 1);
  EXPECT_EQ(m.reset("fork"), 0);
}

TEST(LatencyHistogram, ReportsBucketTopsAsRedisHdrHistogram) {
  LatencyHistogram h;
  for (int i = 0; i < 99; ++i) h.record(1000);  // 1 us
  h.record(2'000'000);                          // 2 ms
  EXPECT_EQ(h.total(), 100u);
  EXPECT_EQ(h.value_at_percentile(50), 1003u);
  EXPECT_EQ(h.value_at_percentile(99), 1003u);
  EXPECT_EQ(h.value_at_percentile(99.9), 2'007'039u);          // the top of 2 ms's bucket
  EXPECT_EQ(LatencyHistogram::highest_equivalent(100), 100u);  // exact below 256 ns
  std::string cdf;
  h.for_each_log_bucket([&](std::uint64_t us, std::uint64_t n) {
    cdf += std::to_string(us) + ":" + std::to_string(n) + " ";
  });
  EXPECT_EQ(cdf, "1:99 2113:100 ");
}

TEST(LatencyCommands, ThresholdFeedsTheCommandEventAndResetClearsIt) {
  SteppedServer t({{"latency-monitor-threshold", "5"}});
  t.clock.step_us = 6000;  // each command takes one step: 6 ms
  t.run({"INCR", "n"});    // a fast command
  t.run({"KEYS", "*"});
  t.clock.step_us = 0;
  const std::string latest = t.run({"LATENCY", "LATEST"});
  EXPECT_NE(latest.find("$12\r\nfast-command\r\n"), std::string::npos) << latest;
  EXPECT_NE(latest.find("$7\r\ncommand\r\n"), std::string::npos) << latest;
  EXPECT_EQ(t.run({"LATENCY", "HISTORY", "nothing"}), "*0\r\n");
  EXPECT_EQ(t.run({"LATENCY", "HISTORY", "command"}).substr(0, 8), "*1\r\n*2\r\n");
  EXPECT_EQ(t.run({"LATENCY", "GRAPH", "nothing"}),
            "-ERR No samples available for event 'nothing'\r\n");
  EXPECT_NE(t.run({"LATENCY", "GRAPH", "command"}).find("command - high 6 ms, low 6 ms"),
            std::string::npos);
  EXPECT_NE(t.run({"LATENCY", "DOCTOR"}).find("1. command: 1 latency spikes"), std::string::npos);
  EXPECT_EQ(t.run({"LATENCY", "RESET", "COMMAND", "none"}), ":1\r\n");
  EXPECT_EQ(t.run({"LATENCY", "RESET"}), ":1\r\n");
  EXPECT_EQ(t.run({"LATENCY", "LATEST"}), "*0\r\n");
  EXPECT_EQ(t.run({"LATENCY", "HISTORY"}),
            "-ERR wrong number of arguments for 'latency|history' command\r\n");
}

TEST(LatencyCommands, ASlowActiveExpiryCycleIsTheExpireCycleEvent) {
  SteppedServer t({{"latency-monitor-threshold", "5"}});
  t.exec->tick();  // monitor on, cycle fast: nothing
  EXPECT_EQ(t.run({"LATENCY", "LATEST"}), "*0\r\n");
  t.clock.step_us = 6000;  // the cycle's two clock reads are 6 ms apart
  t.exec->tick();
  t.clock.step_us = 0;
  EXPECT_EQ(t.run({"LATENCY", "HISTORY", "expire-cycle"}).substr(0, 8), "*1\r\n*2\r\n");
}

TEST(LatencyCommands, AnEvictionIsTheEvictionCycleAndEvictionDelEvents) {
  SteppedServer t({{"maxmemory-policy", "allkeys-random"},
                   {"maxmemory-eviction-tenacity", "100"}});  // no time limit on a cycle
  const std::string value(1000, 'v');
  for (int i = 0; i < 50; ++i) t.run({"SET", "k:" + std::to_string(i), value});
  t.run({"CONFIG", "SET", "maxmemory", std::to_string(base::used_memory())});
  t.run({"SET", "fits", "x"});  // monitor off: an eviction leaves no sample
  EXPECT_EQ(t.run({"LATENCY", "LATEST"}), "*0\r\n");
  t.run({"CONFIG", "SET", "latency-monitor-threshold", "5"});
  t.clock.step_us = 6000;  // every timed part takes 6 ms
  const std::uint64_t before = t.exec->evictor().evicted_keys();
  t.run({"SET", "new", value});  // over the limit now: the next command evicts first
  t.run({"PING"});
  t.clock.step_us = 0;
  ASSERT_GT(t.exec->evictor().evicted_keys(), before);
  const std::string latest = t.run({"LATENCY", "LATEST"});
  EXPECT_NE(latest.find("$14\r\neviction-cycle\r\n"), std::string::npos) << latest;
  EXPECT_NE(latest.find("$12\r\neviction-del\r\n"), std::string::npos) << latest;
}

TEST(LatencyCommands, HistogramListsTimedCommandsAndSubcommands) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SET", "k", "v"});
  t.run(c, {"CONFIG", "GET", "port"});
  EXPECT_EQ(
      t.run(c, {"LATENCY", "HISTOGRAM", "set", "nosuch"}),
      "*2\r\n$3\r\nset\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:1\r\n:1\r\n");
  EXPECT_NE(t.run(c, {"LATENCY", "HISTOGRAM", "config"}).find("config|get"), std::string::npos);
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "latency-tracking", "no"}), "+OK\r\n");
  const std::string info =
      server::build_info(t.exec(), std::vector<std::string_view>{"latencystats"});
  EXPECT_EQ(info, "# Latencystats\r\n");
}

TEST(ErrorStats, CountsErrorRepliesByCodeAndResetStatClearsThem) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"NOSUCHCOMMAND"});
  t.run(c, {"LPUSH", "l", "x"});
  t.run(c, {"GET", "l"});
  t.run(c, {"GET", "l"});
  t.run(c, {"INCR", "l"});
  const std::vector<std::string_view> sections{"errorstats", "stats"};
  std::string info = server::build_info(t.exec(), sections);
  EXPECT_NE(info.find("# Errorstats\r\nerrorstat_ERR:count=1\r\nerrorstat_WRONGTYPE:count=3\r\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("total_error_replies:4\r\n"), std::string::npos);
  t.run(c, {"CONFIG", "RESETSTAT"});
  info = server::build_info(t.exec(), std::vector<std::string_view>{"errorstats"});
  EXPECT_EQ(info, "# Errorstats\r\n");
}

TEST(LatencyStats, InfoPrintsTheConfiguredPercentiles) {
  SteppedServer t({{"latency-tracking-info-percentiles", "50 99.5 100"}});
  t.clock.step_us = 1;  // the SET takes 1 us
  t.run({"SET", "k", "v"});
  t.clock.step_us = 0;
  const std::string info =
      server::build_info(*t.exec, std::vector<std::string_view>{"latencystats"});
  EXPECT_NE(info.find("latency_percentiles_usec_set:p50=1.003,p99.5=1.003,p100=1.003\r\n"),
            std::string::npos)
      << info;
}

}  // namespace
}  // namespace listd::testing
