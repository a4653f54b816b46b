// QueueStats: the one-minute ring of per-key pushes, pops and hand-offs behind the queue view.
#include "listd/server/queue_stats.h"

#include <gtest/gtest.h>

#include <string>

using listd::server::QueueEvent;
using listd::server::QueueStats;

TEST(QueueStats, RatesAverageTheLastSixtySeconds) {
  QueueStats s;
  s.record(0, "q", QueueEvent::kPush, 60, 100);
  s.record(0, "q", QueueEvent::kPop, 30, 100);
  s.record(0, "q", QueueEvent::kHandoff, 6, 100);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 100).pushes, 1.0);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 100).pops, 0.5);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 100).handoffs, 0.1);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 159).pushes, 1.0);  // second 100 is still in (99, 159]
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 160).pushes, 0.0);  // and gone from (100, 160]
}

TEST(QueueStats, SecondsWithoutTrafficAreZeroedWhenTheRingMovesOn) {
  QueueStats s;
  s.record(0, "q", QueueEvent::kPush, 30, 100);
  s.record(0, "q", QueueEvent::kPush, 30, 130);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 130).pushes, 1.0);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 165).pushes, 0.5);  // only second 130 is left
  // Second 160 reuses second 100's bucket: it starts from zero, not from 100's 30.
  s.record(0, "q", QueueEvent::kPush, 6, 160);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 160).pushes, 0.6);
  // After more than a minute of silence every bucket is cleared.
  s.record(0, "q", QueueEvent::kPush, 60, 500);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 500).pushes, 1.0);
}

TEST(QueueStats, KeysAreCountedPerDatabase) {
  QueueStats s;
  s.record(0, "q", QueueEvent::kPush, 60, 10);
  s.record(1, "q", QueueEvent::kPush, 120, 10);
  s.record(0, "q", QueueEvent::kPush, 60, 10);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 10).pushes, 2.0);
  EXPECT_DOUBLE_EQ(s.rates(1, "q", 10).pushes, 2.0);
  EXPECT_DOUBLE_EQ(s.rates(0, "other", 10).pushes, 0.0);
  EXPECT_EQ(s.tracked_count(), 2u);
}

TEST(QueueStats, AKeyIdleForAMinuteIsForgottenAndTrackedAgainOnItsNextEvent) {
  QueueStats s;
  s.record(0, "q", QueueEvent::kPush, 1, 100);
  s.forget_idle(159);
  EXPECT_EQ(s.tracked_count(), 1u);
  s.forget_idle(160);
  EXPECT_EQ(s.tracked_count(), 0u);
  s.record(0, "q", QueueEvent::kPop, 60, 161);  // the cached entry was erased: a new one
  EXPECT_EQ(s.tracked_count(), 1u);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 161).pops, 1.0);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 161).pushes, 0.0);
}

TEST(QueueStats, TrackedKeysAreBoundedUntilIdleOnesAreForgotten) {
  QueueStats s;
  for (std::size_t i = 0; i < QueueStats::kDefaultMaxKeys; ++i)
    s.record(0, "k" + std::to_string(i), QueueEvent::kPush, 1, 100);
  s.record(0, "late", QueueEvent::kPush, 60, 130);
  EXPECT_EQ(s.tracked_count(), QueueStats::kDefaultMaxKeys);
  EXPECT_DOUBLE_EQ(s.rates(0, "late", 130).pushes, 0.0);
  s.forget_idle(160);
  s.record(0, "late", QueueEvent::kPush, 60, 160);
  EXPECT_EQ(s.tracked_count(), 1u);
  EXPECT_DOUBLE_EQ(s.rates(0, "late", 160).pushes, 1.0);
}

TEST(QueueStats, TheHotPathCountsByOwnerWithinOneSecond) {
  QueueStats s;
  int entry = 0;  // stands for a keyspace entry's address
  constexpr std::uint64_t kUs = 1'000'000;
  for (int i = 0; i < 30; ++i) s.record_for(&entry, 7, 0, "q", QueueEvent::kPush, 2, 100 * kUs + i);
  s.record_for(&entry, 7, 0, "q", QueueEvent::kPop, 30, 100 * kUs + 999'999);
  s.record_for(&entry, 7, 0, "q", QueueEvent::kPop, 30, 101 * kUs);  // the next second
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 101).pushes, 1.0);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 101).pops, 1.0);
  s.record(0, "q", QueueEvent::kHandoff, 60, 101);  // by key: the same slot
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 101).handoffs, 1.0);
  EXPECT_EQ(s.tracked_count(), 1u);
}

TEST(QueueStats, AReusedOwnerAddressIsANewKeyOnceTheEpochMoved) {
  QueueStats s;
  int entry = 0;
  s.record_for(&entry, 1, 0, "old", QueueEvent::kPush, 60, 5'000'000);
  // The entry was freed and its address reused for another key: a new epoch, so no hit.
  s.record_for(&entry, 2, 0, "new", QueueEvent::kPush, 120, 5'000'001);
  EXPECT_DOUBLE_EQ(s.rates(0, "old", 5).pushes, 1.0);
  EXPECT_DOUBLE_EQ(s.rates(0, "new", 5).pushes, 2.0);
  // The same entry in another database (MOVE, SWAPDB) is another key too.
  s.record_for(&entry, 2, 3, "new", QueueEvent::kPush, 60, 5'000'002);
  EXPECT_DOUBLE_EQ(s.rates(0, "new", 5).pushes, 2.0);
  EXPECT_DOUBLE_EQ(s.rates(3, "new", 5).pushes, 1.0);
}

TEST(QueueStats, ForgettingAKeyDropsTheHotSlot) {
  QueueStats s;
  int entry = 0;
  s.record_for(&entry, 1, 0, "q", QueueEvent::kPush, 1, 100'000'000);
  s.forget_idle(160);
  EXPECT_EQ(s.tracked_count(), 0u);
  s.clear();
  s.record_for(&entry, 1, 0, "q", QueueEvent::kPush, 60, 160'000'000);  // tracked anew
  EXPECT_EQ(s.tracked_count(), 1u);
  EXPECT_DOUBLE_EQ(s.rates(0, "q", 160).pushes, 1.0);
}

TEST(QueueStats, TheBoundIsSettableAndZeroTracksNothing) {
  QueueStats s;
  s.set_max_keys(2);
  for (const char* k : {"a", "b", "c"}) s.record(0, k, QueueEvent::kPush, 1, 10);
  EXPECT_EQ(s.tracked_count(), 2u);
  s.set_max_keys(0);  // the tracked keys stay until idle; no new one is taken
  int entry = 0;
  s.record_for(&entry, 1, 0, "d", QueueEvent::kPush, 1, 10'000'000);
  s.record(0, "a", QueueEvent::kPush, 1, 10);
  EXPECT_EQ(s.tracked_count(), 2u);
  EXPECT_DOUBLE_EQ(s.rates(0, "a", 10).pushes, 2.0 / 60);
  s.forget_idle(100);
  s.record(0, "a", QueueEvent::kPush, 1, 100);
  EXPECT_EQ(s.tracked_count(), 0u);
}
