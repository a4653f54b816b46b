// The CLIENT TRACKING tables without an executor: remembering keys, invalidation to the tracker
// or its redirect (RESP2 / RESP3 frames as Redis 7.0 writes them), the pending invalidations of
// the running client, BCAST batches with NOLOOP, flushes, the key limit and the counters.
#include "listd/server/tracking.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "listd/server/client_registry.h"

using listd::protocol::RespVersion;
using listd::server::Client;
using listd::server::ClientRegistry;
using listd::server::Tracking;
using listd::server::TrackingContext;
using listd::server::TrackingOptions;

namespace {

std::string push_keys(std::vector<std::string> keys) {
  std::string out = ">2\r\n$10\r\ninvalidate\r\n*" + std::to_string(keys.size()) + "\r\n";
  for (const std::string& k : keys) out += "$" + std::to_string(k.size()) + "\r\n" + k + "\r\n";
  return out;
}

struct TrackingTest : ::testing::Test {
  ClientRegistry clients;
  std::vector<std::uint64_t> pushed_to;
  Tracking tracking{clients, [this](Client& c, std::size_t) { pushed_to.push_back(c.id); }};

  Client& resp3_client() {
    Client& c = clients.create();
    c.resp = RespVersion::kResp3;
    return c;
  }
};

TEST_F(TrackingTest, InvalidatesARememberedKeyOnceAndCountsIt) {
  Client& c = resp3_client();
  tracking.enable(c, {}, {});
  tracking.remember(c, "k");
  tracking.remember(c, "k");  // one item per client and key
  EXPECT_EQ(tracking.total_keys(), 1U);
  EXPECT_EQ(tracking.total_items(), 1U);
  tracking.invalidate("k", nullptr, {});
  EXPECT_EQ(c.out, push_keys({"k"}));
  EXPECT_EQ(tracking.total_keys(), 0U);
  EXPECT_EQ(tracking.total_items(), 0U);
  tracking.invalidate("k", nullptr, {});
  EXPECT_EQ(c.out, push_keys({"k"}));
  EXPECT_EQ(pushed_to, std::vector<std::uint64_t>{c.id});
}

TEST_F(TrackingTest, TheRunningClientsOwnInvalidationWaitsForItsReply) {
  Client& c = resp3_client();
  tracking.enable(c, {}, {});
  tracking.remember(c, "k");
  tracking.invalidate("k", &c, TrackingContext{&c, true});
  EXPECT_EQ(c.out, "");
  c.out = "+OK\r\n";
  tracking.send_pending(&c);
  EXPECT_EQ(c.out, "+OK\r\n" + push_keys({"k"}));
}

TEST_F(TrackingTest, NoloopSkipsTheCurrentClient) {
  Client& c = resp3_client();
  tracking.enable(c, TrackingOptions{.noloop = true}, {});
  tracking.remember(c, "k");
  tracking.invalidate("k", &c, TrackingContext{&c, true});
  tracking.send_pending(&c);
  EXPECT_EQ(c.out, "");
}

TEST_F(TrackingTest, Resp2RedirectNeedsASubscribedTarget) {
  Client& target = clients.create();
  Client& c = clients.create();
  tracking.enable(c, TrackingOptions{.redirect = target.id}, {});
  tracking.remember(c, "a");
  tracking.invalidate("a", nullptr, {});
  EXPECT_EQ(target.out, "");  // not subscribed: nothing can carry it
  target.pubsub.channels.insert("__redis__:invalidate");
  tracking.remember(c, "a");
  tracking.invalidate("a", nullptr, {});
  EXPECT_EQ(target.out, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\na\r\n");
  EXPECT_EQ(c.out, "");
}

TEST_F(TrackingTest, ARedirectToAClientGoneIsReportedToAResp3Tracker) {
  Client& gone = clients.create();
  const std::uint64_t gone_id = gone.id;
  Client& c = resp3_client();
  tracking.enable(c, TrackingOptions{.redirect = gone_id}, {});
  clients.destroy(gone);
  tracking.remember(c, "a");
  tracking.invalidate("a", nullptr, {});
  EXPECT_TRUE(c.tracking.broken_redirect);
  EXPECT_EQ(c.out, ">2\r\n$21\r\ntracking-redir-broken\r\n:" + std::to_string(gone_id) + "\r\n");
}

TEST_F(TrackingTest, AClientThatLeftOrStoppedIsSkipped) {
  Client& c = resp3_client();
  Client& d = resp3_client();
  tracking.enable(c, {}, {});
  tracking.enable(d, {}, {});
  tracking.remember(c, "k");
  tracking.remember(d, "k");
  tracking.disable(d);
  EXPECT_EQ(tracking.tracking_clients(), 1U);
  tracking.invalidate("k", nullptr, {});
  EXPECT_EQ(c.out, push_keys({"k"}));
  EXPECT_EQ(d.out, "");
}

TEST_F(TrackingTest, BroadcastSendsEachPrefixsKeysOnceAndNoloopDropsOwnWrites) {
  Client& c = resp3_client();
  Client& n = resp3_client();
  const std::string_view prefixes[] = {"job:"};
  tracking.enable(c, TrackingOptions{.bcast = true}, prefixes);
  tracking.enable(n, TrackingOptions{.bcast = true, .noloop = true}, prefixes);
  EXPECT_EQ(tracking.total_prefixes(), 1U);
  tracking.invalidate("job:2", &n, {});
  tracking.invalidate("job:1", &c, {});
  tracking.invalidate("job:2", &n, {});
  tracking.invalidate("other", &c, {});
  tracking.broadcast();
  EXPECT_EQ(c.out, push_keys({"job:1", "job:2"}));
  EXPECT_EQ(n.out, push_keys({"job:1"}));
  tracking.broadcast();  // the batch was emptied
  EXPECT_EQ(c.out, push_keys({"job:1", "job:2"}));
  tracking.disable(c);
  tracking.disable(n);
  EXPECT_EQ(tracking.total_prefixes(), 0U);
}

TEST_F(TrackingTest, PrefixCollisionsAreRedisTexts) {
  Client& c = resp3_client();
  const std::string_view mine[] = {"job"};
  tracking.enable(c, TrackingOptions{.bcast = true}, mine);
  const std::string_view again[] = {"jo"};
  EXPECT_EQ(tracking.prefix_collision(c, again),
            "ERR Prefix 'jo' overlaps with an existing prefix 'job'. Prefixes for a single "
            "client must not overlap.");
  Client& d = resp3_client();
  const std::string_view both[] = {"a", "ab"};
  EXPECT_EQ(tracking.prefix_collision(d, both),
            "ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single "
            "client must not overlap.");
  const std::string_view apart[] = {"a", "b"};
  EXPECT_EQ(tracking.prefix_collision(d, apart), "");
  EXPECT_EQ(tracking.prefixes_of(c), std::vector<std::string>{"job"});
}

TEST_F(TrackingTest, FlushSendsTheNullInTheTrackersProtocolAndEmptiesTheTable) {
  Client& c3 = resp3_client();
  Client& target = clients.create();
  target.pubsub.channels.insert("x");
  Client& c2 = clients.create();
  tracking.enable(c3, {}, {});
  tracking.enable(c2, TrackingOptions{.redirect = target.id}, {});
  tracking.remember(c3, "k");
  tracking.invalidate_all({});
  EXPECT_EQ(c3.out, ">2\r\n$10\r\ninvalidate\r\n_\r\n");
  EXPECT_EQ(target.out, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n");
  EXPECT_EQ(tracking.total_keys(), 0U);
}

TEST_F(TrackingTest, KeyLimitEvictsUntilUnderItWithInvalidations) {
  Client& c = resp3_client();
  tracking.enable(c, {}, {});
  for (int i = 0; i < 10; ++i) tracking.remember(c, "k" + std::to_string(i));
  std::mt19937_64 rng(7);
  tracking.limit_keys(0, {}, rng);  // 0: no limit
  EXPECT_EQ(tracking.total_keys(), 10U);
  tracking.limit_keys(4, {}, rng);
  EXPECT_EQ(tracking.total_keys(), 4U);
  EXPECT_EQ(tracking.total_items(), 4U);
  EXPECT_EQ(pushed_to.size(), 6U);
  for (int i = 0; i < 10; ++i) tracking.invalidate("k" + std::to_string(i), nullptr, {});
  EXPECT_EQ(tracking.total_keys(), 0U);
  EXPECT_EQ(pushed_to.size(), 10U);  // every key told exactly once
}

TEST_F(TrackingTest, OptinAndOptoutDecideWithCaching) {
  Client& c = resp3_client();
  tracking.enable(c, TrackingOptions{.optin = true}, {});
  EXPECT_FALSE(Tracking::wants_keys(c));
  c.tracking.caching = true;
  EXPECT_TRUE(Tracking::wants_keys(c));
  tracking.disable(c);
  tracking.enable(c, TrackingOptions{.optout = true}, {});
  EXPECT_TRUE(Tracking::wants_keys(c));
  c.tracking.caching = true;
  EXPECT_FALSE(Tracking::wants_keys(c));
  tracking.disable(c);
  tracking.enable(c, TrackingOptions{.bcast = true}, {});
  EXPECT_FALSE(Tracking::wants_keys(c));  // BCAST remembers no keys
}

}  // namespace
