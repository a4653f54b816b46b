// EVAL on the executor, no sockets: the run's effects as one unit, waiters served after the
// script with the final state, time frozen for the run, EVAL inside MULTI, the script's own
// db, WATCH, the read-only rules, and the INFO fields.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/server/effect_stream.h"
#include "listd/server/executor.h"
#include "listd/server/scripting.h"
#include "support/effect_line_recorder.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using testing::TestServer;

using Recorder = testing::EffectLineRecorder;

TEST(Scripting, EffectsAreOneUnitNeverTheEval) {
  TestServer t;
  Recorder r;
  t.exec().effects().subscribe(r);
  Client& a = t.client();
  EXPECT_EQ(t.run(a, {"EVAL", "return redis.call('rpush', KEYS[1], 'a')", "1", "q"}), ":1\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "redis.call('rpush', 'q', 'b') redis.call('rpush', 'q', 'c')", "0"}),
            "$-1\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return redis.call('lrange', 'q', 0, -1)", "0"}),
            "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(
      t.run(a, {"EVAL", "redis.set_repl(redis.REPL_NONE) redis.call('set', 'quiet', 1)", "0"}),
      "$-1\r\n");
  EXPECT_EQ(t.run(a, {"GET", "quiet"}), "$1\r\n1\r\n");
  EXPECT_EQ(r.lines, (std::vector<std::string>{"rpush q a ", "MULTI ", "rpush q b ", "rpush q c ",
                                               "EXEC "}));
  t.exec().effects().unsubscribe(r);
}

TEST(Scripting, WaitersAreServedAfterTheScriptWithItsFinalState) {
  TestServer t;
  Client& worker = t.client();
  Client& producer = t.client();
  EXPECT_EQ(t.run(worker, {"BLPOP", "jobs", "0"}), "");
  // Inside the script nobody is served: both pushes stay in the list until it ends.
  EXPECT_EQ(t.run(producer, {"EVAL",
                             "redis.call('lpush', KEYS[1], 'y') redis.call('lpush', KEYS[1], 'z') "
                             "return redis.call('llen', KEYS[1])",
                             "1", "jobs"}),
            ":2\r\n");
  EXPECT_EQ(t.take_output(worker), "*2\r\n$4\r\njobs\r\n$1\r\nz\r\n");
  EXPECT_EQ(t.run(producer, {"LRANGE", "jobs", "0", "-1"}), "*1\r\n$1\r\ny\r\n");
  // A script that pushes and pops the same key leaves the waiter waiting.
  EXPECT_EQ(t.run(worker, {"BLPOP", "jobs2", "0"}), "");
  EXPECT_EQ(
      t.run(producer,
            {"EVAL", "redis.call('rpush', 'jobs2', 'x') return redis.call('lpop', 'jobs2')", "0"}),
      "$1\r\nx\r\n");
  EXPECT_EQ(t.take_output(worker), "");
  EXPECT_EQ(t.run(producer, {"RPUSH", "jobs2", "w"}), ":1\r\n");
  EXPECT_EQ(t.take_output(worker), "*2\r\n$5\r\njobs2\r\n$1\r\nw\r\n");
}

// BLMOVE and BZPOPMIN waiters, and a push by an EVAL inside EXEC (Dragonfly #6738's case).
TEST(Scripting, EveryKindOfWaiterIsWokenByAScriptPush) {
  TestServer t;
  Client& mover = t.client();
  Client& zwaiter = t.client();
  Client& popper = t.client();
  Client& producer = t.client();
  EXPECT_EQ(t.run(mover, {"BLMOVE", "q", "proc", "LEFT", "RIGHT", "0"}), "");
  EXPECT_EQ(t.run(zwaiter, {"BZPOPMIN", "z", "0"}), "");
  EXPECT_EQ(t.run(producer,
                  {"EVAL", "redis.call('rpush', 'q', 'job') return redis.call('zadd', 'z', 1, 'm')",
                   "0"}),
            ":1\r\n");
  EXPECT_EQ(t.take_output(mover), "$3\r\njob\r\n");
  EXPECT_EQ(t.take_output(zwaiter), "*3\r\n$1\r\nz\r\n$1\r\nm\r\n$1\r\n1\r\n");
  EXPECT_EQ(t.run(producer, {"LRANGE", "proc", "0", "-1"}), "*1\r\n$3\r\njob\r\n");
  EXPECT_EQ(t.run(popper, {"BRPOP", "q2", "0"}), "");
  EXPECT_EQ(t.run(producer, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(producer, {"EVAL", "return redis.call('lpush', 'q2', 'x')", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.take_output(popper), "");
  EXPECT_EQ(t.run(producer, {"EXEC"}), "*1\r\n:1\r\n");
  EXPECT_EQ(t.take_output(popper), "*2\r\n$2\r\nq2\r\n$1\r\nx\r\n");
}

TEST(Scripting, BlockingCommandsAnswerAtOnceOrAreRefused) {
  TestServer t;
  Client& a = t.client();
  EXPECT_EQ(t.run(a, {"EVAL", "return redis.call('blmpop', 0, 1, 'none', 'left')", "0"}),
            "$-1\r\n");
  const std::string refused = t.run(a, {"EVAL", "return redis.call('brpop', 'none', 0)", "0"});
  EXPECT_EQ(refused.rfind("-ERR This Redis command is not allowed from script script: ", 0), 0u)
      << refused;
  EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u);
}

// A clock that moves ten seconds on every reading, so any unfrozen read would show.
class SteppingClock final : public Clock {
 public:
  std::uint64_t monotonic_ms() const override { return mono_ += 10000; }
  std::int64_t unix_ms() const override { return unix_ += 10000; }

 private:
  mutable std::uint64_t mono_ = 1000000;
  mutable std::int64_t unix_ = 1700000000000;
};

TEST(Scripting, TimeIsFrozenForTheRun) {
  config::Config config;
  SteppingClock clock;
  Executor exec(config, clock);
  Client& c = exec.create_client(nullptr, "127.0.0.1:1", "127.0.0.1:2", -1);
  const std::vector<std::string_view> eval = {
      "EVAL",
      "redis.call('set', 'k', 'v', 'PX', 15000) "
      "return {redis.call('get', 'k'), redis.call('get', 'k'), redis.call('get', 'k')}",
      "0"};
  exec.execute(c, eval);
  EXPECT_EQ(c.out, "*3\r\n$1\r\nv\r\n$1\r\nv\r\n$1\r\nv\r\n");
  c.out.clear();
  const std::vector<std::string_view> get = {"GET", "k"};
  exec.execute(c, get);  // outside the script time moves on: the key has expired
  EXPECT_EQ(c.out, "$-1\r\n");
}

TEST(Scripting, EvalInsideMultiAndTheScriptsOwnDb) {
  TestServer t;
  Client& a = t.client();
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return redis.call('incr', 'n')", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return redis.call('multi')", "0"}), "+QUEUED\r\n");
  const std::string exec = t.run(a, {"EXEC"});
  EXPECT_EQ(exec.rfind("*2\r\n:1\r\n-ERR This Redis command is not allowed from script", 0), 0u)
      << exec;
  EXPECT_EQ(t.run(a, {"EVAL", "redis.call('select', 3) return redis.call('set', 'x', 1)", "0"}),
            "+OK\r\n");
  EXPECT_EQ(t.run(a, {"GET", "x"}), "$-1\r\n");  // the caller is still in db 0
  EXPECT_EQ(t.run(a, {"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"GET", "x"}), "$1\r\n1\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return redis.call('get', 'x')", "0"}), "$1\r\n1\r\n");
}

TEST(Scripting, AScriptsWriteBreaksWatch) {
  TestServer t;
  Client& a = t.client();
  Client& b = t.client();
  EXPECT_EQ(t.run(a, {"WATCH", "w"}), "+OK\r\n");
  EXPECT_EQ(t.run(b, {"EVAL", "return redis.call('set', 'w', 1)", "0"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"GET", "w"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "*-1\r\n");
}

TEST(Scripting, ReadOnlyRuns) {
  TestServer t;
  Client& a = t.client();
  const std::string ro = t.run(a, {"EVAL_RO", "return redis.call('set', 'k', 1)", "0"});
  EXPECT_EQ(ro.rfind("-ERR Write commands are not allowed from read-only scripts. script: ", 0), 0u)
      << ro;
  EXPECT_EQ(t.run(a, {"EVAL_RO", "#!lua\nreturn 1", "0"}),
            "-ERR Can not execute a script with write flag using *_ro command.\r\n");
  EXPECT_EQ(t.run(a, {"EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('get', 'k')", "0"}),
            "$-1\r\n");
  const std::string nw = t.run(a, {"EVAL", "#!lua flags=no-writes\nredis.call('del', 'k')", "0"});
  EXPECT_EQ(nw.rfind("-ERR Write commands are not allowed from read-only scripts. script: ", 0), 0u)
      << nw;
}

TEST(Scripting, CacheAndInfo) {
  TestServer t;
  Client& a = t.client();
  const std::string sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";  // sha1("return 1")
  EXPECT_EQ(t.run(a, {"SCRIPT", "LOAD", "return 1"}), "$40\r\n" + sha + "\r\n");
  EXPECT_EQ(t.run(a, {"EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"}), ":1\r\n");
  const std::string info = t.run(a, {"INFO", "memory"});
  EXPECT_NE(info.find("number_of_cached_scripts:1\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("used_memory_scripts_eval:48\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("used_memory_lua:"), std::string::npos);
  EXPECT_GT(t.exec().scripting().lua_memory(), 10000u);
  EXPECT_EQ(t.run(a, {"SCRIPT", "FLUSH"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"EVALSHA", sha, "0"}), "-NOSCRIPT No matching script. Please use EVAL.\r\n");
  EXPECT_NE(t.run(a, {"INFO", "memory"}).find("number_of_cached_scripts:0\r\n"), std::string::npos);
}

// listd's bound on the cache (script-cache-max-eval): EVAL-only scripts leave least recently
// used first (EVAL and EVALSHA both use one), SCRIPT LOAD's stay, and INFO counts evictions.
TEST(Scripting, EvalOnlyScriptsPastTheBoundAreEvictedLeastRecentlyUsedFirst) {
  TestServer t(std::vector<std::pair<std::string, std::string>>{{"script-cache-max-eval", "2"}});
  Client& a = t.client();
  const std::string sha1 = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";  // sha1("return 1")
  const std::string sha2 = "7f923f79fe76194c868d7e1d0820de36700eb649";  // sha1("return 2")
  const std::string sha3 = "09d3822de862f46d784e6a36848b4f0736dda47a";  // sha1("return 3")
  const std::string no_script = "-NOSCRIPT No matching script. Please use EVAL.\r\n";
  EXPECT_EQ(t.run(a, {"SCRIPT", "LOAD", "return 9"}).size(), 47u);  // kept for good
  EXPECT_EQ(t.run(a, {"EVAL", "return 1", "0"}), ":1\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return 2", "0"}), ":2\r\n");
  EXPECT_EQ(t.run(a, {"EVALSHA", sha1, "0"}), ":1\r\n");     // 1 is now the most recent
  EXPECT_EQ(t.run(a, {"EVAL", "return 3", "0"}), ":3\r\n");  // evicts 2
  EXPECT_EQ(t.run(a, {"EVALSHA", sha2, "0"}), no_script);
  EXPECT_EQ(t.run(a, {"EVALSHA", sha1, "0"}), ":1\r\n");
  EXPECT_EQ(t.run(a, {"EVALSHA", sha3, "0"}), ":3\r\n");
  EXPECT_EQ(t.run(a, {"SCRIPT", "EXISTS", sha1, sha2, sha3}), "*3\r\n:1\r\n:0\r\n:1\r\n");
  // SCRIPT LOAD of an EVAL-only script takes it out of the bound.
  EXPECT_EQ(t.run(a, {"SCRIPT", "LOAD", "return 1"}), "$40\r\n" + sha1 + "\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return 2", "0"}), ":2\r\n");
  EXPECT_EQ(t.run(a, {"EVAL", "return 4", "0"}), ":4\r\n");  // evicts 3, not 1
  EXPECT_EQ(t.run(a, {"SCRIPT", "EXISTS", sha1, sha3}), "*2\r\n:1\r\n:0\r\n");
  EXPECT_NE(t.run(a, {"INFO", "stats"}).find("evicted_scripts:2\r\n"), std::string::npos);
  const std::string memory = t.run(a, {"INFO", "memory"});
  EXPECT_NE(memory.find("number_of_cached_scripts:4\r\n"), std::string::npos) << memory;
  // 0 lifts the bound, as Redis 7.0 keeps every script.
  EXPECT_EQ(t.run(a, {"CONFIG", "SET", "script-cache-max-eval", "0"}), "+OK\r\n");
  for (int i = 10; i < 20; ++i) t.run_strings(a, {"EVAL", "return " + std::to_string(i), "0"});
  EXPECT_NE(t.run(a, {"INFO", "stats"}).find("evicted_scripts:2\r\n"), std::string::npos);
}

// As redis-server 7.0.15 counts them: the INCR's error once, the script's own error once; the
// EVAL that re-raised the INCR's error is a failed call of EVAL but no second error reply.
TEST(Scripting, AReRaisedCommandErrorIsCountedOnce) {
  TestServer t;
  Client& a = t.client();
  EXPECT_EQ(t.run(a, {"SET", "s", "x"}), "+OK\r\n");
  t.run(a, {"EVAL", "return redis.call('incr', 's')", "0"});
  t.run(a, {"EVAL", "return redis.pcall('incr', 's')", "0"});
  t.run(a, {"EVAL", "error('x')", "0"});
  EXPECT_EQ(t.exec().stats().total_error_replies, 3u);
  const std::string stats = t.run(a, {"INFO", "commandstats"});
  EXPECT_NE(stats.find("cmdstat_eval:calls=3,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("failed_calls=3"), std::string::npos) << stats;
}

TEST(Scripting, TheLuaHeapIsCapped) {
  TestServer t;
  Client& a = t.client();
  const std::string out =
      t.run(a, {"EVAL", "local t = {} for i = 1, 1e9 do t[i] = i end return #t", "0"});
  EXPECT_EQ(out.rfind("-ERR Error running script ", 0), 0u) << out;
  EXPECT_NE(out.find("not enough memory"), std::string::npos) << out;
  EXPECT_EQ(t.run(a, {"EVAL", "return 1", "0"}), ":1\r\n");  // the state is still usable
}

}  // namespace
}  // namespace listd::server
