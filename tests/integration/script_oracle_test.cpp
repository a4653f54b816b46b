// Scripts against Redis' own replies: a fixed set of EVAL / EVALSHA / SCRIPT requests, each
// sent to a real listd and a real redis-server 7.0.15 on a RESP2 and on a RESP3 connection;
// the reply bytes must be the same. The set covers SCRIPTING.md §1.2-§1.7: the sandbox, every
// redis.* function and its errors, both conversion directions in both protocols, the error
// forms, numkeys and shebang errors, NOSCRIPT, and the commands scripts may not run.
// Never sends `error({})`: it crashes redis-server 7.0.15 (listd answers an ERR).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;

Args eval(const std::string& body, std::vector<std::string> rest = {"0"}) {
  Args a{"EVAL", body};
  a.insert(a.end(), rest.begin(), rest.end());
  return a;
}

// Each case runs on a fresh key space (FLUSHALL before it) so cases do not see each other.
const std::vector<Args>& cases() {
  static const std::vector<Args> all = {
      // Lua -> reply
      eval("return 1"),
      eval("return 3.99"),
      eval("return -3.99"),
      eval("return -0.5"),
      eval("return 9007199254740993"),
      eval("return 0/0"),
      eval("return 1/0"),
      eval("return 'x'"),
      eval("return true"),
      eval("return false"),
      eval("return nil"),
      eval("return {1,2,{3,'x'}}"),
      eval("return {1,2,nil,4}"),
      eval("return {a=1}"),
      eval("return {err='My err'}"),
      eval("return {err=''}"),
      eval("return {ok='fine'}"),
      eval("return {ok='a\\r\\nb'}"),
      eval("return {err='x\\ny'}"),
      eval("return {double=3.14}"),
      eval("return {big_number='123456789012345678901'}"),
      eval("return {verbatim_string={format='txt', string='hello'}}"),
      eval("return {map={a=1}}"),
      eval("return {set={a=true}}"),
      eval("return redis.error_reply('NOCODE')"),
      eval("return redis.error_reply('-MY code')"),
      eval("return redis.error_reply('')"),
      eval("return redis.error_reply(1)"),
      eval("return redis.status_reply('OK2')"),
      eval("return redis.status_reply()"),
      eval("redis.setresp(3) return true"),
      eval("redis.setresp(3) return false"),
      eval("redis.setresp(3) return {double=1.5}"),
      eval("redis.setresp(3) return {map={k='v'}}"),
      eval("redis.setresp(3) return {set={m=true}}"),
      eval("return print"),
      eval("return string.rep('ab', 3)"),
      // reply -> Lua
      eval("redis.call('set','k','v') return redis.call('get','k')"),
      eval("return type(redis.call('get','nokey'))"),
      eval("return redis.call('set','k','v').ok"),
      eval("return redis.call('lrange','nol',0,-1)"),
      eval("redis.call('rpush','l','a','b') return redis.call('lrange','l',0,-1)"),
      eval(
          "redis.call('hset','h','f','v') redis.setresp(3) return redis.call('hgetall','h').map.f"),
      eval("redis.call('zadd','z',1.5,'m') redis.setresp(3) return "
           "tostring(redis.call('zscore','z','m').double)"),
      eval("redis.setresp(3) return type(redis.call('get','nokey'))"),
      eval("redis.call('sadd','s','a') redis.setresp(3) return redis.call('smembers','s').set.a"),
      eval("redis.setresp(3) return redis.call('hgetall','nohash')"),
      eval("return redis.call('blmpop', 0, 1, 'nol', 'left')"),
      eval("return redis.call('incrbyfloat', 'f', 0.1)"),
      eval("return redis.call('set', 'n', 0.1)"),
      eval("return redis.call('set', 'n', 1e20)"),
      eval("redis.call('set', 'n', 3) return redis.call('get', 'n')"),
      eval("redis.call('set', 'n', 0.1) return redis.call('get', 'n')"),
      // errors
      eval("error('x')"),
      eval("error('x', 0)"),
      eval("error(nil)"),
      eval("error(42)"),
      eval("error({err=42})"),
      eval("error({err='MY custom'})"),
      eval("return a"),
      eval("redis.call('set','s','x') return redis.call('incr','s')"),
      eval("redis.call('set','s','x') return redis.pcall('incr','s')"),
      eval("redis.call('set','s','x') return {pcall(redis.call,'incr','s')}"),
      eval("return redis.call()"),
      eval("return redis.pcall()"),
      eval("return redis.call('get', {})"),
      eval("return redis.pcall('get', {})"),
      eval("return redis.call('nosuch')"),
      eval("return redis.call('get')"),
      eval("return redis.call('config', 'nosub')"),
      eval("return redis.call('blpop','x',0)"),
      eval("return redis.call('multi')"),
      eval("return redis.call('eval','return 1',0)"),
      eval("return redis.call('script','load','return 1')"),
      eval("return redis.call('subscribe','c')"),
      eval("return redis.call('watch','k')"),
      eval("return redis.call('quit')"),
      eval("return redis.call('select', 99)"),
      eval("return redis.call('flushall')"),
      eval("return redis.call('lpush')"),
      eval("local t = {} t.x = 1 return t.x"),
      eval("return ("),
      eval("x ="),
      // sandbox
      eval("a = 10"),
      eval("redis = 1"),
      eval("_G = {}"),
      eval("cjson.encode = 1"),
      eval("string.x = 1"),
      eval("getmetatable('').__index = {}"),
      eval("setmetatable(_G, {})"),
      eval("rawset(_G, 'x', 1)"),
      eval("table.insert(_G, 1)"),
      eval("return loadstring(string.dump(function() return 1 end))()"),
      eval("return os"),
      eval("return io"),
      eval("return require"),
      eval("return dofile"),
      eval("return getfenv"),
      eval("return newproxy"),
      eval("return debug"),
      eval("return module"),
      eval("local keys = {} for k in pairs(_G) do keys[#keys+1] = k end table.sort(keys) "
           "return keys"),
      eval("local n = 0 for k in pairs(cjson) do n = n + 1 end return n"),
      eval("return rawget(_G, 'redis') ~= nil"),
      eval("return getmetatable(_G) ~= nil"),
      eval("return type(getmetatable('').__index)"),
      eval("KEYS[1] = 'x' return KEYS[1]"),
      eval("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}", {"2", "k1", "k2", "a1", "a2"}),
      eval("return unpack({}, -2147483648, 2147483647)"),
      eval("return #{unpack({}, 1, 7999)}"),
      eval("return bit.tohex(65535, -2147483648)"),
      eval("return bit.band(0xffff, 0x0f0f)"),
      eval("return cjson.encode({1,2,3,{a=1}})"),
      eval("return cjson.decode('{\"a\":[1,2]}').a[2]"),
      eval("return cjson.encode(0/0)"),
      eval("return _VERSION"),
      eval("return tostring(1e15)"),
      eval("return tostring(0.1)"),
      eval("return string.format('%q', 'a\\0b')"),
      eval("return pcall(error)"),
      // the redis API
      eval("return redis.sha1hex('')"),
      eval("return redis.sha1hex('abc')"),
      eval("return redis.sha1hex()"),
      eval("return redis.log(redis.LOG_WARNING, 'from', 'lua')"),
      eval("return redis.log()"),
      eval("return redis.log('x', 'y')"),
      eval("return redis.log(9, 'y')"),
      eval("return redis.setresp()"),
      eval("return redis.setresp(4)"),
      eval("return redis.set_repl()"),
      eval("return redis.set_repl(9)"),
      eval("return redis.set_repl(redis.REPL_ALL)"),
      eval("return redis.replicate_commands()"),
      eval("return redis.breakpoint()"),
      eval("return redis.debug('x')"),
      eval("return redis.REDIS_VERSION"),
      eval("return redis.REDIS_VERSION_NUM"),
      eval("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
      eval("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, "
           "redis.REPL_ALL}"),
      // math.random: rand48 from the server's start (this test's first random draws)
      eval("return tostring(math.random())"),
      eval("return math.random(100)"),
      eval("math.randomseed(42) return {tostring(math.random()), math.random(10)}"),
      eval("return math.random(5, 1)"),
      // cmsgpack and struct
      eval("return cmsgpack.pack({1, 2, 3})"),
      eval("return cmsgpack.pack({a=1})"),
      eval("return cmsgpack.pack(1.5, -1, -33, 300, 70000, 5000000000, 'x', true, false)"),
      eval("return {cmsgpack.unpack(cmsgpack.pack({1, {2, 3}}, 'x', 7))}"),
      eval("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}"),
      eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"),
      eval("return cmsgpack.unpack('\\196')"),
      eval("return cmsgpack.unpack('\\205\\1')"),
      eval("return cmsgpack.pack()"),
      eval("return {cmsgpack.pack(0,127,128,255,256,65535,65536,4294967295,4294967296,-1,-32,"
           "-33,-128,-129,-32768,-32769,-2147483648,-2147483649), cmsgpack.pack(1.5, 0.1, "
           "string.rep('a',31), string.rep('b',32), string.rep('c', 70000)), cmsgpack.pack({}), "
           "cmsgpack.pack({1,2}), cmsgpack.pack({a={b=1}}), cmsgpack.pack({[1]=1, [3]=3})}"),
      eval("return {struct.pack('<i2 >I3 b B h H l L T', -2, 196610, -1, 255, -300, 300, -5, 5, "
           "7), struct.pack('!4 b i4 d', 1, 2, 0.5), struct.pack('c3 s', 'abcdef', 'xy'), "
           "struct.pack('>f d', 1.5, -2.25), struct.unpack('<I8', struct.pack('<I8', 2^53))}"),
      eval("return struct.pack('>I2i4', 258, -2)"),
      eval("return {struct.unpack('<h', '\\255\\255')}"),
      eval("return struct.size('>!4 b i4 d')"),
      eval("return struct.pack('s', 'ab')"),
      eval("return struct.pack('y', 1)"),
      // numkeys, shebang, NOSCRIPT, SCRIPT
      {"EVAL", "return 1", "x"},
      {"EVAL", "return 1", "2", "a"},
      {"EVAL", "return 1", "-1"},
      {"EVAL", "return 1"},
      eval("#!lua\nreturn 1"),
      eval("#!lua"),
      eval("#!\nreturn 1"),
      eval("#!nolua\nreturn 1"),
      eval("#!lua flags=bad\nreturn 1"),
      eval("#!lua foo=bar\nreturn 1"),
      eval("#!lua flags=no-writes\nreturn redis.call('set','k',1)"),
      eval("#!lua flags=no-writes,allow-oom\nreturn redis.call('get','k')"),
      eval("#!lua\nreturn redis.call('set','k',1)"),
      {"EVAL_RO", "return redis.call('set','k',1)", "0"},
      {"EVAL_RO", "return redis.call('get','k')", "0"},
      {"EVAL_RO", "#!lua\nreturn 1", "0"},
      {"EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"},
      {"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
      {"EVALSHA", "abc", "0"},
      {"SCRIPT", "LOAD", "return 'loaded'"},
      {"EVALSHA", "4b0c5ebb0b7e8ab1e5e3c3ad3d9a9c1d0f62f8e6", "0"},
      {"SCRIPT", "EXISTS", "ffffffffffffffffffffffffffffffffffffffff"},
      {"SCRIPT", "LOAD", "x ="},
      {"SCRIPT", "LOAD", "#!nolua\n"},
      {"SCRIPT", "FLUSH", "bad"},
      {"SCRIPT", "FLUSH", "sync", "x"},
      {"SCRIPT"},
      {"SCRIPT", "nosuch"},
      {"SCRIPT", "KILL"},
      {"SCRIPT", "KILL", "x"},
      {"SCRIPT", "HELP"},
      {"SCRIPT", "LOAD"},
      {"SCRIPT", "EXISTS"},
      {"COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c"},
  };
  return all;
}

TEST(ScriptOracle, RepliesMatchRedisByteForByte) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  for (const bool resp3 : {false, true}) {
    RespClient a(listd.port());
    RespClient b(redis.port());
    if (resp3) {
      a.call({"HELLO", "3"});
      b.call({"HELLO", "3"});
    }
    for (const Args& request : cases()) {
      a.call({"FLUSHALL"});
      b.call({"FLUSHALL"});
      std::string what;
      for (const std::string& s : request) what += s + " ";
      EXPECT_EQ(a.call(request), b.call(request)) << (resp3 ? "RESP3: " : "RESP2: ") << what;
    }
  }
}

// EVALSHA of a SCRIPT LOADed body, SCRIPT EXISTS in both cases, SCRIPT FLUSH forgetting it.
TEST(ScriptOracle, CacheLifecycleMatchesRedis) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  RespClient a(listd.port());
  RespClient b(redis.port());
  const std::vector<Args> steps = {
      {"SCRIPT", "LOAD", "return ARGV[1]"},
      {"EVALSHA", "A8C5C2E57A8D0F3EBE4C2B07E9A41CC5FCDF6D3B", "0", "x"},
      {"SCRIPT", "EXISTS", "a8c5c2e57a8d0f3ebe4c2b07e9a41cc5fcdf6d3b",
       "A8C5C2E57A8D0F3EBE4C2B07E9A41CC5FCDF6D3B", "0"},
      {"EVAL", "return 2", "0"},
      {"SCRIPT", "EXISTS", "7f923f79fe76194c868d7e1d0820de36700eb649"},
      {"SCRIPT", "FLUSH"},
      {"SCRIPT", "EXISTS", "a8c5c2e57a8d0f3ebe4c2b07e9a41cc5fcdf6d3b"},
      {"EVALSHA", "a8c5c2e57a8d0f3ebe4c2b07e9a41cc5fcdf6d3b", "0", "x"},
      {"SCRIPT", "FLUSH", "ASYNC"},
      {"MULTI"},
      {"EVAL", "return redis.call('incr', KEYS[1])", "1", "m"},
      {"EVAL", "return redis.call('incr', KEYS[1])", "1", "m"},
      {"EXEC"},
      {"EVAL", "redis.call('select', 3) return redis.call('set', 'x', 1)", "0"},
      {"GET", "x"},
      {"SELECT", "3"},
      {"GET", "x"},
  };
  for (const Args& request : steps) {
    std::string what;
    for (const std::string& s : request) what += s + " ";
    EXPECT_EQ(a.call(request), b.call(request)) << what;
  }
}

// MONITOR: the EVAL, then each command the script ran as a "[<db> lua]" line (the timestamp
// and the caller's address differ between the servers and are cut).
std::vector<std::string> monitor_lines(int port) {
  RespClient monitor(port);
  RespClient caller(port);
  EXPECT_EQ(monitor.call({"MONITOR"}), "+OK\r\n");
  caller.call({"EVAL",
               "redis.call('set', KEYS[1], 'v') redis.call('select', 2) "
               "return redis.call('get', KEYS[1])",
               "1", "k"});
  caller.call({"PING", "end"});
  std::vector<std::string> lines;
  for (int i = 0; i < 10 && (lines.empty() || lines.back().find("\"end\"") == std::string::npos);
       ++i) {
    std::string line = monitor.read_reply();
    const std::size_t open = line.find('[');
    const std::size_t space = line.find(' ', open);
    const std::size_t close = line.find(']', open);
    std::string who = line.substr(space + 1, close - space - 1);
    if (who != "lua") who = "caller";
    lines.push_back(line.substr(open, space - open) + " " + who + line.substr(close));
  }
  return lines;
}

TEST(ScriptOracle, MonitorShowsScriptCommandsAsLuaLines) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  const std::vector<std::string> got = monitor_lines(listd.port());
  EXPECT_EQ(got, monitor_lines(redis.port()));
  EXPECT_EQ(got.size(), 5u);
}

}  // namespace
}  // namespace listd::testing
