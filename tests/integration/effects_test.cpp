// The effect stream against Redis' own: one command script runs on a real listd and a real
// redis-server 7.0.15, both with appendonly yes, and their incr AOF files must hold the same
// commands (a deadline computed from a relative time may differ by the two servers' clocks).
// Served waiters are ordered by polling INFO blocked_clients, never by sleeping.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/logged_server.h"
#include "support/server_process.h"

using listd::testing::blocked_clients;
using listd::testing::command;
using listd::testing::ContextPtr;
using listd::testing::LoggedServer;
using listd::testing::ReplyPtr;
using listd::testing::ServerProcess;
using listd::testing::wait_blocked;
using Args = std::vector<std::string>;

namespace {

/// Sends without reading the reply (a command that blocks).
void send_only(redisContext* c, const Args& args) {
  listd::testing::append_command(c, args);
  int done = 0;
  while (!done) ASSERT_EQ(redisBufferWrite(c, &done), REDIS_OK);
}

/// The script: every command whose effect is not its argv, in the shapes whose outcome does
/// not depend on randomness or on when a key expires, plus waiters served by a later push.
void run_script(LoggedServer& s) {
  redisContext* c = s.conn.get();
  const std::vector<Args> script = {
      {"SET", "plain", "v"},
      {"SET", "ex", "v", "EX", "100", "GET"},
      {"SET", "pxat", "v", "PXAT", "4102444800600", "NX"},
      {"SET", "keep", "v", "KEEPTTL"},
      {"SET", "g", "v", "GET", "XX"},
      {"SET", "g", "v", "get"},
      {"GETSET", "g", "w"},
      {"SETEX", "sx", "100", "v"},
      {"PSETEX", "psx", "100000", "v"},
      {"EXPIRE", "plain", "100"},
      {"PEXPIRE", "keep", "100000", "NX"},
      {"EXPIREAT", "sx", "4102444800"},
      {"PEXPIREAT", "psx", "4102444800123", "XX"},
      {"EXPIRE", "keep", "-5"},
      {"GETEX", "ex", "PERSIST"},
      {"GETEX", "plain", "EX", "50"},
      {"GETEX", "sx", "PXAT", "4102444800999"},
      {"GETDEL", "pxat"},
      {"SET", "f", "1.5"},
      {"INCRBYFLOAT", "f", "2.25"},
      {"HSET", "h", "a", "1"},
      {"HINCRBYFLOAT", "h", "a", "0.5"},
      {"SADD", "s", "a", "b", "c"},
      {"SPOP", "s", "3"},
      {"SADD", "one", "m"},
      {"SPOP", "one"},
      {"RPUSH", "l", "a", "b", "c", "d", "e", "f"},
      {"LMPOP", "2", "none", "l", "LEFT", "COUNT", "2"},
      {"BLPOP", "none", "l", "0"},
      {"BRPOP", "l", "0"},
      {"BLMOVE", "l", "d", "right", "left", "0"},
      {"BRPOPLPUSH", "l", "d", "0"},
      {"RPUSH", "l2", "a", "b"},
      {"BLMPOP", "0", "1", "l2", "RIGHT", "COUNT", "5"},
      {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"},
      {"ZMPOP", "1", "z", "MAX", "COUNT", "2"},
      {"BZPOPMIN", "z", "0"},
      {"BZMPOP", "0", "1", "z", "MIN", "COUNT", "5"},
      {"MULTI"},
      {"SET", "t", "1"},
      {"GET", "t"},
      {"EXEC"},
      {"MULTI"},
      {"INCR", "t"},
      {"SELECT", "2"},
      {"INCR", "t"},
      {"EXEC"},
      {"SELECT", "0"},
  };
  for (const Args& a : script) {
    ReplyPtr r = command(c, a);
    ASSERT_TRUE(r) << a[0];
    ASSERT_NE(r->type, REDIS_REPLY_ERROR) << a[0] << ": " << std::string(r->str, r->len);
  }
  // Waiters served by a push: each a unit of its own, logged after the push.
  redisContext* w = s.waiter.get();
  const std::vector<std::pair<Args, Args>> served = {
      {{"BLPOP", "q1", "0"}, {"RPUSH", "q1", "j"}},
      {{"BLMOVE", "q2", "proc", "LEFT", "RIGHT", "0"}, {"RPUSH", "q2", "j"}},
      {{"BRPOPLPUSH", "q3", "proc", "0"}, {"RPUSH", "q3", "j"}},
      {{"BLMPOP", "0", "1", "q4", "LEFT", "COUNT", "3"}, {"RPUSH", "q4", "a", "b"}},
      {{"BZPOPMAX", "zq", "0"}, {"ZADD", "zq", "1", "a", "2", "b"}},
      {{"BZMPOP", "0", "1", "zq2", "MIN", "COUNT", "9"}, {"ZADD", "zq2", "1", "a", "2", "b"}},
  };
  for (const auto& [block, push] : served) {
    send_only(w, block);
    ASSERT_TRUE(wait_blocked(c, 1)) << "blocked_clients never reached 1";
    ReplyPtr r = command(c, push);
    ASSERT_TRUE(r && r->type == REDIS_REPLY_INTEGER) << push[0];
    void* reply = nullptr;
    ASSERT_EQ(redisGetReply(w, &reply), REDIS_OK);
    ReplyPtr served_reply(static_cast<redisReply*>(reply));
    ASSERT_NE(served_reply->type, REDIS_REPLY_ERROR) << block[0];
    ASSERT_NE(served_reply->type, REDIS_REPLY_NIL) << block[0];
  }
  ASSERT_EQ(blocked_clients(c), 0);
}

/// A deadline is the same command's argument on both sides; a relative one may differ by the
/// two servers' clocks (they ran the command at slightly different moments).
bool same_effect(const Args& a, const Args& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    const bool deadline = i > 0 && (a[i - 1] == "PXAT" || (a[0] == "PEXPIREAT" && i == 2));
    if (!deadline) return false;
    if (std::llabs(std::atoll(a[i].c_str()) - std::atoll(b[i].c_str())) > 5000) return false;
  }
  return true;
}

TEST(Effects, EffectsMatchRedisAof) {
  std::vector<Args> got, want;
  {
    LoggedServer listd(false);
    run_script(listd);
    if (HasFatalFailure()) return;
    got = listd.effects();
  }
  {
    LoggedServer redis(true);
    run_script(redis);
    if (HasFatalFailure()) return;
    want = redis.effects();
  }
  ASSERT_GT(want.size(), 40u);
  const std::size_t n = std::max(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Args empty;
    const Args& g = i < got.size() ? got[i] : empty;
    const Args& w = i < want.size() ? want[i] : empty;
    EXPECT_TRUE(same_effect(g, w)) << "effect " << i << ": listd " << ::testing::PrintToString(g)
                                   << ", redis " << ::testing::PrintToString(w);
  }
}

}  // namespace
