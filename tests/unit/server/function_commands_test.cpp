// FUNCTION and FCALL on the executor, no sockets: what is logged (LOAD/DELETE/FLUSH/RESTORE as
// called, FCALL's effects as one unit, never the FCALL), waiters served after the function,
// FCALL inside MULTI, the command flags a function's flags imply, the load timeout, failed
// loads and restores changing nothing, and the INFO fields.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/persistence/rdb.h"
#include "listd/server/command_table.h"
#include "listd/server/effect_stream.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/scripting.h"
#include "support/effect_line_recorder.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using testing::TestServer;

using Recorder = testing::EffectLineRecorder;

const std::string kLib =
    "#!lua name=q\n"
    "redis.register_function('push2', function(k, a)\n"
    "  redis.call('rpush', k[1], a[1]) return redis.call('rpush', k[1], a[2]) end)\n"
    "redis.register_function{function_name='len', callback=function(k)\n"
    "  return redis.call('llen', k[1]) end, flags={'no-writes'}}";

TEST(FunctionCommands, LoadDeleteFlushAreLoggedAsCalledAndFcallAsItsEffects) {
  TestServer t;
  Recorder r;
  t.exec().effects().subscribe(r);
  Client& a = t.client();
  EXPECT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "push2", "1", "list", "x", "y"}), ":2\r\n");
  EXPECT_EQ(t.run(a, {"FCALL_RO", "len", "1", "list"}), ":2\r\n");
  EXPECT_EQ(t.run(a, {"FUNCTION", "DELETE", "nosuch"}), "-ERR Library not found\r\n");
  EXPECT_EQ(t.run(a, {"FUNCTION", "DELETE", "q"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"FUNCTION", "FLUSH", "ASYNC"}), "+OK\r\n");
  EXPECT_EQ(r.lines, (std::vector<std::string>{"FUNCTION LOAD " + kLib + " ", "MULTI ",
                                               "rpush list x ", "rpush list y ", "EXEC ",
                                               "FUNCTION DELETE q ", "FUNCTION FLUSH ASYNC "}));
  t.exec().effects().unsubscribe(r);
}

TEST(FunctionCommands, RestoreIsLoggedAndAFailedRestoreChangesNothing) {
  TestServer t;
  Recorder r;
  Client& a = t.client();
  ASSERT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  const std::string payload = persistence::encode_function_payload({kLib});
  t.exec().effects().subscribe(r);
  EXPECT_EQ(t.run_strings(a, {"FUNCTION", "RESTORE", payload}),
            "-ERR Library q already exists\r\n");
  const std::string other =
      "#!lua name=other\nredis.register_function('len', function() return 0 end)";
  EXPECT_EQ(t.run_strings(a, {"FUNCTION", "RESTORE", persistence::encode_function_payload({other}),
                              "REPLACE"}),
            "-ERR Function len already exists\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "len", "1", "list"}), ":0\r\n");
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(t.run_strings(a, {"FUNCTION", "RESTORE", payload, "REPLACE"}), "+OK\r\n");
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_TRUE(r.lines[0].starts_with("FUNCTION RESTORE "));
  EXPECT_EQ(t.exec().scripting().functions().codes(), std::vector<std::string>{kLib});
  t.exec().effects().unsubscribe(r);
}

TEST(FunctionCommands, ReplaceThatFailsKeepsTheOldLibrary) {
  TestServer t;
  Client& a = t.client();
  ASSERT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  EXPECT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", "REPLACE", "#!lua name=q\nerror('no')"}),
            "-ERR Error registering functions: ERR user_function:2: Script attempted to access "
            "nonexistent global variable 'error'\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "LEN", "1", "list"}), ":0\r\n");
  // A replacement registers anew: the old library's functions are gone with it.
  EXPECT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", "REPLACE",
                              "#!lua name=q\nredis.register_function('len2', function() "
                              "return 2 end)"}),
            "$1\r\nq\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "len", "0"}), "-ERR Function not found\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "len2", "0"}), ":2\r\n");
}

TEST(FunctionCommands, WaitersAreServedAfterTheFunction) {
  TestServer t;
  Client& worker = t.client();
  Client& producer = t.client();
  ASSERT_EQ(t.run_strings(producer, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  EXPECT_EQ(t.run(worker, {"BLPOP", "jobs", "0"}), "");
  EXPECT_EQ(t.run(producer, {"FCALL", "push2", "1", "jobs", "first", "second"}), ":2\r\n");
  EXPECT_EQ(t.take_output(worker), "*2\r\n$4\r\njobs\r\n$5\r\nfirst\r\n");
  EXPECT_EQ(t.run(producer, {"LLEN", "jobs"}), ":1\r\n");
}

TEST(FunctionCommands, FcallInsideMultiRunsAtExec) {
  TestServer t;
  Client& a = t.client();
  ASSERT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"FCALL", "push2", "1", "l", "a", "b"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"FCALL_RO", "len", "1", "l"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "*2\r\n:2\r\n:2\r\n");
}

// fcallGetCommandFlags: a function without no-writes is a write (and denyoom) command, one
// with no-writes is neither; an unknown function keeps FCALL's own flags.
TEST(FunctionCommands, CommandFlagsFollowTheFunctionsFlags) {
  TestServer t;
  Client& a = t.client();
  ASSERT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  const CommandSpec& fcall = *t.exec().commands().find("fcall");
  const Scripting& s = t.exec().scripting();
  const std::vector<std::string_view> writes{"FCALL", "push2", "0"};
  const std::vector<std::string_view> reads{"FCALL", "LEN", "0"};
  const std::vector<std::string_view> unknown{"FCALL", "nosuch", "0"};
  EXPECT_EQ(s.command_flags(fcall, writes) & (kWrite | kDenyOom), kWrite | kDenyOom);
  EXPECT_EQ(s.command_flags(fcall, reads) & (kWrite | kDenyOom | kStale), 0u);
  EXPECT_EQ(s.command_flags(fcall, unknown), fcall.flags);
}

TEST(FunctionCommands, LoadStopsAtItsTimeoutButNotWithoutOne) {
  FunctionLibraries libraries(0);
  std::string error;
  EXPECT_EQ(libraries.load("#!lua name=spin\nwhile true do end", false, 1, error), "");
  EXPECT_EQ(error, "ERR Error registering functions: ERR FUNCTION LOAD timeout");
  // Without a timeout (an AOF or RDB load) a slow library still loads.
  EXPECT_EQ(libraries.load("#!lua name=slow\nlocal n = 0 for i = 1, 300000 do n = n + 1 end\n"
                           "redis.register_function('slow', function() return n end)",
                           false, 0, error),
            "slow");
  EXPECT_EQ(libraries.function_count(), 1u);
}

TEST(FunctionCommands, InfoCountsFunctionsAndLibraries) {
  TestServer t;
  Client& a = t.client();
  ASSERT_EQ(t.run_strings(a, {"FUNCTION", "LOAD", kLib}), "$1\r\nq\r\n");
  const std::string info = t.run(a, {"INFO", "memory"});
  EXPECT_NE(info.find("\r\nnumber_of_functions:2\r\nnumber_of_libraries:1\r\n"), std::string::npos)
      << info;
  EXPECT_NE(info.find("\r\nused_memory_vm_functions:"), std::string::npos);
  EXPECT_NE(info.find("\r\nused_memory_functions:"), std::string::npos);
}

}  // namespace
}  // namespace listd::server
