// INFO keyspace_hits / keyspace_misses against a real redis-server 7.0.15: Redis counts them
// for read lookups only (lookupKeyRead), never for writes (lookupKeyWrite). The same script of
// reads and writes on present and missing keys runs on both servers; after every command the
// two counters must have moved alike.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/server_process.h"

using listd::testing::command;
using listd::testing::ContextPtr;
using listd::testing::ReplyPtr;
using listd::testing::ServerProcess;
using Args = std::vector<std::string>;

namespace {

std::pair<long long, long long> hits_and_misses(redisContext* c) {
  ReplyPtr r = command(c, {"INFO", "stats"});
  const std::string info(r->str, r->len);
  auto field = [&](const std::string& name) {
    const auto at = info.find(name + ":");
    return at == std::string::npos ? -1 : std::atoll(info.c_str() + at + name.size() + 1);
  };
  return {field("keyspace_hits"), field("keyspace_misses")};
}

// Each family's reads and writes, on a key that exists and on one that does not.
const std::vector<Args>& script() {
  static const std::vector<Args> s = {
      // Lists
      {"LPUSH", "l", "a", "b", "c"},
      {"RPUSH", "l", "d"},
      {"LPUSHX", "nol", "x"},
      {"LPOP", "l"},
      {"RPOP", "nol"},
      {"LRANGE", "l", "0", "-1"},
      {"LRANGE", "nol", "0", "-1"},
      {"LINDEX", "l", "0"},
      {"LLEN", "l"},
      {"LLEN", "nol"},
      {"LSET", "l", "0", "z"},
      {"LINSERT", "l", "BEFORE", "z", "y"},
      {"LREM", "l", "0", "y"},
      {"LTRIM", "l", "0", "5"},
      {"LPOS", "l", "z"},
      {"LMOVE", "l", "l2", "LEFT", "RIGHT"},
      {"RPOPLPUSH", "nol", "l2"},
      {"LMPOP", "2", "nol", "l", "LEFT"},
      {"BLPOP", "nol", "l2", "1"},
      {"BRPOP", "l", "1"},
      {"RPUSH", "l2", "x"},
      {"BLMOVE", "l2", "l3", "LEFT", "LEFT", "1"},
      // Strings
      {"SET", "s", "v"},
      {"GET", "s"},
      {"GET", "nos"},
      {"SET", "s", "w", "GET"},
      {"SETNX", "s", "x"},
      {"GETSET", "s", "y"},
      {"APPEND", "s", "z"},
      {"STRLEN", "s"},
      {"GETRANGE", "s", "0", "1"},
      {"SETRANGE", "s", "1", "q"},
      {"INCR", "n"},
      {"INCRBY", "n", "2"},
      {"INCRBYFLOAT", "f", "1.5"},
      {"MGET", "s", "nos"},
      {"MSET", "a", "1", "b", "2"},
      {"MSETNX", "c", "1"},
      {"GETEX", "s", "EX", "100"},
      {"GETDEL", "a"},
      {"GETDEL", "nos"},
      // Keyspace and expiry
      {"EXISTS", "s", "nos"},
      {"TYPE", "s"},
      {"TYPE", "nos"},
      {"TTL", "s"},
      {"PTTL", "nos"},
      {"EXPIRE", "s", "100"},
      {"PERSIST", "s"},
      {"PEXPIRE", "nos", "100"},
      {"DEL", "b", "nos"},
      {"RENAME", "s", "s2"},
      {"COPY", "s2", "s3"},
      {"MOVE", "s3", "1"},
      {"TOUCH", "s2", "nos"},
      {"OBJECT", "ENCODING", "s2"},
      // Hashes
      {"HSET", "h", "f", "1", "g", "2"},
      {"HGET", "h", "f"},
      {"HGET", "noh", "f"},
      {"HSETNX", "h", "f", "3"},
      {"HDEL", "h", "g"},
      {"HDEL", "noh", "g"},
      {"HINCRBY", "h", "f", "1"},
      {"HINCRBYFLOAT", "h", "f", "0.5"},
      {"HGETALL", "h"},
      {"HLEN", "noh"},
      {"HEXISTS", "h", "f"},
      {"HMGET", "h", "f", "x"},
      {"HKEYS", "h"},
      {"HSTRLEN", "h", "f"},
      // Sets
      {"SADD", "st", "a", "b", "c"},
      {"SREM", "st", "a"},
      {"SREM", "nost", "a"},
      {"SISMEMBER", "st", "b"},
      {"SCARD", "nost"},
      {"SMEMBERS", "st"},
      {"SMOVE", "st", "st2", "b"},
      {"SPOP", "st"},
      {"SADD", "st", "x", "y"},
      {"SINTER", "st", "st2"},
      {"SUNIONSTORE", "st3", "st", "st2"},
      {"SDIFFSTORE", "st4", "st", "nost"},
      {"SRANDMEMBER", "st"},
      // Sorted sets
      {"ZADD", "z", "1", "a", "2", "b", "3", "c"},
      {"ZINCRBY", "z", "1", "a"},
      {"ZREM", "z", "c"},
      {"ZREM", "noz", "c"},
      {"ZSCORE", "z", "a"},
      {"ZRANGE", "z", "0", "-1"},
      {"ZCARD", "noz"},
      {"ZRANK", "z", "b"},
      {"ZCOUNT", "z", "0", "10"},
      {"ZPOPMIN", "z"},
      {"ZMPOP", "1", "z", "MAX"},
      {"ZADD", "z", "1", "a"},
      {"BZPOPMIN", "noz", "z", "1"},
      {"ZREMRANGEBYSCORE", "noz", "0", "1"},
  };
  return s;
}

TEST(KeyspaceStats, HitsAndMissesMoveAsInRedis) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  ContextPtr l(listd.connect());
  ContextPtr r(redis.connect());
  auto [lh, lm] = hits_and_misses(l.get());
  auto [rh, rm] = hits_and_misses(r.get());
  int mismatches = 0;
  for (const Args& cmd : script()) {
    ReplyPtr a = command(l.get(), cmd);
    ReplyPtr b = command(r.get(), cmd);
    ASSERT_TRUE(a && b) << cmd[0];
    ASSERT_EQ(a->type, b->type) << ::testing::PrintToString(cmd);
    const auto [lh2, lm2] = hits_and_misses(l.get());
    const auto [rh2, rm2] = hits_and_misses(r.get());
    if (lh2 - lh != rh2 - rh || lm2 - lm != rm2 - rm) {
      ++mismatches;
      ADD_FAILURE() << ::testing::PrintToString(cmd) << ": listd hits +" << lh2 - lh << " misses +"
                    << lm2 - lm << ", redis hits +" << rh2 - rh << " misses +" << rm2 - rm;
    }
    lh = lh2, lm = lm2, rh = rh2, rm = rm2;
  }
  EXPECT_GT(rh, 30) << "the script must exercise hits";
  EXPECT_GT(rm, 10) << "and misses";
  EXPECT_EQ(mismatches, 0);
  l.reset();
  r.reset();
  EXPECT_EQ(listd.stop(), 0);
}

}  // namespace
