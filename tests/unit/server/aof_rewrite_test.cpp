// The AOF's files and its rewrite state machine, on real files in a temporary directory: the
// pure decisions, a fresh AOF, compacting and first rewrites, and every way a rewrite fails
// through its one failure path. A rewrite child is a real fork (it writes one small RDB); the
// failure cases hand finish() a made-up exit, so no child has to fail for real.
#include "listd/server/aof_rewrite.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "listd/persistence/file_io.h"
#include "listd/persistence/manifest_transitions.h"

namespace fs = std::filesystem;
namespace ps = listd::persistence;
using listd::server::AofRewrite;
using State = AofRewrite::State;
using Mode = AofRewrite::Mode;

namespace {

class AofRewriteTest : public ::testing::Test {
 protected:
  AofRewriteTest() {
    static int n = 0;
    root_ = ::testing::TempDir() + "/listd_rewrite_" + std::to_string(::getpid()) + "_" +
            std::to_string(n++);
    fs::remove_all(root_);
    fs::create_directories(root_);
    settings_.dir = root_;
    settings_.appendfsync = listd::config::AppendFsync::kNo;
    log_.set_sink([this](listd::config::LogLevel, std::string_view m) { logged_.emplace_back(m); });
    keyspace_.db(0).add("k", listd::store::Value::make_string("v"));
  }
  ~AofRewriteTest() override {
    rewrite_.close();
    fs::remove_all(root_);
  }

  std::string aof_path(const std::string& name) const {
    return ps::join_path(rewrite_.dir(), name);
  }
  bool logged(std::string_view prefix) const {
    for (const auto& m : logged_)
      if (m.rfind(prefix, 0) == 0) return true;
    return false;
  }
  void fresh_aof() {
    rewrite_.locate();
    ASSERT_TRUE(rewrite_.create_fresh({}).ok());
  }
  // Waits for the real rewrite child; `ok = false` pretends it failed.
  ps::BackgroundChild::Exit reap(bool ok = true) {
    auto e = child_.wait();
    EXPECT_TRUE(e);
    EXPECT_TRUE(e->ok);
    e->ok = ok;
    return *e;
  }
  void log_one_command() {
    const std::vector<std::string_view> argv{"SET", "a", "b"};
    writer_.append(0, argv, 0);
    writer_.flush();
  }

  std::string root_;
  listd::config::ServerSettings settings_;
  listd::server::ManualClock clock_;
  listd::store::Keyspace keyspace_{16};
  listd::server::PersistenceLog log_;
  std::vector<std::string> logged_;
  ps::BackgroundChild child_;
  listd::server::AofWriter writer_{settings_, child_, log_};
  AofRewrite rewrite_{settings_, clock_, keyspace_, writer_, child_, log_};
};

}  // namespace

TEST(AofRewriteDecisions, EachStateAsksForItsRewrite) {
  EXPECT_EQ(AofRewrite::mode_for(State::kOn), Mode::kCompact);
  EXPECT_EQ(AofRewrite::mode_for(State::kWaitRewrite), Mode::kInitial);
  EXPECT_EQ(AofRewrite::mode_for(State::kOff), Mode::kBaseOnly);
}

TEST(AofRewriteDecisions, ARewriteIsStaleWhenTheStateChangedUnderIt) {
  EXPECT_FALSE(AofRewrite::is_stale(Mode::kCompact, State::kOn));
  EXPECT_TRUE(AofRewrite::is_stale(Mode::kCompact, State::kOff));
  EXPECT_TRUE(AofRewrite::is_stale(Mode::kCompact, State::kWaitRewrite));
  EXPECT_FALSE(AofRewrite::is_stale(Mode::kInitial, State::kWaitRewrite));
  EXPECT_TRUE(AofRewrite::is_stale(Mode::kInitial, State::kOff));
  EXPECT_TRUE(AofRewrite::is_stale(Mode::kInitial, State::kOn));
  for (State s : {State::kOff, State::kOn, State::kWaitRewrite})
    EXPECT_FALSE(AofRewrite::is_stale(Mode::kBaseOnly, s));
}

TEST(AofRewriteDecisions, OnlyTheFirstAofIsRetriedAfterAFailure) {
  EXPECT_TRUE(AofRewrite::retries_after_failure(Mode::kInitial, State::kWaitRewrite));
  EXPECT_FALSE(AofRewrite::retries_after_failure(Mode::kInitial, State::kOff));
  EXPECT_FALSE(AofRewrite::retries_after_failure(Mode::kCompact, State::kOn));
  EXPECT_FALSE(AofRewrite::retries_after_failure(Mode::kBaseOnly, State::kOff));
}

TEST_F(AofRewriteTest, AFreshAofIsBaseOneAndIncrOne) {
  fresh_aof();
  EXPECT_EQ(rewrite_.state(), State::kOn);
  EXPECT_EQ(rewrite_.manifest(), ps::with_fresh_files({}, "appendonly.aof"));
  EXPECT_TRUE(fs::exists(aof_path("appendonly.aof.1.base.rdb")));
  EXPECT_TRUE(fs::exists(aof_path("appendonly.aof.1.incr.aof")));
  EXPECT_TRUE(fs::exists(aof_path("appendonly.aof.manifest")));
}

TEST_F(AofRewriteTest, ACompactingRewriteSwitchesToTheNewBaseAndDeletesTheOldFiles) {
  fresh_aof();
  log_one_command();
  ASSERT_TRUE(rewrite_.start().ok());
  // At the fork: a new incr file takes the commands; the old ones stay until the switch.
  EXPECT_EQ(rewrite_.manifest().incrs.size(), 2u);
  rewrite_.finish(reap());
  EXPECT_TRUE(rewrite_.last_ok());
  EXPECT_EQ(rewrite_.rewrites(), 1u);
  const ps::AofManifest& m = rewrite_.manifest();
  EXPECT_EQ(m.base->name, "appendonly.aof.2.base.rdb");
  ASSERT_EQ(m.incrs.size(), 1u);
  EXPECT_EQ(m.incrs[0].name, "appendonly.aof.2.incr.aof");
  EXPECT_TRUE(m.history.empty());
  EXPECT_FALSE(fs::exists(aof_path("appendonly.aof.1.base.rdb")));
  EXPECT_FALSE(fs::exists(aof_path("appendonly.aof.1.incr.aof")));
  EXPECT_TRUE(fs::exists(aof_path("appendonly.aof.2.base.rdb")));
  std::string text, err;
  ASSERT_TRUE(ps::read_file(aof_path("appendonly.aof.manifest"), text, err));
  EXPECT_EQ(text, m.to_string());
}

TEST_F(AofRewriteTest, AFailedChildLeavesTheOldFilesInCharge) {
  fresh_aof();
  ASSERT_TRUE(rewrite_.start().ok());
  const ps::AofManifest at_fork = rewrite_.manifest();
  const ps::BackgroundChild::Exit e = reap(false);
  rewrite_.finish(e);
  EXPECT_TRUE(logged("Background AOF rewrite terminated with error"));
  EXPECT_FALSE(rewrite_.last_ok());
  EXPECT_FALSE(rewrite_.scheduled());  // only the first AOF is retried
  EXPECT_EQ(rewrite_.manifest(), at_fork);
  EXPECT_FALSE(fs::exists(e.temp_path));
  EXPECT_FALSE(fs::exists(aof_path("appendonly.aof.2.base.rdb")));
}

TEST_F(AofRewriteTest, ABaseThatCannotBeRenamedFailsTheSameWay) {
  fresh_aof();
  ASSERT_TRUE(rewrite_.start().ok());
  ps::BackgroundChild::Exit e = reap();
  fs::remove(e.temp_path);  // the child's file vanished
  const ps::AofManifest at_fork = rewrite_.manifest();
  rewrite_.finish(e);
  EXPECT_TRUE(logged("Error trying to rename the temporary AOF base file"));
  EXPECT_FALSE(rewrite_.last_ok());
  EXPECT_EQ(rewrite_.manifest(), at_fork);
}

TEST_F(AofRewriteTest, FailuresInARowAreCountedUntilASuccess) {
  fresh_aof();
  for (std::uint64_t n = 1; n <= 2; ++n) {
    ASSERT_TRUE(rewrite_.start().ok());
    rewrite_.finish(reap(false));
    EXPECT_EQ(rewrite_.consecutive_failures(), n);
  }
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap());
  EXPECT_EQ(rewrite_.consecutive_failures(), 0u);
  EXPECT_EQ(rewrite_.rewrites(), 1u);
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap(false));
  EXPECT_EQ(rewrite_.consecutive_failures(), 1u);
  rewrite_.forget_failures();  // BGREWRITEAOF scheduled by hand
  EXPECT_EQ(rewrite_.consecutive_failures(), 0u);
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap(false));
  rewrite_.reset_stats();  // CONFIG RESETSTAT
  EXPECT_EQ(rewrite_.consecutive_failures(), 0u);
  EXPECT_EQ(rewrite_.rewrites(), 0u);
}

TEST_F(AofRewriteTest, ThreeFailuresInARowBackOffOneMinuteThenDoubling) {
  fresh_aof();
  const std::int64_t t0 = 1'000'000'000;
  for (int n = 1; n <= 2; ++n) {
    ASSERT_TRUE(rewrite_.start().ok());
    rewrite_.finish(reap(false));
    EXPECT_FALSE(rewrite_.limited(t0)) << n;  // two failures: no back-off yet
  }
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap(false));
  EXPECT_TRUE(rewrite_.limited(t0));
  EXPECT_TRUE(
      logged("Background AOF rewrite has repeatedly failed and triggered the limit, "
             "will retry in 1 minutes"));
  EXPECT_TRUE(rewrite_.limited(t0 + 59'999));
  EXPECT_FALSE(rewrite_.limited(t0 + 60'000));  // one attempt is let through
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap(false));
  const std::int64_t t1 = t0 + 61'000;
  EXPECT_TRUE(rewrite_.limited(t1));
  EXPECT_TRUE(
      logged("Background AOF rewrite has repeatedly failed and triggered the limit, "
             "will retry in 2 minutes"));
  EXPECT_TRUE(rewrite_.limited(t1 + 119'000));
  EXPECT_FALSE(rewrite_.limited(t1 + 120'000));
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap());  // a success ends the back-off
  EXPECT_FALSE(rewrite_.limited(t1 + 120'000));
}

TEST_F(AofRewriteTest, TheBackOffStopsAtAnHour) {
  fresh_aof();
  std::int64_t now = 1'000'000'000;
  int minutes = 0;
  for (int round = 0; round < 10; ++round) {
    while (rewrite_.consecutive_failures() < 3 || !rewrite_.limited(now)) {
      ASSERT_TRUE(rewrite_.start().ok());
      rewrite_.finish(reap(false));
    }
    minutes = minutes == 0 ? 1 : std::min(minutes * 2, 60);
    now += std::int64_t{minutes} * 60'000;
  }
  EXPECT_EQ(minutes, 60);
  EXPECT_TRUE(
      logged("Background AOF rewrite has repeatedly failed and triggered the limit, "
             "will retry in 60 minutes"));
  EXPECT_FALSE(
      logged("Background AOF rewrite has repeatedly failed and triggered the limit, "
             "will retry in 120 minutes"));
}

TEST_F(AofRewriteTest, ARewriteWhoseAofWasSwitchedOffIsStale) {
  fresh_aof();
  ASSERT_TRUE(rewrite_.start().ok());
  ps::BackgroundChild::Exit e = reap();
  rewrite_.close();
  rewrite_.finish(e);
  EXPECT_TRUE(logged("Background AOF rewrite terminated with error"));
  EXPECT_FALSE(fs::exists(e.temp_path));
  EXPECT_FALSE(fs::exists(aof_path("appendonly.aof.2.base.rdb")));
}

TEST_F(AofRewriteTest, TheFirstAofIsRetriedUntilItsBaseIsInstalled) {
  rewrite_.enable();  // CONFIG SET appendonly yes
  EXPECT_EQ(rewrite_.state(), State::kWaitRewrite);
  EXPECT_TRUE(fs::exists(aof_path("temp-appendonly.aof.incr")));
  rewrite_.finish(reap(false));
  EXPECT_TRUE(rewrite_.scheduled());
  EXPECT_EQ(rewrite_.state(), State::kWaitRewrite);
  EXPECT_TRUE(fs::exists(aof_path("temp-appendonly.aof.incr")));  // still taking commands

  ASSERT_TRUE(rewrite_.start().ok());  // cron's retry
  EXPECT_FALSE(rewrite_.scheduled());
  log_one_command();
  rewrite_.finish(reap());
  EXPECT_EQ(rewrite_.state(), State::kOn);
  EXPECT_TRUE(rewrite_.last_ok());
  EXPECT_EQ(rewrite_.manifest(), ps::with_fresh_files({}, "appendonly.aof"));
  EXPECT_FALSE(fs::exists(aof_path("temp-appendonly.aof.incr")));
  EXPECT_GT(ps::file_size(aof_path("appendonly.aof.1.incr.aof")), 0);  // the command since
}

TEST_F(AofRewriteTest, AutomaticRewriteWaitsForGrowthAndAMinuteAfterAFailure) {
  settings_.auto_aof_rewrite_percentage = 100;
  settings_.auto_aof_rewrite_min_size = 0;
  fresh_aof();
  const long long base = writer_.base_size();
  EXPECT_FALSE(rewrite_.auto_rewrite_growth(clock_.unix_ms()));
  while (writer_.current_size() < 2 * base) log_one_command();
  EXPECT_GE(rewrite_.auto_rewrite_growth(clock_.unix_ms()).value_or(0), 100);
  ASSERT_TRUE(rewrite_.start().ok());
  rewrite_.finish(reap(false));
  EXPECT_FALSE(rewrite_.auto_rewrite_growth(clock_.unix_ms() + 60000));
  EXPECT_TRUE(rewrite_.auto_rewrite_growth(clock_.unix_ms() + 60001));
}
