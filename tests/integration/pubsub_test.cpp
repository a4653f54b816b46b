// Pub/Sub over real sockets, against listd and redis-server alike: hiredis subscribers (the
// reply objects a C client sees), raw RESP2 and RESP3 byte streams, many subscribers, a large
// message that needs several writes, a subscriber that goes away, MONITOR. Synchronisation is by
// replies only: a subscription has taken effect once its subscribe frame is read; polls have
// bounded deadlines.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

std::string bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}
std::string message(std::string_view ch, std::string_view m, char t = '*') {
  return std::string(1, t) + "3\r\n" + bulk("message") + bulk(ch) + bulk(m);
}
std::string pmessage(std::string_view p, std::string_view ch, std::string_view m, char t = '*') {
  return std::string(1, t) + "4\r\n" + bulk("pmessage") + bulk(p) + bulk(ch) + bulk(m);
}
std::string sub(std::string_view kind, std::string_view ch, long long n, char t = '*') {
  return std::string(1, t) + "3\r\n" + bulk(kind) + bulk(ch) + ":" + std::to_string(n) + "\r\n";
}

// Each test runs against listd and against redis-server 7.0.15: the expectations are Redis'.
class PubSubTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    listd_ = new ServerProcess(ServerProcess::start_listd());
    redis_ = new ServerProcess(ServerProcess::start_redis());
  }
  static void TearDownTestSuite() {
    delete listd_;
    delete redis_;
    listd_ = redis_ = nullptr;
  }
  static const ServerProcess& server() { return GetParam() == "redis" ? *redis_ : *listd_; }
  static int port() { return server().port(); }
  ContextPtr connect() { return ContextPtr(server().connect()); }

  /// Polls PUBSUB NUMSUB until `channel` has `n` subscribers (bounded): for disconnects, whose
  /// effect no reply announces.
  static bool wait_numsub(const std::string& channel, long long n) {
    RespClient c(port());
    const std::string want = "*2\r\n" + bulk(channel) + ":" + std::to_string(n) + "\r\n";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (c.call({"PUBSUB", "NUMSUB", channel}) == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  static ServerProcess* listd_;
  static ServerProcess* redis_;
};

ServerProcess* PubSubTest::listd_ = nullptr;
ServerProcess* PubSubTest::redis_ = nullptr;

TEST_P(PubSubTest, HiredisSubscriberReceivesMessagesAsArrays) {
  ContextPtr s = connect();
  ContextPtr p = connect();
  ReplyPtr r = command(s.get(), {"SUBSCRIBE", "news", "sport"});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(r->elements, 3u);
  EXPECT_EQ(std::string(r->element[0]->str), "subscribe");
  EXPECT_EQ(std::string(r->element[1]->str), "news");
  EXPECT_EQ(r->element[2]->integer, 1);
  void* raw = nullptr;
  ASSERT_EQ(redisGetReply(s.get(), &raw), REDIS_OK);  // the second subscribe frame
  ReplyPtr second(static_cast<redisReply*>(raw));
  EXPECT_EQ(second->element[2]->integer, 2);

  ReplyPtr n = command(p.get(), {"PUBLISH", "news", std::string("bin\0ary", 7)});
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, REDIS_REPLY_INTEGER);
  EXPECT_EQ(n->integer, 1);
  ASSERT_EQ(redisGetReply(s.get(), &raw), REDIS_OK);
  ReplyPtr msg(static_cast<redisReply*>(raw));
  ASSERT_EQ(msg->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(msg->elements, 3u);
  EXPECT_EQ(std::string(msg->element[0]->str), "message");
  EXPECT_EQ(std::string(msg->element[1]->str), "news");
  EXPECT_EQ(std::string(msg->element[2]->str, msg->element[2]->len), std::string("bin\0ary", 7));

  ReplyPtr err = command(s.get(), {"LPUSH", "k", "v"});
  ASSERT_TRUE(err);
  EXPECT_EQ(err->type, REDIS_REPLY_ERROR);
  EXPECT_EQ(std::string(err->str),
            "ERR Can't execute 'lpush': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
            "RESET are allowed in this context");
}

TEST_P(PubSubTest, HiredisPatternSubscriber) {
  ContextPtr s = connect();
  ContextPtr p = connect();
  ReplyPtr r = command(s.get(), {"PSUBSCRIBE", "ev.*"});
  ASSERT_TRUE(r);
  EXPECT_EQ(std::string(r->element[0]->str), "psubscribe");
  EXPECT_EQ(command(p.get(), {"PUBLISH", "ev.created", "42"})->integer, 1);
  EXPECT_EQ(command(p.get(), {"PUBLISH", "other", "x"})->integer, 0);
  void* raw = nullptr;
  ASSERT_EQ(redisGetReply(s.get(), &raw), REDIS_OK);
  ReplyPtr msg(static_cast<redisReply*>(raw));
  ASSERT_EQ(msg->elements, 4u);
  EXPECT_EQ(std::string(msg->element[0]->str), "pmessage");
  EXPECT_EQ(std::string(msg->element[1]->str), "ev.*");
  EXPECT_EQ(std::string(msg->element[2]->str), "ev.created");
  EXPECT_EQ(std::string(msg->element[3]->str), "42");
}

TEST_P(PubSubTest, RawResp2StreamIsByteExactAndOrdered) {
  RespClient s(port());
  RespClient p(port());
  // Pipelined: all three frames and the messages come back in order.
  ASSERT_TRUE(s.send(encode_command({"SUBSCRIBE", "r2"}) + encode_command({"PSUBSCRIBE", "r*"}) +
                     encode_command({"PING"})));
  EXPECT_EQ(s.read_reply(), sub("subscribe", "r2", 1));
  EXPECT_EQ(s.read_reply(), sub("psubscribe", "r*", 2));
  EXPECT_EQ(s.read_reply(), "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  for (int i = 0; i < 20; ++i)
    ASSERT_EQ(p.call({"PUBLISH", "r2", "m" + std::to_string(i)}), ":2\r\n");
  for (int i = 0; i < 20; ++i) {
    const std::string m = "m" + std::to_string(i);
    ASSERT_EQ(s.read_reply(), message("r2", m));
    ASSERT_EQ(s.read_reply(), pmessage("r*", "r2", m));
  }
  EXPECT_EQ(s.call({"UNSUBSCRIBE"}), sub("unsubscribe", "r2", 1));
  EXPECT_EQ(s.call({"PUNSUBSCRIBE"}), sub("punsubscribe", "r*", 0));
  EXPECT_EQ(s.call({"PING"}), "+PONG\r\n");
}

TEST_P(PubSubTest, Resp3PushFramesInterleaveWithReplies) {
  RespClient s(port());
  RespClient p(port());
  ASSERT_EQ(s.call({"HELLO", "3"}).substr(0, 3), "%7\r");
  EXPECT_EQ(s.call({"SUBSCRIBE", "r3"}), sub("subscribe", "r3", 1, '>'));
  EXPECT_EQ(p.call({"PUBLISH", "r3", "one"}), ":1\r\n");
  // The push was written before the RPUSH reply below: it arrives first.
  EXPECT_EQ(s.call({"RPUSH", "r3list", "x"}), message("r3", "one", '>'));
  EXPECT_EQ(s.read_reply(), ":1\r\n");
  EXPECT_EQ(s.call({"PUBLISH", "r3", "self"}), message("r3", "self", '>'));
  EXPECT_EQ(s.read_reply(), ":1\r\n");
  EXPECT_EQ(s.call({"UNSUBSCRIBE"}), sub("unsubscribe", "r3", 0, '>'));
  EXPECT_EQ(s.call({"DEL", "r3list"}), ":1\r\n");
}

TEST_P(PubSubTest, HundredSubscribersEachGetEveryMessageOnce) {
  std::vector<std::unique_ptr<RespClient>> subs;
  for (int i = 0; i < 100; ++i) {
    subs.push_back(std::make_unique<RespClient>(port()));
    ASSERT_EQ(subs.back()->call({"SUBSCRIBE", "fan"}), sub("subscribe", "fan", 1));
  }
  RespClient p(port());
  for (int m = 0; m < 5; ++m)
    ASSERT_EQ(p.call({"PUBLISH", "fan", "msg" + std::to_string(m)}), ":100\r\n");
  for (auto& s : subs)
    for (int m = 0; m < 5; ++m)
      ASSERT_EQ(s->read_reply(), message("fan", "msg" + std::to_string(m)));
  for (auto& s : subs) EXPECT_EQ(s->read_for(std::chrono::milliseconds(0)), "");
}

TEST_P(PubSubTest, LargeMessageReachesSeveralSubscribersWhole) {
  const std::string big(4 << 20, 'x');  // more than a socket buffer: partial writes
  RespClient a(port()), b(port());
  ASSERT_EQ(a.call({"SUBSCRIBE", "big"}), sub("subscribe", "big", 1));
  ASSERT_EQ(b.call({"SUBSCRIBE", "big"}), sub("subscribe", "big", 1));
  RespClient p(port());
  ASSERT_EQ(p.call({"PUBLISH", "big", big}), ":2\r\n");
  ASSERT_EQ(p.call({"PUBLISH", "big", "after"}), ":2\r\n");
  const auto timeout = std::chrono::seconds(30);
  EXPECT_EQ(a.read_reply(timeout), message("big", big));
  EXPECT_EQ(b.read_reply(timeout), message("big", big));
  EXPECT_EQ(a.read_reply(), message("big", "after"));
  EXPECT_EQ(b.read_reply(), message("big", "after"));
}

TEST_P(PubSubTest, DisconnectedSubscriberIsForgotten) {
  RespClient stays(port());
  ASSERT_EQ(stays.call({"SUBSCRIBE", "gone"}), sub("subscribe", "gone", 1));
  {
    RespClient leaves(port());
    ASSERT_EQ(leaves.call({"SUBSCRIBE", "gone"}), sub("subscribe", "gone", 1));
    ASSERT_EQ(leaves.call({"PSUBSCRIBE", "gon*"}), sub("psubscribe", "gon*", 2));
  }
  ASSERT_TRUE(wait_numsub("gone", 1));
  RespClient p(port());
  EXPECT_EQ(p.call({"PUBLISH", "gone", "m"}), ":1\r\n");
  EXPECT_EQ(p.call({"PUBSUB", "NUMPAT"}), ":0\r\n");
  EXPECT_EQ(stays.read_reply(), message("gone", "m"));
}

TEST_P(PubSubTest, QuitInSubscribedModeClosesAfterTheReply) {
  RespClient s(port());
  ASSERT_EQ(s.call({"SUBSCRIBE", "q"}), sub("subscribe", "q", 1));
  EXPECT_EQ(s.call({"QUIT"}), "+OK\r\n");
  EXPECT_TRUE(s.wait_closed());
  ASSERT_TRUE(wait_numsub("q", 0));
}

TEST_P(PubSubTest, MonitorShowsPublish) {
  RespClient m(port());
  ASSERT_EQ(m.call({"MONITOR"}), "+OK\r\n");
  RespClient p(port());
  ASSERT_EQ(p.call({"PUBLISH", "mon", "hello"}), ":0\r\n");
  const std::string line = m.read_reply();
  EXPECT_NE(line.find("\"PUBLISH\" \"mon\" \"hello\""), std::string::npos) << escape_bytes(line);
}

TEST_P(PubSubTest, PublishWritesNothingToTheAof) {
  // Redis propagates PUBLISH to replicas only, never to the AOF: the dirty counter stays put.
  RespClient p(port());
  auto dirty = [&] {
    const std::string info = p.call({"INFO", "persistence"});
    const auto at = info.find("rdb_changes_since_last_save:");
    return info.substr(at, info.find("\r\n", at) - at);
  };
  const std::string before = dirty();
  ASSERT_EQ(p.call({"PUBLISH", "x", "y"}), ":0\r\n");
  EXPECT_EQ(dirty(), before);
}

INSTANTIATE_TEST_SUITE_P(Servers, PubSubTest, ::testing::Values("listd", "redis"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace listd::testing
