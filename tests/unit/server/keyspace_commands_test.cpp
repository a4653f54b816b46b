// Keyspace and expiry commands through the executor, with a manual clock (no sleeps).
#include <gtest/gtest.h>

#include <set>

#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

TEST(KeyspaceCommands, DelExistsTypeCountOnlyLiveKeys) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("s", listd::store::Value::make_string("v"));
  t.exec().keyspace().db(0).add("t", listd::store::Value::make_string("v"));
  EXPECT_EQ(t.run(c, {"EXISTS", "s", "s", "nokey"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"TYPE", "s"}), "+string\r\n");
  EXPECT_EQ(t.run(c, {"TYPE", "nokey"}), "+none\r\n");
  EXPECT_EQ(t.run(c, {"DEL", "s", "nokey", "t"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"del"}), "-ERR wrong number of arguments for 'del' command\r\n");
}

TEST(KeyspaceCommands, RenameKeepsValueAndExpiry) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("a", listd::store::Value::make_string("v"));
  EXPECT_EQ(t.run(c, {"PEXPIRE", "a", "5000"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"RENAME", "a", "b"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "a"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "b"}), ":5000\r\n");
  EXPECT_EQ(t.run(c, {"RENAME", "nokey", "x"}), "-ERR no such key\r\n");
  EXPECT_EQ(t.run(c, {"RENAMENX", "b", "b"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"RENAME", "b", "b"}), "+OK\r\n");
}

TEST(KeyspaceCommands, CopyAndMoveAcrossDatabases) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("a", listd::store::Value::make_string("v"));
  EXPECT_EQ(t.run(c, {"COPY", "a", "a"}), "-ERR source and destination objects are the same\r\n");
  EXPECT_EQ(t.run(c, {"COPY", "a", "b", "DB", "99"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(t.run(c, {"COPY", "a", "b", "DB", "1"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"COPY", "a", "b", "DB", "1"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"COPY", "a", "b", "DB", "1", "REPLACE"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"MOVE", "a", "1"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"MOVE", "a", "0"}), "-ERR source and destination objects are the same\r\n");
  EXPECT_EQ(t.run(c, {"MOVE", "a", "99"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(t.run(c, {"SELECT", "1"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":2\r\n");
}

TEST(KeyspaceCommands, KeysUsesRedisGlob) {
  TestServer t;
  auto& c = t.client();
  for (const char* k : {"hello", "hallo", "hxllo", "world"})
    t.exec().keyspace().db(0).add(k, listd::store::Value::make_string("v"));
  const std::string out = t.run(c, {"KEYS", "h[ae]llo"});
  EXPECT_EQ(out.substr(0, 4), "*2\r\n");
  EXPECT_NE(out.find("hello"), std::string::npos);
  EXPECT_NE(out.find("hallo"), std::string::npos);
}

TEST(KeyspaceCommands, ScanVisitsEveryKeyOnceWhileTheTableGrows) {
  TestServer t;
  auto& c = t.client();
  auto& db = t.exec().keyspace().db(0);
  for (int i = 0; i < 100; ++i)
    db.add("k" + std::to_string(i), listd::store::Value::make_string("v"));
  std::multiset<std::string> seen;
  std::string cursor = "0";
  int added = 0;
  do {
    const std::string out = t.run_strings(c, {"SCAN", cursor, "COUNT", "7"});
    // *2 $n cursor *m keys...
    std::size_t p = out.find("\r\n", 4);
    const std::size_t cur_start = p + 2;
    p = out.find("\r\n", cur_start);
    cursor = out.substr(cur_start, p - cur_start);
    std::size_t q = out.find("\r\n", p + 2);
    while ((q = out.find('$', q)) != std::string::npos) {
      const std::size_t nl = out.find("\r\n", q);
      const std::size_t len = std::stoul(out.substr(q + 1, nl - q - 1));
      seen.insert(out.substr(nl + 2, len));
      q = nl + 2 + len;
    }
    // Grow the table during the scan: keys present from the start must still be seen.
    for (int j = 0; j < 40 && added < 2000; ++j, ++added)
      db.add("new" + std::to_string(added), listd::store::Value::make_string("v"));
  } while (cursor != "0");
  for (int i = 0; i < 100; ++i) EXPECT_GE(seen.count("k" + std::to_string(i)), 1u) << i;
}

TEST(KeyspaceCommands, ScanErrors) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"SCAN", "x"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(t.run(c, {"SCAN", " 0"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(t.run(c, {"SCAN", ""}), "*2\r\n$1\r\n0\r\n*0\r\n");  // strtoul: "" is 0
  EXPECT_EQ(t.run(c, {"SCAN", "0", "COUNT", "0"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SCAN", "0", "COUNT"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t.run(c, {"SCAN", "0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST(ExpireCommands, ExpiredKeysVanishAtOnceWithTheClock) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("k", listd::store::Value::make_string("v"));
  EXPECT_EQ(t.run(c, {"PEXPIRE", "k", "100"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "k"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"PTTL", "k"}), ":100\r\n");
  t.clock().advance_ms(99);
  EXPECT_EQ(t.run(c, {"EXISTS", "k"}), ":1\r\n");
  t.clock().advance_ms(1);
  EXPECT_EQ(t.run(c, {"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "k"}), ":-2\r\n");
}

// Redis 7.0 rounds EXPIRETIME ((ms + 500) / 1000) as it rounds TTL; PEXPIRETIME is exact.
TEST(ExpireCommands, ExpiretimeRoundsTheAbsoluteDeadline) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"SET", "a", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PEXPIREAT", "a", "4102444800600"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRETIME", "a"}), ":4102444801\r\n");
  EXPECT_EQ(t.run(c, {"PEXPIRETIME", "a"}), ":4102444800600\r\n");
  EXPECT_EQ(t.run(c, {"PEXPIREAT", "a", "4102444800499"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRETIME", "a"}), ":4102444800\r\n");
  EXPECT_EQ(t.run(c, {"PEXPIREAT", "a", "4102444800500"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRETIME", "a"}), ":4102444801\r\n");
}

TEST(ExpireCommands, ActiveExpiryReclaimsWithoutAccess) {
  TestServer t;
  auto& c = t.client();
  auto& db = t.exec().keyspace().db(0);
  for (int i = 0; i < 3000; ++i)
    db.add("k" + std::to_string(i), listd::store::Value::make_string("v"));
  for (int i = 0; i < 3000; ++i) t.run_strings(c, {"PEXPIRE", "k" + std::to_string(i), "50"});
  EXPECT_EQ(db.expires_count(), 3000u);
  t.advance_ms(60);  // one tick reclaims a bounded batch
  EXPECT_LT(db.size(), 3000u);
  EXPECT_GT(db.size(), 0u);
  for (int i = 0; i < 5; ++i) t.advance_ms(1);
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(db.expires_count(), 0u);
}

TEST(ExpireCommands, FlagsAndErrorsMatchRedis) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("k", listd::store::Value::make_string("v"));
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "10", "FOO"}), "-ERR Unsupported option FOO\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "10", "NX", "XX"}),
            "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "10", "GT", "LT"}),
            "-ERR GT and LT options at the same time are not compatible\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "x"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "99999999999999999"}),
            "-ERR invalid expire time in 'expire' command\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "10", "GT"}), ":0\r\n");  // no TTL counts as infinite
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "10", "XX"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "10", "NX"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "20", "LT"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "20", "GT"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "k"}), ":20\r\n");
  EXPECT_EQ(t.run(c, {"PERSIST", "k"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"PERSIST", "k"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "k", "-1"}), ":1\r\n");  // in the past: deleted at once
  EXPECT_EQ(t.run(c, {"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"EXPIRE", "nokey", "10"}), ":0\r\n");
}

TEST(ExpireCommands, InfoKeyspaceCountsExpires) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("a", listd::store::Value::make_string("v"));
  t.exec().keyspace().db(0).add("b", listd::store::Value::make_string("v"));
  t.run(c, {"PEXPIRE", "a", "10000"});
  const std::string info = t.run(c, {"INFO", "keyspace"});
  EXPECT_NE(info.find("db0:keys=2,expires=1,avg_ttl=10000"), std::string::npos) << info;
}

TEST(ExpireCommands, WatchedKeyThatExpiresAbortsExec) {
  TestServer t;
  auto& c = t.client();
  t.exec().keyspace().db(0).add("k", listd::store::Value::make_string("v"));
  t.run(c, {"PEXPIRE", "k", "10"});
  EXPECT_EQ(t.run(c, {"WATCH", "k"}), "+OK\r\n");
  t.advance_ms(200);
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*-1\r\n");
}

}  // namespace
