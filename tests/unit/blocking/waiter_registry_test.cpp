#include "listd/blocking/waiter_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

using namespace listd::blocking;

namespace {

TEST(WaiterRegistry, FifoPerKeyAndRemovalFromEveryKey) {
  WaiterRegistry r;
  Waiter a(nullptr), b(nullptr), c(nullptr);
  r.block(a, 0, {"k1", "k2"});
  r.block(b, 0, {"k2"});
  r.block(c, 0, {"k1"});
  EXPECT_EQ(r.front(0, "k1"), &a);
  EXPECT_EQ(r.front(0, "k2"), &a);
  EXPECT_EQ(r.waiter_count(0, "k1"), 2u);
  EXPECT_EQ(r.blocked_count(), 3u);
  r.unblock(a);
  EXPECT_EQ(r.front(0, "k1"), &c);
  EXPECT_EQ(r.front(0, "k2"), &b);
  r.unblock(b);
  r.unblock(c);
  EXPECT_EQ(r.blocking_key_count(), 0u);
  EXPECT_EQ(r.blocked_count(), 0u);
  r.unblock(c);  // idempotent
  EXPECT_EQ(r.blocked_count(), 0u);
}

TEST(WaiterRegistry, DuplicateKeysAreWaitedOnOnceAndDbsAreSeparate) {
  WaiterRegistry r;
  Waiter a(nullptr);
  r.block(a, 3, {"k", "k"});
  EXPECT_EQ(a.key_count(), 1u);
  EXPECT_EQ(r.waiter_count(3, "k"), 1u);
  EXPECT_EQ(r.waiter_count(0, "k"), 0u);
  r.unblock(a);
}

TEST(WaiterRegistry, ReadyKeysAreDedupedOrderedAndOnlyForWaitedKeys) {
  WaiterRegistry r;
  Waiter a(nullptr);
  r.block(a, 0, {"x", "y"});
  r.signal_ready(0, "nobody-waits");
  EXPECT_FALSE(r.has_ready());
  r.signal_ready(0, "y");
  r.signal_ready(0, "x");
  r.signal_ready(0, "y");
  auto ready = r.take_ready();
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_EQ(ready[0].key, "y");
  EXPECT_EQ(ready[1].key, "x");
  EXPECT_FALSE(r.has_ready());
  r.unblock(a);
}

// 10,000 waiters: removing one in the middle leaves the others queued in order. Correctness
// only: the registry has no operation counters, so its O(1) removal is not measured here.
TEST(WaiterRegistry, RemovalInTheMiddleOfALongQueueKeepsTheOthers) {
  WaiterRegistry r;
  std::vector<std::unique_ptr<Waiter>> ws;
  for (int i = 0; i < 10000; ++i) {
    ws.push_back(std::make_unique<Waiter>(nullptr));
    r.block(*ws.back(), 0, {"q"});
  }
  r.unblock(*ws[5000]);
  EXPECT_EQ(r.waiter_count(0, "q"), 9999u);
  EXPECT_EQ(r.front(0, "q"), ws[0].get());
  for (auto& w : ws) r.unblock(*w);
  EXPECT_EQ(r.blocking_key_count(), 0u);
}

}  // namespace
