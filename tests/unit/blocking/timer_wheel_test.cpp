#include "listd/blocking/timer_wheel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace listd::blocking {
namespace {

using Ms = std::uint64_t;

struct Waiter {
  explicit Waiter(int id_) : id(id_), timer(this) {}
  int id;
  TimerNode timer;
};

struct Fired {
  int id;
  Ms at;  // wheel.now_ms() inside the callback
  bool operator==(const Fired&) const = default;
};

std::vector<std::unique_ptr<Waiter>> make_waiters(int n) {
  std::vector<std::unique_ptr<Waiter>> waiters;
  for (int i = 0; i < n; ++i) waiters.push_back(std::make_unique<Waiter>(i));
  return waiters;
}

// Advances and records (id, now) of each firing.
std::vector<Fired> advance_recording(TimerWheel& wheel, Ms now) {
  std::vector<Fired> fired;
  wheel.advance(now, [&](TimerNode& node) {
    fired.push_back({node.owner_as<Waiter>().id, wheel.now_ms()});
  });
  return fired;
}

// Delays around every level boundary (256, 2^16, 2^24), the overflow boundary (2^32) and beyond.
// clang-format off
const std::vector<Ms> kBoundaryDelays = {
    1, 2, 254, 255, 256, 257, 511, 512,
    65535, 65536, 65537, 65536 * 3,
    (1U << 24) - 1, 1U << 24, (1U << 24) + 5, 1'000'000'000,
    (Ms{1} << 32) - 1, Ms{1} << 32, (Ms{1} << 32) + 1,
    10'000'000'000ULL, (Ms{1} << 40) + 12345};
// clang-format on

const std::vector<Ms> kStartTimes = {
    0, 1, 255, 65535, 123'456'789, (Ms{1} << 32) - 3, 987'654'321'012ULL};

TEST(TimerWheelTest, FiresExactlyAtDeadlineAcrossLevelBoundaries) {
  for (Ms start : kStartTimes) {
    for (Ms delay : kBoundaryDelays) {
      SCOPED_TRACE(testing::Message() << "start=" << start << " delay=" << delay);
      TimerWheel wheel(start);
      Waiter w(7);
      wheel.schedule(w.timer, start + delay);
      EXPECT_TRUE(advance_recording(wheel, start + delay - 1).empty());
      EXPECT_TRUE(w.timer.scheduled());
      EXPECT_EQ(advance_recording(wheel, start + delay), (std::vector<Fired>{{7, start + delay}}));
      EXPECT_FALSE(w.timer.scheduled());
      EXPECT_TRUE(wheel.empty());
    }
  }
}

TEST(TimerWheelTest, FiresExactlyAtDeadlineWhenTimeAdvancesInSmallSteps) {
  // Crosses each cascade point on its own instead of in one jump.
  for (Ms delay : {Ms{300}, Ms{65536 + 77}, Ms{(1U << 24) + 5}}) {
    TimerWheel wheel(100);
    Waiter w(1);
    wheel.schedule(w.timer, 100 + delay);
    std::vector<Fired> fired;
    const Ms step = delay > 70000 ? 997 : 1;
    Ms now = 100;
    while (now + step < 100 + delay) {
      now += step;
      EXPECT_TRUE(advance_recording(wheel, now).empty()) << now;
    }
    for (++now; now <= 100 + delay; ++now) {
      auto got = advance_recording(wheel, now);
      fired.insert(fired.end(), got.begin(), got.end());
    }
    EXPECT_EQ(fired, (std::vector<Fired>{{1, 100 + delay}}));
  }
}

TEST(TimerWheelTest, ArmingOneTimerForNextDeadlineReachesEachDeadlineExactlyWithoutBusyLoop) {
  for (Ms start : kStartTimes) {
    for (Ms delay : kBoundaryDelays) {
      SCOPED_TRACE(testing::Message() << "start=" << start << " delay=" << delay);
      TimerWheel wheel(start);
      Waiter w(3);
      wheel.schedule(w.timer, start + delay);
      int wakes = 0;
      std::vector<Fired> fired;
      while (auto next = wheel.next_deadline()) {
        ASSERT_GT(*next, wheel.now_ms());  // nothing due: never a busy loop
        ASSERT_LE(*next, start + delay);   // never later than the true earliest
        auto got = advance_recording(wheel, *next);
        fired.insert(fired.end(), got.begin(), got.end());
        ++wakes;
      }
      EXPECT_EQ(fired, (std::vector<Fired>{{3, start + delay}}));
      EXPECT_LE(wakes, static_cast<int>(TimerWheel::kLevels) + 2);
    }
  }
}

TEST(TimerWheelTest, NextDeadlineIsExactWithinTheLowestLevelEvenAfterCancels) {
  TimerWheel wheel(1000);  // level 0 covers 1001..1023 (same 256 ms block)
  Waiter a(0), b(1);
  EXPECT_EQ(wheel.next_deadline(), std::nullopt);
  wheel.schedule(a.timer, 1020);
  wheel.schedule(b.timer, 1010);
  EXPECT_EQ(wheel.next_deadline(), 1010U);
  wheel.cancel(b.timer);
  EXPECT_EQ(wheel.next_deadline(), 1020U);
  wheel.cancel(a.timer);
  EXPECT_EQ(wheel.next_deadline(), std::nullopt);
}

TEST(TimerWheelTest, NextDeadlineAfterCancelInSharedHigherSlotIsALowerBoundThatSelfCorrects) {
  TimerWheel wheel(1000);
  Waiter a(0), b(1);
  wheel.schedule(a.timer, 1200);  // 1100 and 1200 share the level-1 slot 1024..1279
  wheel.schedule(b.timer, 1100);
  wheel.cancel(b.timer);
  const auto bound = wheel.next_deadline();
  ASSERT_TRUE(bound.has_value());
  EXPECT_GT(*bound, 1000U);
  EXPECT_LE(*bound, 1200U);
  EXPECT_TRUE(advance_recording(wheel, *bound).empty());  // one early wake, then exact
  EXPECT_EQ(wheel.next_deadline(), 1200U);
  EXPECT_EQ(advance_recording(wheel, 1200), (std::vector<Fired>{{0, 1200}}));
}

TEST(TimerWheelTest, NextDeadlineIsExactAtEveryLevelWithoutCancels) {
  std::mt19937_64 rng(99);
  TimerWheel wheel(31'337);
  auto waiters = make_waiters(3000);
  std::multimap<Ms, int> model;
  Ms now = 31'337;
  std::size_t next_waiter = 0;
  for (int round = 0; round < 3000; ++round) {
    for (int i = 0; i < 2 && next_waiter < waiters.size(); ++i, ++next_waiter) {
      const Ms delay = 1 + rng() % (Ms{1} << (rng() % 40));
      wheel.schedule(waiters[next_waiter]->timer, now + delay);
      model.emplace(now + delay, static_cast<int>(next_waiter));
    }
    ASSERT_EQ(wheel.next_deadline(), model.begin()->first) << "round " << round;
    now += rng() % (Ms{1} << (rng() % 30));
    wheel.advance(now, [&](TimerNode& node) {
      ASSERT_EQ(model.begin()->second, node.owner_as<Waiter>().id);
      model.erase(model.begin());
    });
    if (model.empty()) break;
    ASSERT_EQ(wheel.next_deadline(), model.begin()->first) << "round " << round;
  }
}

TEST(TimerWheelTest, BrpopTimeoutOf100MsIsReportedExactly) {
  TimerWheel wheel(5'000'000);
  Waiter w(1);
  wheel.schedule(w.timer, 5'000'100);
  EXPECT_EQ(wheel.next_deadline(), 5'000'100U);
}

TEST(TimerWheelTest, SameDeadlineFiresInScheduleOrder) {
  TimerWheel wheel;
  auto waiters = make_waiters(1000);
  for (auto& w : waiters) wheel.schedule(w->timer, 500);
  auto fired = advance_recording(wheel, 10'000);
  ASSERT_EQ(fired.size(), 1000U);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(fired[i], (Fired{i, 500}));
}

TEST(TimerWheelTest, SameDeadlineScheduledFromDifferentLevelsFiresInScheduleOrder) {
  const Ms deadline = (Ms{1} << 32) + 70'000;
  TimerWheel wheel;
  auto waiters = make_waiters(5);
  wheel.schedule(waiters[0]->timer, deadline);  // overflow
  advance_recording(wheel, (Ms{1} << 32) + 1);
  wheel.schedule(waiters[1]->timer, deadline);  // level 2
  advance_recording(wheel, deadline - 1000);
  wheel.schedule(waiters[2]->timer, deadline);  // level 1
  advance_recording(wheel, deadline - 10);
  wheel.schedule(waiters[3]->timer, deadline);  // level 0
  wheel.schedule(waiters[4]->timer, deadline + 1);
  EXPECT_EQ(advance_recording(wheel, deadline + 1),
            (std::vector<Fired>{
                {0, deadline}, {1, deadline}, {2, deadline}, {3, deadline}, {4, deadline + 1}}));
}

TEST(TimerWheelTest, RescheduledNodeTiesAsTheNewest) {
  TimerWheel wheel;
  auto waiters = make_waiters(3);
  for (auto& w : waiters) wheel.schedule(w->timer, 40);
  wheel.schedule(waiters[0]->timer, 40);
  EXPECT_EQ(wheel.size(), 3U);
  EXPECT_EQ(advance_recording(wheel, 40), (std::vector<Fired>{{1, 40}, {2, 40}, {0, 40}}));
}

TEST(TimerWheelTest, FiresInDeadlineOrderAfterLargeJump) {
  TimerWheel wheel(77);
  auto waiters = make_waiters(2000);
  std::mt19937_64 rng(42);
  std::multimap<Ms, int> expected;
  for (auto& w : waiters) {
    const Ms deadline = 78 + rng() % 3'600'000;
    wheel.schedule(w->timer, deadline);
    expected.emplace(deadline, w->id);
  }
  const auto probes_before = wheel.stats().bitmap_probes;
  auto fired = advance_recording(wheel, 77 + 3'600'000);
  std::vector<Fired> want;
  for (auto [deadline, id] : expected) want.push_back({id, deadline});
  EXPECT_EQ(fired, want);
  EXPECT_TRUE(wheel.empty());
  // Skipping empty slots: a bounded number of word probes per event (fire or cascade), far
  // from one per millisecond (3.6 million).
  const auto events = wheel.stats().cascaded + fired.size() + 1;
  EXPECT_LE(wheel.stats().bitmap_probes - probes_before, 16 * events);
}

TEST(TimerWheelTest, LargeJumpOverEmptyWheelCostsNoSlotScan) {
  TimerWheel wheel(0);
  Waiter w(1);
  wheel.schedule(w.timer, 3'600'000);
  EXPECT_TRUE(advance_recording(wheel, 3'599'999).empty());
  EXPECT_LT(wheel.stats().bitmap_probes, 100U);
  EXPECT_EQ(advance_recording(wheel, 10 * 3'600'000).size(), 1U);
  EXPECT_LT(wheel.stats().bitmap_probes, 100U);
  EXPECT_TRUE(advance_recording(wheel, Ms{1} << 50).empty());
  EXPECT_EQ(wheel.now_ms(), Ms{1} << 50);
}

TEST(TimerWheelTest, CallbackCanCancelAnotherTimerDueInTheSameAdvance) {
  TimerWheel wheel;
  auto waiters = make_waiters(4);
  wheel.schedule(waiters[0]->timer, 10);
  wheel.schedule(waiters[1]->timer, 10);  // cancelled by 0, same slot
  wheel.schedule(waiters[2]->timer, 20);  // cancelled by 0, later slot
  wheel.schedule(waiters[3]->timer, 30);
  std::vector<int> fired;
  wheel.advance(100, [&](TimerNode& node) {
    const int id = node.owner_as<Waiter>().id;
    fired.push_back(id);
    if (id == 0) {
      wheel.cancel(waiters[1]->timer);
      wheel.cancel(waiters[2]->timer);
      wheel.cancel(node);  // already unscheduled: no-op
    }
  });
  EXPECT_EQ(fired, (std::vector<int>{0, 3}));
  EXPECT_TRUE(wheel.empty());
}

TEST(TimerWheelTest, CallbackCanRescheduleItsOwnNode) {
  TimerWheel wheel;
  Waiter w(9);
  wheel.schedule(w.timer, 10);
  std::vector<Ms> fired_at;
  wheel.advance(100, [&](TimerNode& node) {
    EXPECT_EQ(wheel.now_ms(), node.deadline());
    fired_at.push_back(wheel.now_ms());
    if (fired_at.size() < 5) wheel.schedule(node, node.deadline() + 15);
  });
  EXPECT_EQ(fired_at, (std::vector<Ms>{10, 25, 40, 55, 70}));
  wheel.schedule(w.timer, 1000);
  EXPECT_EQ(advance_recording(wheel, 999).size(), 0U);
  EXPECT_EQ(advance_recording(wheel, 1000).size(), 1U);
}

TEST(TimerWheelTest, TimersScheduledByCallbackFireInOrderWithinTheSameAdvance) {
  TimerWheel wheel;
  auto waiters = make_waiters(6);
  wheel.schedule(waiters[0]->timer, 10);
  wheel.schedule(waiters[1]->timer, 50);
  wheel.advance(0, [](TimerNode&) {});
  std::vector<Fired> fired;
  wheel.advance(100, [&](TimerNode& node) {
    const int id = node.owner_as<Waiter>().id;
    fired.push_back({id, wheel.now_ms()});
    if (id == 0) {
      wheel.schedule(waiters[2]->timer, 30);   // between the two
      wheel.schedule(waiters[3]->timer, 10);   // equal to now: after the current one
      wheel.schedule(waiters[4]->timer, 3);    // in the past: treated as now
      wheel.schedule(waiters[5]->timer, 101);  // beyond this advance
    }
  });
  EXPECT_EQ(fired, (std::vector<Fired>{{0, 10}, {3, 10}, {4, 10}, {2, 30}, {1, 50}}));
  EXPECT_EQ(wheel.size(), 1U);
  EXPECT_EQ(wheel.next_deadline(), 101U);
}

TEST(TimerWheelTest, PastDeadlineFiresAtNextAdvanceAndIsReportedAsDue) {
  TimerWheel wheel(1000);
  auto waiters = make_waiters(3);
  wheel.schedule(waiters[0]->timer, 2000);
  wheel.schedule(waiters[1]->timer, 5);
  wheel.schedule(waiters[2]->timer, 1000);
  EXPECT_EQ(wheel.next_deadline(), 5U);  // never later than the true earliest
  // Even an advance to an earlier time (clock glitch) fires what is already due.
  EXPECT_EQ(advance_recording(wheel, 900), (std::vector<Fired>{{1, 1000}, {2, 1000}}));
  EXPECT_EQ(wheel.now_ms(), 1000U);
  EXPECT_EQ(wheel.next_deadline(), 2000U);
}

TEST(TimerWheelTest, CancelledEarliestOverflowTimerLeavesCorrectFiring) {
  TimerWheel wheel;
  Waiter a(0), b(1);
  const Ms far = 10'000'000'000ULL;
  wheel.schedule(a.timer, far);
  wheel.schedule(b.timer, far + 3 * (Ms{1} << 32));
  wheel.cancel(a.timer);
  const auto bound = wheel.next_deadline();
  ASSERT_TRUE(bound.has_value());
  EXPECT_LE(*bound, far + 3 * (Ms{1} << 32));
  EXPECT_GT(*bound, 0U);
  EXPECT_TRUE(advance_recording(wheel, far + 3 * (Ms{1} << 32) - 1).empty());
  EXPECT_EQ(advance_recording(wheel, far + 3 * (Ms{1} << 32)),
            (std::vector<Fired>{{1, far + 3 * (Ms{1} << 32)}}));
}

TEST(TimerWheelTest, HandlesTheEndOfTime) {
  constexpr Ms kMax = std::numeric_limits<Ms>::max();
  TimerWheel wheel(kMax - 300);
  Waiter a(0), b(1);
  wheel.schedule(a.timer, kMax);
  wheel.schedule(b.timer, kMax - 1);
  EXPECT_EQ(wheel.next_deadline(), kMax - 1);
  EXPECT_EQ(advance_recording(wheel, kMax), (std::vector<Fired>{{1, kMax - 1}, {0, kMax}}));
  TimerWheel from_zero;
  from_zero.schedule(b.timer, kMax);
  EXPECT_TRUE(advance_recording(from_zero, kMax - 1).empty());
  EXPECT_EQ(advance_recording(from_zero, kMax), (std::vector<Fired>{{1, kMax}}));
}

TEST(TimerWheelTest, DestroyingAScheduledNodeCancelsIt) {
  TimerWheel wheel;
  auto w = std::make_unique<Waiter>(1);
  Waiter keep(2);
  wheel.schedule(w->timer, 10);
  wheel.schedule(keep.timer, 10);
  w.reset();
  EXPECT_EQ(wheel.size(), 1U);
  EXPECT_EQ(advance_recording(wheel, 10), (std::vector<Fired>{{2, 10}}));
}

TEST(TimerWheelTest, ClearAndDestructionUnscheduleWithoutFiring) {
  Waiter a(0), b(1), c(2);
  {
    TimerWheel wheel;
    wheel.schedule(a.timer, 1);
    wheel.schedule(b.timer, 100'000'000'000ULL);
    wheel.clear();
    EXPECT_TRUE(wheel.empty());
    EXPECT_FALSE(a.timer.scheduled());
    EXPECT_EQ(wheel.next_deadline(), std::nullopt);
    EXPECT_TRUE(advance_recording(wheel, 200'000'000'000ULL).empty());
    wheel.schedule(c.timer, 0);
  }
  EXPECT_FALSE(c.timer.scheduled());  // the wheel died first; c's destructor must not touch it
}

TEST(TimerWheelTest, SchedulingOnAnotherWheelMovesTheNode) {
  TimerWheel first, second;
  Waiter w(1);
  first.schedule(w.timer, 10);
  second.schedule(w.timer, 20);
  EXPECT_TRUE(first.empty());
  EXPECT_EQ(second.size(), 1U);
  EXPECT_TRUE(advance_recording(first, 100).empty());
  EXPECT_EQ(advance_recording(second, 100), (std::vector<Fired>{{1, 20}}));
}

TEST(TimerWheelTest, ScheduleAndCancelCostIsIndependentOfTimerCount) {
  struct Cost {
    std::uint64_t cascaded, overflow_scanned, bitmap_probes;
    bool operator==(const Cost&) const = default;
  };
  auto measure = [](int background) {
    TimerWheel wheel(1'000'000);
    auto filler = make_waiters(background);
    std::mt19937_64 rng(7);
    for (auto& w : filler) wheel.schedule(w->timer, 1'000'000 + rng() % 20'000'000'000ULL);
    auto probe = make_waiters(1000);
    const TimerWheelStats before = wheel.stats();
    for (int round = 0; round < 3; ++round) {
      for (auto& w : probe) wheel.schedule(w->timer, 1'000'000 + rng() % 20'000'000'000ULL);
      for (auto& w : probe) wheel.schedule(w->timer, 1'000'000 + rng() % 300);  // reschedule
      for (auto& w : probe) wheel.cancel(w->timer);
    }
    const TimerWheelStats after = wheel.stats();
    // next_deadline() probes at most one word run per level, whatever the count.
    wheel.next_deadline();
    EXPECT_LE(wheel.stats().bitmap_probes - after.bitmap_probes,
              TimerWheel::kLevels * TimerWheel::kSlots / 64);
    EXPECT_EQ(after.scheduled - before.scheduled, 6000U);
    EXPECT_EQ(after.cancelled - before.cancelled, 3000U);
    return Cost{after.cascaded - before.cascaded, after.overflow_scanned - before.overflow_scanned,
                after.bitmap_probes - before.bitmap_probes};
  };
  const Cost few = measure(10);
  const Cost many = measure(100'000);
  EXPECT_EQ(few, many);
  EXPECT_EQ(few, (Cost{0, 0, 0}));  // schedule/cancel walk nothing: O(1)
}

// Differential test against a std::multimap model (equal keys keep insertion order), with
// random schedules, reschedules, cancels, advances of every size, and callbacks that cancel or
// reschedule.
TEST(TimerWheelTest, MatchesMultimapModelUnderRandomOperations) {
  constexpr int kTimers = 10'000;
  constexpr int kOps = 300'000;
  std::mt19937_64 rng(20240611);
  const Ms start = 5'000'000'000ULL + rng() % 1'000'000;
  TimerWheel wheel(start);
  auto waiters = make_waiters(kTimers);
  std::multimap<Ms, int> model;  // effective deadline -> id
  std::vector<std::multimap<Ms, int>::iterator> where(kTimers, model.end());
  Ms now = start;

  auto random_deadline = [&](Ms base) -> Ms {
    switch (rng() % 10) {
      case 0: return base - std::min<Ms>(base, rng() % 100);  // past or now
      case 1: return base + rng() % 4;
      case 2:
      case 3:
      case 4: return base + rng() % 300;                               // levels 0-1
      case 5: return base + rng() % 70'000;                            // level 2
      case 6: return ((base >> 8) + 1 + rng() % 3) * 256 + rng() % 2;  // on a slot edge
      case 7: return base + rng() % 20'000'000;                        // level 3
      case 8: return base + rng() % 400'000;
      default: return base + (rng() % 3 == 0 ? rng() % 20'000'000'000ULL : rng() % 2'000'000);
    }
  };
  auto model_schedule = [&](int id, Ms deadline, Ms cursor) {
    if (where[id] != model.end()) model.erase(where[id]);
    where[id] = model.emplace(std::max(deadline, cursor), id);
  };
  auto model_cancel = [&](int id) {
    if (where[id] != model.end()) model.erase(where[id]);
    where[id] = model.end();
  };

  std::size_t total_fired = 0;
  for (int op = 0; op < kOps; ++op) {
    const auto kind = static_cast<unsigned>(rng() % 100);
    if (kind < 45) {
      const int id = static_cast<int>(rng() % kTimers);
      const Ms deadline = random_deadline(now);
      wheel.schedule(waiters[id]->timer, deadline);
      model_schedule(id, deadline, now);
    } else if (kind < 70) {
      const int id = static_cast<int>(rng() % kTimers);
      wheel.cancel(waiters[id]->timer);
      model_cancel(id);
    } else {
      Ms target = now;
      switch (rng() % 8) {
        case 0: target = now; break;
        case 1:
        case 2: target = now + rng() % 5; break;
        case 3:
        case 4: target = now + rng() % 600; break;
        case 5: target = now + rng() % 100'000; break;
        case 6: target = now + rng() % 30'000'000; break;
        default:
          target = rng() % 50 == 0 ? now + rng() % 30'000'000'000ULL : now + rng() % 2000;
          break;
      }
      wheel.advance(target, [&](TimerNode& node) {
        const int id = node.owner_as<Waiter>().id;
        ASSERT_FALSE(model.empty());
        const auto head = model.begin();
        ASSERT_EQ(head->second, id) << "op " << op;
        ASSERT_LE(head->first, target);
        ASSERT_EQ(wheel.now_ms(), head->first) << "fired at the wrong time, op " << op;
        model.erase(head);
        where[id] = model.end();
        ++total_fired;
        // Callbacks disturb the wheel like a server would: serve (cancel) another waiter,
        // re-arm themselves, arm a fresh one.
        const Ms cursor = wheel.now_ms();
        switch (rng() % 8) {
          case 0: {
            const int other = static_cast<int>(rng() % kTimers);
            wheel.cancel(waiters[other]->timer);
            model_cancel(other);
            break;
          }
          case 1: {
            const Ms deadline = random_deadline(cursor + 1);  // never re-arms at cursor forever
            wheel.schedule(node, deadline);
            model_schedule(id, deadline, cursor);
            break;
          }
          case 2: {
            const int other = static_cast<int>(rng() % kTimers);
            const Ms deadline = cursor + 1 + rng() % 1000;
            wheel.schedule(waiters[other]->timer, deadline);
            model_schedule(other, deadline, cursor);
            break;
          }
          default: break;
        }
      });
      now = std::max(now, target);
      ASSERT_EQ(wheel.now_ms(), now);
      if (!model.empty()) {
        ASSERT_GT(model.begin()->first, now) << "timer left unfired, op " << op;
      }
    }
    ASSERT_EQ(wheel.size(), model.size()) << "op " << op;
    const auto next = wheel.next_deadline();
    ASSERT_EQ(next.has_value(), !model.empty());
    if (next) {
      ASSERT_LE(*next, model.begin()->first) << "next_deadline later than the earliest, op " << op;
      if (model.begin()->first > now) {
        ASSERT_GT(*next, now) << "next_deadline would busy-loop, op " << op;
      }
      // A level-0 slot holds a single deadline, so cancels cannot make it inexact there.
      if (model.begin()->first > now && (model.begin()->first ^ now) < TimerWheel::kSlots) {
        ASSERT_EQ(*next, model.begin()->first) << "inexact within level 0, op " << op;
      }
    }
  }
  EXPECT_GT(total_fired, 10'000U);
  EXPECT_GT(wheel.stats().cascaded, 10'000U);       // every level's cascade path ran
  EXPECT_GT(wheel.stats().overflow_scanned, 100U);  // and the overflow rescan
  // Drain everything: the rest fires in order too.
  wheel.advance(std::numeric_limits<Ms>::max(), [&](TimerNode& node) {
    ASSERT_FALSE(model.empty());
    ASSERT_EQ(model.begin()->second, node.owner_as<Waiter>().id);
    ASSERT_EQ(model.begin()->first, wheel.now_ms());
    model.erase(model.begin());
  });
  EXPECT_TRUE(model.empty());
  EXPECT_TRUE(wheel.empty());
}

}  // namespace
}  // namespace listd::blocking
