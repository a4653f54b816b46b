// XREAD on the executor: immediate replies (bytes as redis-server 7.0.15 gives them), and
// BLOCK on the list machinery: every XADD wakes the key's readers, oldest first, each served
// the entries above its own id; timeouts on the manual clock; MULTI answers at once.
#include <gtest/gtest.h>

#include <string>

#include "support/resp.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using namespace listd::testing::resp;

std::string entry(const std::string& id, const std::string& f, const std::string& v) {
  return "*2\r\n" + bulk(id) + "*2\r\n" + bulk(f) + bulk(v);
}

std::string one_key(const std::string& key, const std::string& entries, int n) {
  return "*1\r\n*2\r\n" + bulk(key) + "*" + std::to_string(n) + "\r\n" + entries;
}

class StreamReadTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u) << "a waiter was leaked";
  }
  testing::TestServer t;
  Client& c = t.client();
};

TEST_F(StreamReadTest, ImmediateReadsAndGrammarErrors) {
  t.run(c, {"XADD", "a", "1-1", "f", "v"});
  t.run(c, {"XADD", "a", "1-2", "g", "w"});
  t.run(c, {"XADD", "b", "5-0", "h", "x"});
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", "b", "1-1", "0"}),
            "*2\r\n*2\r\n" + bulk("a") + "*1\r\n" + entry("1-2", "g", "w") + "*2\r\n" + bulk("b") +
                "*1\r\n" + entry("5-0", "h", "x"));
  EXPECT_EQ(t.run(c, {"XREAD", "COUNT", "1", "STREAMS", "a", "0"}),
            one_key("a", entry("1-1", "f", "v"), 1));
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", "nokey", "$", "0"}), "*-1\r\n");
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", "1-1", "0"}),
            error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must "
                  "be specified."));
  EXPECT_EQ(t.run(c, {"XREAD", "COUNT", "1", "x"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"XREAD", "BLOCK", "-1", "STREAMS", "a", "$"}),
            error("ERR timeout is negative"));
  EXPECT_EQ(t.run(c, {"XREAD", "BLOCK", "1.5", "STREAMS", "a", "$"}),
            error("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", ">"}),
            error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                  "<group> <consumer> option."));
  EXPECT_EQ(t.run(c, {"XREAD", "NOACK", "STREAMS", "a", "0"}),
            error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD "
                  "instead."));
  t.run(c, {"SET", "s", "v"});
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", "s", "0", "0"}),
            error("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_F(StreamReadTest, Resp3RepliesAMap) {
  t.run(c, {"HELLO", "3"});
  t.run(c, {"XADD", "a", "1-1", "f", "v"});
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", "0"}),
            "%1\r\n" + bulk("a") + "*1\r\n" + entry("1-1", "f", "v"));
  EXPECT_EQ(t.run(c, {"XREAD", "STREAMS", "a", "$"}), "_\r\n");
}

TEST_F(StreamReadTest, EveryXaddWakesTheReadersOfAnExistingStreamOldestFirst) {
  t.run(c, {"XADD", "s", "1-0", "f", "old"});
  Client& r1 = t.client();
  Client& r2 = t.client();
  EXPECT_EQ(t.run(r1, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}), "");
  EXPECT_EQ(t.run(r2, {"XREAD", "BLOCK", "0", "STREAMS", "nokey", "s", "0", "$"}), "");
  EXPECT_TRUE(r1.blocked() && r2.blocked());
  EXPECT_EQ(t.run(c, {"XADD", "s", "2-0", "f", "new"}), bulk("2-0"));
  EXPECT_EQ(t.take_output(r1), one_key("s", entry("2-0", "f", "new"), 1));
  EXPECT_EQ(t.take_output(r2), one_key("s", entry("2-0", "f", "new"), 1));
  EXPECT_FALSE(r1.blocked() || r2.blocked());
}

TEST_F(StreamReadTest, ANewStreamWakesAReaderWaitingOnAMissingKey) {
  Client& r = t.client();
  EXPECT_EQ(t.run(r, {"XREAD", "COUNT", "1", "BLOCK", "5000", "STREAMS", "s", "$"}), "");
  t.run(c, {"MULTI"});
  t.run(c, {"XADD", "s", "1-1", "f", "a"});
  t.run(c, {"XADD", "s", "1-2", "f", "b"});
  EXPECT_EQ(t.take_output(r), "");
  t.run(c, {"EXEC"});
  EXPECT_EQ(t.take_output(r), one_key("s", entry("1-1", "f", "a"), 1));
}

TEST_F(StreamReadTest, AReaderWaitingAboveTheTopIsSkippedNotDropped) {
  t.run(c, {"XADD", "s", "1-0", "f", "v"});
  Client& high = t.client();
  Client& low = t.client();
  EXPECT_EQ(t.run(high, {"XREAD", "BLOCK", "0", "STREAMS", "s", "9-0"}), "");
  EXPECT_EQ(t.run(low, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}), "");
  t.run(c, {"XADD", "s", "2-0", "f", "w"});
  EXPECT_EQ(t.take_output(low), one_key("s", entry("2-0", "f", "w"), 1));
  EXPECT_TRUE(high.blocked());
  t.run(c, {"XADD", "s", "10-0", "f", "x"});
  EXPECT_EQ(t.take_output(high), one_key("s", entry("10-0", "f", "x"), 1));
}

TEST_F(StreamReadTest, TimeoutRepliesNullAndMultiAnswersAtOnce) {
  Client& r = t.client();
  EXPECT_EQ(t.run(r, {"XREAD", "BLOCK", "100", "STREAMS", "s", "$"}), "");
  t.advance_ms(150);
  EXPECT_EQ(t.take_output(r), "*-1\r\n");
  EXPECT_FALSE(r.blocked());
  t.run(c, {"MULTI"});
  t.run(c, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n*-1\r\n");
}

}  // namespace
}  // namespace listd::server
