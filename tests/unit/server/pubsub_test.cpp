// Pub/Sub on the executor, no sockets: every frame, error and ordering rule of Redis 7.0.15's
// pubsub.c as captured from a real redis-server (expected bytes verbatim).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "listd/server/pubsub.h"
#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

// RESP2 frames as Redis writes them.
std::string bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}
std::string frame3(char type, std::string_view kind, std::string_view name, long long n) {
  return std::string(1, type) + "3\r\n" + bulk(kind) + bulk(name) + ":" + std::to_string(n) +
         "\r\n";
}
std::string sub(std::string_view ch, long long n, char t = '*') {
  return frame3(t, "subscribe", ch, n);
}
std::string unsub(std::string_view ch, long long n, char t = '*') {
  return frame3(t, "unsubscribe", ch, n);
}
std::string psub(std::string_view p, long long n, char t = '*') {
  return frame3(t, "psubscribe", p, n);
}
std::string punsub(std::string_view p, long long n, char t = '*') {
  return frame3(t, "punsubscribe", p, n);
}
std::string message(std::string_view ch, std::string_view m, char t = '*') {
  return std::string(1, t) + "3\r\n" + bulk("message") + bulk(ch) + bulk(m);
}
std::string smessage(std::string_view ch, std::string_view m, char t = '*') {
  return std::string(1, t) + "3\r\n" + bulk("smessage") + bulk(ch) + bulk(m);
}
std::string pmessage(std::string_view p, std::string_view ch, std::string_view m, char t = '*') {
  return std::string(1, t) + "4\r\n" + bulk("pmessage") + bulk(p) + bulk(ch) + bulk(m);
}
std::string subscribed_mode_error(std::string_view name) {
  return "-ERR Can't execute '" + std::string(name) +
         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
         "context\r\n";
}

void hello3(TestServer& t, listd::server::Client& c) {
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 3), "%7\r");
}

TEST(PubSub, SubscribeRepliesOneFramePerChannelAndRepeatsCountOnce) {
  TestServer t;
  auto& a = t.client();
  EXPECT_EQ(t.run(a, {"SUBSCRIBE", "a", "b", "a"}), sub("a", 1) + sub("b", 2) + sub("a", 2));
  EXPECT_EQ(t.run(a, {"PSUBSCRIBE", "a*", "b?"}), psub("a*", 3) + psub("b?", 4));
  EXPECT_EQ(t.run(a, {"SSUBSCRIBE", "s1"}), frame3('*', "ssubscribe", "s1", 1));  // shard count
  EXPECT_EQ(t.run(a, {"PSUBSCRIBE", "a*"}), psub("a*", 4));
}

TEST(PubSub, UnsubscribeWithNothingSubscribedRepliesANullChannel) {
  TestServer t;
  auto& a = t.client();
  EXPECT_EQ(t.run(a, {"UNSUBSCRIBE"}), "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n");
  EXPECT_EQ(t.run(a, {"PUNSUBSCRIBE"}), "*3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n");
  EXPECT_EQ(t.run(a, {"SUNSUBSCRIBE"}), "*3\r\n$12\r\nsunsubscribe\r\n$-1\r\n:0\r\n");
  EXPECT_EQ(t.run(a, {"UNSUBSCRIBE", "x", "y"}), unsub("x", 0) + unsub("y", 0));
  EXPECT_EQ(t.run(a, {"PUNSUBSCRIBE", "x"}), punsub("x", 0));
  hello3(t, a);
  EXPECT_EQ(t.run(a, {"UNSUBSCRIBE"}), ">3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n");
}

TEST(PubSub, UnsubscribeAllCountsDownChannelsThenPatterns) {
  TestServer t;
  auto& a = t.client();
  t.run(a, {"SUBSCRIBE", "a", "b"});
  t.run(a, {"PSUBSCRIBE", "a*", "b?"});
  t.run(a, {"SSUBSCRIBE", "s1"});
  EXPECT_EQ(t.run(a, {"UNSUBSCRIBE"}), unsub("a", 3) + unsub("b", 2));
  EXPECT_EQ(t.run(a, {"PUNSUBSCRIBE"}), punsub("a*", 1) + punsub("b?", 0));
  EXPECT_EQ(t.run(a, {"SUNSUBSCRIBE"}), frame3('*', "sunsubscribe", "s1", 0));
  EXPECT_EQ(t.run(a, {"PING"}), "+PONG\r\n");  // out of subscribed mode
  EXPECT_EQ(t.run(a, {"UNSUBSCRIBE", "x", "x"}), unsub("x", 0) + unsub("x", 0));
}

TEST(PubSub, PublishDeliversChannelThenPatternFramesAndCountsReceivers) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  auto& p = t.client();
  t.run(a, {"SUBSCRIBE", "a"});
  t.run(a, {"PSUBSCRIBE", "a*", "b?"});
  t.run(b, {"PSUBSCRIBE", "*"});
  EXPECT_EQ(t.run(p, {"PUBLISH", "a", "hello"}), ":3\r\n");
  EXPECT_EQ(t.take_output(a), message("a", "hello") + pmessage("a*", "a", "hello"));
  EXPECT_EQ(t.take_output(b), pmessage("*", "a", "hello"));
  EXPECT_EQ(t.run(p, {"PUBLISH", "bb", "x"}), ":2\r\n");
  EXPECT_EQ(t.take_output(a), pmessage("b?", "bb", "x"));
  EXPECT_EQ(t.take_output(b), pmessage("*", "bb", "x"));
  EXPECT_EQ(t.run(p, {"PUBLISH", "nobody-here", ""}), ":1\r\n");  // only b's "*"
  EXPECT_EQ(t.take_output(b), pmessage("*", "nobody-here", ""));
  EXPECT_EQ(t.run(p, {"PUBLISH", "", "x"}), ":0\r\n");  // Redis glob: "*" never matches ""
}

TEST(PubSub, MessagesArriveInPublishOrderAndSubscriptionOrder) {
  TestServer t;
  auto& first = t.client();
  auto& second = t.client();
  auto& p = t.client();
  t.run(second, {"SUBSCRIBE", "ch"});
  t.run(first, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(t.run(p, {"PUBLISH", "ch", "1"}), ":2\r\n");
  EXPECT_EQ(t.run(p, {"PUBLISH", "ch", "2"}), ":2\r\n");
  EXPECT_EQ(t.take_output(first), message("ch", "1") + message("ch", "2"));
  EXPECT_EQ(t.take_output(second), message("ch", "1") + message("ch", "2"));
  // The flush list names both receivers (subscription order), each once.
  std::vector<listd::server::Client*> flushed = t.exec().clients().take_flush_list();
  EXPECT_NE(std::find(flushed.begin(), flushed.end(), &first), flushed.end());
  EXPECT_NE(std::find(flushed.begin(), flushed.end(), &second), flushed.end());
  EXPECT_EQ(std::count(flushed.begin(), flushed.end(), &first), 1);
}

TEST(PubSub, BinaryChannelsAndMessagesAreExact) {
  TestServer t;
  auto& a = t.client();
  auto& p = t.client();
  const std::string ch("c\0h\r\n", 5), msg("\x00\xff\r\n", 4);
  t.run_strings(a, {"SUBSCRIBE", ch});
  EXPECT_EQ(t.run_strings(p, {"PUBLISH", ch, msg}), ":1\r\n");
  EXPECT_EQ(t.take_output(a), message(ch, msg));
}

TEST(PubSub, ShardChannelsIgnorePatternsAndGlobalChannels) {
  TestServer t;
  auto& a = t.client();
  auto& p = t.client();
  t.run(a, {"SSUBSCRIBE", "s1"});
  t.run(a, {"PSUBSCRIBE", "*"});
  EXPECT_EQ(t.run(p, {"SPUBLISH", "s1", "sm"}), ":1\r\n");
  EXPECT_EQ(t.take_output(a), smessage("s1", "sm"));
  EXPECT_EQ(t.run(p, {"PUBLISH", "s1", "gm"}), ":1\r\n");  // the pattern only
  EXPECT_EQ(t.take_output(a), pmessage("*", "s1", "gm"));
  EXPECT_EQ(t.run(p, {"SPUBLISH", "nope", "x"}), ":0\r\n");
}

TEST(PubSub, Resp2SubscribedModeAllowsOnlyTheSubscribeFamilyPingQuitReset) {
  TestServer t;
  auto& a = t.client();
  t.run(a, {"SUBSCRIBE", "a"});
  EXPECT_EQ(t.run(a, {"GET", "x"}), subscribed_mode_error("get"));
  EXPECT_EQ(t.run(a, {"client", "list"}), subscribed_mode_error("client|list"));
  EXPECT_EQ(t.run(a, {"MULTI"}), subscribed_mode_error("multi"));
  EXPECT_EQ(t.run(a, {"HELLO", "3"}), subscribed_mode_error("hello"));
  EXPECT_EQ(t.run(a, {"PUBSUB", "NUMSUB", "a"}), subscribed_mode_error("pubsub|numsub"));
  EXPECT_EQ(t.run(a, {"PUBLISH", "a", "m"}), subscribed_mode_error("publish"));
  // Existence and arity are checked first, as in processCommand.
  EXPECT_EQ(t.run(a, {"nosuch", "x"}),
            "-ERR unknown command 'nosuch', with args beginning with: 'x' \r\n");
  EXPECT_EQ(t.run(a, {"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(t.run(a, {"PING"}), "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  EXPECT_EQ(t.run(a, {"PING", "hi"}), "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n");
  EXPECT_EQ(t.run(a, {"PING", "a", "b"}), "-ERR wrong number of arguments for 'ping' command\r\n");
  EXPECT_EQ(t.run(a, {"PSUBSCRIBE", "x*"}), psub("x*", 2));
  EXPECT_EQ(t.run(a, {"SSUBSCRIBE", "s"}), frame3('*', "ssubscribe", "s", 1));
  EXPECT_EQ(t.run(a, {"QUIT", "a"}), "+OK\r\n");
  EXPECT_TRUE(a.close_after_reply);
}

TEST(PubSub, ResetLeavesEverySubscriptionSilently) {
  TestServer t;
  auto& a = t.client();
  auto& p = t.client();
  t.run(a, {"SUBSCRIBE", "z"});
  t.run(a, {"PSUBSCRIBE", "z*"});
  t.run(a, {"SSUBSCRIBE", "sz"});
  EXPECT_EQ(t.run(a, {"RESET", "a"}), "-ERR wrong number of arguments for 'reset' command\r\n");
  EXPECT_EQ(t.run(a, {"RESET"}), "+RESET\r\n");
  EXPECT_EQ(t.run(a, {"GET", "x"}), "$-1\r\n");
  EXPECT_EQ(t.run(p, {"PUBLISH", "z", "m"}), ":0\r\n");
  EXPECT_EQ(t.run(p, {"SPUBLISH", "sz", "m"}), ":0\r\n");
  EXPECT_EQ(t.run(p, {"PUBSUB", "NUMPAT"}), ":0\r\n");
  EXPECT_EQ(t.take_output(a), "");
}

TEST(PubSub, DisconnectForgetsTheClient) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  auto& p = t.client();
  t.run(a, {"SUBSCRIBE", "ch"});
  t.run(a, {"PSUBSCRIBE", "c*"});
  t.run(b, {"SUBSCRIBE", "ch"});
  t.disconnect(a);
  EXPECT_EQ(t.run(p, {"PUBLISH", "ch", "m"}), ":1\r\n");
  EXPECT_EQ(t.take_output(b), message("ch", "m"));
  EXPECT_EQ(t.run(p, {"PUBSUB", "NUMSUB", "ch"}), "*2\r\n$2\r\nch\r\n:1\r\n");
  EXPECT_EQ(t.run(p, {"PUBSUB", "NUMPAT"}), ":0\r\n");
}

TEST(PubSub, Resp3PushesMixWithRepliesAndSelfMessagesPrecedeTheCount) {
  TestServer t;
  auto& a = t.client();
  hello3(t, a);
  EXPECT_EQ(t.run(a, {"SUBSCRIBE", "a"}), sub("a", 1, '>'));
  EXPECT_EQ(t.run(a, {"GET", "x"}), "_\r\n");
  EXPECT_EQ(t.run(a, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(t.run(a, {"PUBLISH", "a", "self"}), message("a", "self", '>') + ":1\r\n");
  EXPECT_EQ(t.run(a, {"PSUBSCRIBE", "a*"}), psub("a*", 2, '>'));
  EXPECT_EQ(t.run(a, {"PUBLISH", "a", "self2"}),
            message("a", "self2", '>') + pmessage("a*", "a", "self2", '>') + ":2\r\n");
  // HELLO 2 turns it into a RESP2 subscriber, restricted again; RESET lifts it all.
  EXPECT_EQ(t.run(a, {"HELLO", "2"}).substr(0, 4), "*14\r");
  EXPECT_EQ(t.run(a, {"GET", "x"}), subscribed_mode_error("get"));
  EXPECT_EQ(t.run(a, {"HELLO", "3"}), subscribed_mode_error("hello"));
  EXPECT_EQ(t.run(a, {"RESET"}), "+RESET\r\n");
}

TEST(PubSub, Resp2AndResp3ReceiversGetTheSameMessageInTheirOwnFraming) {
  TestServer t;
  auto& v2 = t.client();
  auto& v3 = t.client();
  auto& p = t.client();
  hello3(t, v3);
  t.run(v2, {"SUBSCRIBE", "ch"});
  t.run(v3, {"SUBSCRIBE", "ch"});
  t.run(v3, {"PSUBSCRIBE", "c?"});
  EXPECT_EQ(t.run(p, {"PUBLISH", "ch", "m"}), ":3\r\n");
  EXPECT_EQ(t.take_output(v2), message("ch", "m"));
  EXPECT_EQ(t.take_output(v3), message("ch", "m", '>') + pmessage("c?", "ch", "m", '>'));
}

TEST(PubSub, PublishInsideExecDeliversInQueueOrder) {
  TestServer t;
  auto& a = t.client();
  hello3(t, a);
  t.run(a, {"SUBSCRIBE", "a"});
  t.run(a, {"PSUBSCRIBE", "a*"});
  t.run(a, {"MULTI"});
  EXPECT_EQ(t.run(a, {"PUBLISH", "a", "m1"}), "+QUEUED\r\n");
  t.run(a, {"SET", "k", "v"});
  t.run(a, {"PUBLISH", "a", "m2"});
  EXPECT_EQ(t.run(a, {"EXEC"}),
            "*3\r\n" + message("a", "m1", '>') + pmessage("a*", "a", "m1", '>') + ":2\r\n+OK\r\n" +
                message("a", "m2", '>') + pmessage("a*", "a", "m2", '>') + ":2\r\n");

  auto& e = t.client();
  auto& b = t.client();
  t.run(e, {"SUBSCRIBE", "q"});
  t.run(b, {"MULTI"});
  t.run(b, {"PUBLISH", "q", "1"});
  t.run(b, {"PUBLISH", "q", "2"});
  EXPECT_EQ(t.run(b, {"EXEC"}), "*2\r\n:1\r\n:1\r\n");
  EXPECT_EQ(t.take_output(e), message("q", "1") + message("q", "2"));
}

TEST(PubSub, SubscribeInsideMultiAndSsubscribeRefusedThere) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"MULTI"});
  EXPECT_EQ(t.run(c, {"SUBSCRIBE", "m", "n"}), "+QUEUED\r\n");
  t.run(c, {"PING"});
  EXPECT_EQ(t.run(c, {"EXEC"}),
            "*2\r\n" + sub("m", 1) + sub("n", 2) + "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), subscribed_mode_error("multi"));

  auto& d = t.client();
  t.run(d, {"MULTI"});
  t.run(d, {"SSUBSCRIBE", "m"});
  t.run(d, {"PSUBSCRIBE", "p*"});
  EXPECT_EQ(t.run(d, {"EXEC"}),
            "*2\r\n-ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client\r\n" + psub("p*", 1));
}

TEST(PubSub, ClientReplyOffSilencesRepliesButNotFrames) {
  TestServer t;
  auto& f = t.client();
  auto& p = t.client();
  EXPECT_EQ(t.run(f, {"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(t.run(f, {"SUBSCRIBE", "r"}), sub("r", 1));
  EXPECT_EQ(t.run(f, {"PING"}), "");
  EXPECT_EQ(t.run(p, {"PUBLISH", "r", "x"}), ":1\r\n");
  EXPECT_EQ(t.take_output(f), message("r", "x"));
  EXPECT_EQ(t.run(f, {"SUBSCRIBE", "r2"}), sub("r2", 2));  // after a flush: no stale offsets

  auto& g = t.client();
  hello3(t, g);
  t.run(g, {"SUBSCRIBE", "g"});
  EXPECT_EQ(t.run(g, {"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(t.run(g, {"PUBLISH", "g", "self"}), message("g", "self", '>'));  // no :1
  EXPECT_EQ(t.run(g, {"PUBLISH", "g", "again"}), message("g", "again", '>') + ":1\r\n");
  t.run(g, {"CLIENT", "REPLY", "OFF"});
  t.run(g, {"MULTI"});
  t.run(g, {"PUBLISH", "g", "in-exec"});
  t.run(g, {"GET", "k"});
  EXPECT_EQ(t.run(g, {"EXEC"}), message("g", "in-exec", '>'));
}

TEST(PubSub, Resp3BlockedSubscriberReceivesPushesWhileWaiting) {
  TestServer t;
  auto& h = t.client();
  auto& p = t.client();
  hello3(t, h);
  t.run(h, {"SUBSCRIBE", "h"});
  EXPECT_EQ(t.run(h, {"BLPOP", "nolist", "0"}), "");
  EXPECT_EQ(t.run(p, {"PUBLISH", "h", "whileblocked"}), ":1\r\n");
  EXPECT_EQ(t.take_output(h), message("h", "whileblocked", '>'));
  EXPECT_EQ(t.run(p, {"RPUSH", "nolist", "x"}), ":1\r\n");
  EXPECT_EQ(t.take_output(h), "*2\r\n$6\r\nnolist\r\n$1\r\nx\r\n");
}

TEST(PubSub, PubsubIntrospection) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  t.run(a, {"SUBSCRIBE", "a", "b"});
  t.run(a, {"PSUBSCRIBE", "a*", "b?"});
  t.run(a, {"SSUBSCRIBE", "s1"});
  EXPECT_EQ(t.run(b, {"PUBSUB", "NUMSUB", "a", "b", "zz"}),
            "*6\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:1\r\n$2\r\nzz\r\n:0\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "NUMSUB"}), "*0\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "NUMPAT"}), ":2\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "SHARDNUMSUB", "s1", "q"}),
            "*4\r\n$2\r\ns1\r\n:1\r\n$1\r\nq\r\n:0\r\n");
  const std::string all = t.run(b, {"PUBSUB", "CHANNELS"});
  EXPECT_TRUE(all == "*2\r\n$1\r\na\r\n$1\r\nb\r\n" || all == "*2\r\n$1\r\nb\r\n$1\r\na\r\n")
      << all;
  EXPECT_EQ(t.run(b, {"PUBSUB", "CHANNELS", "a*"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "SHARDCHANNELS"}), "*1\r\n$2\r\ns1\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "SHARDCHANNELS", "x*"}), "*0\r\n");
  EXPECT_EQ(
      t.run(b, {"PUBSUB", "CHANNELS", "a", "b"}),
      "-ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "shardchannels", "a", "b"}),
            "-ERR unknown subcommand or wrong number of arguments for 'shardchannels'. Try PUBSUB "
            "HELP.\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "NUMPAT", "x"}),
            "-ERR wrong number of arguments for 'pubsub|numpat' command\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "foo"}), "-ERR unknown subcommand 'foo'. Try PUBSUB HELP.\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "help", "x"}),
            "-ERR wrong number of arguments for 'pubsub|help' command\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB"}), "-ERR wrong number of arguments for 'pubsub' command\r\n");
  EXPECT_EQ(t.run(b, {"PUBSUB", "HELP"}),
            "*14\r\n+PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
            "+CHANNELS [<pattern>]\r\n"
            "+    Return the currently active channels matching a <pattern> (default: '*').\r\n"
            "+NUMPAT\r\n+    Return number of subscriptions to patterns.\r\n"
            "+NUMSUB [<channel> ...]\r\n"
            "+    Return the number of subscribers for the specified channels, excluding\r\n"
            "+    pattern subscriptions(default: no channels).\r\n"
            "+SHARDCHANNELS [<pattern>]\r\n"
            "+    Return the currently active shard level channels matching a <pattern> (default: "
            "'*').\r\n"
            "+SHARDNUMSUB [<shardchannel> ...]\r\n"
            "+    Return the number of subscribers for the specified shard level channel(s)\r\n"
            "+HELP\r\n+    Prints this help.\r\n");
  EXPECT_EQ(t.run(b, {"PUBLISH"}), "-ERR wrong number of arguments for 'publish' command\r\n");
  EXPECT_EQ(t.run(b, {"SUBSCRIBE"}), "-ERR wrong number of arguments for 'subscribe' command\r\n");
  EXPECT_EQ(t.run(b, {"SPUBLISH", "a"}),
            "-ERR wrong number of arguments for 'spublish' command\r\n");
}

TEST(PubSub, ClientListAndInfoShowSubscriptions) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  t.run(a, {"SUBSCRIBE", "a", "b"});
  t.run(a, {"PSUBSCRIBE", "a*", "b?"});
  t.run(a, {"SSUBSCRIBE", "s1"});
  const std::string list = t.run(b, {"CLIENT", "LIST"});
  EXPECT_NE(list.find("flags=P db=0 sub=2 psub=2 ssub=1 "), std::string::npos) << list;
  EXPECT_NE(list.find("flags=N db=0 sub=0 psub=0 ssub=0 "), std::string::npos) << list;
  EXPECT_NE(list.find("cmd=ssubscribe "), std::string::npos) << list;
  const std::string pubsub_only = t.run(b, {"CLIENT", "LIST", "TYPE", "pubsub"});
  EXPECT_NE(pubsub_only.find("id=" + std::to_string(a.id) + " "), std::string::npos);
  EXPECT_EQ(pubsub_only.find("id=" + std::to_string(b.id) + " "), std::string::npos);
  const std::string normal = t.run(b, {"CLIENT", "LIST", "TYPE", "normal"});
  EXPECT_EQ(normal.find("id=" + std::to_string(a.id) + " "), std::string::npos);
  const std::string info = t.run(b, {"INFO", "stats"});
  EXPECT_NE(info.find("\r\npubsub_channels:2\r\npubsub_patterns:2\r\npubsubshard_channels:1\r\n"),
            std::string::npos)
      << info;
}

TEST(PubSub, CommandInfoMatchesRedis) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"COMMAND", "INFO", "publish"}),
            "*1\r\n*10\r\n$7\r\npublish\r\n:3\r\n*4\r\n+pubsub\r\n+loading\r\n+stale\r\n+fast\r\n"
            ":0\r\n:0\r\n:0\r\n*2\r\n+@pubsub\r\n+@fast\r\n*0\r\n*0\r\n*0\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "INFO", "subscribe"}),
            "*1\r\n*10\r\n$9\r\nsubscribe\r\n:-2\r\n*4\r\n+pubsub\r\n+noscript\r\n+loading\r\n"
            "+stale\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@pubsub\r\n+@slow\r\n*0\r\n*0\r\n*0\r\n");
  EXPECT_EQ(
      t.run(c, {"COMMAND", "INFO", "spublish"}),
      "*1\r\n*10\r\n$8\r\nspublish\r\n:3\r\n*4\r\n+pubsub\r\n+loading\r\n+stale\r\n+fast\r\n"
      ":1\r\n:1\r\n:1\r\n*2\r\n+@pubsub\r\n+@fast\r\n*0\r\n"
      "*1\r\n*6\r\n$5\r\nflags\r\n*1\r\n+not_key\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n"
      "$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n"
      "$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n"
      ":1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n");
  EXPECT_EQ(
      t.run(c, {"COMMAND", "INFO", "pubsub|help"}),
      "*1\r\n*10\r\n$11\r\npubsub|help\r\n:2\r\n*2\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n"
      "*1\r\n+@slow\r\n*0\r\n*0\r\n*0\r\n");
  const std::string ssubscribe = t.run(c, {"COMMAND", "INFO", "ssubscribe"});
  EXPECT_NE(ssubscribe.find(":1\r\n:-1\r\n:1\r\n*2\r\n+@pubsub\r\n+@slow\r\n"), std::string::npos);
  EXPECT_NE(ssubscribe.find("$7\r\nlastkey\r\n:-1\r\n"), std::string::npos);
  EXPECT_EQ(t.run(c, {"COMMAND", "INFO", "pubsub"}).substr(0, 66),
            "*1\r\n*10\r\n$6\r\npubsub\r\n:-2\r\n*0\r\n:0\r\n:0\r\n:0\r\n*1\r\n+@slow\r\n*0\r\n*"
            "0\r\n*6\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "ssubscribe", "a", "b"}),
            "-ERR The command has no key arguments\r\n");
}

}  // namespace
