// The random script oracle: EVAL scripts built from fixed seeds out of 1-5 redis.call /
// redis.pcall steps on lists, hashes, sets, sorted sets and strings (three short keys, so types
// collide and WRONGTYPE errors come up), returned as a table, a single value, a number
// computed in Lua, or after redis.setresp(3); sent to listd and redis-server 7.0 and compared
// byte for byte (support/family_oracle.h); a second run logs the scripts' effects on both servers
// (appendonly yes) and compares the AOF files too. Keys stay under 32 bytes and no reply holds an
// unordered set or hash, whose order may differ (SCRIPTING.md §1.6). Never `error({})`.
//   FAMILY_ORACLE_SEED=7 FAMILY_ORACLE_STEPS=5000 integration_tests
//   --gtest_filter='RandomScriptOracle*'
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/family_oracle.h"
#include "support/logged_server.h"

namespace listd::testing {
namespace {

class ScriptGenerator {
 public:
  OracleArgs operator()(std::mt19937_64& r) {
    const int steps = 1 + pick(r, 5);
    std::string body = pick(r, 8) == 0 ? "redis.setresp(3)\n" : "";
    body += "local r = {}\n";
    for (int i = 0; i < steps; ++i) {
      const char* call = pick(r, 3) == 0 ? "redis.call" : "redis.pcall";
      body += "r[#r+1] = " + std::string(call) + "(" + command(r) + ")\n";
    }
    switch (pick(r, 5)) {
      case 0: body += "return r[#r]\n"; break;
      case 1: body += "return type(r[1]) == 'number' and r[1] * 1.5 or #r\n"; break;
      case 2: body += "return {#r, type(r[#r])}\n"; break;
      default: body += "return r\n";
    }
    OracleArgs eval{pick(r, 6) == 0 ? "EVAL_RO" : "EVAL", body, "3", "a", "b", "c"};
    for (int i = 0; i < 3; ++i) eval.push_back(value(r));
    return eval;
  }

 private:
  static int pick(std::mt19937_64& r, int n) { return static_cast<int>(r() % n); }
  static std::string key(std::mt19937_64& r) {
    return "KEYS[" + std::to_string(1 + pick(r, 3)) + "]";
  }
  static std::string arg(std::mt19937_64& r) {
    return "ARGV[" + std::to_string(1 + pick(r, 3)) + "]";
  }
  static std::string value(std::mt19937_64& r) {
    static const std::vector<std::string> kValues = {"1", "2", "10", "-3", "x", "y", "1.5", ""};
    return kValues[static_cast<std::size_t>(pick(r, static_cast<int>(kValues.size())))];
  }
  static std::string num(std::mt19937_64& r) { return std::to_string(pick(r, 7) - 2); }

  // One command's Lua arguments: a name and its arguments.
  static std::string command(std::mt19937_64& r) {
    const std::string k = key(r), a = arg(r), b = arg(r), n = num(r), m = num(r);
    switch (pick(r, 26)) {
      case 0: return "'rpush', " + k + ", " + a + ", " + b;
      case 1: return "'lpush', " + k + ", " + a;
      case 2: return "'lrange', " + k + ", " + n + ", " + m;
      case 3: return "'lpop', " + k;
      case 4: return "'rpop', " + k + ", 2";
      case 5: return "'llen', " + k;
      case 6: return "'lmove', " + k + ", " + key(r) + ", 'left', 'right'";
      case 7: return "'hset', " + k + ", " + a + ", " + b;
      case 8: return "'hget', " + k + ", " + a;
      case 9: return "'hincrby', " + k + ", 'f', " + n;
      case 10: return "'hlen', " + k;
      case 11: return "'sadd', " + k + ", " + a + ", " + b;
      case 12: return "'sismember', " + k + ", " + a;
      case 13: return "'scard', " + k;
      case 14: return "'srem', " + k + ", " + a;
      case 15: return "'zadd', " + k + ", " + n + ", " + a;
      case 16: return "'zrange', " + k + ", 0, -1, 'withscores'";
      case 17: return "'zscore', " + k + ", " + a;
      case 18: return "'zincrby', " + k + ", " + a + ", " + b;
      case 19: return "'set', " + k + ", " + a;
      case 20: return "'get', " + k;
      case 21: return "'incrby', " + k + ", " + n;
      case 22: return "'append', " + k + ", " + a;
      case 23: return "'del', " + k;
      case 24: return "'type', " + k;
      default: return "'exists', " + k + ", " + key(r);
    }
  }
};

TEST(RandomScriptOracle, RandomScriptsMatchRedisByteForByte) {
  run_family_oracle({1, 2, 3}, 400, [] { return OracleGenerator(ScriptGenerator()); });
}

// The same generator on two logging servers: replies and the incr AOF's commands must match.
std::pair<std::vector<std::string>, std::vector<AofArgs>> logged_run(bool redis) {
  LoggedServer s(redis);
  std::mt19937_64 rng(11);
  ScriptGenerator next;
  std::vector<std::string> replies;
  for (int i = 0; i < 300; ++i) {
    const OracleArgs cmd = next(rng);
    append_command(s.conn.get(), cmd);
    void* reply = nullptr;
    EXPECT_EQ(redisGetReply(s.conn.get(), &reply), REDIS_OK);
    ReplyPtr r(static_cast<redisReply*>(reply));
    replies.push_back(r && r->str ? std::string(r->str, r->len) : std::to_string(r ? r->type : -1));
  }
  return {replies, s.effects()};
}

TEST(RandomScriptOracle, RandomScriptsLogTheSameEffectsAsRedis) {
  const auto listd = logged_run(false);
  const auto redis = logged_run(true);
  EXPECT_EQ(listd.first, redis.first);
  ASSERT_GT(redis.second.size(), 100u);
  EXPECT_EQ(listd.second, redis.second);
}

}  // namespace
}  // namespace listd::testing
