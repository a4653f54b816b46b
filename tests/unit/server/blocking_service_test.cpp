// BlockingService's three ways out of a block (finish, time_out, end_wait alone), its deadlines
// and its ready-key signals, with TestServer's manual clock.
#include "listd/server/blocking_service.h"

#include <gtest/gtest.h>

#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

class BlockingServiceTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(blocking().waiters().blocked_count(), 0u) << "a waiter was leaked";
    EXPECT_EQ(blocking().timers().size(), 0u) << "a deadline was leaked";
  }
  listd::server::BlockingService& blocking() { return t.exec().blocking(); }
  TestServer t;
};

TEST_F(BlockingServiceTest, EndWaitLeavesEveryListAndCancelsTheDeadlineWithoutAReply) {
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"BLPOP", "a", "b", "5"}), "");
  EXPECT_EQ(blocking().waiters().blocking_key_count(), 2u);
  EXPECT_EQ(blocking().timers().size(), 1u);
  blocking().end_wait(c);
  EXPECT_FALSE(c.blocked());
  EXPECT_TRUE(c.out.empty());
  EXPECT_FALSE(t.exec().clients().has_resume());
  blocking().end_wait(c);  // idempotent
}

TEST_F(BlockingServiceTest, TimeOutRepliesNullAndResumesTheClient) {
  auto& c = t.client();
  t.run(c, {"BLPOP", "a", "0"});
  (void)t.exec().clients().take_flush_list();
  blocking().time_out(c);
  EXPECT_EQ(t.take_output(c), kNullArray);
  EXPECT_EQ(t.exec().clients().take_resume_list(), std::vector<listd::server::Client*>{&c});
  EXPECT_EQ(t.exec().clients().take_flush_list(), std::vector<listd::server::Client*>{&c});
  blocking().time_out(c);  // not blocked any more: nothing happens
  EXPECT_TRUE(c.out.empty());
  EXPECT_FALSE(t.exec().clients().has_resume());
}

TEST_F(BlockingServiceTest, TimeOutWithAnErrorRepliesTheError) {
  auto& c = t.client();
  t.run(c, {"BRPOP", "a", "0"});
  blocking().time_out(c, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
  EXPECT_EQ(t.take_output(c), error("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
}

TEST_F(BlockingServiceTest, DeadlinesFireNeverEarly) {
  auto& c = t.client();
  t.run(c, {"BLPOP", "a", "1"});
  const std::uint64_t start = t.clock().monotonic_ms();
  blocking().fire_timeouts(start + 1000);
  EXPECT_TRUE(c.blocked());  // +1 ms: a truncated clock reading never fires early
  EXPECT_EQ(blocking().next_deadline(), start + 1001);
  blocking().fire_timeouts(start + 1001);
  EXPECT_FALSE(c.blocked());
  EXPECT_EQ(t.take_output(c), kNullArray);
  EXPECT_FALSE(blocking().next_deadline().has_value());
}

TEST_F(BlockingServiceTest, AnAddedKeyIsServedToTheOldestWaiter) {
  auto& first = t.client();
  auto& second = t.client();
  auto& pusher = t.client();
  t.run(first, {"BLPOP", "q", "0"});
  t.run(second, {"BLPOP", "q", "0"});
  EXPECT_EQ(t.run(pusher, {"RPUSH", "q", "x"}), integer(1));
  EXPECT_EQ(t.take_output(first), key_value("q", "x"));
  EXPECT_TRUE(second.blocked());
  blocking().end_wait(second);
}

TEST_F(BlockingServiceTest, SignalAllKeysMarksOnlyThatDatabasesWaitedKeys) {
  auto& a = t.client();
  auto& b = t.client();
  t.run(b, {"SELECT", "1"});
  t.run(a, {"BLPOP", "k0", "0"});
  t.run(b, {"BLPOP", "k1", "0"});
  blocking().signal_all_keys(1);
  EXPECT_TRUE(blocking().waiters().has_ready());
  const auto ready = blocking().waiters().take_ready();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0], (listd::store::DbKey{1, "k1"}));
  blocking().end_wait(a);
  blocking().end_wait(b);
}

TEST_F(BlockingServiceTest, AGonePeerIsKilledInsteadOfServed) {
  auto& w = t.client();
  auto& pusher = t.client();
  t.run(w, {"BLPOP", "q", "0"});
  t.transport(w).gone = true;
  EXPECT_EQ(t.run(pusher, {"RPUSH", "q", "x"}), integer(1));
  EXPECT_TRUE(w.out.empty());
  EXPECT_FALSE(w.blocked());
  EXPECT_EQ(t.exec().clients().take_kill_list(), std::vector<listd::server::Client*>{&w});
  EXPECT_EQ(t.run(pusher, {"LLEN", "q"}), integer(1));
}

// A group's consumers all wait on one key; one new entry serves one of them. The others are
// passed over without asking their transports anything (a poll each on a real connection).
TEST_F(BlockingServiceTest, OnlyTheWaiterAboutToBeServedIsAskedWhetherItsPeerIsGone) {
  auto& producer = t.client();
  EXPECT_EQ(t.run(producer, {"XGROUP", "CREATE", "jobs", "g", "$", "MKSTREAM"}), kOk);
  std::vector<listd::server::Client*> consumers;
  for (int i = 0; i < 5; ++i) {
    auto& c = t.client();
    const std::string name = "c" + std::to_string(i);
    EXPECT_EQ(t.run(c, {"XREADGROUP", "GROUP", "g", name, "BLOCK", "0", "STREAMS", "jobs", ">"}),
              "");
    consumers.push_back(&c);
  }
  EXPECT_EQ(t.run(producer, {"XADD", "jobs", "1-1", "n", "1"}), bulk("1-1"));
  int checks = 0;
  for (auto* c : consumers) checks += t.transport(*c).peer_checks;
  EXPECT_EQ(checks, 1);
  EXPECT_FALSE(consumers[0]->blocked());
  for (std::size_t i = 1; i < consumers.size(); ++i) EXPECT_TRUE(consumers[i]->blocked());
  for (std::size_t i = 1; i < consumers.size(); ++i) blocking().end_wait(*consumers[i]);
}

// The new entry is not delivered to a consumer whose peer is gone: it would sit in that
// consumer's pending list until a reaper claimed it. The next consumer gets it.
TEST_F(BlockingServiceTest, AGroupConsumerWhosePeerIsGoneIsKilledAndTheNextServed) {
  auto& producer = t.client();
  EXPECT_EQ(t.run(producer, {"XGROUP", "CREATE", "jobs", "g", "$", "MKSTREAM"}), kOk);
  auto& dead = t.client();
  auto& live = t.client();
  t.run(dead, {"XREADGROUP", "GROUP", "g", "dead", "BLOCK", "0", "STREAMS", "jobs", ">"});
  t.run(live, {"XREADGROUP", "GROUP", "g", "live", "BLOCK", "0", "STREAMS", "jobs", ">"});
  t.transport(dead).gone = true;
  EXPECT_EQ(t.run(producer, {"XADD", "jobs", "1-1", "n", "1"}), bulk("1-1"));
  EXPECT_TRUE(dead.out.empty());
  EXPECT_FALSE(dead.blocked());
  EXPECT_EQ(t.exec().clients().take_kill_list(), std::vector<listd::server::Client*>{&dead});
  EXPECT_FALSE(live.blocked());
  EXPECT_EQ(t.run(producer, {"XPENDING", "jobs", "g", "-", "+", "10", "dead"}), "*0\r\n");
  EXPECT_EQ(t.run(producer, {"XPENDING", "jobs", "g"}),
            "*4\r\n:1\r\n" + bulk("1-1") + bulk("1-1") + "*1\r\n*2\r\n" + bulk("live") + bulk("1"));
}

}  // namespace
