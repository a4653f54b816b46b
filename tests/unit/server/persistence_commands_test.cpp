// SAVE, BGSAVE and BGREWRITEAOF reply in Redis' words: Persistence says what happened (a Status
// or a Result), the handlers word it. Real children (they write tiny files) in a temp dir.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "listd/server/persistence.h"
#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

class PersistenceCommandsTest : public ::testing::Test {
 protected:
  PersistenceCommandsTest() {
    static int n = 0;
    dir_ = ::testing::TempDir() + "/listd_pcmd_" + std::to_string(::getpid()) + "_" +
           std::to_string(n++);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    EXPECT_FALSE(t_.config().apply_directive(std::vector<std::string>{"dir", dir_}));
    t_.exec().persistence().set_logger([](listd::config::LogLevel, std::string_view) {});
  }
  ~PersistenceCommandsTest() override {
    t_.exec().persistence().shutdown();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  TestServer t_;
};

}  // namespace

TEST_F(PersistenceCommandsTest, ReplyTextsAreRedisOnes) {
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"SAVE"}), "+OK\r\n");
  EXPECT_EQ(t_.run(c, {"BGSAVE", "now"}), "-ERR syntax error\r\n");
  EXPECT_EQ(t_.run(c, {"BGSAVE"}), "+Background saving started\r\n");
  // The child is not reaped before cron (or a wait), whether it finished or not.
  EXPECT_EQ(t_.run(c, {"BGSAVE"}), "-ERR Background save already in progress\r\n");
  EXPECT_EQ(t_.run(c, {"SAVE"}), "-ERR Background save already in progress\r\n");
  EXPECT_EQ(t_.run(c, {"BGREWRITEAOF"}), "+Background append only file rewriting scheduled\r\n");
  // SHUTDOWN's final save waits for the BGSAVE; cron then starts the scheduled rewrite.
  ASSERT_TRUE(t_.exec().persistence().save_before_exit(true, false));
  t_.exec().persistence().cron();
  EXPECT_EQ(t_.run(c, {"BGREWRITEAOF"}),
            "-ERR Background append only file rewriting already in progress\r\n");
  EXPECT_EQ(t_.run(c, {"BGSAVE"}),
            "-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
            "SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n");
}

TEST_F(PersistenceCommandsTest, ASaveThatCannotWriteRepliesErr) {
  auto& c = t_.client();
  std::filesystem::remove_all(dir_);
  EXPECT_EQ(t_.run(c, {"SAVE"}), "-ERR\r\n");
}

TEST_F(PersistenceCommandsTest, ABgrewriteaofThatCannotStartRepliesItsError) {
  auto& c = t_.client();
  // appendonly no: a base-only AOF, whose directory cannot be created under a file.
  std::filesystem::remove_all(dir_);
  {
    std::FILE* f = std::fopen(dir_.c_str(), "w");
    ASSERT_TRUE(f);
    std::fclose(f);
  }
  const std::string r = t_.run(c, {"BGREWRITEAOF"});
  EXPECT_EQ(r.rfind("-ERR Can't open or create append-only dir ", 0), 0u) << r;
  std::filesystem::remove(dir_);
}

// The SIGCHLD path (net::Server::watch_children): reap_child() alone finishes a BGSAVE whose
// child exited, without the cron, and does nothing while no child has ended.
TEST_F(PersistenceCommandsTest, ReapChildFinishesAnEndedBgsaveWithoutTheCron) {
  auto& c = t_.client();
  EXPECT_EQ(t_.run(c, {"SET", "k", "v"}), "+OK\r\n");
  ASSERT_EQ(t_.run(c, {"BGSAVE"}), "+Background saving started\r\n");
  // Blocks until the child (the only one of this test process) exits, leaving it unreaped.
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_ALL, 0, &info, WEXITED | WNOWAIT), 0);
  EXPECT_TRUE(t_.exec().persistence().reap_child());
  EXPECT_FALSE(t_.exec().persistence().reap_child());
  EXPECT_FALSE(t_.exec().persistence().child_running());
  const std::string info_text = t_.run(c, {"INFO", "persistence"});
  EXPECT_NE(info_text.find("rdb_bgsave_in_progress:0\r\n"), std::string::npos);
  EXPECT_NE(info_text.find("rdb_last_bgsave_status:ok\r\n"), std::string::npos);
  EXPECT_NE(info_text.find("rdb_changes_since_last_save:0\r\n"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/dump.rdb"));
  EXPECT_EQ(t_.run(c, {"BGSAVE"}), "+Background saving started\r\n");  // free for the next one
}
