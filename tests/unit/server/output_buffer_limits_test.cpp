// Output-buffer limits without sockets: the policy (hard, soft over time, soft reset) on its
// own, then applied by the executor to subscribers of a flooded channel, with time driven by
// the test clock. The transport's unwritten bytes are FakeTransport::pending.
#include "listd/server/output_buffer_limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "support/test_server.h"

using listd::config::ClientClass;
using listd::config::OutputBufferLimit;
using listd::server::Client;
using listd::server::client_class;
using listd::server::kReplyChunkBytes;
using listd::server::output_limit_reached;
using listd::server::output_memory;
using listd::testing::TestServer;

namespace {

bool contains(const std::vector<Client*>& v, const Client* c) {
  return std::find(v.begin(), v.end(), c) != v.end();
}

// ---- The policy ---------------------------------------------------------------------------

TEST(OutputLimitPolicy, HardLimitIsReachedAtOnceAndZeroMeansOff) {
  std::optional<std::uint64_t> since;
  const OutputBufferLimit hard_only{1000, 0, 0};
  EXPECT_FALSE(output_limit_reached(hard_only, 999, 10, since));
  EXPECT_TRUE(output_limit_reached(hard_only, 1000, 10, since));
  EXPECT_FALSE(since.has_value());  // no soft limit: no timer
  EXPECT_FALSE(output_limit_reached(OutputBufferLimit{0, 0, 0}, 1ULL << 40, 10, since));
}

TEST(OutputLimitPolicy, SoftLimitNeedsMoreThanItsSecondsOver) {
  std::optional<std::uint64_t> since;
  const OutputBufferLimit soft{0, 100, 2};
  EXPECT_FALSE(output_limit_reached(soft, 100, 50, since));  // first seen over: timer starts
  EXPECT_EQ(since, 50u);
  EXPECT_FALSE(output_limit_reached(soft, 500, 51, since));
  EXPECT_FALSE(output_limit_reached(soft, 500, 52, since));  // 2 s over: not more than 2
  EXPECT_TRUE(output_limit_reached(soft, 100, 53, since));
  EXPECT_EQ(since, 50u);
}

TEST(OutputLimitPolicy, SoftTimerRestartsOnceUnder) {
  std::optional<std::uint64_t> since;
  const OutputBufferLimit soft{0, 100, 2};
  EXPECT_FALSE(output_limit_reached(soft, 200, 10, since));
  EXPECT_FALSE(output_limit_reached(soft, 99, 12, since));  // under: forgotten
  EXPECT_FALSE(since.has_value());
  EXPECT_FALSE(output_limit_reached(soft, 200, 13, since));
  EXPECT_FALSE(output_limit_reached(soft, 200, 15, since));
  EXPECT_TRUE(output_limit_reached(soft, 200, 16, since));
}

TEST(OutputLimitPolicy, ZeroSecondsStillWaitsForTheNextSecond) {
  std::optional<std::uint64_t> since;
  const OutputBufferLimit soft{0, 100, 0};  // as Redis: elapsed must exceed 0
  EXPECT_FALSE(output_limit_reached(soft, 100, 7, since));
  EXPECT_FALSE(output_limit_reached(soft, 100, 7, since));
  EXPECT_TRUE(output_limit_reached(soft, 100, 8, since));
}

// ---- What a client holds and its class ----------------------------------------------------

TEST(OutputMemory, FirstChunkIsTheBufferTheRestCountsInBlocks) {
  TestServer t;
  Client& c = t.client();
  c.out.assign(1000, 'x');
  EXPECT_EQ(output_memory(c).buffer_bytes, 1000u);
  EXPECT_EQ(output_memory(c).list_bytes, 0u);
  EXPECT_EQ(output_memory(c).blocks, 0u);
  t.transport(c).pending = 2 * kReplyChunkBytes;  // taken by the socket writer, not yet written
  EXPECT_EQ(output_memory(c).buffer_bytes, kReplyChunkBytes);
  EXPECT_EQ(output_memory(c).list_bytes, kReplyChunkBytes + 1000);
  EXPECT_EQ(output_memory(c).blocks, 2u);
}

TEST(ClientClassTest, SubscribedClientsArePubsubInEitherProtocol) {
  TestServer t;
  Client& a = t.client();
  Client& b = t.client();
  EXPECT_EQ(client_class(a), ClientClass::kNormal);
  t.run(a, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(client_class(a), ClientClass::kPubsub);
  t.run(b, {"HELLO", "3"});
  t.run(b, {"SSUBSCRIBE", "s"});
  EXPECT_EQ(client_class(b), ClientClass::kPubsub);
  t.run(a, {"UNSUBSCRIBE"});
  EXPECT_EQ(client_class(a), ClientClass::kNormal);
  t.run(b, {"MONITOR"});
  t.run(b, {"SUNSUBSCRIBE"});
  EXPECT_EQ(client_class(b), ClientClass::kNormal);  // MONITOR clients are normal
}

// ---- Enforcement by the executor ----------------------------------------------------------

std::string payload(std::size_t n) { return std::string(n, 'p'); }

std::vector<std::pair<std::string, std::string>> limits(const std::string& value) {
  return {{"client-output-buffer-limit", value}};
}

// The guard's warnings, captured.
std::vector<std::string>& capture_log(TestServer& t) {
  static std::vector<std::string> lines;
  lines.clear();
  t.exec().output_buffer_guard().set_logger([](listd::config::LogLevel level, std::string_view m) {
    EXPECT_EQ(level, listd::config::LogLevel::kWarning);
    lines.emplace_back(m);
  });
  return lines;
}

TEST(OutputBufferGuard, HardLimitSchedulesTheSubscriberAndSparesEveryoneElse) {
  TestServer t(limits("pubsub 64kb 0 0"));
  const std::vector<std::string>& log = capture_log(t);
  Client& slow = t.client();
  Client& fast = t.client();
  Client& pub = t.client();
  t.run(slow, {"SUBSCRIBE", "ch"});
  t.run(fast, {"SUBSCRIBE", "ch"});
  const std::string msg = payload(10000);
  std::size_t fast_bytes = 0;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(t.run(pub, {"PUBLISH", "ch", msg}), ":2\r\n");  // still a receiver until closed
    fast_bytes += t.take_output(fast).size();                 // fast reads everything
  }
  EXPECT_TRUE(slow.close_asap);
  EXPECT_FALSE(fast.close_asap);
  EXPECT_FALSE(pub.close_asap);
  // Closed at 64 KB plus the static buffer and no more output after that.
  EXPECT_LT(slow.out.size(), 64 * 1024 + kReplyChunkBytes + msg.size() + 100);
  const std::vector<Client*> closing = t.exec().clients().take_close_asap_list();
  EXPECT_EQ(closing, std::vector<Client*>{&slow});
  EXPECT_EQ(fast_bytes, 10 * (msg.size() + 35));  // the frame: *3 $7 message $2 ch $10000
  EXPECT_EQ(t.exec().output_buffer_guard().disconnections(), 1u);
  ASSERT_EQ(log.size(), 1u);  // Redis' line, the client described before it was marked
  EXPECT_EQ(log[0].rfind("Client id=" + std::to_string(slow.id) + " addr=127.0.0.1:40000 ", 0), 0u);
  EXPECT_NE(log[0].find(" flags=P db=0 sub=1 "), std::string::npos);
  EXPECT_NE(log[0].find(" cmd=subscribe "), std::string::npos);
  EXPECT_TRUE(
      log[0].ends_with(" scheduled to be closed ASAP for overcoming of output buffer limits."));
  const std::string info = t.run(pub, {"INFO", "stats"});
  EXPECT_NE(info.find("client_output_buffer_limit_disconnections:1\r\n"), std::string::npos);
}

TEST(OutputBufferGuard, NormalClientsHaveNoLimitByDefault) {
  TestServer t;
  Client& c = t.client();
  t.transport(c).pending = 1ULL << 30;  // 1 GB not yet written
  t.run(c, {"PING"});
  EXPECT_FALSE(c.close_asap);
  EXPECT_TRUE(t.exec().clients().take_close_asap_list().empty());
}

TEST(OutputBufferGuard, SoftLimitClosesAfterItsSecondsOnTheTestClock) {
  TestServer t(limits("pubsub 0 32kb 2"));
  Client& slow = t.client();
  Client& pub = t.client();
  t.run(slow, {"SUBSCRIBE", "ch"});
  const std::string msg = payload(60000);
  t.run(pub, {"PUBLISH", "ch", msg});  // over the soft limit: its timer starts
  EXPECT_FALSE(slow.close_asap);
  t.advance_ms(2000);
  t.run(pub, {"PUBLISH", "ch", "x"});
  EXPECT_FALSE(slow.close_asap);  // 2 s: not more than 2
  t.advance_ms(1000);
  t.run(pub, {"PUBLISH", "ch", "x"});
  EXPECT_TRUE(slow.close_asap);
  EXPECT_TRUE(contains(t.exec().clients().take_close_asap_list(), &slow));
}

TEST(OutputBufferGuard, SoftLimitResetsWhenTheClientCatchesUp) {
  TestServer t(limits("pubsub 0 32kb 2"));
  Client& sub = t.client();
  Client& pub = t.client();
  t.run(sub, {"SUBSCRIBE", "ch"});
  t.run(pub, {"PUBLISH", "ch", payload(60000)});
  t.advance_ms(2500);
  t.take_output(sub);                  // the subscriber read it all
  t.run(pub, {"PUBLISH", "ch", "x"});  // nothing held beyond the static buffer: timer untouched
  t.run(pub, {"PUBLISH", "ch", payload(20000)});  // held, but under 32 KB: timer forgotten
  EXPECT_FALSE(sub.obuf_soft_limit_since_s.has_value());
  t.run(pub, {"PUBLISH", "ch", payload(60000)});  // over again: a new timer
  t.advance_ms(1000);
  t.run(pub, {"PUBLISH", "ch", "x"});
  EXPECT_FALSE(sub.close_asap);
}

TEST(OutputBufferGuard, CronClosesASubscriberStuckOverTheSoftLimit) {
  TestServer t(limits("pubsub 0 32kb 1"));
  const std::vector<std::string>& log = capture_log(t);
  Client& slow = t.client();
  Client& pub = t.client();
  t.run(slow, {"SUBSCRIBE", "ch"});
  t.run(pub, {"PUBLISH", "ch", payload(60000)});
  t.advance_ms(1000);
  EXPECT_TRUE(t.exec().cron(t.clock().monotonic_ms()).empty());
  t.advance_ms(1000);
  const std::vector<Client*> closed = t.exec().cron(t.clock().monotonic_ms());
  EXPECT_EQ(closed, std::vector<Client*>{&slow});  // no new output needed, as clientsCron
  EXPECT_TRUE(slow.close_asap);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].ends_with(" closed for overcoming of output buffer limits."));
  const std::string info = t.run(pub, {"INFO", "clients"});
  EXPECT_NE(info.find("client_recent_max_output_buffer:" +
                      std::to_string(output_memory(slow).list_bytes) + "\r\n"),
            std::string::npos);
  t.disconnect(slow);
  t.advance_ms(8000);  // eight more passes: the peak is forgotten
  t.exec().cron(t.clock().monotonic_ms());
  EXPECT_NE(t.run(pub, {"INFO", "clients"}).find("client_recent_max_output_buffer:0\r\n"),
            std::string::npos);
}

TEST(OutputBufferGuard, AClosingClientRunsNothingAndMonitorsSkipIt) {
  TestServer t(limits("normal 20kb 0 0"));
  Client& mon = t.client();
  Client& c = t.client();
  t.run(mon, {"MONITOR"});
  t.transport(mon).pending = 40 * 1024;  // a monitor that stopped reading
  t.run(c, {"SET", "k", "v"});           // fed to the monitor, which goes over its limit
  EXPECT_TRUE(mon.close_asap);
  const std::size_t held = mon.out.size();
  t.run(c, {"SET", "k", "w"});
  EXPECT_EQ(mon.out.size(), held);  // no more output for it
  EXPECT_NE(t.run(c, {"CLIENT", "LIST"}).find(" flags=OA "), std::string::npos);
}

}  // namespace
