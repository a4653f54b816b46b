// Blocking list commands on the executor: FIFO waiting lists, one element per waiter, ready-key
// draining, timeouts on a manual clock, MULTI, disconnects. No sockets, no sleeps; replies are
// compared as raw RESP bytes. Every test ends with no waiter left registered (TearDown).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "listd/server/errors.h"
#include "support/resp.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using namespace listd::testing::resp;

const blocking::TimerWheel& timers_of(Executor& exec) { return exec.blocking().timers(); }

class BlockingCommandsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u) << "a waiter was leaked";
    EXPECT_EQ(t.exec().blocking().waiters().blocking_key_count(), 0u)
        << "a waiting list was leaked";
  }

  /// `n` fresh clients, each running `argv` (which must block), in this order.
  std::vector<Client*> block_clients(std::size_t n, std::initializer_list<std::string_view> argv) {
    std::vector<Client*> out;
    for (std::size_t i = 0; i < n; ++i) {
      Client& c = t.client();
      EXPECT_EQ(t.run(c, argv), "");
      EXPECT_TRUE(c.blocked());
      out.push_back(&c);
    }
    return out;
  }

  std::size_t waiters_on(std::string_view key, int db = 0) {
    return t.exec().blocking().waiters().waiter_count(db, key);
  }

  testing::TestServer t;
};

// ---- the seed scenarios ------------------------------------------------------------------------

TEST_F(BlockingCommandsTest, TenWaitersOneLpushOnlyTheOldestGetsIt) {
  auto w = block_clients(10, {"BRPOP", "task:queue", "5"});
  Client& producer = t.client();
  EXPECT_EQ(t.run(producer, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(*w[0]), key_value("task:queue", "6"));
  EXPECT_FALSE(w[0]->blocked());
  for (std::size_t i = 1; i < 10; ++i) {
    EXPECT_EQ(t.take_output(*w[i]), "") << "waiter " << i + 1;
    EXPECT_TRUE(w[i]->blocked());
  }
  EXPECT_EQ(waiters_on("task:queue"), 9u);
  EXPECT_EQ(t.run(producer, {"LLEN", "task:queue"}), integer(0));
  // The other nine time out together, each with one null.
  t.advance_ms(5001);
  for (std::size_t i = 1; i < 10; ++i) EXPECT_EQ(t.take_output(*w[i]), kNullArray);
  EXPECT_EQ(t.take_output(*w[0]), "");
}

TEST_F(BlockingCommandsTest, ArrivalOrderBrpopBrpopLpush) {
  auto w = block_clients(2, {"BRPOP", "task:queue", "5"});
  Client& p = t.client();
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(*w[0]), key_value("task:queue", "6"));
  EXPECT_EQ(t.take_output(*w[1]), "");
  EXPECT_TRUE(w[1]->blocked());
  t.advance_ms(5001);
  EXPECT_EQ(t.take_output(*w[1]), kNullArray);
}

TEST_F(BlockingCommandsTest, ArrivalOrderLpushBrpopBrpop) {
  Client& p = t.client();
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  Client& w1 = t.client();
  Client& w2 = t.client();
  EXPECT_EQ(t.run(w1, {"BRPOP", "task:queue", "5"}), key_value("task:queue", "6"));
  EXPECT_FALSE(w1.blocked());
  EXPECT_EQ(t.run(w2, {"BRPOP", "task:queue", "5"}), "");
  EXPECT_TRUE(w2.blocked());
  t.advance_ms(5001);
  EXPECT_EQ(t.take_output(w2), kNullArray);
}

TEST_F(BlockingCommandsTest, ArrivalOrderBrpopLpushBrpop) {
  Client& w1 = t.client();
  Client& p = t.client();
  Client& w2 = t.client();
  EXPECT_EQ(t.run(w1, {"BRPOP", "task:queue", "5"}), "");
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(w1), key_value("task:queue", "6"));
  EXPECT_EQ(t.run(w2, {"BRPOP", "task:queue", "5"}), "");
  EXPECT_TRUE(w2.blocked());
  t.advance_ms(5001);
  EXPECT_EQ(t.take_output(w2), kNullArray);
  EXPECT_EQ(t.take_output(w1), "");
}

TEST_F(BlockingCommandsTest, LpushOfThreeElementsServesTheThreeOldestWaitersInOrder) {
  auto w = block_clients(10, {"BRPOP", "task:queue", "5"});
  Client& p = t.client();
  // LPUSH 6 7 8 makes [8, 7, 6]; BRPOP pops from the right: 6 first, to the oldest waiter.
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6", "7", "8"}), integer(3));
  EXPECT_EQ(t.take_output(*w[0]), key_value("task:queue", "6"));
  EXPECT_EQ(t.take_output(*w[1]), key_value("task:queue", "7"));
  EXPECT_EQ(t.take_output(*w[2]), key_value("task:queue", "8"));
  for (std::size_t i = 3; i < 10; ++i) {
    EXPECT_EQ(t.take_output(*w[i]), "");
    EXPECT_TRUE(w[i]->blocked());
  }
  EXPECT_EQ(waiters_on("task:queue"), 7u);
  EXPECT_EQ(t.run(p, {"EXISTS", "task:queue"}), integer(0));
  t.advance_ms(5001);
  for (std::size_t i = 3; i < 10; ++i) EXPECT_EQ(t.take_output(*w[i]), kNullArray);
}

TEST_F(BlockingCommandsTest, RpushServesWaitersInFifoOrderAndKeepsTheRest) {
  // CLIENTS.md 6: two BLPOP waiters, RPUSH sq a b c -> a, b; c stays.
  auto w = block_clients(2, {"BLPOP", "sq", "0"});
  Client& p = t.client();
  EXPECT_EQ(t.run(p, {"RPUSH", "sq", "a", "b", "c"}), integer(3));
  EXPECT_EQ(t.take_output(*w[0]), key_value("sq", "a"));
  EXPECT_EQ(t.take_output(*w[1]), key_value("sq", "b"));
  EXPECT_EQ(t.run(p, {"LRANGE", "sq", "0", "-1"}), "*1\r\n" + bulk("c"));
}

TEST_F(BlockingCommandsTest, MultiKeyWaiterIsServedFromEitherKeyAndLeavesBothQueues) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue:vip", "task:queue:normal", "5"}), "");
  EXPECT_EQ(waiters_on("task:queue:vip"), 1u);
  EXPECT_EQ(waiters_on("task:queue:normal"), 1u);
  EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 1u);
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue:normal", "n1"}), integer(1));
  EXPECT_EQ(t.take_output(w), key_value("task:queue:normal", "n1"));
  EXPECT_EQ(waiters_on("task:queue:vip"), 0u);
  EXPECT_EQ(waiters_on("task:queue:normal"), 0u);
  // A later push to the other key finds nobody: it stays in the list.
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue:vip", "v1"}), integer(1));
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_EQ(t.run(p, {"LLEN", "task:queue:vip"}), integer(1));
}

TEST_F(BlockingCommandsTest, MultiKeyFirstNonEmptyKeyInArgumentOrderIsServedAtOnce) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"LPUSH", "task:queue:normal", "n1"}), integer(1));
  EXPECT_EQ(t.run(c, {"BRPOP", "task:queue:vip", "task:queue:normal", "5"}),
            key_value("task:queue:normal", "n1"));
  EXPECT_EQ(t.run(c, {"LPUSH", "task:queue:normal", "n2"}), integer(1));
  EXPECT_EQ(t.run(c, {"LPUSH", "task:queue:vip", "v1"}), integer(1));
  EXPECT_EQ(t.run(c, {"BRPOP", "task:queue:vip", "task:queue:normal", "5"}),
            key_value("task:queue:vip", "v1"));
  EXPECT_EQ(t.run(c, {"BRPOP", "task:queue:vip", "task:queue:normal", "5"}),
            key_value("task:queue:normal", "n2"));
}

TEST_F(BlockingCommandsTest, KeysAreServedInTheOrderTheyBecameReadyNotArgumentOrder) {
  // CLIENTS.md 6: a waiter on [sq, sq2] and MULTI; RPUSH sq2 y; RPUSH sq z; EXEC -> sq2.
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "sq", "sq2", "0"}), "");
  EXPECT_EQ(t.run(p, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(p, {"RPUSH", "sq2", "y"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(p, {"RPUSH", "sq", "z"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(p, {"EXEC"}), "*2\r\n:1\r\n:1\r\n");
  EXPECT_EQ(t.take_output(w), key_value("sq2", "y"));
  EXPECT_EQ(t.run(p, {"LLEN", "sq"}), integer(1));
}

TEST_F(BlockingCommandsTest, PushBeforeTheDeadlineServesAndTheTimerFindsNothing) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "1"}), "");
  t.advance_ms(999);
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(w), key_value("task:queue", "6"));
  EXPECT_TRUE(timers_of(t.exec()).empty());
  t.advance_ms(10'000);
  EXPECT_EQ(t.take_output(w), "") << "served and then timed out too";
}

// One loop turn in which a push arrives and the waiter's timer is due: the clock reads the
// deadline's first due ms (the clock has whole ms, so a timer fires once now is past the
// deadline), the push runs, then the turn's timer tick. Redis' order in a turn is the same
// (commands, which serve ready keys at once, then beforeSleep's handleBlockedClientsTimeout):
// the waiter gets the element exactly once and no nil follows.
TEST_F(BlockingCommandsTest, PushAndDueTimerInOneTurnServeTheWaiterOnceWithNoNil) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "1"}), "");
  t.advance_ms(1000);  // at the deadline: not due yet
  EXPECT_EQ(t.take_output(w), "");
  ASSERT_TRUE(w.blocked());
  t.clock().advance_ms(1);  // the turn begins: the timer is due, no tick has run yet
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6", "7"}), integer(2));
  t.exec().tick();
  EXPECT_EQ(t.take_output(w), key_value("task:queue", "6")) << "lost, or a nil as well";
  EXPECT_FALSE(w.blocked());
  EXPECT_TRUE(timers_of(t.exec()).empty());
  t.advance_ms(10'000);
  EXPECT_EQ(t.take_output(w), "") << "served and then timed out too";
  EXPECT_EQ(t.run(p, {"LRANGE", "task:queue", "0", "-1"}), array({"7"}));
}

// The other order in one turn (the tick first, as when the timer was due before the push was
// read): a nil, and the pushed element stays for the next consumer.
TEST_F(BlockingCommandsTest, DueTimerTickedBeforeAPushInOneTurnAnswersNilAndKeepsTheElement) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "1"}), "");
  t.clock().advance_ms(1001);
  t.exec().tick();
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(w), kNullArray);
  EXPECT_EQ(t.run(p, {"LRANGE", "task:queue", "0", "-1"}), array({"6"}));
}

TEST_F(BlockingCommandsTest, TimeoutBeforeThePushAnswersNilAndTheElementStays) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "1"}), "");
  t.advance_ms(1001);
  EXPECT_EQ(t.take_output(w), kNullArray);
  EXPECT_FALSE(w.blocked());
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(w), "") << "timed out and then served too";
  EXPECT_EQ(t.run(p, {"LLEN", "task:queue"}), integer(1));
  // The next consumer gets it.
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "1"}), key_value("task:queue", "6"));
}

TEST_F(BlockingCommandsTest, BlmoveChainServesTheDestinationWaiterInTheSameTurn) {
  Client& a = t.client();
  Client& b = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(a, {"BLPOP", "dst", "0"}), "");
  EXPECT_EQ(t.run(b, {"BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"}), "");
  EXPECT_EQ(t.run(p, {"LPUSH", "src", "v"}), integer(1));
  EXPECT_EQ(t.take_output(b), bulk("v"));
  EXPECT_EQ(t.take_output(a), key_value("dst", "v"));
  EXPECT_EQ(t.run(p, {"EXISTS", "src", "dst"}), integer(0));
}

TEST_F(BlockingCommandsTest, BrpoplpushChainAcrossTwoHops) {
  Client& a = t.client();
  Client& b = t.client();
  Client& c = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(a, {"BLPOP", "d2", "0"}), "");
  EXPECT_EQ(t.run(b, {"BRPOPLPUSH", "d1", "d2", "0"}), "");
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "src", "d1", "0"}), "");
  EXPECT_EQ(t.run(p, {"RPUSH", "src", "item"}), integer(1));
  EXPECT_EQ(t.take_output(c), bulk("item"));
  EXPECT_EQ(t.take_output(b), bulk("item"));
  EXPECT_EQ(t.take_output(a), key_value("d2", "item"));
  EXPECT_EQ(t.run(p, {"EXISTS", "src", "d1", "d2"}), integer(0));
}

TEST_F(BlockingCommandsTest, DisconnectWhileBlockedLeavesTheElementInTheList) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "0"}), "");
  t.disconnect(w);
  EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u);
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.run(p, {"LLEN", "task:queue"}), integer(1));
}

TEST_F(BlockingCommandsTest, DisconnectOfAMultiKeyWaiterLeavesEveryQueue) {
  Client& w = t.client();
  Client& other = t.client();
  EXPECT_EQ(t.run(w, {"BLPOP", "a", "b", "c", "10"}), "");
  EXPECT_EQ(t.run(other, {"BLPOP", "b", "10"}), "");
  EXPECT_EQ(t.exec().blocking().waiters().blocking_key_count(), 3u);
  t.disconnect(w);
  EXPECT_EQ(t.exec().blocking().waiters().blocking_key_count(), 1u);
  EXPECT_EQ(waiters_on("b"), 1u);
  EXPECT_EQ(timers_of(t.exec()).size(), 1u);
  t.advance_ms(10'001);
  EXPECT_EQ(t.take_output(other), kNullArray);
}

TEST_F(BlockingCommandsTest, AWaiterWhosePeerIsGoneIsSkippedAndTheNextOneServed) {
  auto w = block_clients(3, {"BRPOP", "task:queue", "0"});
  t.transport(*w[0]).gone = true;
  Client& p = t.client();
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(*w[0]), "");
  EXPECT_FALSE(w[0]->blocked());
  EXPECT_EQ(t.take_output(*w[1]), key_value("task:queue", "6"));
  EXPECT_TRUE(w[2]->blocked());
  // The transport is asked to close the dead one.
  auto kill = t.exec().clients().take_kill_list();
  EXPECT_NE(std::find(kill.begin(), kill.end(), w[0]), kill.end());
  EXPECT_EQ(t.run(p, {"LLEN", "task:queue"}), integer(0));
  t.disconnect(*w[2]);
}

TEST_F(BlockingCommandsTest, AllWaitersGoneKeepsTheElement) {
  auto w = block_clients(2, {"BRPOP", "task:queue", "0"});
  t.transport(*w[0]).gone = true;
  t.transport(*w[1]).gone = true;
  Client& p = t.client();
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_EQ(t.take_output(*w[0]), "");
  EXPECT_EQ(t.take_output(*w[1]), "");
  EXPECT_EQ(t.run(p, {"LLEN", "task:queue"}), integer(1));
}

// ---- MULTI / EXEC ----------------------------------------------------------------------------

TEST_F(BlockingCommandsTest, PushThenPopInOneTransactionWakesNobody) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "0"}), "");
  EXPECT_EQ(t.run(p, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(p, {"RPOP", "task:queue"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(p, {"EXEC"}), "*2\r\n:1\r\n" + bulk("6"));
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_TRUE(w.blocked());
  t.disconnect(w);
}

TEST_F(BlockingCommandsTest, PushInsideMultiWakesOnlyAfterExec) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "0"}), "");
  EXPECT_EQ(t.run(p, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6", "7"}), "+QUEUED\r\n");
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_EQ(t.run(p, {"LLEN", "task:queue"}), "+QUEUED\r\n");
  // LLEN inside the transaction still sees both elements: waiters are served after EXEC.
  EXPECT_EQ(t.run(p, {"EXEC"}), "*2\r\n:2\r\n:2\r\n");
  EXPECT_EQ(t.take_output(w), key_value("task:queue", "6"));
  EXPECT_EQ(t.run(p, {"LRANGE", "task:queue", "0", "-1"}), "*1\r\n" + bulk("7"));
}

TEST_F(BlockingCommandsTest, BlockingCommandsInsideExecNeverBlock) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(c, {"BRPOP", "k", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "k", "d", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BLMOVE", "k", "d", "LEFT", "RIGHT", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "LEFT"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BLPOP", "k", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*5\r\n*-1\r\n$-1\r\n$-1\r\n*-1\r\n*-1\r\n");
  EXPECT_FALSE(c.blocked());
}

TEST_F(BlockingCommandsTest, BlockingCommandsInsideExecPopWhenThereIsData) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "a", "b", "c"}), integer(3));
  EXPECT_EQ(t.run(c, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(c, {"BRPOP", "k", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BLMOVE", "k", "d", "LEFT", "RIGHT", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "LEFT", "COUNT", "5"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*3\r\n" + key_value("k", "c") + bulk("a") + "*2\r\n" + bulk("k") +
                                    "*1\r\n" + bulk("b"));
}

TEST_F(BlockingCommandsTest, ServingAWaiterTouchesWatchedKeysAndCountsAChange) {
  Client& w = t.client();
  Client& watcher = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "q", "0"}), "");
  EXPECT_EQ(t.run(p, {"LPUSH", "other", "x"}), integer(1));
  EXPECT_EQ(t.run(watcher, {"WATCH", "q"}), kOk);
  const long long dirty = t.exec().stats().dirty;
  // The push and the pop both modify q: the watcher's transaction must fail.
  EXPECT_EQ(t.run(p, {"LPUSH", "q", "x"}), integer(1));
  EXPECT_EQ(t.take_output(w), key_value("q", "x"));
  EXPECT_EQ(t.exec().stats().dirty, dirty + 2);
  EXPECT_EQ(t.run(watcher, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(watcher, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(watcher, {"EXEC"}), kNullArray);
}

// ---- pipelining and resumption ---------------------------------------------------------------

TEST_F(BlockingCommandsTest, ABlockedClientIsParkedAndResumedWhenServed) {
  Client& w = t.client();
  Client& p = t.client();
  (void)t.exec().clients().take_resume_list();
  EXPECT_EQ(t.run(w, {"BRPOP", "task:queue", "0"}), "");
  // The transport runs no further command of `w` while it is blocked (Connection checks this).
  EXPECT_TRUE(w.blocked());
  EXPECT_TRUE(t.exec().clients().take_resume_list().empty());
  EXPECT_EQ(t.run(p, {"LPUSH", "task:queue", "6"}), integer(1));
  EXPECT_FALSE(w.blocked());
  auto resumed = t.exec().clients().take_resume_list();
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0], &w);
  auto flush = t.exec().clients().take_flush_list();
  EXPECT_NE(std::find(flush.begin(), flush.end(), &w), flush.end());
  // Its next pipelined command then runs normally, after the served reply.
  EXPECT_EQ(t.take_output(w), key_value("task:queue", "6"));
  EXPECT_EQ(t.run(w, {"PING"}), "+PONG\r\n");
}

TEST_F(BlockingCommandsTest, ATimedOutClientIsResumedToo) {
  Client& w = t.client();
  EXPECT_EQ(t.run(w, {"BLPOP", "k", "0.5"}), "");
  (void)t.exec().clients().take_resume_list();
  t.advance_ms(501);
  auto resumed = t.exec().clients().take_resume_list();
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0], &w);
  EXPECT_EQ(t.take_output(w), kNullArray);
}

// ---- CLIENT UNBLOCK at the executor level ----------------------------------------------------

TEST_F(BlockingCommandsTest, UnblockWithTimeoutRepliesNullAndLeavesEveryQueue) {
  Client& w = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "a", "b", "0"}), "");
  t.exec().blocking().time_out(w);
  EXPECT_EQ(t.take_output(w), kNullArray);
  EXPECT_FALSE(w.blocked());
  EXPECT_EQ(t.exec().blocking().waiters().blocking_key_count(), 0u);
  // A second unblock of a client that is not blocked does nothing.
  t.exec().blocking().time_out(w);
  EXPECT_EQ(t.take_output(w), "");
}

TEST_F(BlockingCommandsTest, UnblockWithErrorRepliesTheErrorAndCancelsTheTimer) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BLMOVE", "src", "dst", "LEFT", "LEFT", "5"}), "");
  EXPECT_EQ(timers_of(t.exec()).size(), 1u);
  t.exec().blocking().time_out(w, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
  EXPECT_EQ(t.take_output(w), "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  EXPECT_TRUE(timers_of(t.exec()).empty());
  t.advance_ms(6000);
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_EQ(t.run(p, {"LPUSH", "src", "v"}), integer(1));
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_EQ(t.run(p, {"LLEN", "src"}), integer(1));
}

TEST_F(BlockingCommandsTest, UnblockedTimeoutOfBlmoveIsANullArrayInResp2AndNullInResp3) {
  Client& a = t.client();
  Client& b = t.client();
  ASSERT_EQ(t.run(b, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(a, {"BLMOVE", "src", "dst", "LEFT", "LEFT", "0"}), "");
  EXPECT_EQ(t.run(b, {"BRPOPLPUSH", "src", "dst", "0"}), "");
  t.exec().blocking().time_out(a);
  t.exec().blocking().time_out(b);
  EXPECT_EQ(t.take_output(a), kNullArray);
  EXPECT_EQ(t.take_output(b), "_\r\n");
}

// ---- timeouts --------------------------------------------------------------------------------

TEST_F(BlockingCommandsTest, TimeoutFiresAfterTheFullDurationNeverEarly) {
  Client& w = t.client();
  EXPECT_EQ(t.run(w, {"BRPOP", "k", "0.1"}), "");
  t.advance_ms(100);
  // The clock reads whole ms: at +100 the real elapsed time may be only 99.x ms.
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_TRUE(w.blocked());
  t.advance_ms(1);
  EXPECT_EQ(t.take_output(w), kNullArray);
}

TEST_F(BlockingCommandsTest, EveryBlockingCommandTimesOutWithANullArray) {
  std::vector<Client*> cs;
  const std::vector<std::vector<std::string>> commands = {
      {"BLPOP", "k", "1"},
      {"BRPOP", "k", "k2", "1"},
      {"BRPOPLPUSH", "k", "d", "1"},
      {"BLMOVE", "k", "d", "RIGHT", "LEFT", "1"},
      {"BLMPOP", "1", "2", "k", "k2", "LEFT", "COUNT", "3"},
  };
  for (const auto& cmd : commands) {
    Client& c = t.client();
    EXPECT_EQ(t.run_strings(c, cmd), "") << cmd[0];
    cs.push_back(&c);
  }
  t.advance_ms(1001);
  for (std::size_t i = 0; i < cs.size(); ++i)
    EXPECT_EQ(t.take_output(*cs[i]), kNullArray) << commands[i][0];
}

TEST_F(BlockingCommandsTest, Resp3TimeoutIsNull) {
  Client& w = t.client();
  ASSERT_EQ(t.run(w, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(w, {"BRPOP", "k", "0.1"}), "");
  t.advance_ms(101);
  EXPECT_EQ(t.take_output(w), "_\r\n");
  EXPECT_EQ(t.run(w, {"BLMPOP", "0.1", "1", "k", "LEFT"}), "");
  t.advance_ms(101);
  EXPECT_EQ(t.take_output(w), "_\r\n");
}

TEST_F(BlockingCommandsTest, ZeroTimeoutBlocksForever) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BLPOP", "k", "0"}), "");
  EXPECT_TRUE(timers_of(t.exec()).empty());
  t.advance_ms(365ull * 24 * 3600 * 1000);
  EXPECT_TRUE(w.blocked());
  EXPECT_EQ(t.run(p, {"RPUSH", "k", "late"}), integer(1));
  EXPECT_EQ(t.take_output(w), key_value("k", "late"));
}

TEST_F(BlockingCommandsTest, TimeoutFormatsFollowRedis7) {
  Client& w = t.client();
  // 1e-05 s rounds up to 1 ms (Redis 7.0.8+): it blocks, then times out.
  EXPECT_EQ(t.run(w, {"BRPOP", "k", "1e-05"}), "");
  t.advance_ms(2);
  EXPECT_EQ(t.take_output(w), kNullArray);
  // 0x10 is a hex float: 16 s.
  EXPECT_EQ(t.run(w, {"BRPOP", "k", "0x10"}), "");
  t.advance_ms(16'000);
  EXPECT_EQ(t.take_output(w), "");
  t.advance_ms(1);
  EXPECT_EQ(t.take_output(w), kNullArray);
  // -0.0001 ceils to 0: forever.
  EXPECT_EQ(t.run(w, {"BRPOP", "k", "-0.0001"}), "");
  EXPECT_TRUE(timers_of(t.exec()).empty());
  t.exec().blocking().time_out(w);
  EXPECT_EQ(t.take_output(w), kNullArray);
}

TEST_F(BlockingCommandsTest, TimeoutErrors) {
  Client& c = t.client();
  for (std::string_view bad : {"abc", "", " 1", "1 ", "nan", "1s"})
    EXPECT_EQ(t.run(c, {"BRPOP", "k", bad}), error(kTimeoutNotFloatErr)) << "'" << bad << "'";
  for (std::string_view neg : {"-1", "-0.5", "inf", "-inf", "1e400", "99999999999999999"})
    EXPECT_EQ(t.run(c, {"BLPOP", "k", neg}), error(kTimeoutNegativeErr)) << neg;
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "a", "b", "x"}), error(kTimeoutNotFloatErr));
  EXPECT_EQ(t.run(c, {"BLMOVE", "a", "b", "LEFT", "LEFT", "-1"}), error(kTimeoutNegativeErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "x", "1", "a", "LEFT"}), error(kTimeoutNotFloatErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "-1", "1", "a", "LEFT"}), error(kTimeoutNegativeErr));
  EXPECT_FALSE(c.blocked());
}

TEST_F(BlockingCommandsTest, TimeoutIsCheckedBeforeKeyTypes) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "s", "x"}), kOk);
  EXPECT_EQ(t.run(c, {"BRPOP", "s", "-1"}), error(kTimeoutNegativeErr));
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "s", "d", "abc"}), error(kTimeoutNotFloatErr));
  EXPECT_EQ(t.run(c, {"BRPOP", "s", "0"}), error(kWrongTypeErr));
}

// ---- argument and type checks ------------------------------------------------------------------

TEST_F(BlockingCommandsTest, TypeChecksStopAtTheFirstNonEmptyKey) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "S", "x"}), kOk);
  EXPECT_EQ(t.run(c, {"RPUSH", "L", "a"}), integer(1));
  EXPECT_EQ(t.run(c, {"BRPOP", "L", "S", "0"}), key_value("L", "a"));
  EXPECT_EQ(t.run(c, {"BRPOP", "nokey", "S", "0"}), error(kWrongTypeErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "2", "nokey", "S", "LEFT"}), error(kWrongTypeErr));
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "S", "d", "0"}), error(kWrongTypeErr));
  EXPECT_FALSE(c.blocked());
}

TEST_F(BlockingCommandsTest, BlmoveChecksTheDestinationTypeOnlyWhenThereIsData) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "S", "x"}), kOk);
  EXPECT_EQ(t.run(c, {"RPUSH", "L", "a"}), integer(1));
  EXPECT_EQ(t.run(c, {"BLMOVE", "L", "S", "LEFT", "LEFT", "0"}), error(kWrongTypeErr));
  EXPECT_EQ(t.run(c, {"LLEN", "L"}), integer(1));
  // With an empty source it blocks without looking at the destination.
  EXPECT_EQ(t.run(c, {"BLMOVE", "empty", "S", "LEFT", "LEFT", "0"}), "");
  EXPECT_TRUE(c.blocked());
  t.exec().blocking().time_out(c);
  EXPECT_EQ(t.take_output(c), kNullArray);
}

TEST_F(BlockingCommandsTest, ServedBlmoveWithAWrongTypeDestinationGetsWrongtypeAndPopsNothing) {
  // Checked against redis-server 7.0.15: the BLMOVE waiter gets WRONGTYPE, the element goes to
  // the next waiter.
  Client& mover = t.client();
  Client& popper = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(mover, {"BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"}), "");
  EXPECT_EQ(t.run(popper, {"BLPOP", "src", "0"}), "");
  EXPECT_EQ(t.run(p, {"SET", "dst", "x"}), kOk);
  EXPECT_EQ(t.run(p, {"RPUSH", "src", "a", "b"}), integer(2));
  EXPECT_EQ(t.take_output(mover), error(kWrongTypeErr));
  EXPECT_FALSE(mover.blocked());
  EXPECT_EQ(t.take_output(popper), key_value("src", "a"));
  EXPECT_EQ(t.run(p, {"LRANGE", "src", "0", "-1"}), "*1\r\n" + bulk("b"));
}

TEST_F(BlockingCommandsTest, BlmoveArgumentErrors) {
  Client& c = t.client();
  EXPECT_EQ(t.run(c, {"BLMOVE", "a", "b", "UP", "LEFT", "x"}), error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMOVE", "a", "b", "LEFT", "DOWN", "0"}), error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMOVE", "a", "b", "LEFT", "LEFT", "x"}), error(kTimeoutNotFloatErr));
  EXPECT_EQ(t.run(c, {"BLMOVE", "a", "b", "LEFT"}),
            error("ERR wrong number of arguments for 'blmove' command"));
  EXPECT_EQ(t.run(c, {"BLPOP", "k"}), error("ERR wrong number of arguments for 'blpop' command"));
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "a", "b"}),
            error("ERR wrong number of arguments for 'brpoplpush' command"));
}

TEST_F(BlockingCommandsTest, BlmpopArgumentErrorsInRedisOrder) {
  Client& c = t.client();
  const std::string numkeys = error(kNumkeysErr);
  const std::string count = error("ERR count should be greater than 0");
  EXPECT_EQ(t.run(c, {"BLMPOP", "abc", "0", "k", "LEFT"}), numkeys);  // numkeys before timeout
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "abc", "k", "LEFT"}), numkeys);
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "-1", "k", "LEFT"}), numkeys);
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "2", "k", "LEFT"}), error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "99999999999999", "k", "LEFT"}), error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "UP"}), error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "abc", "1", "k", "UP"}), error(kSyntaxErr));  // position first
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "LEFT", "COUNT", "0"}), count);
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "LEFT", "COUNT", "x"}), count);
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "LEFT", "COUNT"}), error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "1", "k", "LEFT", "COUNT", "1", "COUNT", "2"}),
            error(kSyntaxErr));
  EXPECT_EQ(t.run(c, {"BLMPOP", "abc", "1", "k", "LEFT", "COUNT", "0"}), count);  // count first
  EXPECT_FALSE(c.blocked());
}

TEST_F(BlockingCommandsTest, BlmpopPopsUpToCountAtOnceAndWhenServed) {
  Client& c = t.client();
  Client& w = t.client();
  EXPECT_EQ(t.run(c, {"RPUSH", "k2", "a", "b", "c"}), integer(3));
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "2", "k1", "k2", "right", "count", "2"}),
            "*2\r\n" + bulk("k2") + "*2\r\n" + bulk("c") + bulk("b"));
  EXPECT_EQ(t.run(c, {"BLMPOP", "0", "2", "k1", "k2", "LEFT", "COUNT", "10"}),
            "*2\r\n" + bulk("k2") + "*1\r\n" + bulk("a"));
  EXPECT_EQ(t.run(w, {"BLMPOP", "0", "2", "k1", "k2", "LEFT", "COUNT", "2"}), "");
  EXPECT_EQ(t.run(c, {"RPUSH", "k1", "x", "y", "z"}), integer(3));
  EXPECT_EQ(t.take_output(w), "*2\r\n" + bulk("k1") + "*2\r\n" + bulk("x") + bulk("y"));
  EXPECT_EQ(t.run(c, {"LRANGE", "k1", "0", "-1"}), "*1\r\n" + bulk("z"));
  // Without COUNT: one element, still nested.
  EXPECT_EQ(t.run(w, {"BLMPOP", "0", "1", "k3", "RIGHT"}), "");
  EXPECT_EQ(t.run(c, {"RPUSH", "k3", "p", "q"}), integer(2));
  EXPECT_EQ(t.take_output(w), "*2\r\n" + bulk("k3") + "*1\r\n" + bulk("q"));
}

TEST_F(BlockingCommandsTest, BlmoveOntoItselfRotates) {
  Client& c = t.client();
  Client& w = t.client();
  EXPECT_EQ(t.run(c, {"RPUSH", "k", "a", "b", "c"}), integer(3));
  EXPECT_EQ(t.run(c, {"BLMOVE", "k", "k", "LEFT", "RIGHT", "0"}), bulk("a"));
  EXPECT_EQ(t.run(c, {"LRANGE", "k", "0", "-1"}), "*3\r\n" + bulk("b") + bulk("c") + bulk("a"));
  EXPECT_EQ(t.run(c, {"RPUSH", "one", "x"}), integer(1));
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "one", "one", "0"}), bulk("x"));
  EXPECT_EQ(t.run(c, {"LRANGE", "one", "0", "-1"}), "*1\r\n" + bulk("x"));
  // Served: a rotating waiter, then a popping waiter behind it on the same key.
  Client& w2 = t.client();
  EXPECT_EQ(t.run(w, {"BLMOVE", "r", "r", "RIGHT", "LEFT", "0"}), "");
  EXPECT_EQ(t.run(w2, {"BLPOP", "r", "0"}), "");
  EXPECT_EQ(t.run(c, {"RPUSH", "r", "1", "2"}), integer(2));
  EXPECT_EQ(t.take_output(w), bulk("2"));
  EXPECT_EQ(t.take_output(w2), key_value("r", "2"));
  EXPECT_EQ(t.run(c, {"LRANGE", "r", "0", "-1"}), "*1\r\n" + bulk("1"));
}

TEST_F(BlockingCommandsTest, ARepeatedKeyIsWaitedOnOnce) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"BLPOP", "k", "k", "0"}), "");
  EXPECT_EQ(waiters_on("k"), 1u);
  EXPECT_EQ(t.run(p, {"RPUSH", "k", "a", "b"}), integer(2));
  EXPECT_EQ(t.take_output(w), key_value("k", "a"));
  EXPECT_EQ(t.run(p, {"LLEN", "k"}), integer(1));
}

TEST_F(BlockingCommandsTest, WaitersAreKeptPerDatabase) {
  Client& w = t.client();
  Client& p = t.client();
  EXPECT_EQ(t.run(w, {"SELECT", "1"}), kOk);
  EXPECT_EQ(t.run(w, {"BRPOP", "k", "0"}), "");
  EXPECT_EQ(waiters_on("k", 1), 1u);
  EXPECT_EQ(t.run(p, {"LPUSH", "k", "db0"}), integer(1));
  EXPECT_EQ(t.take_output(w), "");
  EXPECT_EQ(t.run(p, {"SELECT", "1"}), kOk);
  EXPECT_EQ(t.run(p, {"LPUSH", "k", "db1"}), integer(1));
  EXPECT_EQ(t.take_output(w), key_value("k", "db1"));
  EXPECT_EQ(t.run(p, {"SELECT", "0"}), kOk);
  EXPECT_EQ(t.run(p, {"LLEN", "k"}), integer(1));
}

// ---- scale: serving, timing out and disconnecting one waiter are O(1)
// -----------------------------

struct Counters {
  std::uint64_t scheduled, cancelled, fired, cascaded, probes;
  std::size_t blocked, keys;
};

Counters snapshot(Executor& exec) {
  const auto& s = timers_of(exec).stats();
  return {s.scheduled,
          s.cancelled,
          s.fired,
          s.cascaded,
          s.bitmap_probes,
          exec.blocking().waiters().blocked_count(),
          exec.blocking().waiters().blocking_key_count()};
}

class BlockingScaleTest : public BlockingCommandsTest {
 protected:
  static constexpr std::size_t kWaiters = 10'000;

  /// kWaiters clients, all on `one_key` or each on its own key; each with a 1000 s timeout
  /// except the first, which has 0.05 s.
  std::vector<Client*> park(bool one_key) {
    std::vector<Client*> out;
    for (std::size_t i = 0; i < kWaiters; ++i) {
      Client& c = t.client();
      const std::string key = one_key ? "q" : "q:" + std::to_string(i);
      EXPECT_EQ(t.run_strings(c, {"BRPOP", key, i == 0 ? "0.05" : "1000"}), "");
      out.push_back(&c);
    }
    return out;
  }

  void check_one_of_each(bool one_key) {
    auto w = park(one_key);
    Client& p = t.client();
    EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), kWaiters);
    EXPECT_EQ(t.exec().blocking().waiters().blocking_key_count(), one_key ? 1u : kWaiters);
    EXPECT_EQ(timers_of(t.exec()).size(), kWaiters);

    // Time out one: exactly one timer fires, no other waiter or timer is visited.
    Counters before = snapshot(t.exec());
    t.advance_ms(51);
    Counters after = snapshot(t.exec());
    EXPECT_EQ(t.take_output(*w[0]), kNullArray);
    EXPECT_EQ(after.fired - before.fired, 1u);
    EXPECT_EQ(after.cascaded - before.cascaded, 0u);
    EXPECT_LT(after.probes - before.probes, 64u);  // a few bitmap words, not 10,000 timers
    EXPECT_EQ(before.blocked - after.blocked, 1u);
    EXPECT_EQ(before.keys - after.keys, one_key ? 0u : 1u);

    // Serve one: the oldest remaining waiter of that key; one timer cancelled, none fired.
    const std::string key1 = one_key ? "q" : "q:1";
    before = snapshot(t.exec());
    EXPECT_EQ(t.run_strings(p, {"LPUSH", key1, "job"}), integer(1));
    after = snapshot(t.exec());
    EXPECT_EQ(t.take_output(*w[1]), key_value(key1, "job"));
    EXPECT_EQ(t.take_output(*w[2]), "");
    EXPECT_EQ(after.cancelled - before.cancelled, 1u);
    EXPECT_EQ(after.fired - before.fired, 0u);
    EXPECT_EQ(after.probes - before.probes, 0u);
    EXPECT_EQ(before.blocked - after.blocked, 1u);
    EXPECT_EQ(t.exec().blocking().waiters().waiter_count(0, one_key ? "q" : "q:2"),
              one_key ? kWaiters - 2 : 1u);

    // Disconnect one in the middle: one timer cancelled, one waiter gone, the rest untouched.
    before = snapshot(t.exec());
    t.disconnect(*w[kWaiters / 2]);
    after = snapshot(t.exec());
    EXPECT_EQ(after.cancelled - before.cancelled, 1u);
    EXPECT_EQ(after.fired - before.fired, 0u);
    EXPECT_EQ(after.probes - before.probes, 0u);
    EXPECT_EQ(before.blocked - after.blocked, 1u);
    EXPECT_EQ(before.keys - after.keys, one_key ? 0u : 1u);

    // FIFO order is intact after removals from the middle: the next push goes to w[2].
    const std::string key2 = one_key ? "q" : "q:2";
    EXPECT_EQ(t.run_strings(p, {"LPUSH", key2, "job2"}), integer(1));
    EXPECT_EQ(t.take_output(*w[2]), key_value(key2, "job2"));

    // Let everybody else time out (cascades are amortised: at most 4 moves per timer).
    before = snapshot(t.exec());
    t.advance_ms(1000 * 1000 + 1);
    after = snapshot(t.exec());
    EXPECT_EQ(after.fired - before.fired, kWaiters - 4);
    EXPECT_LE(after.cascaded - before.cascaded, 4 * (kWaiters - 4));
  }
};

TEST_F(BlockingScaleTest, TenThousandWaitersOnOneKeyCostO1PerOperation) { check_one_of_each(true); }

TEST_F(BlockingScaleTest, TenThousandWaitersOnTenThousandKeysCostO1PerOperation) {
  check_one_of_each(false);
}

}  // namespace
}  // namespace listd::server
