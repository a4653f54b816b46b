// Loading at start-up with clients served meanwhile (data_loader.h, loading_progress.h): a fake
// EventLoopYield plays the event loop and runs another client's commands from inside the load,
// as Server::run_events_while_busy does. Checks -LOADING for the commands without the kLoading
// flag (PING among them, as in Redis 7.0), INFO's loading fields, the AOF and RDB progress
// points, SHUTDOWN and CONFIG SET appendonly during a load, and the flag set itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "listd/server/event_loop_yield.h"
#include "listd/server/loading_progress.h"
#include "listd/server/persistence.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using listd::testing::TempDir;
using listd::testing::TestServer;

namespace {

const std::string kLoadingReply = "-" + std::string(listd::server::kLoadingErr) + "\r\n";

class FakeLoopYield final : public listd::server::EventLoopYield {
 public:
  void run_events_while_busy() override { step(++calls); }
  std::function<void(int)> step = [](int) {};
  int calls = 0;
};

void configure(TestServer& t, const std::string& dir, bool aof) {
  ASSERT_FALSE(t.config().apply_directive(std::vector<std::string>{"dir", dir}));
  ASSERT_FALSE(
      t.config().apply_directive(std::vector<std::string>{"appendonly", aof ? "yes" : "no"}));
  ASSERT_FALSE(t.config().apply_directive(std::vector<std::string>{"appendfsync", "no"}));
  ASSERT_FALSE(t.config().apply_directive(
      std::vector<std::string>{"loading-process-events-interval-bytes", "1024"}));
  t.exec().persistence().set_logger([](listd::config::LogLevel, std::string_view) {});
}

// `n` keys of about 100 bytes in db 0, written as dump.rdb (SAVE) or to the AOF.
void write_data(const std::string& dir, bool aof, int n) {
  TestServer t;
  configure(t, dir, aof);
  std::string err;
  ASSERT_TRUE(t.exec().persistence().load_at_startup(err)) << err;
  auto& c = t.client();
  const std::string value(90, 'v');
  for (int i = 0; i < n; ++i) t.run(c, {"SET", "key:" + std::to_string(i), value});
  if (aof)
    t.exec().persistence().flush_turn();
  else
    ASSERT_EQ(t.run(c, {"SAVE"}), "+OK\r\n");
  t.exec().persistence().shutdown();
}

std::map<std::string, std::string> info_fields(const std::string& reply) {
  std::map<std::string, std::string> f;
  std::size_t at = 0;
  while ((at = reply.find("\r\n", at)) != std::string::npos) {
    at += 2;
    const std::size_t colon = reply.find(':', at), end = reply.find("\r\n", at);
    if (colon == std::string::npos || end == std::string::npos || colon > end) continue;
    f[reply.substr(at, colon - at)] = reply.substr(colon + 1, end - colon - 1);
  }
  return f;
}

// The commands a client saw while loading, and the INFO fields of the first time.
struct Observed {
  std::vector<std::string> pings, gets;
  std::map<std::string, std::string> info;
};

void observe_while_loading(TestServer& t, FakeLoopYield& y, Observed& seen) {
  auto& other = t.client();
  y.step = [&](int call) {
    seen.pings.push_back(t.run(other, {"PING"}));
    seen.gets.push_back(t.run(other, {"GET", "key:1"}));
    if (call == 1) seen.info = info_fields(t.run(other, {"INFO", "persistence"}));
  };
  t.exec().set_event_loop_yield(&y);
}

}  // namespace

TEST(Loading, ARdbLoadServesClientsWithLoadingErrorsAndProgress) {
  TempDir d;
  write_data(d.path(), false, 2000);
  const auto size = std::filesystem::file_size(d.path() + "/dump.rdb");
  TestServer t;
  configure(t, d.path(), false);
  FakeLoopYield y;
  Observed seen;
  observe_while_loading(t, y, seen);
  std::string err;
  ASSERT_TRUE(t.exec().persistence().load_at_startup(err)) << err;
  // One progress point per KB read, at least (the file is about 200 KB).
  EXPECT_GE(y.calls, static_cast<int>(size / 1024) - 1);
  for (const std::string& r : seen.pings) EXPECT_EQ(r, kLoadingReply);
  for (const std::string& r : seen.gets) EXPECT_EQ(r, kLoadingReply);
  EXPECT_EQ(seen.info["loading"], "1");
  EXPECT_EQ(seen.info["aof_enabled"], "0");
  EXPECT_EQ(seen.info["async_loading"], "0");
  EXPECT_EQ(seen.info["loading_total_bytes"], std::to_string(size));
  EXPECT_GE(std::stoull(seen.info["loading_loaded_bytes"]), 1024u);
  EXPECT_LT(std::stoull(seen.info["loading_loaded_bytes"]), size);
  EXPECT_EQ(seen.info["loading_start_time"], std::to_string(t.clock().unix_ms() / 1000));
  EXPECT_EQ(seen.info["loading_eta_seconds"], "1");  // no second elapsed yet: Redis' figure
  EXPECT_TRUE(seen.info.count("loading_rdb_used_mem"));
  EXPECT_TRUE(seen.info.count("loading_loaded_perc"));
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":2000\r\n");
  const auto after = info_fields(t.run(c, {"INFO", "persistence"}));
  EXPECT_EQ(after.at("loading"), "0");
  EXPECT_EQ(after.count("loading_total_bytes"), 0u);
  EXPECT_EQ(after.at("rdb_last_load_keys_loaded"), "2000");
}

TEST(Loading, AnAofReplayServesClientsEvery1024CommandsInThePresent) {
  TempDir d;
  write_data(d.path(), true, 3000);
  TestServer t;
  configure(t, d.path(), true);
  FakeLoopYield y;
  Observed seen;
  observe_while_loading(t, y, seen);
  auto& other = t.client();
  std::vector<std::string> times;
  const auto observe = y.step;
  y.step = [&](int call) {
    observe(call);
    times.push_back(t.run(other, {"TIME"}));
  };
  t.clock().advance_ms(5000);
  std::string err;
  ASSERT_TRUE(t.exec().persistence().load_at_startup(err)) << err;
  EXPECT_EQ(y.calls, 2);  // after commands 1024 and 2048 of 3000
  for (const std::string& r : seen.pings) EXPECT_EQ(r, kLoadingReply);
  EXPECT_EQ(seen.info["loading"], "1");
  EXPECT_EQ(seen.info["aof_enabled"], "1");  // Redis' AOF state is on from start-up
  EXPECT_GT(std::stoull(seen.info["loading_loaded_bytes"]), 0u);
  EXPECT_GT(std::stoull(seen.info["loading_total_bytes"]),
            std::stoull(seen.info["loading_loaded_bytes"]));
  // The replay runs at the epoch (nothing expires meanwhile); the clients see the real clock.
  ASSERT_FALSE(times.empty());
  EXPECT_NE(times[0].find(std::to_string(t.clock().unix_ms() / 1000)), std::string::npos)
      << times[0];
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":3000\r\n");
  EXPECT_EQ(t.run(c, {"SET", "after", "x"}), "+OK\r\n");
  t.exec().persistence().shutdown();
}

TEST(Loading, ShutdownWhileLoadingStopsTheLoadWithoutSaving) {
  TempDir d;
  write_data(d.path(), false, 2000);
  const auto mtime = std::filesystem::last_write_time(d.path() + "/dump.rdb");
  TestServer t;
  configure(t, d.path(), false);
  ASSERT_FALSE(t.config().apply_directive(std::vector<std::string>{"save", "1 1"}));
  FakeLoopYield y;
  auto& other = t.client();
  std::string shutdown_reply = "unset";
  y.step = [&](int call) {
    if (call == 3) shutdown_reply = t.run(other, {"SHUTDOWN", "SAVE"});
  };
  t.exec().set_event_loop_yield(&y);
  std::string err;
  EXPECT_FALSE(t.exec().persistence().load_at_startup(err));
  EXPECT_EQ(y.calls, 3);
  EXPECT_EQ(shutdown_reply, "");  // no reply: the server stops, as Redis does
  EXPECT_TRUE(t.exec().shutdown_requested());
  EXPECT_FALSE(t.exec().persistence().loading());
  EXPECT_EQ(std::filesystem::last_write_time(d.path() + "/dump.rdb"), mtime);  // never saved
}

TEST(Loading, ConfigSetAppendonlyWhileLoadingForksOnlyOnceLoaded) {
  TempDir d;
  write_data(d.path(), false, 2000);
  TestServer t;
  configure(t, d.path(), false);
  FakeLoopYield y;
  auto& other = t.client();
  std::vector<bool> child_while_loading;
  y.step = [&](int call) {
    if (call == 1) EXPECT_EQ(t.run(other, {"CONFIG", "SET", "appendonly", "yes"}), "+OK\r\n");
    EXPECT_EQ(t.run(other, {"BGSAVE"}), kLoadingReply);
    EXPECT_EQ(t.run(other, {"BGREWRITEAOF"}), kLoadingReply);
    child_while_loading.push_back(t.exec().persistence().child_running());
  };
  t.exec().set_event_loop_yield(&y);
  std::string err;
  ASSERT_TRUE(t.exec().persistence().load_at_startup(err)) << err;
  EXPECT_TRUE(std::none_of(child_while_loading.begin(), child_while_loading.end(),
                           [](bool b) { return b; }));
  auto& c = t.client();
  const auto info = info_fields(t.run(c, {"INFO", "persistence"}));
  EXPECT_EQ(info.at("aof_enabled"), "1");  // applied once the data was loaded
  t.exec().persistence().shutdown();
}

// Redis 7.0.15's CMD_LOADING commands (its commands.c), by full name: listd must allow the same
// ones during a load (the ones listd lacks are left out).
TEST(Loading, TheLoadingFlagSetIsRedisOne) {
  const std::set<std::string> redis_loading = {
      "auth",         "echo",        "hello",        "quit",     "reset",      "select",
      "psubscribe",   "publish",     "punsubscribe", "spublish", "ssubscribe", "subscribe",
      "sunsubscribe", "unsubscribe", "command",      "debug",    "info",       "lastsave",
      "monitor",      "replconf",    "role",         "shutdown", "time",       "discard",
      "exec",         "multi",       "unwatch",      "watch",    "readonly",   "readwrite"};
  TestServer t;
  std::set<std::string> listd_loading;
  for (const listd::server::CommandSpec* spec : t.exec().commands().by_slot())
    if (spec->parent == nullptr && (spec->flags & listd::server::kLoading))
      listd_loading.insert(std::string(spec->name));
  listd_loading.erase("queues");  // listd's own (docs/COMPATIBILITY.md): admin loading stale
  std::set<std::string> expected;
  for (const std::string& name : redis_loading)
    if (t.exec().commands().find(name)) expected.insert(name);
  EXPECT_EQ(listd_loading, expected);
  EXPECT_FALSE(t.exec().commands().find("ping")->flags & listd::server::kLoading);
}

TEST(Loading, TheIntervalOptionIsHiddenWithRedisBounds) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "loading*"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "loading-process-events-interval-bytes"}),
            "*2\r\n$37\r\nloading-process-events-interval-bytes\r\n$7\r\n2097152\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "loading-process-events-interval-bytes", "100"}),
            "-ERR CONFIG SET failed (possibly related to argument "
            "'loading-process-events-interval-bytes') - argument must be between 1024 and "
            "2147483647 inclusive\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "loading-process-events-interval-bytes", "4096"}),
            "+OK\r\n");
}
