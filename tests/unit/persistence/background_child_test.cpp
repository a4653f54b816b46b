// The one fork/reap/kill helper: a real child per test (each writes or waits, then _exits), its
// fork figures and copy-on-write report; and the Private_Dirty reader the report uses.
#include "listd/persistence/background_child.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "listd/persistence/child_reports.h"
#include "listd/persistence/file_io.h"
#include "listd/persistence/private_dirty.h"

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
  std::vector<std::uint64_t> hooked;
  child.set_fork_hook([&hooked](std::uint64_t usec) { hooked.push_back(usec); });
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRdb, temp_for, [](const std::string&) { return true; }, 0, err))
      << err;
  poll_until_done(child);
  EXPECT_EQ(hooked, std::vector<std::uint64_t>{child.fork_stats().latest_fork_usec});
  child.reset_fork_stats();
  EXPECT_EQ(child.fork_stats().total_forks, 0u);
  EXPECT_EQ(child.fork_stats().latest_fork_usec, 0u);
}

TEST(BackgroundChild, ASuccessfulChildReportsItsCopyOnWrite) {
  // 8 MB the parent touched before the fork: the child's writes copy every page of it.
  std::vector<char> shared(8u << 20, 'a');
  BackgroundChild child;
  std::string err;
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRdb, temp_for,
      [&shared](const std::string&) {
        std::memset(shared.data(), 'b', shared.size());
        return true;
      },
      0, err))
      << err;
  const BackgroundChild::Exit e = poll_until_done(child);
  ASSERT_TRUE(e.ok);
  ASSERT_TRUE(e.cow_bytes);
  EXPECT_GE(*e.cow_bytes, shared.size());
  EXPECT_EQ(shared[0], 'a');  // the parent's pages were never written
}

TEST(BackgroundChild, TheRunningChildsProgressIsReadUntilItEnds) {
  BackgroundChild child;
  std::string err;
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRdb, temp_for,
      [&go](const std::string&) {
        listd::persistence::ChildReports::send_progress(1);  // the first one goes at once
        listd::persistence::ChildReports::send_progress(2);  // within the second: not sent
        char c;
        return ::read(go[0], &c, 1) == 1;  // until the parent says so
      },
      0, err, 5000))
      << err;
  EXPECT_EQ(child.progress().keys_total, 5000u);
  for (int i = 0; i < 5000 && child.progress().keys_processed == 0; ++i) {
    child.read_reports();
    ::usleep(1000);
  }
  const listd::persistence::ChildProgress p = child.progress();
  EXPECT_EQ(p.keys_processed, 1u);
  EXPECT_GT(p.cow_size, 0u);
  EXPECT_EQ(p.cow_peak, p.cow_size);
  EXPECT_GT(p.cow_updated_us, 0u);
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  const BackgroundChild::Exit e = poll_until_done(child);
  ASSERT_TRUE(e.cow_bytes);
  EXPECT_GE(*e.cow_bytes, p.cow_peak);         // the final reading counts towards the peak
  EXPECT_EQ(child.progress().keys_total, 0u);  // nothing runs: all zero
  EXPECT_EQ(child.progress().cow_peak, 0u);
  ::close(go[0]);
  ::close(go[1]);
}

TEST(BackgroundChild, AFailedChildReportsNoCopyOnWrite) {
  BackgroundChild child;
  std::string err;
  ASSERT_TRUE(child.start(
      BackgroundChild::Kind::kRdb, temp_for, [](const std::string&) { return false; }, 0, err));
  const auto e = child.wait();
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->cow_bytes);
}

TEST(PrivateDirty, CountsThePagesThisProcessWrote) {
  const auto before = listd::persistence::private_dirty_bytes();
  ASSERT_TRUE(before);
  EXPECT_GT(*before, 0u);
  std::vector<char> touched(16u << 20, 'x');  // fresh pages, each written
  const auto after = listd::persistence::private_dirty_bytes();
  ASSERT_TRUE(after);
  EXPECT_GE(*after, *before + touched.size() - (1u << 20));  // allow for freed pages meanwhile
  EXPECT_EQ(touched[touched.size() / 2], 'x');
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
