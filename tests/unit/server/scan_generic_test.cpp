// scan_generic, the one budgeted walk of SCAN, SSCAN, HSCAN and ZSCAN, over a fake container
// whose steps the test scripts: where the walk stops (the end, COUNT reply elements, count*10
// steps), that MATCH filters after the walk (so it never lengthens it), and the reply shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/scan_args.h"
#include "support/resp.h"
#include "support/test_server.h"

namespace {

using listd::server::CommandContext;
using listd::testing::TestServer;
using namespace listd::testing::resp;

class ScanGenericTest : public ::testing::Test {
 protected:
  /// Runs scan_generic over `buckets` (bucket i holds buckets[i]; the cursor is the next index,
  /// 0 after the last) and returns the reply; `steps` counts the buckets visited.
  std::string scan(const std::vector<std::vector<std::string>>& buckets, std::uint64_t cursor,
                   long long count, std::size_t width, std::string_view drop = {}) {
    const std::string_view argv[] = {"scan"};
    CommandContext ctx(t.exec(), c, spec, argv, false);
    steps = 0;
    listd::server::scan_generic<std::string>(
        ctx, cursor, count, width,
        [&](std::uint64_t at, std::vector<std::string>& items) -> std::uint64_t {
          ++steps;
          for (const std::string& s : buckets[at]) items.push_back(s);
          return at + 1 == buckets.size() ? 0 : at + 1;
        },
        [&](const std::string& s) { return s != drop; },
        [&](listd::protocol::ReplyWriter& r, const std::string& s) {
          for (std::size_t i = 0; i < width; ++i) r.bulk(s);
        });
    return t.take_output(c);
  }

  TestServer t;
  listd::server::Client& c = t.client();
  listd::server::CommandSpec spec{.name = "scan"};
  int steps = 0;
};

TEST_F(ScanGenericTest, WalksToTheEndWhenCountIsNotReached) {
  EXPECT_EQ(scan({{"a"}, {}, {"b"}}, 0, 10, 1), "*2\r\n" + bulk("0") + array({"a", "b"}));
  EXPECT_EQ(steps, 3);
}

TEST_F(ScanGenericTest, StopsOnceCountReplyElementsWereCollected) {
  EXPECT_EQ(scan({{"a"}, {"b", "c"}, {"d"}, {"e"}}, 0, 2, 1),
            "*2\r\n" + bulk("2") + array({"a", "b", "c"}));
  EXPECT_EQ(steps, 2);
  // Pairs count twice: COUNT 4 is two field/value pairs.
  EXPECT_EQ(scan({{"a"}, {"b"}, {"c"}, {"d"}}, 0, 4, 2),
            "*2\r\n" + bulk("2") + array({"a", "a", "b", "b"}));
  EXPECT_EQ(steps, 2);
}

TEST_F(ScanGenericTest, StopsAfterCountTimesTenSteps) {
  std::vector<std::vector<std::string>> sparse(50);
  sparse[40] = {"far"};
  EXPECT_EQ(scan(sparse, 0, 2, 1), "*2\r\n" + bulk("20") + "*0\r\n");
  EXPECT_EQ(steps, 20);
  EXPECT_EQ(scan(sparse, 20, 2, 1), "*2\r\n" + bulk("40") + "*0\r\n");  // resumes there
  EXPECT_EQ(scan(sparse, 40, 2, 1), "*2\r\n" + bulk("0") + array({"far"}));
}

TEST_F(ScanGenericTest, MatchFiltersAfterTheWalkWithoutLengtheningIt) {
  EXPECT_EQ(scan({{"a", "x"}, {"b"}}, 0, 2, 1, "x"), "*2\r\n" + bulk("1") + array({"a"}));
  EXPECT_EQ(steps, 1);
}

TEST_F(ScanGenericTest, TheCommandsShareIt) {
  // The same walk behind each command: a missing key is cursor 0, no elements.
  for (const char* cmd : {"SSCAN", "HSCAN", "ZSCAN"})
    EXPECT_EQ(t.run(c, {cmd, "nokey", "0"}), "*2\r\n" + bulk("0") + "*0\r\n") << cmd;
  t.run(c, {"SADD", "s", "m1", "m2", "x"});
  EXPECT_EQ(t.run(c, {"SSCAN", "s", "0", "MATCH", "x"}), "*2\r\n" + bulk("0") + array({"x"}));
  t.run(c, {"HSET", "h", "f", "v"});
  EXPECT_EQ(t.run(c, {"HSCAN", "h", "0"}), "*2\r\n" + bulk("0") + array({"f", "v"}));
  t.run(c, {"ZADD", "z", "1.5", "m"});
  EXPECT_EQ(t.run(c, {"ZSCAN", "z", "0"}), "*2\r\n" + bulk("0") + array({"m", "1.5"}));
  t.run(c, {"FLUSHALL"});
  t.run(c, {"SET", "only", "v"});
  EXPECT_EQ(t.run(c, {"SCAN", "0", "TYPE", "string"}), "*2\r\n" + bulk("0") + array({"only"}));
}

}  // namespace
