// A busy script on the executor, no sockets: a fake EventLoopYield plays the event loop and
// runs other clients' commands from inside the script's hook. Checks the BUSY rejection and
// the allow-busy commands, SCRIPT KILL's decisions, SHUTDOWN NOSAVE dropping the script's
// effects and reply, the caller's protection flag, and that waiters are neither timed out
// nor served while the script is busy.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "listd/config/config.h"
#include "listd/server/clock.h"
#include "listd/server/effect_stream.h"
#include "listd/server/event_loop_yield.h"
#include "listd/server/executor.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

constexpr std::string_view kBusy =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
constexpr std::string_view kSpin = "while true do end";

// Every read moves time on by 1 ms, so a spinning script passes the threshold by itself.
class SteppingClock final : public Clock {
 public:
  std::uint64_t monotonic_ms() const override { return ++mono_ms_; }
  std::int64_t unix_ms() const override { return 1'700'000'000'000 + (long long)mono_ms_; }

 private:
  mutable std::uint64_t mono_ms_ = 1'000'000;
};

// The event loop's stand-in: runs `step` once per yield, the yield count given.
class FakeYield final : public EventLoopYield {
 public:
  void run_events_while_busy() override { step(++calls); }
  std::function<void(int)> step = [](int) {};
  int calls = 0;
};

class Recorder final : public EffectConsumer {
 public:
  bool wants_effects() const noexcept override { return true; }
  void on_effect(int, std::span<const std::string_view> argv) override {
    lines.emplace_back(argv.front());
  }
  std::vector<std::string> lines;
};

class BusyScriptTest : public ::testing::Test {
 protected:
  BusyScriptTest() {
    config_.set("busy-reply-threshold", "100");
    exec_ = std::make_unique<Executor>(config_, clock_);
    exec_->set_event_loop_yield(&yield_);
    exec_->effects().subscribe(recorder_);
  }
  Client& client() {
    transports_.push_back(std::make_unique<testing::FakeTransport>());
    return exec_->create_client(transports_.back().get(), "127.0.0.1:1", "127.0.0.1:2", -1);
  }
  std::string run(Client& c, std::vector<std::string_view> argv) {
    exec_->execute(c, argv);
    std::string out;
    out.swap(c.out);
    return out;
  }

  SteppingClock clock_;
  config::Config config_;
  FakeYield yield_;
  Recorder recorder_;
  std::vector<std::unique_ptr<testing::FakeTransport>> transports_;
  std::unique_ptr<Executor> exec_;
};

TEST_F(BusyScriptTest, OthersGetBusyUntilScriptKill) {
  Client& caller = client();
  Client& other = client();
  std::vector<std::string> seen;
  bool caller_protected = false;
  yield_.step = [&](int call) {
    caller_protected = caller.script_running;
    if (call > 1) return;
    for (auto argv : std::vector<std::vector<std::string_view>>{
             {"PING"}, {"MULTI"}, {"GET", "k"}, {"EXEC"}, {"SHUTDOWN"}, {"SCRIPT", "KILL"}})
      seen.push_back(run(other, argv));
  };
  EXPECT_EQ(run(caller, {"EVAL", kSpin, "0"}),
            "-ERR Script killed by user with SCRIPT KILL... script: "
            "694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on @user_script:1.\r\n");
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[0], kBusy);
  EXPECT_EQ(seen[1], "+OK\r\n");
  EXPECT_EQ(seen[2], kBusy);
  EXPECT_EQ(seen[3],
            "-EXECABORT Transaction discarded because of: " + std::string(kBusy.substr(1)));
  EXPECT_EQ(seen[4], kBusy);
  EXPECT_EQ(seen[5], "+OK\r\n");
  EXPECT_TRUE(caller_protected);
  EXPECT_FALSE(caller.script_running);
  EXPECT_FALSE(exec_->busy_script());
  EXPECT_EQ(run(other, {"SCRIPT", "KILL"}), "-NOTBUSY No scripts in execution right now.\r\n");
  EXPECT_EQ(run(other, {"PING"}), "+PONG\r\n");
}

TEST_F(BusyScriptTest, WritingScriptIsUnkillableAndShutdownNosaveDropsIt) {
  Client& caller = client();
  Client& other = client();
  std::vector<std::string> seen;
  yield_.step = [&](int call) {
    if (call > 1) return;
    seen.push_back(run(other, {"SCRIPT", "KILL"}));
    seen.push_back(run(other, {"SHUTDOWN", "NOSAVE"}));
  };
  exec_->execute(caller, std::vector<std::string_view>{"SET", "before", "1"});
  exec_->execute(caller, std::vector<std::string_view>{
                             "EVAL", "redis.call('set','k','v') " + std::string(kSpin), "0"});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0],
            "-UNKILLABLE Sorry the script already executed write commands against the dataset. "
            "You can either wait the script termination or kill the server in a hard way using "
            "the SHUTDOWN NOSAVE command.\r\n");
  EXPECT_EQ(seen[1], "");            // no reply: the server stops
  EXPECT_EQ(caller.out, "+OK\r\n");  // SET's reply only, nothing for the stopped script
  EXPECT_TRUE(exec_->shutdown_requested());
  EXPECT_EQ(recorder_.lines, std::vector<std::string>{"SET"});  // the script's SET is not logged
}

TEST_F(BusyScriptTest, WaitersAreNeitherTimedOutNorServedWhileBusy) {
  Client& caller = client();
  Client& other = client();
  Client& waiter = client();
  EXPECT_EQ(run(waiter, {"BLPOP", "q", "0.01"}), "");
  std::string during;
  yield_.step = [&](int call) {
    exec_->tick();  // a timer firing meanwhile does nothing
    if (call < 50) return;
    during = waiter.out;
    run(other, {"SCRIPT", "KILL"});
  };
  run(caller, {"EVAL", kSpin, "0"});
  EXPECT_EQ(during, "");
  EXPECT_TRUE(waiter.blocked());
  exec_->tick();  // after the script: the deadline is long past
  EXPECT_EQ(waiter.out, "*-1\r\n");
}

// A busy FCALL: the function's BUSY text, SCRIPT KILL refused, FUNCTION STATS showing the
// running function (allow-busy), FUNCTION KILL stopping it.
TEST_F(BusyScriptTest, BusyFunctionAnswersWithFunctionKillTexts) {
  Client& caller = client();
  Client& other = client();
  const std::string code = "#!lua name=busy\nredis.register_function('spin', function()\n" +
                           std::string(kSpin) + "\nend)";
  ASSERT_EQ(run(caller, {"FUNCTION", "LOAD", code}), "$4\r\nbusy\r\n");
  std::vector<std::string> seen;
  yield_.step = [&](int call) {
    if (call > 1) return;
    for (auto argv : std::vector<std::vector<std::string_view>>{{"PING"},
                                                                {"SCRIPT", "KILL"},
                                                                {"FUNCTION", "DELETE", "busy"},
                                                                {"FUNCTION", "STATS"},
                                                                {"FUNCTION", "KILL"}})
      seen.push_back(run(other, argv));
  };
  EXPECT_EQ(run(caller, {"FCALL", "spin", "0", "a1"}),
            "-ERR Script killed by user with SCRIPT KILL... script: spin, on "
            "@user_function:3.\r\n");
  const std::string busy =
      "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN "
      "NOSAVE.\r\n";
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], busy);
  EXPECT_EQ(seen[1], busy);
  EXPECT_EQ(seen[2], busy);
  EXPECT_TRUE(
      seen[3].starts_with("*4\r\n$14\r\nrunning_script\r\n*6\r\n$4\r\nname\r\n"
                          "$4\r\nspin\r\n$7\r\ncommand\r\n*4\r\n$5\r\nFCALL\r\n"
                          "$4\r\nspin\r\n$1\r\n0\r\n$2\r\na1\r\n"
                          "$11\r\nduration_ms\r\n:"))
      << seen[3];
  EXPECT_TRUE(
      seen[3].ends_with("$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n"
                        "$15\r\nlibraries_count\r\n:1\r\n$15\r\nfunctions_count\r\n:1\r\n"))
      << seen[3];
  EXPECT_EQ(seen[4], "+OK\r\n");
  EXPECT_EQ(run(other, {"FUNCTION", "KILL"}), "-NOTBUSY No scripts in execution right now.\r\n");
}

// FUNCTION STATS during a busy EVAL answers the EVAL's BUSY text, as Redis does.
TEST_F(BusyScriptTest, FunctionStatsDuringBusyEvalIsBusy) {
  Client& caller = client();
  Client& other = client();
  std::vector<std::string> seen;
  yield_.step = [&](int call) {
    if (call > 1) return;
    seen.push_back(run(other, {"FUNCTION", "STATS"}));
    seen.push_back(run(other, {"FUNCTION", "KILL"}));
    seen.push_back(run(other, {"SCRIPT", "KILL"}));
  };
  run(caller, {"EVAL", kSpin, "0"});
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], kBusy);
  EXPECT_EQ(seen[1], kBusy);
  EXPECT_EQ(seen[2], "+OK\r\n");
}

TEST_F(BusyScriptTest, ThresholdZeroInstallsNoHook) {
  config_.set("lua-time-limit", "0");
  Client& caller = client();
  EXPECT_EQ(run(caller, {"EVAL", "local n = 0 for i = 1, 3000000 do n = n + 1 end return n", "0"}),
            ":3000000\r\n");
  EXPECT_EQ(yield_.calls, 0);
}

}  // namespace
}  // namespace listd::server
