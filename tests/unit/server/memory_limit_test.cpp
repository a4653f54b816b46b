// maxmemory under noeviction in-process (Redis 7.0 processCommand, execCommand, scriptCall):
// the expectations were read off redis-server 7.0.15 (tests/python/test_memory_limit.py runs
// the same cases against it over sockets).
#include <gtest/gtest.h>

#include "support/test_server.h"

namespace listd::server {
namespace {

constexpr std::string_view kOom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

class MemoryLimitTest : public ::testing::Test {
 protected:
  void over_the_ceiling() { ASSERT_EQ(t.run(c, {"CONFIG", "SET", "maxmemory", "1"}), "+OK\r\n"); }
  testing::TestServer t;
  Client& c = t.client();
};

TEST_F(MemoryLimitTest, NoLimitMeansNoRefusal) {
  EXPECT_EQ(t.run(c, {"RPUSH", "q", "a"}), ":1\r\n");
  EXPECT_FALSE(t.exec().pre_command_oom());
}

TEST_F(MemoryLimitTest, DenyoomCommandsAreRefusedReadsPopsAndDelRun) {
  t.run(c, {"RPUSH", "q", "a", "b"});
  t.run(c, {"SET", "s", "v"});
  over_the_ceiling();
  EXPECT_EQ(t.run(c, {"RPUSH", "q", "x"}), kOom);
  EXPECT_EQ(t.run(c, {"LMOVE", "q", "r", "LEFT", "LEFT"}), kOom);
  EXPECT_EQ(t.run(c, {"LPOP", "q"}), "$1\r\na\r\n");
  EXPECT_EQ(t.run(c, {"GET", "s"}), "$1\r\nv\r\n");
  EXPECT_EQ(t.run(c, {"DEL", "s"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "maxmemory", "0"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "q", "x"}), ":2\r\n");
}

TEST_F(MemoryLimitTest, InsideMultiEveryCommandButExecAndDiscardIsRefused) {
  over_the_ceiling();
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"GET", "s"}), kOom);
  EXPECT_EQ(t.run(c, {"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"DISCARD"}), "+OK\r\n");
}

TEST_F(MemoryLimitTest, ExecWithAQueuedDenyoomCommandAborts) {
  Client& admin = t.client();
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"RPUSH", "q", "z"}), "+QUEUED\r\n");
  ASSERT_EQ(t.run(admin, {"CONFIG", "SET", "maxmemory", "1"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}),
            "-EXECABORT Transaction discarded because of: OOM command not allowed when used "
            "memory > 'maxmemory'.\r\n");
  EXPECT_FALSE(c.in_multi);
  EXPECT_EQ(c.queued_flags, 0u);
}

TEST_F(MemoryLimitTest, ExecOfReadsAndPopsRunsOverTheCeiling) {
  t.run(c, {"RPUSH", "q", "a"});
  Client& admin = t.client();
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"LPOP", "q"}), "+QUEUED\r\n");
  ASSERT_EQ(t.run(admin, {"CONFIG", "SET", "maxmemory", "1"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(MemoryLimitTest, ScriptsRefuseDenyoomCallsUntilTheirFirstWrite) {
  t.run(c, {"RPUSH", "q", "a", "b", "c"});
  over_the_ceiling();
  const std::string plain = t.run(c, {"EVAL", "return redis.call('rpush','q','y')", "0"});
  EXPECT_EQ(plain.rfind("-OOM command not allowed when used memory > 'maxmemory'. script: ", 0), 0u)
      << plain;
  EXPECT_EQ(t.run(c, {"EVAL", "redis.call('lpop','q') return redis.call('rpush','q','y')", "0"}),
            ":3\r\n");
}

TEST_F(MemoryLimitTest, ShebangScriptsNeedAllowOomOrNoWrites) {
  t.run(c, {"RPUSH", "q", "a"});
  over_the_ceiling();
  EXPECT_EQ(t.run(c, {"EVAL", "#!lua\nreturn redis.call('rpush','q','y')", "0"}), kOom);
  EXPECT_EQ(t.run(c, {"EVAL", "#!lua flags=allow-oom\nreturn redis.call('rpush','q','y')", "0"}),
            ":2\r\n");
  EXPECT_EQ(t.run(c, {"EVAL", "#!lua flags=no-writes\nreturn redis.call('llen','q')", "0"}),
            ":2\r\n");
}

TEST_F(MemoryLimitTest, TheAofLogIsReplayedWhateverTheMemory) {
  over_the_ceiling();
  std::string error;
  const std::string_view argv[] = {"RPUSH", "q", "a"};
  ASSERT_TRUE(t.exec().replay(c, argv, error)) << error;
  EXPECT_EQ(t.take_output(c), ":1\r\n");
}

}  // namespace
}  // namespace listd::server
