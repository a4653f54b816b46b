// LuaEngine without a server: a fake CommandRunner answers redis.call with canned RESP bytes
// and records what the engine asked. Covers the conversions of SCRIPTING.md §1.5 in both
// directions (including the RESP3 types listd itself never sends), the error forms of §1.6,
// the redis API's hand-offs to the runner, the sandbox, the guards and the heap cap.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "listd/script/engine.h"
#include "listd/script/sha1.h"

namespace listd::script {
namespace {

using protocol::RespVersion;

class FakeRunner final : public CommandRunner {
 public:
  std::string call(std::span<const std::string_view> argv, RespVersion resp,
                   std::string& reply) override {
    calls.emplace_back(argv.begin(), argv.end());
    resps.push_back(resp);
    if (refuse) return "Unknown Redis command called from script";
    const auto it = replies.find(std::string(argv[0]));
    reply = it == replies.end() ? "+OK\r\n" : it->second;
    return {};
  }
  void log(int level, std::string_view message) override {
    logs.emplace_back(level, std::string(message));
  }
  void set_repl(int flags) override { repl = flags; }
  std::optional<bool> acl_check(std::span<const std::string_view> argv) override {
    acl_checks.emplace_back(argv.begin(), argv.end());
    if (argv[0] == "nosuch") return std::nullopt;
    return argv[0] != "flushall";
  }

  std::map<std::string, std::string> replies;
  std::vector<std::vector<std::string>> acl_checks;
  std::vector<std::vector<std::string>> calls;
  std::vector<RespVersion> resps;
  std::vector<std::pair<int, std::string>> logs;
  int repl = -1;
  bool refuse = false;
};

class Engine : public ::testing::Test {
 protected:
  /// Compiles and runs `body`; returns the reply bytes (or the compile error as an error).
  std::string eval(const std::string& body, RespVersion caller = RespVersion::kResp2,
                   std::vector<std::string_view> keys = {},
                   std::vector<std::string_view> args = {}) {
    const std::string sha = sha1_hex(body);
    std::string out;
    protocol::ReplyWriter w(out, caller);
    if (!engine.has(sha)) {
      const std::string error = engine.compile(sha, body);
      if (!error.empty()) {
        w.error(error);
        return out;
      }
    }
    engine.run(sha, keys, args, runner, w);
    return out;
  }
  std::string suffix(const std::string& body, int line = 1) {
    return " script: " + sha1_hex(body) + ", on @user_script:" + std::to_string(line) + ".\r\n";
  }

  LuaEngine engine;
  FakeRunner runner;
};

TEST_F(Engine, LuaValuesToResp2) {
  EXPECT_EQ(eval("return 'x'"), "$1\r\nx\r\n");
  EXPECT_EQ(eval("return 3.99"), ":3\r\n");
  EXPECT_EQ(eval("return -3.99"), ":-3\r\n");
  EXPECT_EQ(eval("return -0.5"), ":0\r\n");
  EXPECT_EQ(eval("return 9007199254740993"), ":9007199254740992\r\n");
  EXPECT_EQ(eval("return 0/0"), ":-9223372036854775808\r\n");
  EXPECT_EQ(eval("return 1/0"), ":-9223372036854775808\r\n");
  EXPECT_EQ(eval("return 2^63"), ":-9223372036854775808\r\n");
  EXPECT_EQ(eval("return true"), ":1\r\n");
  EXPECT_EQ(eval("return false"), "$-1\r\n");
  EXPECT_EQ(eval("return nil"), "$-1\r\n");
  EXPECT_EQ(eval("return function() end"), "$-1\r\n");
  EXPECT_EQ(eval("return {1,2,nil,4}"), "*2\r\n:1\r\n:2\r\n");
  EXPECT_EQ(eval("return {a=1}"), "*0\r\n");
  EXPECT_EQ(eval("return {err='X y'}"), "-X y\r\n");
  EXPECT_EQ(eval("return {err=''}"), "-\r\n");
  EXPECT_EQ(eval("return {ok='a\\r\\nb'}"), "+a  b\r\n");
  EXPECT_EQ(eval("return {double=3.14}"), "$18\r\n3.1400000000000001\r\n");
  EXPECT_EQ(eval("return {big_number='12'}"), "$2\r\n12\r\n");
  EXPECT_EQ(eval("return {verbatim_string={format='txt', string='hi'}}"), "$2\r\nhi\r\n");
  EXPECT_EQ(eval("return {map={a=1}}"), "*2\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(eval("return {set={a=true}}"), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(eval("return {err=1, ok='fine'}"), "+fine\r\n");  // err must be a string
}

TEST_F(Engine, LuaValuesToResp3) {
  const auto r3 = RespVersion::kResp3;
  EXPECT_EQ(eval("return false", r3), "_\r\n");
  EXPECT_EQ(eval("redis.setresp(3) return true", r3), "#t\r\n");
  EXPECT_EQ(eval("redis.setresp(3) return false", r3), "#f\r\n");
  EXPECT_EQ(eval("redis.setresp(3) return false"), ":0\r\n");  // a RESP2 caller
  EXPECT_EQ(eval("return {double=1.5}", r3), ",1.5\r\n");
  EXPECT_EQ(eval("return {big_number='12'}", r3), "(12\r\n");
  EXPECT_EQ(eval("return {verbatim_string={format='txt', string='hi'}}", r3), "=6\r\ntxt:hi\r\n");
  EXPECT_EQ(eval("return {map={a=1}}", r3), "%1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(eval("return {set={a=true}}", r3), "~1\r\n$1\r\na\r\n");
}

TEST_F(Engine, SelfContainingTableStopsAtTheStackLimit) {
  const std::string out = eval("local t = {} t[1] = t return t");
  EXPECT_EQ(out.substr(0, 4), "*1\r\n");
  EXPECT_EQ(out.substr(out.size() - 30), "-ERR reached lua stack limit\r\n");
}

TEST_F(Engine, RespRepliesToLuaValues) {
  const std::pair<std::string, std::string> cases[] = {
      {":5\r\n", "return redis.call('x') + 1"},
      {"$3\r\na\0b\r\n", "return #redis.call('x')"},
      {"$-1\r\n", "return type(redis.call('x'))"},
      {"*-1\r\n", "return type(redis.call('x'))"},
      {"+PONG\r\n", "return redis.call('x').ok"},
      {"*2\r\n:1\r\n*1\r\n$1\r\nz\r\n", "return redis.call('x')[2][1]"},
      {"%1\r\n$1\r\nk\r\n$1\r\nv\r\n", "return redis.call('x').map.k"},
      {"~1\r\n$1\r\nm\r\n", "return tostring(redis.call('x').set.m)"},
      {"_\r\n", "return type(redis.call('x'))"},
      {"#t\r\n", "return tostring(redis.call('x'))"},
      {",1.5\r\n", "return tostring(redis.call('x').double)"},
      {",inf\r\n", "return tostring(redis.call('x').double)"},
      {"(123456789012345678901\r\n", "return redis.call('x').big_number"},
      {"=7\r\ntxt:abc\r\n",
       "local v = redis.call('x').verbatim_string return v.format .. v.string"},
      {"|1\r\n+a\r\n+b\r\n:7\r\n", "return redis.call('x')"},
      {"-WRONGTYPE no\r\n", "return redis.pcall('x').err"},
      {"-NOCODE\r\n", "return redis.pcall('x').err"},
  };
  const char* expected[] = {":6\r\n",
                            ":3\r\n",
                            "$7\r\nboolean\r\n",
                            "$7\r\nboolean\r\n",
                            "$4\r\nPONG\r\n",
                            "$1\r\nz\r\n",
                            "$1\r\nv\r\n",
                            "$4\r\ntrue\r\n",
                            "$3\r\nnil\r\n",
                            "$4\r\ntrue\r\n",
                            "$3\r\n1.5\r\n",
                            "$3\r\ninf\r\n",
                            "$21\r\n123456789012345678901\r\n",
                            "$6\r\ntxtabc\r\n",
                            ":7\r\n",
                            "$12\r\nWRONGTYPE no\r\n",
                            "$10\r\nERR NOCODE\r\n"};
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    runner.replies["x"] = cases[i].first;
    EXPECT_EQ(eval(cases[i].second), expected[i]) << cases[i].second;
  }
}

TEST_F(Engine, CallArgumentsAndProtocol) {
  eval("redis.call('set', 'k', 0.1, 3, 1e20, -0.5)");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0],
            (std::vector<std::string>{"set", "k", "0.10000000000000001", "3", "1e+20", "-0.5"}));
  EXPECT_EQ(runner.resps[0], RespVersion::kResp2);
  eval("redis.setresp(3) redis.call('get', 'k')");
  EXPECT_EQ(runner.resps[1], RespVersion::kResp3);
  const std::string body = "return redis.call('get', {})";
  EXPECT_EQ(eval(body),
            "-ERR Lua redis lib command arguments must be strings or integers" + suffix(body));
  EXPECT_EQ(eval("return redis.pcall()"),
            "-ERR Please specify at least one argument for this redis lib call\r\n");
  EXPECT_EQ(runner.calls.size(), 2u);  // refused arguments never reach the runner
}

TEST_F(Engine, AclCheckCmdAsksTheRunnerAndRaisesForAnUnknownCommand) {
  EXPECT_EQ(eval("return {redis.acl_check_cmd('get', 'k', 2) and 1 or 0, "
                 "redis.acl_check_cmd('flushall') and 1 or 0}"),
            "*2\r\n:1\r\n:0\r\n");
  ASSERT_EQ(runner.acl_checks.size(), 2u);
  EXPECT_EQ(runner.acl_checks[0], (std::vector<std::string>{"get", "k", "2"}));
  EXPECT_TRUE(runner.calls.empty());  // asking runs nothing
  const std::string body = "return redis.acl_check_cmd('nosuch')";
  EXPECT_EQ(eval(body), "-ERR Invalid command passed to redis.acl_check_cmd()" + suffix(body));
  const std::string none = "return redis.acl_check_cmd()";
  EXPECT_EQ(eval(none),
            "-ERR Please specify at least one argument for this redis lib call" + suffix(none));
}

TEST_F(Engine, RefusalsAndCommandErrors) {
  runner.refuse = true;
  const std::string body = "return redis.call('nosuch')";
  EXPECT_EQ(eval(body), "-ERR Unknown Redis command called from script" + suffix(body));
  EXPECT_EQ(eval("return redis.pcall('nosuch')"),
            "-ERR Unknown Redis command called from script\r\n");
  runner.refuse = false;
  runner.replies["incr"] = "-ERR value is not an integer or out of range\r\n";
  const std::string raised = "return redis.call('incr', 'k')";
  EXPECT_EQ(eval(raised), "-ERR value is not an integer or out of range" + suffix(raised));
  EXPECT_EQ(eval("return {pcall(redis.call, 'incr', 'k')}"),
            "*2\r\n$-1\r\n$43\r\nERR value is not an integer or out of range\r\n");
}

TEST_F(Engine, ErrorForms) {
  for (const auto& [body, text] : std::vector<std::pair<std::string, std::string>>{
           {"error('x')", "-ERR user_script:1: x"},
           {"error('x', 0)", "-ERR x"},
           {"error(nil)", "-ERR nil"},
           {"error(42)", "-ERR user_script:1: 42"},
           {"error({err=42})", "-42"},
           {"error({err='MY custom'})", "-MY custom"},
           {"error({})", "-ERR unknown error"},
           {"\n\nerror('third')", "-ERR user_script:3: third"},
       }) {
    const int line = body[0] == '\n' ? 3 : 1;
    EXPECT_EQ(eval(body), text + suffix(body, line)) << body;
  }
  EXPECT_EQ(eval("x ="),
            "-ERR Error compiling script (new function): user_script:1: unexpected symbol near "
            "'<eof>'\r\n");
  EXPECT_EQ(eval("return redis.error_reply('NOCODE')"), "-ERR NOCODE\r\n");
  EXPECT_EQ(eval("return redis.error_reply('-MY code')"), "-MY code\r\n");
  EXPECT_EQ(eval("return redis.error_reply('')"), "-ERR \r\n");
  EXPECT_EQ(eval("return redis.error_reply(1)"), "-ERR wrong number or type of arguments\r\n");
  EXPECT_EQ(eval("return redis.status_reply('fine')"), "+fine\r\n");
}

TEST_F(Engine, RedisApiHandsOffToTheRunner) {
  EXPECT_EQ(eval("return redis.log(redis.LOG_WARNING, 'a', 1, 'b')"), "$-1\r\n");
  ASSERT_EQ(runner.logs.size(), 1u);
  EXPECT_EQ(runner.logs[0], (std::pair<int, std::string>{3, "a 1 b"}));
  eval("redis.set_repl(redis.REPL_AOF)");
  EXPECT_EQ(runner.repl, kReplAof);
  const std::string bad = "redis.set_repl(4)";
  EXPECT_EQ(eval(bad),
            "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE." +
                suffix(bad));
  const std::string level = "redis.log(4, 'x')";
  EXPECT_EQ(eval(level), "-ERR Invalid debug level." + suffix(level));
  EXPECT_EQ(eval("return redis.sha1hex('abc')"),
            "$40\r\na9993e364706816aba3e25717850c26c9cd0d89d\r\n");
  EXPECT_EQ(eval("return {redis.replicate_commands(), redis.breakpoint(), redis.debug('x')}"),
            "*2\r\n:1\r\n$-1\r\n");
  EXPECT_EQ(eval("return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}"),
            "*2\r\n$6\r\n7.0.15\r\n:458767\r\n");
}

TEST_F(Engine, KeysAndArgvAreFreshEachRun) {
  EXPECT_EQ(eval("return {KEYS[1], ARGV[1], #KEYS, #ARGV}", RespVersion::kResp2, {"k"}, {"a", "b"}),
            "*4\r\n$1\r\nk\r\n$1\r\na\r\n:1\r\n:2\r\n");
  EXPECT_EQ(eval("return #KEYS + #ARGV"), ":0\r\n");
}

TEST_F(Engine, SandboxRefusesWritesAndHidesTheUnsafe) {
  for (const std::string body :
       {"a = 1", "redis = 1", "_G = {}", "cjson.encode = 1", "string.x = 1",
        "getmetatable('').__index = {}", "getmetatable(_G).__index = 1"})
    EXPECT_EQ(eval(body), "-ERR user_script:1: Attempt to modify a readonly table" + suffix(body))
        << body;
  for (const std::string body :
       {"setmetatable(_G, {})", "rawset(_G, 'x', 1)", "table.insert(_G, 1)",
        "rawset(string, 'x', 1)", "table.sort(redis)"})
    EXPECT_EQ(eval(body), "-ERR Attempt to modify a readonly table" + suffix(body)) << body;
  for (const std::string name : {"print", "dofile", "loadfile", "os", "io", "require", "package",
                                 "module", "debug", "newproxy", "getfenv", "setfenv"}) {
    const std::string body = "return " + name;
    EXPECT_EQ(eval(body),
              "-ERR user_script:1: Script attempted to access nonexistent global "
              "variable '" +
                  name + "'" + suffix(body));
  }
  EXPECT_EQ(eval("local keys = {} for k in pairs(_G) do keys[#keys+1] = k end table.sort(keys) "
                 "return table.concat(keys, ' ')"),
            "$271\r\nARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack "
            "collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next "
            "pairs pcall rawequal rawget rawset redis select setmetatable string struct table "
            "tonumber tostring type unpack xpcall\r\n");
  // Reading sees through the proxies; the real tables never reach the script.
  EXPECT_EQ(eval("local n = 0 for _ in pairs(string) do n = n + 1 end return n > 10"), ":1\r\n");
  EXPECT_EQ(eval("local _, t = ipairs(string) t.x = 1"),
            "-ERR user_script:1: Attempt to modify a readonly table" +
                suffix("local _, t = ipairs(string) t.x = 1"));
  EXPECT_EQ(eval("return getmetatable(cjson)"), "$-1\r\n");
  EXPECT_EQ(eval("local t = {} setmetatable(t, {__index = function() return 5 end}) return t.x"),
            ":5\r\n");
  EXPECT_EQ(eval("return ('abc'):upper()"), "$3\r\nABC\r\n");
}

TEST_F(Engine, GuardsAgainstLibraryCrashes) {
  EXPECT_EQ(eval("return {loadstring(string.dump(function() return 1 end))}"), "*0\r\n");
  EXPECT_EQ(eval("return select(2, loadstring(string.dump(function() end), '=x'))"),
            "$38\r\nx:1: unexpected symbol near 'char(27)'\r\n");
  EXPECT_EQ(eval("return loadstring('return 7')()"), ":7\r\n");
  EXPECT_EQ(eval("local parts = {'return ', '8'} local i = 0 "
                 "return load(function() i = i + 1 return parts[i] end)()"),
            ":8\r\n");
  const std::string unpack = "return unpack({}, -2147483648, 2147483647)";
  EXPECT_EQ(eval(unpack), "-ERR user_script:1: too many results to unpack" + suffix(unpack));
  EXPECT_EQ(eval("return select('#', unpack({}, 1, 7000))"), ":7000\r\n");  // BullMQ's batches
  EXPECT_EQ(eval("return select('#', unpack({1, 2, 3}))"), ":3\r\n");
  EXPECT_EQ(eval("return bit.tohex(65535, -2147483648)"), "$8\r\n0000FFFF\r\n");
  EXPECT_EQ(eval("return bit.tohex(65535, 2147483648)"), "$8\r\n0000FFFF\r\n");
  EXPECT_EQ(eval("return bit.tohex(255, 4)"), "$4\r\n00ff\r\n");
}

TEST_F(Engine, MathRandomIsRedisRand48) {
  EXPECT_EQ(eval("return tostring(math.random())"), "$16\r\n0.39646477363839\r\n");
  EXPECT_EQ(eval("return math.random(100)"), ":85\r\n");
  EXPECT_EQ(eval("math.randomseed(42) return {tostring(math.random()), math.random(10)}"),
            "*2\r\n$16\r\n0.74452500033403\r\n:4\r\n");
  const std::string empty = "return math.random(5, 1)";
  EXPECT_EQ(eval(empty),
            "-ERR user_script:1: bad argument #2 to 'random' (interval is empty)" + suffix(empty));
}

TEST(EngineHeap, CapTurnsARunawayScriptIntoAnError) {
  LuaEngine engine(4 << 20);
  FakeRunner runner;
  const std::string body = "local t = {} for i = 1, 1e8 do t[i] = i end";
  const std::string sha = sha1_hex(body);
  ASSERT_EQ(engine.compile(sha, body), "");
  std::string out;
  engine.run(sha, {}, {}, runner, protocol::ReplyWriter(out, RespVersion::kResp2));
  EXPECT_EQ(out, "-ERR Error running script " + sha + ", not enough memory \r\n");
  EXPECT_LE(engine.used_memory(), std::size_t{4} << 20);
  out.clear();
  const std::string ok = "return 1";
  ASSERT_EQ(engine.compile(sha1_hex(ok), ok), "");
  engine.run(sha1_hex(ok), {}, {}, runner, protocol::ReplyWriter(out, RespVersion::kResp2));
  EXPECT_EQ(out, ":1\r\n");
}

TEST(Shebang, FlagsAndErrors) {
  EXPECT_EQ(parse_shebang("return 1").flags, unsigned{kScriptCompatMode});
  const Shebang s = parse_shebang("#!lua flags=no-writes,allow-oom\nreturn 1");
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.flags, unsigned{kScriptNoWrites | kScriptAllowOom});
  EXPECT_EQ(s.length, 31u);
  EXPECT_EQ(parse_shebang("#!lua").error, "ERR Invalid script shebang");
  EXPECT_EQ(parse_shebang("#!\n").error, "ERR Unexpected engine in script shebang: #!");
  EXPECT_EQ(parse_shebang("#!nolua\n").error, "ERR Unexpected engine in script shebang: #!nolua");
  EXPECT_EQ(parse_shebang("#!lua flags=bad\n").error, "ERR Unexpected flag in script shebang: bad");
  EXPECT_EQ(parse_shebang("#!lua foo=bar\n").error, "ERR Unknown lua shebang option: foo=bar");
}

}  // namespace
}  // namespace listd::script
