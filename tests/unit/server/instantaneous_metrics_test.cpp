// InstantaneousMetrics: Redis' sampled rates, fed known counter readings at known times.
#include "listd/server/instantaneous_metrics.h"

#include <gtest/gtest.h>

using listd::server::InstantaneousMetrics;
using listd::server::InstantMetric;

namespace {

InstantaneousMetrics::Readings commands(std::uint64_t n) { return {n, 0, 0, 0, 0}; }

}  // namespace

TEST(InstantaneousMetrics, TheRateIsTheMeanOfTheLastSamplesWithUntakenOnesAtZero) {
  InstantaneousMetrics m;
  m.reset(10'000, commands(0));
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 0u);
  m.sample(11'000, commands(4'000));  // 4,000/s, the other sample not taken yet
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 2'000u);
  m.sample(11'500, commands(5'000));  // 2,000/s over half a second
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 3'000u);
  m.sample(12'500, commands(5'000));  // idle: the oldest sample leaves the window
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 1'000u);
  m.sample(13'500, commands(5'000));
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 0u);
}

TEST(InstantaneousMetrics, EachMetricHasItsOwnTrack) {
  InstantaneousMetrics m;
  m.reset(0, {0, 0, 0, 0, 0});
  m.sample(1'000, {10, 2'048, 4'096, 1'024, 3'072});
  m.sample(2'000, {20, 4'096, 8'192, 2'048, 6'144});
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 10u);
  EXPECT_EQ(m.per_second(InstantMetric::kNetInput), 2'048u);
  EXPECT_EQ(m.per_second(InstantMetric::kNetOutput), 4'096u);
  EXPECT_EQ(m.per_second(InstantMetric::kNetReplInput), 1'024u);
  EXPECT_EQ(m.per_second(InstantMetric::kNetReplOutput), 3'072u);
}

TEST(InstantaneousMetrics, ResetForgetsTheSamplesAndCountsFromTheNewReadings) {
  InstantaneousMetrics m;
  m.reset(0, commands(0));
  m.sample(1'000, commands(1'000));
  m.sample(2'000, commands(2'000));
  ASSERT_EQ(m.per_second(InstantMetric::kCommands), 1'000u);
  m.reset(2'000, commands(0));  // CONFIG RESETSTAT zeroed the counter
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 0u);
  m.sample(3'000, commands(500));
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 250u);
}

TEST(InstantaneousMetrics, ASampleAtTheSameInstantOrACounterGoingBackIsZero) {
  InstantaneousMetrics m;
  m.reset(1'000, commands(100));
  m.sample(1'000, commands(200));  // no time passed
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 0u);
  m.sample(2'000, commands(50));  // below the last reading
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 0u);
  m.sample(3'000, commands(1'050));
  EXPECT_EQ(m.per_second(InstantMetric::kCommands), 500u);
}
