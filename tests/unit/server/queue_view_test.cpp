// The queue view on a real executor (QUEUES, the snapshot behind /metrics): lengths, waiters,
// the oldest wait on the manual clock, and the traffic the list commands count.
#include "listd/server/queue_view.h"

#include <gtest/gtest.h>

#include "listd/protocol/reply_writer.h"
#include "support/test_server.h"

using listd::server::queue_snapshot;
using listd::server::QueueSnapshot;
using listd::testing::TestServer;

namespace {

std::vector<QueueSnapshot> snapshot(TestServer& t) {
  return queue_snapshot(t.exec(), t.clock().monotonic_ms(), t.clock().unix_ms());
}

}  // namespace

TEST(QueueView, ListsWaitersWithTheOldestWaitersAge) {
  TestServer t;
  auto& w1 = t.client();
  auto& w2 = t.client();
  EXPECT_EQ(t.run(w1, {"BLPOP", "jobs", "other", "0"}), "");
  t.advance_ms(1500);
  EXPECT_EQ(t.run(w2, {"BRPOP", "jobs", "0"}), "");
  t.advance_ms(250);
  const auto q = snapshot(t);
  ASSERT_EQ(q.size(), 2u);  // sorted by key
  EXPECT_EQ(q[0].key, "jobs");
  EXPECT_EQ(q[0].waiters, 2u);
  EXPECT_EQ(q[0].oldest_wait_ms, 1750u);
  EXPECT_EQ(q[1].key, "other");
  EXPECT_EQ(q[1].waiters, 1u);
  EXPECT_EQ(q[1].length, 0u);
}

TEST(QueueView, CountsPushesPopsAndHandOffs) {
  TestServer t;
  auto& producer = t.client();
  auto& worker = t.client();
  EXPECT_EQ(t.run(worker, {"BLPOP", "jobs", "0"}), "");
  EXPECT_EQ(t.run(producer, {"RPUSH", "jobs", "a", "b", "c"}), ":3\r\n");  // a handed off
  EXPECT_EQ(t.run(producer, {"LPOP", "jobs"}), "$1\r\nb\r\n");
  EXPECT_EQ(t.run(producer, {"LMOVE", "jobs", "done", "LEFT", "RIGHT"}), "$1\r\nc\r\n");
  const auto q = snapshot(t);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].key, "done");
  EXPECT_EQ(q[0].length, 1u);
  EXPECT_DOUBLE_EQ(q[0].rates.pushes, 1.0 / 60);
  EXPECT_EQ(q[1].key, "jobs");
  EXPECT_EQ(q[1].length, 0u);  // gone, still listed for its recent traffic
  EXPECT_EQ(q[1].waiters, 0u);
  EXPECT_DOUBLE_EQ(q[1].rates.pushes, 3.0 / 60);
  EXPECT_DOUBLE_EQ(q[1].rates.pops, 3.0 / 60);  // the hand-off, LPOP and LMOVE
  EXPECT_DOUBLE_EQ(q[1].rates.handoffs, 1.0 / 60);
}

TEST(QueueView, TrafficOlderThanAMinuteLeavesTheView) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"RPUSH", "jobs", "a"});
  t.advance_ms(59'000);
  EXPECT_EQ(snapshot(t).size(), 1u);
  t.advance_ms(2'000);
  t.exec().cron(t.clock().monotonic_ms());
  EXPECT_TRUE(snapshot(t).empty());
  // A key that is merely present is not a queue with traffic.
  EXPECT_EQ(t.run(c, {"LLEN", "jobs"}), ":1\r\n");
}

TEST(QueueView, QueuesRepliesOneMapPerKey) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"RPUSH", "jobs", "a", "b"});
  const std::string rate = listd::protocol::format_double(2.0 / 60);
  const std::string zero = "$1\r\n0\r\n";
  const std::string expected =
      "*1\r\n*16\r\n$2\r\ndb\r\n:0\r\n$3\r\nkey\r\n$4\r\njobs\r\n"
      "$6\r\nlength\r\n:2\r\n$7\r\nwaiters\r\n:0\r\n"
      "$14\r\noldest-wait-ms\r\n:0\r\n$14\r\npushes-per-sec\r\n$" +
      std::to_string(rate.size()) + "\r\n" + rate + "\r\n" + "$12\r\npops-per-sec\r\n" + zero +
      "$16\r\nhandoffs-per-sec\r\n" + zero;
  EXPECT_EQ(t.run(c, {"QUEUES"}), expected);
  t.run(c, {"HELLO", "3"});
  const std::string resp3 = t.run(c, {"QUEUES"});
  EXPECT_EQ(resp3.substr(0, 8), "*1\r\n%8\r\n");
  EXPECT_NE(resp3.find("$14\r\npushes-per-sec\r\n," + rate + "\r\n"), std::string::npos);
}

TEST(QueueView, PrometheusTextEscapesLabelValues) {
  QueueSnapshot q;
  q.db = 2;
  q.key = std::string("a\"b\\c\nd\xff", 8);
  q.length = 3;
  q.oldest_wait_ms = 1500;
  q.rates.handoffs = 0.5;
  const std::string text = listd::server::prometheus_queue_metrics({q});
  const std::string labels = "{db=\"2\",key=\"a\\\"b\\\\c\\nd\xEF\xBF\xBD\"}";
  EXPECT_NE(text.find("# TYPE listd_queue_length gauge\nlistd_queue_length" + labels + " 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("listd_queue_oldest_wait_seconds" + labels + " 1.5\n"), std::string::npos);
  EXPECT_NE(text.find("listd_queue_handoffs_per_second" + labels + " 0.5\n"), std::string::npos);
  EXPECT_NE(text.find("listd_queue_waiters" + labels + " 0\n"), std::string::npos);
}

TEST(QueueView, JsonEscapesKeys) {
  QueueSnapshot q;
  q.key = std::string("a\"b\\\x01\xff", 6);
  q.length = 1;
  EXPECT_EQ(listd::server::json_queue_metrics({q}),
            "{\"queues\":[{\"db\":0,\"key\":\"a\\\"b\\\\\\u0001\\u00ff\",\"length\":1,"
            "\"waiters\":0,\"oldest_wait_seconds\":0,\"pushes_per_second\":0,"
            "\"pops_per_second\":0,\"handoffs_per_second\":0}]}");
  EXPECT_EQ(listd::server::json_queue_metrics({}), "{\"queues\":[]}");
}

TEST(QueueView, EventsFollowTheKeyAcrossFreedEntriesRenamesAndSwaps) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"RPUSH", "a", "x"});
  t.run(c, {"LPOP", "a"});        // emptied: the entry is freed
  t.run(c, {"RPUSH", "b", "y"});  // may land at a's old address
  t.run(c, {"RENAME", "b", "c"});
  t.run(c, {"RPUSH", "c", "z"});
  t.run(c, {"SWAPDB", "0", "1"});
  t.run(c, {"SELECT", "1"});
  t.run(c, {"RPUSH", "c", "w"});  // the same entry, now in db 1
  const auto q = snapshot(t);
  ASSERT_EQ(q.size(), 4u);  // (0, a), (0, b), (0, c), (1, c)
  EXPECT_EQ(q[0].key, "a");
  EXPECT_DOUBLE_EQ(q[0].rates.pushes, 1.0 / 60);
  EXPECT_DOUBLE_EQ(q[0].rates.pops, 1.0 / 60);
  EXPECT_EQ(q[1].key, "b");
  EXPECT_DOUBLE_EQ(q[1].rates.pushes, 1.0 / 60);
  EXPECT_EQ(q[2].key, "c");
  EXPECT_EQ(q[2].db, 0);
  EXPECT_DOUBLE_EQ(q[2].rates.pushes, 1.0 / 60);
  EXPECT_EQ(q[3].db, 1);
  EXPECT_DOUBLE_EQ(q[3].rates.pushes, 1.0 / 60);
}

TEST(QueueView, QueueStatsMaxKeysBoundsTheTrackedKeys) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "queue-stats-max-keys"}),
            "*2\r\n$20\r\nqueue-stats-max-keys\r\n$4\r\n1024\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "queue-stats-max-keys", "1"}), "+OK\r\n");
  t.run(c, {"RPUSH", "first", "a"});
  t.run(c, {"RPUSH", "second", "a"});
  auto q = snapshot(t);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].key, "first");
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "queue-stats-max-keys", "0"}), "+OK\r\n");
  t.advance_ms(61'000);
  t.exec().cron(t.clock().monotonic_ms());
  t.run(c, {"RPUSH", "first", "b"});
  EXPECT_TRUE(snapshot(t).empty());  // nothing tracked; keys with waiters are still listed
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "queue-stats-max-keys", "-1"}).substr(0, 4), "-ERR");
}
