// The slow log: what dispatch files (and what it does not), Redis' argv trimming and
// redaction, blocked commands filed when served, and SLOWLOG's replies as Redis 7.0.15 sends
// them. The manual clock does not move during a command: every duration is 0, so
// `slowlog-log-slower-than 0` files every command and 1 files none.
#include "listd/server/slowlog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_server.h"

using listd::server::SlowLog;
using listd::testing::TestServer;

namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr const char* kPeer = "127.0.0.1:40000";  // TestServer's clients
constexpr long long kUnixS = 1'700'000'000;       // ManualClock's start

std::string bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

/// One SLOWLOG GET entry as Redis encodes it (time fields as the manual clock gives them).
std::string entry(long long id, const std::vector<std::string>& args,
                  const std::string& peer = kPeer, const std::string& name = "",
                  long long unix_s = kUnixS) {
  std::string out = "*6\r\n:" + std::to_string(id) + "\r\n:" + std::to_string(unix_s) +
                    "\r\n:0\r\n*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) out += bulk(a);
  return out + bulk(peer) + bulk(name);
}

std::string entries(const std::vector<std::string>& each) {
  std::string out = "*" + std::to_string(each.size()) + "\r\n";
  for (const auto& e : each) out += e;
  return out;
}

TEST(SlowLog, DefaultThresholdFilesNothingFast) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SET", "k", "v"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "LEN"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}), "*0\r\n");
}

TEST(SlowLog, FilesEachCommandNewestFirstWithPeerAndName) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  t.run(c, {"SET", "k", "v"});
  t.run(c, {"CLIENT", "SETNAME", "worker"});
  t.run(c, {"GET", "k"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}),
            entries({entry(2, {"GET", "k"}, kPeer, "worker"),
                     entry(1, {"CLIENT", "SETNAME", "worker"}, kPeer, "worker"),
                     entry(0, {"SET", "k", "v"})}));
  // The GET above was filed after it ran: 4 entries now, and the count caps the reply.
  EXPECT_EQ(t.run(c, {"SLOWLOG", "LEN"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET", "1"}),
            entries({entry(4, {"SLOWLOG", "LEN"}, kPeer, "worker")}));
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET", "0"}), "*0\r\n");
}

TEST(SlowLog, ThresholdComparesTheDuration) {
  SlowLog log;
  listd::server::Client c(1);
  const std::vector<std::string_view> argv{"PING"};
  log.record(c, argv, {}, 9, kUnixS, 10, 128);
  EXPECT_EQ(log.size(), 0u);
  log.record(c, argv, {}, 10, kUnixS, 10, 128);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log.entries()[0].duration_us, 10u);
  EXPECT_EQ(log.entries()[0].peer, "?:0");  // no transport: Redis' getClientPeerId
}

TEST(SlowLog, NegativeThresholdTurnsTheLogOffAndStopsTrimming) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  t.run(c, {"PING"});
  t.run(c, {"PING"});
  // Not filed: as in Redis, the threshold is read once the command has run.
  t.run(c, {"CONFIG", "SET", "slowlog-log-slower-than", "-1"});
  t.run(c, {"CONFIG", "SET", "slowlog-max-len", "1"});
  t.run(c, {"PING"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "LEN"}), ":2\r\n");  // off: neither filed nor trimmed
  t.run(c, {"CONFIG", "SET", "slowlog-log-slower-than", "1"});
  t.run(c, {"PING"});  // not slow enough, but trims as Redis does on every command
  EXPECT_EQ(t.run(c, {"SLOWLOG", "LEN"}), ":1\r\n");
}

TEST(SlowLog, MaxLenKeepsTheNewest) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}, {"slowlog-max-len", "2"}});
  auto& c = t.client();
  t.run(c, {"ECHO", "a"});
  t.run(c, {"ECHO", "b"});
  t.run(c, {"ECHO", "c"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET", "-1"}),
            entries({entry(2, {"ECHO", "c"}), entry(1, {"ECHO", "b"})}));
}

TEST(SlowLog, ResetEmptiesButIdsKeepGrowing) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  t.run(c, {"PING"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "RESET"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}), entries({entry(1, {"SLOWLOG", "RESET"})}));
}

TEST(SlowLog, TrimsArgumentsAsRedis) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  std::vector<std::string> rpush{"RPUSH", "l"};
  for (int i = 0; i < 38; ++i) rpush.push_back(std::to_string(i));  // 40 arguments
  t.run_strings(c, rpush);
  t.run_strings(c, {"SET", "k", std::string(200, 'y')});
  t.run_strings(c, {"SET", "j", std::string(128, 'z')});
  std::vector<std::string> kept(rpush.begin(), rpush.begin() + 31);
  kept.push_back("... (9 more arguments)");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}),
            entries({entry(2, {"SET", "j", std::string(128, 'z')}),
                     entry(1, {"SET", "k", std::string(128, 'y') + "... (72 more bytes)"}),
                     entry(0, kept)}));
}

TEST(SlowLog, RedactsPasswords) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  t.run(c, {"AUTH", "secret"});
  t.run(c, {"AUTH", "user", "secret"});
  t.run(c, {"HELLO", "3", "AUTH", "user", "secret"});
  t.run(c, {"CONFIG", "SET", "requirepass", "pw", "no-such-option", "x"});
  t.run(c, {"CONFIG", "SET", "timeout", "0"});
  const std::string r = "(redacted)";
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}),
            entries({entry(4, {"CONFIG", "SET", "timeout", "0"}),
                     entry(3, {"CONFIG", "SET", "requirepass", r, "no-such-option", "x"}),
                     entry(2, {"HELLO", "3", "AUTH", r, r}), entry(1, {"AUTH", r, r}),
                     entry(0, {"AUTH", r})}));
}

TEST(SlowLog, ExecIsNotFiledItsCommandsAreAndRejectedCommandsAreNot) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  t.run(c, {"NOSUCH"});
  t.run(c, {"GET"});
  t.run(c, {"MULTI"});
  t.run(c, {"INCR", "n"});  // queued: filed when EXEC runs it
  t.run(c, {"EXEC"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}), entries({entry(1, {"INCR", "n"}), entry(0, {"MULTI"})}));
}

TEST(SlowLog, ScriptCommandsComeBeforeTheirEvalWithoutPeer) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& c = t.client();
  t.run(c, {"EVAL", "redis.call('set','a','b') return 1", "0"});
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET"}),
            entries({entry(1, {"EVAL", "redis.call('set','a','b') return 1", "0"}),
                     entry(0, {"set", "a", "b"}, "?:0")}));
}

TEST(SlowLog, BlockedCommandIsFiledWhenServedNeverWhenTimedOutOrGone) {
  TestServer t(Settings{{"slowlog-log-slower-than", "0"}});
  auto& waiter = t.client();
  auto& gone = t.client();
  auto& pusher = t.client();
  t.run(waiter, {"BLPOP", "q", "1"});
  t.advance_ms(1500);  // times out
  EXPECT_EQ(t.take_output(waiter), "*-1\r\n");
  t.run(gone, {"BLPOP", "q", "0"});
  t.disconnect(gone);
  t.run(waiter, {"BLPOP", "q", "0"});
  EXPECT_EQ(t.run(pusher, {"SLOWLOG", "LEN"}), ":0\r\n");
  t.run(pusher, {"LPUSH", "q", "x"});
  EXPECT_EQ(t.take_output(waiter), "*2\r\n$1\r\nq\r\n$1\r\nx\r\n");
  EXPECT_EQ(t.run(pusher, {"SLOWLOG", "GET"}),
            entries({entry(2, {"BLPOP", "q", "0"}, kPeer, "", kUnixS + 1),
                     entry(1, {"LPUSH", "q", "x"}, kPeer, "", kUnixS + 1),
                     entry(0, {"SLOWLOG", "LEN"}, kPeer, "", kUnixS + 1)}));
}

TEST(SlowLog, ParkedDurationsAddUp) {
  SlowLog log;
  listd::server::Client c(7);
  const std::vector<std::string_view> argv{"BLPOP", "q", "0"};
  log.park(c, argv, {}, 4);
  EXPECT_TRUE(log.has_parked(7));
  log.serve_parked(c, 6, kUnixS, 10, 128);
  EXPECT_FALSE(log.has_parked(7));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log.entries()[0].duration_us, 10u);
}

TEST(SlowLog, RepliesAndErrorsAsRedis) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET", "-2"}),
            "-ERR count should be greater than or equal to -1\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET", "x"}),
            "-ERR count should be greater than or equal to -1\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "GET", "1", "2"}),
            "-ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG "
            "HELP.\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "LEN", "x"}),
            "-ERR wrong number of arguments for 'slowlog|len' command\r\n");
  EXPECT_EQ(t.run(c, {"SLOWLOG", "foo"}), "-ERR unknown subcommand 'foo'. Try SLOWLOG HELP.\r\n");
  const std::string help = t.run(c, {"SLOWLOG", "HELP"});
  EXPECT_EQ(help.substr(0, help.find("\r\n")), "*12");
  EXPECT_NE(help.find("+    Reset the slowlog.\r\n+HELP\r\n+    Prints this help.\r\n"),
            std::string::npos);
}

}  // namespace
