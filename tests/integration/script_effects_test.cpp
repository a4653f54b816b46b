// What scripts write reaches the AOF as Redis 7.0 logs it (SCRIPTING.md §1.8): effects, never
// the EVAL; one write bare, several inside MULTI/EXEC; each rewritten as a client's command
// would be (SPOP -> SREM, INCRBYFLOAT -> SET KEEPTTL); SELECT inside the script; EVAL inside
// MULTI joining EXEC's wrapping; no rollback after an error; set_repl(REPL_NONE) logging
// nothing. A waiter blocked on a key the script pushes is served after the script, with the
// list's final state, and its pop is logged after the script's MULTI/EXEC. The same requests
// run on a real listd and a real redis-server 7.0.15; the replies and the AOF files must match.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/logged_server.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;

const std::vector<Args>& requests() {
  static const std::vector<Args> all = {
      {"EVAL", "return redis.call('rpush', KEYS[1], 'a')", "1", "q"},
      {"EVAL", "redis.call('rpush', KEYS[1], 'b') return redis.call('rpush', KEYS[1], 'c')", "1",
       "q"},
      {"SADD", "s", "m"},
      {"EVAL", "return redis.call('spop', 's')", "0"},
      {"SET", "f", "1.5"},
      {"EVAL", "return redis.call('incrbyfloat', 'f', '0.1')", "0"},
      {"EVAL", "return redis.call('PEXPIREAT', 'q', '4102444800000')", "0"},
      {"EVAL", "redis.call('select', 3) return redis.call('set', 'db3key', 'x')", "0"},
      {"MULTI"},
      {"EVAL", "return redis.call('lpush', 'm', 1)", "0"},
      {"SET", "after", "multi"},
      {"EXEC"},
      {"EVAL", "redis.call('rpush', 'w', 1) redis.call('rpush', 'w', 2) error('late')", "0"},
      {"EVAL", "redis.call('rpush', 'w2', 1) redis.call('incr', 'w2')", "0"},
      {"EVAL", "redis.set_repl(redis.REPL_NONE) return redis.call('set', 'quiet', 1)", "0"},
      {"GET", "quiet"},
      {"EVAL", "return redis.call('get', 'f')", "0"},
  };
  return all;
}

std::string as_text(const redisReply* r) {
  if (!r) return "<none>";
  switch (r->type) {
    case REDIS_REPLY_INTEGER: return ":" + std::to_string(r->integer);
    case REDIS_REPLY_NIL: return "<nil>";
    case REDIS_REPLY_ARRAY: {
      std::string s = "[";
      for (std::size_t i = 0; i < r->elements; ++i) s += as_text(r->element[i]) + ",";
      return s + "]";
    }
    default: return std::to_string(r->type) + ":" + std::string(r->str, r->len);
  }
}

struct Outcome {
  std::vector<std::string> replies;
  std::vector<AofArgs> effects;
};

// A BLPOP waiter, then a script pushing twice onto its key: the waiter gets the final head.
void serve_waiter(LoggedServer& s, Outcome& run) {
  redisContext* w = s.waiter.get();
  append_command(w, {"BLPOP", "jobs", "0"});
  int done = 0;
  while (!done) ASSERT_EQ(redisBufferWrite(w, &done), REDIS_OK);
  ASSERT_TRUE(wait_blocked(s.conn.get(), 1));
  ReplyPtr pushed = command(s.conn.get(), {"EVAL",
                                           "redis.call('lpush', KEYS[1], 'y') "
                                           "return redis.call('lpush', KEYS[1], 'z')",
                                           "1", "jobs"});
  run.replies.push_back(as_text(pushed.get()));
  void* reply = nullptr;
  ASSERT_EQ(redisGetReply(w, &reply), REDIS_OK);
  ReplyPtr served(static_cast<redisReply*>(reply));
  run.replies.push_back(as_text(served.get()));
  run.replies.push_back(as_text(command(s.conn.get(), {"LRANGE", "jobs", "0", "-1"}).get()));
}

Outcome run_on(bool redis) {
  Outcome run;
  LoggedServer s(redis);
  for (const Args& a : requests()) run.replies.push_back(as_text(command(s.conn.get(), a).get()));
  serve_waiter(s, run);
  run.effects = s.effects();
  return run;
}

TEST(ScriptEffects, RepliesAndAofMatchRedis) {
  const Outcome listd = run_on(false);
  if (HasFatalFailure()) return;
  const Outcome redis = run_on(true);
  if (HasFatalFailure()) return;
  EXPECT_EQ(listd.replies, redis.replies);
  ASSERT_GT(redis.effects.size(), 15u);
  EXPECT_EQ(listd.effects, redis.effects);
}

}  // namespace
}  // namespace listd::testing
