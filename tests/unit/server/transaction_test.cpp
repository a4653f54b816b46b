// Transaction (multi.c's shape) driven directly and through the executor: queueing, the one
// discard, EXEC's three outcomes, and the WATCH table.
#include "listd/server/transaction.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

TEST(Transaction, QueueKeepsCopiesOfTheArguments) {
  TestServer t;
  auto& c = t.client();
  auto& tx = t.exec().transactions();
  tx.begin(c);
  {
    std::string arg = "value";
    const std::vector<std::string_view> argv{"SET", "k", arg};
    tx.queue(c, argv);
    arg = "changed";
  }
  ASSERT_EQ(c.queued.size(), 1u);
  EXPECT_EQ(c.queued[0], (std::vector<std::string>{"SET", "k", "value"}));
}

TEST(Transaction, FlagOnlyCountsInsideMulti) {
  TestServer t;
  auto& c = t.client();
  listd::server::Transaction::flag(c);
  EXPECT_FALSE(c.multi_error);
  t.exec().transactions().begin(c);
  listd::server::Transaction::flag(c);
  EXPECT_TRUE(c.multi_error);
}

TEST(Transaction, DiscardClearsTheQueueTheErrorAndTheWatches) {
  TestServer t;
  auto& c = t.client();
  auto& tx = t.exec().transactions();
  tx.watch(c, 0, "k");
  tx.begin(c);
  const std::vector<std::string_view> argv{"INCR", "k"};
  tx.queue(c, argv);
  listd::server::Transaction::flag(c);
  tx.touch_key(0, "k");
  tx.discard(c);
  EXPECT_FALSE(c.in_multi);
  EXPECT_FALSE(c.multi_error);
  EXPECT_TRUE(c.queued.empty());
  EXPECT_TRUE(c.watched.empty());
  EXPECT_FALSE(c.watch_dirty);
  EXPECT_FALSE(tx.has_watched_keys());
}

TEST(Transaction, ExecRunsTheQueueInOrder) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"MULTI"}), kOk);
  EXPECT_EQ(t.run(c, {"RPUSH", "l", "a"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"LRANGE", "l", "0", "-1"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*2\r\n" + integer(1) + array({"a"}));
  EXPECT_FALSE(c.in_multi);
}

TEST(Transaction, ExecAbortsAfterAQueueingErrorAndDiscards) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"MULTI"});
  EXPECT_EQ(t.run(c, {"RPUSH", "l"}), error("ERR wrong number of arguments for 'rpush' command"));
  EXPECT_EQ(t.run(c, {"EXEC"}),
            error("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_FALSE(c.in_multi);
  EXPECT_EQ(t.run(c, {"EXISTS", "l"}), integer(0));
}

TEST(Transaction, ARejectedExecIsAbortedWithItsReason) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"WATCH", "k"});
  t.run(c, {"MULTI"});
  EXPECT_EQ(t.run(c, {"EXEC", "x"}),
            error("EXECABORT Transaction discarded because of: wrong number of arguments for "
                  "'exec' command"));
  EXPECT_FALSE(c.in_multi);
  EXPECT_TRUE(c.watched.empty());
}

TEST(Transaction, AWatchedKeyTouchedByAnotherClientFailsExec) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  t.run(a, {"WATCH", "k"});
  t.run(b, {"SET", "k", "1"});
  EXPECT_TRUE(a.watch_dirty);
  t.run(a, {"MULTI"});
  t.run(a, {"SET", "k", "2"});
  EXPECT_EQ(t.run(a, {"EXEC"}), kNullArray);
  EXPECT_EQ(t.run(a, {"GET", "k"}), bulk("1"));
  EXPECT_FALSE(t.exec().transactions().has_watched_keys());  // EXEC unwatched
}

TEST(Transaction, TouchExistingMarksOnlyThatDatabasesWatchers) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  t.run(a, {"SET", "k", "0"});
  t.run(b, {"SELECT", "1"});
  t.run(b, {"SET", "k", "1"});
  auto& tx = t.exec().transactions();
  tx.watch(a, 0, "k");
  tx.watch(b, 1, "k");
  tx.touch_existing(1, &t.exec().keyspace().db(1), nullptr);
  EXPECT_FALSE(a.watch_dirty);
  EXPECT_TRUE(b.watch_dirty);
}

TEST(Transaction, WatchingTwiceListsTheKeyOnceAndUnwatchEmptiesTheTable) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  auto& tx = t.exec().transactions();
  tx.watch(a, 0, "k");
  tx.watch(a, 0, "k");
  tx.watch(b, 0, "k");
  EXPECT_EQ(a.watched.size(), 1u);
  tx.unwatch_all(a);
  EXPECT_TRUE(tx.has_watched_keys());  // b still watches
  tx.touch_key(0, "k");
  EXPECT_FALSE(a.watch_dirty);
  EXPECT_TRUE(b.watch_dirty);
  t.disconnect(b);  // a disconnect unwatches too
  EXPECT_FALSE(tx.has_watched_keys());
}

TEST(Transaction, ReplayQueuesWithoutRepliesAndFlagsRejectedCommands) {
  TestServer t;
  auto& c = t.client();
  std::string error_text;
  const auto replay = [&](std::vector<std::string_view> argv) {
    return t.exec().replay(c, argv, error_text);
  };
  EXPECT_TRUE(replay({"MULTI"}));
  EXPECT_TRUE(replay({"RPUSH", "l", "a"}));
  EXPECT_EQ(c.queued.size(), 1u);
  EXPECT_EQ(t.take_output(c), kOk);  // MULTI's reply; queueing itself says nothing
  EXPECT_TRUE(replay({"RPUSH", "l"}));
  EXPECT_TRUE(c.multi_error);
  EXPECT_EQ(t.take_output(c), error("ERR wrong number of arguments for 'rpush' command"));
  EXPECT_FALSE(replay({"NOSUCH"}));
  EXPECT_EQ(error_text, "Unknown command 'NOSUCH'");
}

}  // namespace

// Redis 7.0 touchAllWatchedKeysInDb (read off redis-server 7.0.15): FLUSHDB / FLUSHALL / SWAPDB
// fail the EXEC of a watcher only if its key existed (in the emptied db, or in the db swapped in).
namespace {

TEST(WatchFlush, FlushOfAMissingWatchedKeyLeavesExecAlone) {
  TestServer t;
  auto& c = t.client();
  auto& other = t.client();
  EXPECT_EQ(t.run(c, {"WATCH", "x"}), "+OK\r\n");
  EXPECT_EQ(t.run(other, {"SET", "y", "1"}), "+OK\r\n");
  EXPECT_EQ(t.run(other, {"FLUSHALL"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n+PONG\r\n");
}

TEST(WatchFlush, FlushOfAnExistingWatchedKeyFailsExec) {
  TestServer t;
  auto& c = t.client();
  auto& other = t.client();
  t.run(other, {"SET", "x", "1"});
  EXPECT_EQ(t.run(c, {"WATCH", "x"}), "+OK\r\n");
  EXPECT_EQ(t.run(other, {"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*-1\r\n");
}

TEST(WatchFlush, SwapdbFailsExecOnlyWhenEitherDbHoldsTheKey) {
  TestServer t;
  auto& c = t.client();
  auto& other = t.client();
  EXPECT_EQ(t.run(c, {"WATCH", "x"}), "+OK\r\n");
  EXPECT_EQ(t.run(other, {"SWAPDB", "0", "1"}), "+OK\r\n");  // neither db has x
  t.run(c, {"MULTI"});
  t.run(c, {"PING"});
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n+PONG\r\n");
  t.run(other, {"SELECT", "1"});
  t.run(other, {"SET", "x", "1"});
  EXPECT_EQ(t.run(c, {"WATCH", "x"}), "+OK\r\n");
  EXPECT_EQ(t.run(other, {"SWAPDB", "0", "1"}), "+OK\r\n");  // x arrives in db 0
  t.run(c, {"MULTI"});
  t.run(c, {"PING"});
  EXPECT_EQ(t.run(c, {"EXEC"}), "*-1\r\n");
}

}  // namespace
