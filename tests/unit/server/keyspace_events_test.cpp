// Keyspace notifications on the executor, no sockets: the two channels Redis 7.0 notify.c
// publishes on, the class filter of notify-keyspace-events (K vs E, A without n and m), `new`,
// `keymiss`, `expired` (lazy and active), and where an event lands among a RESP3 client's own
// replies. Event orders per command are checked against redis-server by the integration test
// tests/integration/keyspace_events_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "listd/config/config.h"
#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

std::string bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}
// A pmessage of the `__key*__:*` subscription, RESP2 ('*') or RESP3 push ('>').
std::string event(std::string_view channel, std::string_view message, char t = '*') {
  return std::string(1, t) + "4\r\n" + bulk("pmessage") + bulk("__key*__:*") + bulk(channel) +
         bulk(message);
}
std::string keyspace(std::string_view key, std::string_view ev, int db = 0) {
  return event("__keyspace@" + std::to_string(db) + "__:" + std::string(key), ev);
}
std::string keyevent(std::string_view ev, std::string_view key, int db = 0) {
  return event("__keyevent@" + std::to_string(db) + "__:" + std::string(ev), key);
}
// Both notifications of one event, keyspace first (Redis' order).
std::string both(std::string_view key, std::string_view ev, int db = 0) {
  return keyspace(key, ev, db) + keyevent(ev, key, db);
}

class KeyspaceEventsTest : public ::testing::Test {
 protected:
  void listen(std::string_view flags) {
    ASSERT_EQ(t.run(driver, {"CONFIG", "SET", "notify-keyspace-events", flags}), "+OK\r\n");
    t.run(listener, {"PSUBSCRIBE", "__key*__:*"});
  }
  std::string heard() { return t.take_output(listener); }

  TestServer t;
  listd::server::Client& driver = t.client();
  listd::server::Client& listener = t.client();
};

TEST_F(KeyspaceEventsTest, NothingIsPublishedWhenTheOptionIsEmpty) {
  t.run(listener, {"PSUBSCRIBE", "__key*__:*"});
  t.run(driver, {"RPUSH", "q", "a"});
  t.run(driver, {"DEL", "q"});
  EXPECT_EQ(heard(), "");
}

TEST_F(KeyspaceEventsTest, KeyspaceAndKeyeventChannelsCarryEventAndKey) {
  listen("KEA");
  t.run(driver, {"RPUSH", "q", "a"});
  EXPECT_EQ(heard(), both("q", "rpush"));
  t.run(driver, {"SELECT", "3"});
  t.run(driver, {"SET", "k", "v"});
  EXPECT_EQ(heard(), both("k", "set", 3));
}

TEST_F(KeyspaceEventsTest, KOnlyOrEOnlySelectsTheChannel) {
  listen("Kl");
  t.run(driver, {"LPUSH", "q", "a"});
  EXPECT_EQ(heard(), keyspace("q", "lpush"));
  listen("El");
  t.run(driver, {"LPUSH", "q", "a"});
  EXPECT_EQ(heard(), keyevent("lpush", "q"));
}

TEST_F(KeyspaceEventsTest, AClassWithoutKOrEPublishesNothing) {
  listen("A");
  t.run(driver, {"LPUSH", "q", "a"});
  EXPECT_EQ(heard(), "");
}

TEST_F(KeyspaceEventsTest, ClassesFilterEvents) {
  listen("El");  // lists only: the string SET and the generic DEL are not published
  t.run(driver, {"SET", "s", "v"});
  t.run(driver, {"RPUSH", "q", "a"});
  t.run(driver, {"LPOP", "q"});  // lpop (l), then del (g)
  EXPECT_EQ(heard(), keyevent("rpush", "q") + keyevent("lpop", "q"));
  listen("Eg");
  t.run(driver, {"RPUSH", "q", "a"});
  t.run(driver, {"LPOP", "q"});
  EXPECT_EQ(heard(), keyevent("del", "q"));
}

TEST_F(KeyspaceEventsTest, AllDoesNotIncludeNewNorKeyMiss) {
  listen("EA");
  t.run(driver, {"SADD", "s", "m"});
  t.run(driver, {"GET", "missing"});
  EXPECT_EQ(heard(), keyevent("sadd", "s"));
  listen("EAn");
  t.run(driver, {"SADD", "t", "m"});
  EXPECT_EQ(heard(), keyevent("new", "t") + keyevent("sadd", "t"));
  listen("Em");
  t.run(driver, {"GET", "missing"});
  t.run(driver, {"SET", "missing", "v"});  // a write lookup is no miss
  EXPECT_EQ(heard(), keyevent("keymiss", "missing"));
}

TEST_F(KeyspaceEventsTest, NewComesOnlyWhenAKeyIsCreated) {
  listen("En$");
  t.run(driver, {"SET", "k", "1"});
  t.run(driver, {"SET", "k", "2"});  // overwritten in place: no `new`
  t.run(driver, {"INCR", "k"});
  EXPECT_EQ(heard(), keyevent("new", "k") + keyevent("set", "k") + keyevent("set", "k") +
                         keyevent("incrby", "k"));
}

TEST_F(KeyspaceEventsTest, OptionChangesApplyToTheNextCommand) {
  listen("E$");
  t.run(driver, {"SET", "k", "1"});
  ASSERT_EQ(heard(), keyevent("set", "k"));
  ASSERT_EQ(t.run(driver, {"CONFIG", "SET", "notify-keyspace-events", ""}), "+OK\r\n");
  t.run(driver, {"SET", "k", "2"});
  EXPECT_EQ(heard(), "");
}

TEST_F(KeyspaceEventsTest, LazyExpiryOnAReadIsExpiredThenKeyMiss) {
  listen("KExm");
  t.run(driver, {"SET", "k", "v", "PX", "100"});
  t.clock().advance_ms(200);  // due, but no tick ran: the GET finds it first
  EXPECT_EQ(t.run(driver, {"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(heard(), both("k", "expired") + both("k", "keymiss"));
}

TEST_F(KeyspaceEventsTest, ActiveExpiryPublishesExpired) {
  listen("Ex");
  t.run(driver, {"SET", "k", "v", "PX", "100"});
  t.advance_ms(200);  // the tick's active expiry cycle
  EXPECT_EQ(heard(), keyevent("expired", "k"));
}

TEST_F(KeyspaceEventsTest, ScanDeletesTheDueKeysItMeets) {
  listen("Exm");
  t.run(driver, {"SET", "a", "v", "PX", "100"});
  t.run(driver, {"SET", "b", "v", "PX", "100"});
  t.clock().advance_ms(200);
  EXPECT_EQ(t.run(driver, {"SCAN", "0", "MATCH", "a"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(heard(), keyevent("expired", "a"));  // b does not match: left for later
  // With TYPE, Redis' type check is a counted lookup: the key expires there, a miss.
  t.run(driver, {"SCAN", "0", "TYPE", "string"});
  EXPECT_EQ(heard(), keyevent("expired", "b") + keyevent("keymiss", "b"));
}

TEST_F(KeyspaceEventsTest, MoveAndCopyPublishInTheirDatabases) {
  listen("Eg");
  t.run(driver, {"SET", "k", "v"});
  t.run(driver, {"COPY", "k", "c", "DB", "2"});
  t.run(driver, {"MOVE", "k", "5"});
  EXPECT_EQ(heard(),
            keyevent("copy_to", "c", 2) + keyevent("move_from", "k") + keyevent("move_to", "k", 5));
}

TEST_F(KeyspaceEventsTest, ServedBlockingPopIsPublishedAfterThePush) {
  listen("El");
  auto& waiter = t.client();
  EXPECT_EQ(t.run(waiter, {"BLPOP", "q", "0"}), "");
  t.run(driver, {"RPUSH", "q", "a"});
  EXPECT_EQ(heard(), keyevent("rpush", "q") + keyevent("lpop", "q"));
  EXPECT_EQ(t.take_output(waiter), "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
}

TEST_F(KeyspaceEventsTest, ARespThreeClientSeesItsOwnEventsWhereRedisPutsThem) {
  ASSERT_EQ(t.run(driver, {"CONFIG", "SET", "notify-keyspace-events", "Eln"}), "+OK\r\n");
  ASSERT_EQ(t.run(driver, {"HELLO", "3"}).substr(0, 3), "%7\r");
  t.run(driver, {"PSUBSCRIBE", "__key*__:*"});
  auto push = [](std::string_view ev, std::string_view key) {
    return event("__keyevent@0__:" + std::string(ev), key, '>');
  };
  // Redis pushGenericCommand: `new` while creating, the reply, then `rpush`.
  EXPECT_EQ(t.run(driver, {"RPUSH", "q", "a", "b"}),
            push("new", "q") + ":2\r\n" + push("rpush", "q"));
  // ltrimCommand notifies before its reply, lsetCommand after.
  EXPECT_EQ(t.run(driver, {"LTRIM", "q", "0", "0"}), push("ltrim", "q") + "+OK\r\n");
  EXPECT_EQ(t.run(driver, {"LSET", "q", "0", "z"}), "+OK\r\n" + push("lset", "q"));
}

TEST_F(KeyspaceEventsTest, ZPopEventSitsInsideTheReplyAsInRedis70) {
  ASSERT_EQ(t.run(driver, {"CONFIG", "SET", "notify-keyspace-events", "Ez"}), "+OK\r\n");
  ASSERT_EQ(t.run(driver, {"HELLO", "3"}).substr(0, 3), "%7\r");
  t.run(driver, {"PSUBSCRIBE", "__key*__:*"});
  t.run(driver, {"ZADD", "z", "1", "a", "2", "b"});
  EXPECT_EQ(t.run(driver, {"ZPOPMIN", "z"}),
            "*2\r\n" + event("__keyevent@0__:zpopmin", "z", '>') + "$1\r\na\r\n,1\r\n");
}

}  // namespace
