// RESP2 subscribed mode as a command-table flag: exactly Redis 7.0's nine commands carry
// kAllowedWhenSubscribed, and Executor::rejection refuses every other command and subcommand
// with Redis' text (the frames themselves are in pubsub_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "support/test_server.h"

using listd::server::CommandSpec;
using listd::server::CommandTable;
using listd::server::kAllowedWhenSubscribed;
using listd::testing::TestServer;

namespace {

TEST(SubscribedMode, ExactlyRedisNineCommandsAreFlagged) {
  const CommandTable table = CommandTable::with_all_commands();
  std::vector<std::string> flagged;
  for (const CommandSpec* spec : table.by_slot())
    if (spec->flags & kAllowedWhenSubscribed) flagged.push_back(spec->full_name);
  std::sort(flagged.begin(), flagged.end());
  EXPECT_EQ(flagged,
            (std::vector<std::string>{"ping", "psubscribe", "punsubscribe", "quit", "reset",
                                      "ssubscribe", "subscribe", "sunsubscribe", "unsubscribe"}));
}

TEST(SubscribedMode, EveryOtherCommandIsRefusedInResp2Only) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(t.run(c, {"GET", "k"}), "-" + listd::server::subscribed_mode_error("get") + "\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "ID"}),
            "-" + listd::server::subscribed_mode_error("client|id") + "\r\n");
  EXPECT_EQ(t.run(c, {"PING"}), "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  t.run(c, {"RESET"});  // back to RESP2 and no subscription
  t.run(c, {"HELLO", "3"});
  t.run(c, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(t.run(c, {"CLIENT", "ID"})[0], ':');  // RESP3 mixes in anything
}

}  // namespace
