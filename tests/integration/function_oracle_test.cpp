// Functions against Redis' own replies: the same FUNCTION / FCALL steps sent, in order, to a
// real listd and a real redis-server 7.0.15 on a RESP2 and on a RESP3 connection; the reply
// bytes must be the same. The steps cover SCRIPTING.md §1.11: every FUNCTION LOAD and
// redis.register_function error, the load-time sandbox, FCALL / FCALL_RO and their errors,
// LIST / DELETE / FLUSH / RESTORE / STATS / KILL / HELP, and INFO's function fields.
// FUNCTION LIST shows at most one library with one function where order matters: Redis lists
// from a dict whose order changes with its per-process hash seed. The DUMP payloads may differ
// in bytes (both compress the code with LZF, each with its own encoder), so dumps are exchanged
// instead: each server's dump restores into the other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;

Args load(const std::string& code) { return {"FUNCTION", "LOAD", code}; }
Args load_replace(const std::string& code) { return {"FUNCTION", "LOAD", "REPLACE", code}; }
Args lib(const std::string& name, const std::string& body) {
  return load("#!lua name=" + name + "\n" + body);
}

// Errors of FUNCTION LOAD and of the code it runs, in functionsCreateWithLibraryCtx's order.
const std::vector<Args>& load_errors() {
  static const std::vector<Args> all = {
      {"FUNCTION", "LOAD", "x", "y"},
      {"FUNCTION", "LOAD", "REPLACE"},
      load("return 1"),
      load("#!lua name=x"),
      load("#!lua\n"),
      load("#!lua name=a name=b\n"),
      load("#!lua name=a foo=bar\n"),
      load("#!lua Name=a\nredis.register_function('upper_name', function() return 1 end)"),
      load("#!lua name=\n"),
      load("#!lua name=a-b\n"),
      load("#!nosuch name=a\n"),
      load("#!LUA name=caps\nredis.register_function('caps', function() return 'caps' end)"),
      load("#! name=a\n"),
      lib("a", "return 1"),
      lib("a", "local x = ("),
      lib("a", "redis.call('ping')"),
      lib("a", "local s = string.format('%d', 1)"),
      lib("a", "x = 1"),
      lib("a", "error('boom')"),
      lib("a", "print(1)"),
      lib("a", "redis.setresp(3)"),
      lib("a", "local t = redis.LOG_WARNING .. redis.REDIS_VERSION"),
      lib("a", "redis.register_function()"),
      lib("a", "redis.register_function('f', function() end, 3)"),
      lib("a", "redis.register_function(1, function() end)"),
      lib("a", "redis.register_function({}, function() end)"),
      lib("a", "redis.register_function('f', 'x')"),
      lib("a", "redis.register_function('f')"),
      lib("a", "redis.register_function('f-g', function() end)"),
      lib("a", "redis.register_function('', function() end)"),
      lib("a",
          "redis.register_function('f', function() end)\n"
          "redis.register_function('f', function() end)"),
      lib("a", "redis.register_function{function_name=1, callback=function() end}"),
      lib("a", "redis.register_function{function_name={}, callback=function() end}"),
      lib("a", "redis.register_function{function_name='f', callback='x'}"),
      lib("a", "redis.register_function{function_name='f', callback=function() end, flags=1}"),
      lib("a",
          "redis.register_function{function_name='f', callback=function() end, "
          "flags={'no-writes', 'bad'}}"),
      lib("a",
          "redis.register_function{function_name='f', callback=function() end, "
          "description={}}"),
      lib("a", "redis.register_function{function_name='f', callback=function() end, x=1}"),
      lib("a", "redis.register_function{callback=function() end}"),
      lib("a", "redis.register_function{function_name='f'}"),
      lib("a", "local t = {} t[1] = 1 redis.log(redis.LOG_DEBUG, 'loading')"),
  };
  return all;
}

// A session: libraries loaded, called, listed, replaced, deleted, flushed.
const std::vector<Args>& session() {
  static const std::vector<Args> all = {
      {"FUNCTION", "FLUSH"},
      {"FUNCTION", "LIST"},
      {"FUNCTION", "STATS"},
      lib("lib1",
          "local function helper(keys, args) return {keys[1], args[1], #keys, #args} end\n"
          "redis.register_function('echo', helper)"),
      {"FUNCTION", "LIST"},
      {"FUNCTION", "LIST", "WITHCODE"},
      {"FUNCTION", "LIST", "LIBRARYNAME", "LIB*"},
      {"FUNCTION", "LIST", "LIBRARYNAME", "nomatch"},
      {"FUNCTION", "LIST", "LIBRARYNAME"},
      {"FUNCTION", "LIST", "WITHCODE", "WITHCODE"},
      {"FUNCTION", "LIST", "bogus"},
      {"FCALL", "echo", "2", "k1", "k2", "a1"},
      {"FCALL", "ECHO", "0"},
      {"FCALL_RO", "echo", "0"},
      {"FCALL", "nosuch", "0"},
      {"FCALL", "echo", "x"},
      {"FCALL", "echo", "3", "a"},
      {"FCALL", "echo", "-1"},
      {"FCALL", "echo"},
      lib("lib1", "redis.register_function('other', function() return 1 end)"),
      lib("lib2", "redis.register_function('Echo', function() return 1 end)"),
      load_replace("#!lua name=lib1\n"
                   "redis.register_function{function_name='w', callback=function(k, a)\n"
                   "  return redis.call('set', k[1], a[1]) end, description='writes'}\n"
                   "redis.register_function{function_name='ro', callback=function(k)\n"
                   "  return redis.call('get', k[1]) end, flags={'no-writes', 'ALLOW-STALE'}}\n"
                   "redis.register_function{function_name='ro_writes', callback=function(k)\n"
                   "  return redis.call('set', k[1], 1) end, flags={'no-writes'}}\n"
                   "redis.register_function{function_name='fails', callback=function()\n"
                   "  return redis.call('nosuch') end}\n"
                   "redis.register_function{function_name='raises', callback=function()\n"
                   "  error('my error') end}\n"
                   "redis.register_function{function_name='returns_error', callback=function()\n"
                   "  return redis.error_reply('MY err') end}\n"
                   "redis.register_function{function_name='late', callback=function()\n"
                   "  return redis.register_function('x', function() end) end}\n"
                   "redis.register_function{function_name='globals', callback=function()\n"
                   "  return {type(KEYS), type(string.format), redis.REDIS_VERSION} end}"),
      {"FCALL", "echo", "0"},
      {"FCALL", "w", "1", "k", "v"},
      {"FCALL_RO", "ro", "1", "k"},
      {"FCALL", "ro", "1", "k"},
      {"FCALL_RO", "w", "1", "k", "v"},
      {"FCALL", "ro_writes", "1", "k"},
      {"FCALL", "fails", "0"},
      {"FCALL", "raises", "0"},
      {"FCALL", "returns_error", "0"},
      {"FCALL", "late", "0"},
      {"FCALL", "globals", "0"},
      lib("kept",
          "local rf = redis.register_function\n"
          "rf('keeps', function() return rf('h', function() end) end)"),
      {"FCALL", "keeps", "0"},
      {"FUNCTION", "DELETE", "kept"},
      {"FCALL", "w", "1", "k"},
      {"FUNCTION", "LIST", "LIBRARYNAME", "lib2"},
      lib("lib2",
          "redis.register_function{function_name='flagged', callback=function() "
          "return 2 end, flags={'no-writes', 'allow-oom', 'allow-stale', 'no-cluster', "
          "'allow-cross-slot-keys'}, description='all flags'}"),
      {"FUNCTION", "LIST", "LIBRARYNAME", "lib2"},
      {"FCALL", "FLAGGED", "0"},
      lib("lib3", "redis.register_function('w', function() return 3 end)"),
      {"FUNCTION", "STATS"},
      {"FUNCTION", "DELETE", "lib3"},
      {"FUNCTION", "DELETE", "lib2"},
      {"FUNCTION", "DELETE", "LIB1"},
      {"FUNCTION", "DELETE"},
      {"FUNCTION", "KILL"},
      {"FUNCTION", "KILL", "x"},
      {"FUNCTION", "STATS", "x"},
      {"FUNCTION", "DUMP", "x"},
      {"FUNCTION", "RESTORE", "x"},
      {"FUNCTION", "RESTORE", "x", "bad"},
      {"FUNCTION", "RESTORE", "x", "append", "more"},
      {"FUNCTION", "RESTORE", "123456789012"},
      {"FUNCTION", "FLUSH", "bad"},
      {"FUNCTION", "FLUSH", "sync", "x"},
      {"FUNCTION", "FLUSH", "ASYNC"},
      {"FUNCTION", "FLUSH", "SYNC"},
      {"FUNCTION", "DUMP"},
      {"FUNCTION", "HELP"},
      {"FUNCTION", "nosuch"},
      {"FUNCTION"},
      {"FCALL", "echo", "0"},
      {"EVAL", "return redis.call('fcall', 'echo', 0)", "0"},
      {"EVAL", "return redis.call('function', 'list')", "0"},
      {"MULTI"},
      lib("inmulti",
          "redis.register_function('m', function(k) return redis.call('incr', k[1]) "
          "end)"),
      {"FCALL", "m", "1", "counter"},
      {"FCALL", "m", "1", "counter"},
      {"EXEC"},
      {"FUNCTION", "DELETE", "inmulti"},
      {"COMMAND", "GETKEYS", "FCALL", "f", "2", "a", "b", "c"},
  };
  return all;
}

std::string describe(const Args& request) {
  std::string what;
  for (const std::string& s : request) what += escape_bytes(s, 80) + " ";
  return what;
}

TEST(FunctionOracle, RepliesMatchRedisByteForByte) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  for (const bool resp3 : {false, true}) {
    RespClient a(listd.port());
    RespClient b(redis.port());
    if (resp3) {
      a.call({"HELLO", "3"});
      b.call({"HELLO", "3"});
    }
    const std::string proto = resp3 ? "RESP3: " : "RESP2: ";
    a.call({"FUNCTION", "FLUSH"});
    b.call({"FUNCTION", "FLUSH"});
    for (const Args& request : load_errors())
      EXPECT_EQ(a.call(request), b.call(request)) << proto << describe(request);
    a.call({"FUNCTION", "FLUSH"});
    b.call({"FUNCTION", "FLUSH"});
    a.call({"FLUSHALL"});
    b.call({"FLUSHALL"});
    for (const Args& request : session())
      EXPECT_EQ(a.call(request), b.call(request)) << proto << describe(request);
  }
}

std::vector<std::string> info_lines(RespClient& c, const std::vector<std::string>& fields) {
  const std::string info = c.call({"INFO", "memory"});
  std::vector<std::string> out;
  for (const std::string& f : fields) {
    const std::size_t at = info.find("\r\n" + f + ":");
    out.push_back(at == std::string::npos
                      ? f + " missing"
                      : info.substr(at + 2, info.find("\r\n", at + 2) - at - 2));
  }
  return out;
}

// The counts INFO memory gives, and each server's FUNCTION DUMP restoring into the other with
// every policy and its collision errors (compared as FUNCTION LIST WITHCODE of one library).
TEST(FunctionOracle, DumpsRestoreAcrossServersAndInfoCounts) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  RespClient a(listd.port());
  RespClient b(redis.port());
  // One function: Redis lists a library's functions in its dict's order.
  const Args lib_a = lib("dumped",
                         "redis.register_function{function_name='d1', callback="
                         "function() return 'long enough to be compressed by redis' "
                         "end, flags={'no-writes'}, description='first'}");
  ASSERT_EQ(a.call(lib_a), b.call(lib_a));
  const std::vector<std::string> fields = {"number_of_functions", "number_of_libraries"};
  EXPECT_EQ(info_lines(a, fields), info_lines(b, fields));
  const std::string theirs = b.call({"FUNCTION", "DUMP"});
  const std::string ours = a.call({"FUNCTION", "DUMP"});
  ASSERT_EQ(ours[0], '$');
  // The bulk's payload, as an argument for the other server.
  const auto payload = [](const std::string& bulk) {
    const std::size_t start = bulk.find("\r\n") + 2;
    return bulk.substr(start, bulk.size() - start - 2);
  };
  const std::vector<Args> steps = {
      {"FUNCTION", "RESTORE", payload(ours)},  // on redis: a collision (APPEND)
      {"FUNCTION", "RESTORE", payload(ours), "REPLACE"},
      {"FUNCTION", "LIST", "WITHCODE"},
      {"FUNCTION", "FLUSH"},
      {"FUNCTION", "RESTORE", payload(ours)},
      {"FCALL", "d1", "0"},
      {"FUNCTION", "DELETE", "dumped"},
      lib("other", "redis.register_function('D1', function() return 3 end)"),
      {"FUNCTION", "RESTORE", payload(ours), "REPLACE"},
      {"FCALL", "d1", "0"},
      {"FUNCTION", "RESTORE", payload(ours), "FLUSH"},
      {"FUNCTION", "LIST", "WITHCODE"},
      {"FCALL", "d1", "0"},
  };
  // A key's DUMP (listd has no DUMP command: Redis' payload for both) is no function.
  b.call({"SET", "k", "v"});
  const std::string key_dump = payload(b.call({"DUMP", "k"}));
  EXPECT_EQ(a.call({"FUNCTION", "RESTORE", key_dump}), b.call({"FUNCTION", "RESTORE", key_dump}));
  for (const Args& step : steps) {
    // listd restores Redis' payload where Redis restores listd's.
    Args mine = step;
    if (step.size() >= 3 && step[1] == "RESTORE") mine[2] = payload(theirs);
    EXPECT_EQ(a.call(mine), b.call(step)) << describe(step);
  }
  EXPECT_EQ(info_lines(a, fields), info_lines(b, fields));
}

}  // namespace
}  // namespace listd::testing
