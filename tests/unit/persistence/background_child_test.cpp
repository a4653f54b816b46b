// The one fork/reap/kill helper: a real child per test (each writes or waits, then _exits).
#include "listd/persistence/background_child.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "listd/persistence/file_io.h"

using listd::persistence::BackgroundChild;

namespace {

std::string temp_for(pid_t pid) {
  return ::testing::TempDir() + "/listd_child_" + std::to_string(pid) + ".tmp";
}

// Polls without sleeping for long: the child has only a tiny file to write.
BackgroundChild::Exit poll_until_done(BackgroundChild& child) {
  for (;;) {
    if (auto e = child.poll()) return *e;
    ::usleep(1000);
  }
}

}  // namespace

TEST(BackgroundChild, ASuccessfulChildIsReapedWithItsBookkeeping) {
  BackgroundChild child;
  std::string err;
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRdb, temp_for,
      [](const std::string& temp) {
        std::string e;
        return listd::persistence::touch_file(temp, e);
      },
      1234, err))
      << err;
  EXPECT_TRUE(child.running());
  EXPECT_EQ(child.kind(), BackgroundChild::Kind::kRdb);
  EXPECT_EQ(child.start_ms(), 1234u);
  const std::string temp = temp_for(child.pid());
  EXPECT_EQ(child.temp_path(), temp);
  const BackgroundChild::Exit e = poll_until_done(child);
  EXPECT_TRUE(e.ok);
  EXPECT_EQ(e.kind, BackgroundChild::Kind::kRdb);
  EXPECT_EQ(e.temp_path, temp);
  EXPECT_EQ(e.start_ms, 1234u);
  EXPECT_FALSE(child.running());
  EXPECT_EQ(child.kind(), BackgroundChild::Kind::kNone);
  EXPECT_TRUE(std::filesystem::exists(temp));  // the caller decides what to do with it
  std::filesystem::remove(temp);
}

TEST(BackgroundChild, EachForkIsCountedAndTimed) {
  BackgroundChild child;
  EXPECT_EQ(child.fork_stats().total_forks, 0u);
  std::string err;
  for (std::uint64_t n = 1; n <= 2; ++n) {
    ASSERT_TRUE(child.start(
        BackgroundChild::Kind::kRdb, temp_for, [](const std::string&) { return true; }, 0, err))
        << err;
    poll_until_done(child);
    EXPECT_EQ(child.fork_stats().total_forks, n);
    // fork() copies the page tables: never instantaneous at microsecond resolution.
    EXPECT_GT(child.fork_stats().latest_fork_usec, 0u);
  }
  child.reset_fork_stats();
  EXPECT_EQ(child.fork_stats().total_forks, 0u);
  EXPECT_EQ(child.fork_stats().latest_fork_usec, 0u);
}

TEST(BackgroundChild, ABodyThatFailsIsAFailedExit) {
  BackgroundChild child;
  std::string err;
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRewrite, temp_for, [](const std::string&) { return false; }, 0, err));
  const auto e = child.wait();
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->ok);
  EXPECT_EQ(e->kind, BackgroundChild::Kind::kRewrite);
  EXPECT_FALSE(child.running());
  EXPECT_FALSE(child.wait());  // nothing runs any more
  EXPECT_FALSE(child.poll());
}

TEST(BackgroundChild, KillStopsTheChildAndRemovesItsTempFile) {
  BackgroundChild child;
  std::string err;
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRewrite, temp_for,
      [](const std::string&) {
        ::pause();  // until SIGUSR1
        return true;
      },
      0, err));
  const std::string temp = child.temp_path();
  ASSERT_TRUE(listd::persistence::touch_file(temp, err));  // as if the child had begun writing
  EXPECT_FALSE(child.poll());                              // still running
  child.kill();
  EXPECT_FALSE(child.running());
  EXPECT_FALSE(std::filesystem::exists(temp));
  child.kill();  // no child: nothing happens
}
