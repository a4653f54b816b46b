// The AOF writer's latency events (Redis flushAppendOnlyFile): with the latency monitor on,
// every write is "aof-write" plus what it may have waited behind, and every appendfsync-always
// fdatasync is "aof-fsync-always"; with the monitor off nothing is timed. The stepping clock
// makes each timed part take exactly one step.
#include "listd/server/aof_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/stepping_clock.h"

namespace fs = std::filesystem;
namespace ps = listd::persistence;
using listd::config::AppendFsync;

namespace {

class AofWriterLatency : public ::testing::Test {
 protected:
  AofWriterLatency() {
    path_ = ::testing::TempDir() + "/listd_aof_writer_" + std::to_string(::getpid()) + ".aof";
    settings_.latency_monitor_threshold = 1;
    clock_.step_us = 3000;
    writer_.set_latency_hook(clock_, [this](std::string_view event, std::uint64_t ms) {
      samples_.emplace_back(event, ms);
    });
    std::string err;
    ps::UniqueFd fd = ps::open_empty_for_append(path_, err);
    EXPECT_TRUE(fd) << err;
    writer_.switch_to(std::move(fd));
  }
  ~AofWriterLatency() override {
    writer_.close();
    fs::remove(path_);
  }
  void write_one(AppendFsync policy) {
    settings_.appendfsync = policy;
    const std::vector<std::string_view> argv{"RPUSH", "q", "job"};
    writer_.append(0, argv, 0);
    writer_.flush();
  }
  using Sample = std::pair<std::string, std::uint64_t>;

  std::string path_;
  listd::config::ServerSettings settings_;
  listd::testing::SteppingClock clock_;
  listd::server::PersistenceLog log_;
  ps::BackgroundChild child_;
  listd::server::AofWriter writer_{settings_, child_, log_};
  std::vector<Sample> samples_;
};

TEST_F(AofWriterLatency, AWriteWithNothingElseGoingOnIsAofWriteAlone) {
  write_one(AppendFsync::kEverysec);
  EXPECT_EQ(samples_, (std::vector<Sample>{{"aof-write-alone", 3}, {"aof-write", 3}}));
}

TEST_F(AofWriterLatency, AnAlwaysFsyncIsTimedOnItsOwn) {
  write_one(AppendFsync::kAlways);
  EXPECT_EQ(samples_, (std::vector<Sample>{
                          {"aof-write-alone", 3}, {"aof-write", 3}, {"aof-fsync-always", 3}}));
  EXPECT_EQ(writer_.fsyncs(), 1u);
}

TEST_F(AofWriterLatency, AWriteDuringAChildIsAofWriteActiveChild) {
  // The child counts as running until it is reaped, however soon it exits.
  std::string err;
  ASSERT_TRUE(child_.start(
      ps::BackgroundChild::Kind::kRdb, [this](pid_t) { return path_ + ".child"; },
      [](const std::string&) { return true; }, 0, err))
      << err;
  write_one(AppendFsync::kNo);
  (void)child_.wait();
  EXPECT_EQ(samples_, (std::vector<Sample>{{"aof-write-active-child", 3}, {"aof-write", 3}}));
}

TEST_F(AofWriterLatency, NothingIsTimedWhileTheMonitorIsOff) {
  settings_.latency_monitor_threshold = 0;
  write_one(AppendFsync::kAlways);
  EXPECT_TRUE(samples_.empty());
}

TEST_F(AofWriterLatency, NothingPendingIsNoWrite) {
  writer_.flush();
  EXPECT_TRUE(samples_.empty());
}

}  // namespace
