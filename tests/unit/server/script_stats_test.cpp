// Per-script statistics (a listd extension): the rows' arithmetic, the INFO scriptstats section
// (only when named), which runs count as failed, and what SCRIPT FLUSH, FUNCTION DELETE and
// CONFIG RESETSTAT do to the rows.
#include <gtest/gtest.h>

#include <string>

#include "listd/script/sha1.h"
#include "listd/server/function_library.h"
#include "listd/server/script_stats.h"
#include "listd/server/scripting.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using testing::TestServer;

TEST(ScriptStats, RowsSumCallsTimesAndFailures) {
  ScriptStats stats;
  stats.record(true, "abc", 10, false);
  stats.record(true, "abc", 30, true);
  stats.record(false, "fn", 5, false);
  const ScriptRunStats* s = stats.script("abc");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->calls, 2u);
  EXPECT_EQ(s->usec, 40u);
  EXPECT_EQ(s->max_usec, 30u);
  EXPECT_EQ(s->failed, 1u);
  EXPECT_EQ(stats.script("fn"), nullptr);  // functions and scripts are apart
  ASSERT_NE(stats.function("fn"), nullptr);
  FunctionLibraries none(0);
  std::string out;
  stats.append_info(none, out);  // a function that no longer exists is not shown
  EXPECT_EQ(out,
            "# Scriptstats\r\n"
            "script_abc:calls=2,usec=40,usec_per_call=20.00,max_usec=30,failed_calls=1\r\n");
}

TEST(ScriptStats, InfoShowsEachScriptAndFunctionUntilForgotten) {
  TestServer t;
  Client& a = t.client();
  const std::string body = "return redis.call('incr', KEYS[1])";
  const std::string sha = script::sha1_hex(body);
  EXPECT_EQ(t.run_strings(a, {"EVAL", body, "1", "n"}), ":1\r\n");
  EXPECT_EQ(t.run_strings(a, {"EVALSHA", sha, "1", "n"}), ":2\r\n");
  EXPECT_EQ(t.run(a, {"SET", "s", "x"}), "+OK\r\n");
  EXPECT_EQ(t.run_strings(a, {"EVALSHA", sha, "1", "s"}).substr(0, 11), "-ERR value ");
  ASSERT_EQ(t.run_strings(a, {"FUNCTION", "LOAD",
                              "#!lua name=l\nredis.register_function('f', function() return 1 "
                              "end)"}),
            "$1\r\nl\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "F", "0"}), ":1\r\n");
  const std::string info = t.run(a, {"INFO", "scriptstats"});
  EXPECT_NE(info.find("\r\n# Scriptstats\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("script_" + sha +
                      ":calls=3,usec=0,usec_per_call=0.00,max_usec=0,"
                      "failed_calls=1\r\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("function_f:calls=1,"), std::string::npos) << info;
  // Not one of Redis' sections: neither in the default INFO nor in INFO all.
  EXPECT_EQ(t.run(a, {"INFO"}).find("Scriptstats"), std::string::npos);
  EXPECT_EQ(t.run(a, {"INFO", "all"}).find("Scriptstats"), std::string::npos);
  EXPECT_EQ(t.run(a, {"SCRIPT", "FLUSH"}), "+OK\r\n");
  EXPECT_EQ(t.exec().scripting().stats().script(sha), nullptr);
  EXPECT_NE(t.exec().scripting().stats().function("f"), nullptr);
  EXPECT_EQ(t.run(a, {"CONFIG", "RESETSTAT"}), "+OK\r\n");
  EXPECT_EQ(t.exec().scripting().stats().function("f"), nullptr);
}

}  // namespace
}  // namespace listd::server
