// INFO stats' expiry-cycle figures: ExpireCycleStats' running stale share, cap count and time,
// then what the executor's active expiry step feeds it (a clock whose reads step forward, so
// the step's duration is known), and CONFIG RESETSTAT.
#include "listd/server/expire_cycle_stats.h"

#include <gtest/gtest.h>

#include <string>

#include "listd/server/info.h"
#include "support/test_server.h"

namespace listd::testing {
namespace {

using server::ExpireCycleStats;

/// Each read() is `step_us` after the last; unix_ms moves only by advance_ms.
class SteppingClock final : public server::Clock {
 public:
  server::ClockReading read() const override {
    mono_us_ += step_us;
    return {mono_us_, unix_ms_};
  }
  std::uint64_t monotonic_ms() const override { return mono_us_ / 1000; }
  std::int64_t unix_ms() const override { return unix_ms_; }
  void advance_ms(std::int64_t ms) {
    unix_ms_ += ms;
    mono_us_ += static_cast<std::uint64_t>(ms) * 1000;
  }
  std::uint64_t step_us = 0;

 private:
  mutable std::uint64_t mono_us_ = 1'000'000'000;
  std::int64_t unix_ms_ = 1'700'000'000'000;
};

struct SteppedExecutor {
  SteppedExecutor() : exec(config, clock), client(&exec.create_client(&transport, "a", "b", -1)) {}
  std::string run(std::initializer_list<std::string_view> argv) {
    std::vector<std::string_view> v(argv);
    exec.execute(*client, v);
    std::string out;
    out.swap(client->out);
    return out;
  }
  std::string stat(const std::string& field) {
    const std::string info = server::build_info(exec, std::vector<std::string_view>{"stats"});
    const std::size_t at = info.find("\r\n" + field + ":");
    if (at == std::string::npos) return "<absent>";
    const std::size_t from = at + field.size() + 3;
    return info.substr(from, info.find("\r\n", from) - from);
  }
  config::Config config;
  SteppingClock clock;
  FakeTransport transport;
  server::Executor exec;
  server::Client* client;
};

TEST(ExpireCycleStats, TheStaleShareIsARunningAverageWeighingEachStepFivePercent) {
  ExpireCycleStats s;
  s.record(20, 20, false, 0);
  EXPECT_DOUBLE_EQ(s.stale_percent(), 5.0);
  s.record(20, 10, false, 0);  // 0.5 * 0.05 + 0.05 * 0.95
  EXPECT_DOUBLE_EQ(s.stale_share, 0.025 + 0.0475);
  s.record(0, 0, false, 0);  // nothing sampled: the estimate decays
  EXPECT_DOUBLE_EQ(s.stale_share, (0.025 + 0.0475) * 0.95);
  EXPECT_EQ(s.time_cap_reached_count, 0u);
}

TEST(ExpireCycleStats, CutShortStepsAndTimeAddUp) {
  ExpireCycleStats s;
  s.record(5, 0, true, 1500);
  s.record(5, 0, false, 700);
  s.record(5, 0, true, 300);
  EXPECT_EQ(s.time_cap_reached_count, 2u);
  EXPECT_EQ(s.time_used_us, 2500u);
  EXPECT_EQ(s.cpu_milliseconds(), 2u);  // whole milliseconds, as Redis' /1000
}

TEST(ExpireCycleStats, TheActiveStepFeedsInfoStatsAndResetStatZeroesIt) {
  SteppedExecutor t;
  EXPECT_EQ(t.stat("expired_stale_perc"), "0.00");
  EXPECT_EQ(t.stat("expired_time_cap_reached_count"), "0");
  EXPECT_EQ(t.stat("expire_cycle_cpu_milliseconds"), "0");
  // 1500 keys due at once: more than one step's budget (1000 keys).
  for (int i = 0; i < 1500; ++i) {
    const std::string key = "k" + std::to_string(i);
    t.run({"SET", key, "v", "PX", "10"});
  }
  t.run({"SET", "lasting", "v", "EX", "1000"});
  t.clock.advance_ms(20);
  t.clock.step_us = 1500;  // the step's two clock reads are 1.5 ms apart
  t.exec.tick();
  t.clock.step_us = 0;
  EXPECT_EQ(t.stat("expired_keys"), "1000");
  EXPECT_EQ(t.stat("expired_time_cap_reached_count"), "1");  // 500 left due
  EXPECT_EQ(t.stat("expire_cycle_cpu_milliseconds"), "1");
  // 20 sampled of 1501 keys: at most one of them is the lasting key.
  const double first = std::stod(t.stat("expired_stale_perc"));
  EXPECT_GE(first, 4.75);
  EXPECT_LE(first, 5.0);
  t.clock.step_us = 1500;
  t.exec.tick();  // the other 500: the step finishes its work
  t.clock.step_us = 0;
  EXPECT_EQ(t.stat("expired_keys"), "1500");
  EXPECT_EQ(t.stat("expired_time_cap_reached_count"), "1");
  EXPECT_EQ(t.stat("expire_cycle_cpu_milliseconds"), "3");
  const double second = std::stod(t.stat("expired_stale_perc"));
  EXPECT_GT(second, first);  // again (nearly) all of the sample was stale
  t.exec.tick();             // only the lasting key is left: a sample with nothing stale
  EXPECT_LT(std::stod(t.stat("expired_stale_perc")), second);
  EXPECT_EQ(t.run({"CONFIG", "RESETSTAT"}), "+OK\r\n");
  EXPECT_EQ(t.stat("expired_stale_perc"), "0.00");
  EXPECT_EQ(t.stat("expired_time_cap_reached_count"), "0");
  EXPECT_EQ(t.stat("expire_cycle_cpu_milliseconds"), "0");
}

TEST(ExpireCycleStats, InfoStatsHasRedisFieldsInRedisOrder) {
  SteppedExecutor t;
  const std::string info = server::build_info(t.exec, std::vector<std::string_view>{"stats"});
  std::size_t last = 0;
  for (const char* field : {"expired_keys:",
                            "expired_stale_perc:",
                            "expired_time_cap_reached_count:",
                            "expire_cycle_cpu_milliseconds:",
                            "evicted_keys:",
                            "pubsubshard_channels:",
                            "latest_fork_usec:0",
                            "total_forks:0",
                            "migrate_cached_sockets:",
                            "active_defrag_key_misses:",
                            "total_active_defrag_time:0",
                            "current_active_defrag_time:0",
                            "tracking_total_keys:",
                            "dump_payload_sanitizations:",
                            "total_reads_processed:0",
                            "total_writes_processed:0",
                            "io_threaded_reads_processed:",
                            "io_threaded_writes_processed:",
                            "reply_buffer_shrinks:0",
                            "reply_buffer_expands:0"}) {
    const std::size_t at = info.find(std::string("\r\n") + field);
    ASSERT_NE(at, std::string::npos) << field;
    EXPECT_GT(at, last) << field;
    last = at;
  }
}

}  // namespace
}  // namespace listd::testing
