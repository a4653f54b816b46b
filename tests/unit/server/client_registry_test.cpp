// ClientRegistry on its own: ids, the per-turn lists (each client once, taken off every list
// when destroyed), monitors and the MONITOR line format, and the idle-client choice.
#include "listd/server/client_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "listd/blocking/waiter_registry.h"
#include "support/test_server.h"

using listd::server::Client;
using listd::server::ClientRegistry;
using listd::testing::FakeTransport;

namespace {

bool contains(const std::vector<Client*>& v, const Client* c) {
  return std::find(v.begin(), v.end(), c) != v.end();
}

TEST(ClientRegistry, IdsIncreaseAndFindForgetsDestroyedClients) {
  ClientRegistry r;
  Client& a = r.create();
  Client& b = r.create();
  EXPECT_EQ(a.id, 1u);
  EXPECT_EQ(b.id, 2u);
  EXPECT_EQ(r.count(), 2u);
  EXPECT_EQ(r.find(2), &b);
  r.destroy(a);
  EXPECT_EQ(r.find(1), nullptr);
  EXPECT_EQ(r.count(), 1u);
  EXPECT_EQ(r.create().id, 3u);  // ids are never reused
}

TEST(ClientRegistry, FlushListHoldsEachClientOnceUntilTaken) {
  ClientRegistry r;
  Client& a = r.create();
  r.queue_flush(a);
  r.queue_flush(a);
  EXPECT_TRUE(a.queued_for_flush);
  const auto first = r.take_flush_list();
  EXPECT_EQ(first.size(), 1u);
  EXPECT_FALSE(a.queued_for_flush);
  EXPECT_TRUE(r.take_flush_list().empty());
  r.queue_flush(a);  // queued again after the turn that flushed it
  EXPECT_EQ(r.take_flush_list().size(), 1u);
}

TEST(ClientRegistry, KillMarksCloseAfterReplyAndListsOnce) {
  ClientRegistry r;
  Client& a = r.create();
  r.request_kill(a);
  r.request_kill(a);
  EXPECT_TRUE(a.close_after_reply);
  EXPECT_EQ(r.take_kill_list().size(), 1u);
  EXPECT_TRUE(r.take_kill_list().empty());
}

TEST(ClientRegistry, ResumeListIsTakenWhole) {
  ClientRegistry r;
  Client& a = r.create();
  Client& b = r.create();
  EXPECT_FALSE(r.has_resume());
  r.queue_resume(a);
  r.queue_resume(b);
  EXPECT_TRUE(r.has_resume());
  const auto resumed = r.take_resume_list();
  EXPECT_EQ(resumed, (std::vector<Client*>{&a, &b}));
  EXPECT_FALSE(r.has_resume());
}

TEST(ClientRegistry, DestroyTakesTheClientOffEveryList) {
  ClientRegistry r;
  Client& gone = r.create();
  Client& stays = r.create();
  for (Client* c : {&gone, &stays}) {
    r.queue_flush(*c);
    r.queue_resume(*c);
    r.request_kill(*c);
    r.add_monitor(*c);
  }
  r.destroy(gone);
  EXPECT_EQ(r.take_flush_list(), std::vector<Client*>{&stays});
  EXPECT_EQ(r.take_resume_list(), std::vector<Client*>{&stays});
  EXPECT_EQ(r.take_kill_list(), std::vector<Client*>{&stays});
  const std::vector<std::string_view> argv{"PING"};
  r.feed_monitors(stays, 0, argv);  // the only monitor left is the sender itself
  EXPECT_TRUE(stays.out.empty());
}

TEST(ClientRegistry, MonitorsGetEveryOtherClientsCommandsAndAreFlushed) {
  ClientRegistry r;
  Client& m = r.create();
  Client& c = r.create();
  c.addr = "127.0.0.1:5000";
  c.db = 3;
  r.add_monitor(m);
  r.add_monitor(m);  // once
  EXPECT_TRUE(m.monitor);
  EXPECT_TRUE(r.has_monitors());
  const std::vector<std::string_view> argv{"SET", "k", "v"};
  r.feed_monitors(c, 1'700'000'000'000'042, argv);
  EXPECT_EQ(m.out, "+1700000000.000042 [3 127.0.0.1:5000] \"SET\" \"k\" \"v\"\r\n");
  EXPECT_TRUE(contains(r.take_flush_list(), &m));
  r.feed_monitors(m, 0, argv);  // a monitor does not see its own commands
  EXPECT_EQ(m.out, "+1700000000.000042 [3 127.0.0.1:5000] \"SET\" \"k\" \"v\"\r\n");
}

TEST(ClientRegistry, MonitorLineEscapesArgumentsAsSdscatrepr) {
  Client c(7);
  c.addr = "a:1";
  const std::vector<std::string_view> argv{std::string_view("q\"\\\n\r\t\a\b\x01\x7f\xff", 11), ""};
  EXPECT_EQ(listd::server::format_monitor_line(c, 5'000'000, argv),
            "+5.000000 [0 a:1] \"q\\\"\\\\\\n\\r\\t\\a\\b\\x01\\x7f\\xff\" \"\"\r\n");
}

TEST(ClientRegistry, IdleClientsSkipBlockedAndTransportlessClients) {
  ClientRegistry r;
  FakeTransport transport;
  listd::blocking::WaiterRegistry waiters;
  Client& idle = r.create();
  Client& busy = r.create();
  Client& blocked = r.create();
  Client& loader = r.create();  // the AOF loading client has no transport
  for (Client* c : {&idle, &busy, &blocked}) c->transport = &transport;
  idle.last_interaction_ms = 1000;
  busy.last_interaction_ms = 5000;
  blocked.last_interaction_ms = 1000;
  loader.last_interaction_ms = 1000;
  waiters.block(blocked.waiter, 0, {"k"});
  EXPECT_EQ(r.idle_clients(10'000, 5000), std::vector<Client*>{&idle});
  EXPECT_TRUE(r.idle_clients(6000, 5000).empty());  // exactly at the limit is not past it
  EXPECT_EQ(r.idle_clients(10'001, 5000).size(), 2u);
  waiters.unblock(blocked.waiter);
}

}  // namespace
