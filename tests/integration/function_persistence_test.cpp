// Functions persist as in Redis 7.0 (SCRIPTING.md §1.11): FUNCTION LOAD/DELETE are logged as
// called and FCALL as its effects (the incr AOF compared with redis-server's), both servers
// replay their AOF on restart and keep the libraries through BGREWRITEAOF's base; a listd
// dump.rdb with functions (opcode 245) loads into redis-server 7.0.15 and Redis' own back.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/logged_server.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;

const std::string kLib1 =
    "#!lua name=lib1\n"
    "redis.register_function('push2', function(k, a)\n"
    "  redis.call('rpush', k[1], a[1]) return redis.call('rpush', k[1], a[2]) end)";
const std::string kLib1v2 =
    "#!lua name=lib1\n"
    "redis.register_function{function_name='push1', callback=function(k, a)\n"
    "  return redis.call('rpush', k[1], a[1]) end, description='one push'}";

const std::vector<Args>& requests() {
  static const std::vector<Args> all = {
      {"FUNCTION", "LOAD", kLib1},
      {"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('two', function() end)"},
      {"FCALL", "push2", "1", "q", "a", "b"},
      {"FUNCTION", "DELETE", "lib2"},
      {"FUNCTION", "LOAD", "REPLACE", kLib1v2},
      {"FCALL", "push1", "1", "q", "c"},
      {"FUNCTION", "LOAD", "bad"},
  };
  return all;
}

std::string text(const ReplyPtr& r) {
  if (!r) return "<none>";
  if (r->type == REDIS_REPLY_INTEGER) return ":" + std::to_string(r->integer);
  if (r->type == REDIS_REPLY_ARRAY) {
    std::string s = "[";
    for (std::size_t i = 0; i < r->elements; ++i) {
      const redisReply* e = r->element[i];
      if (e->type == REDIS_REPLY_ARRAY) {
        s += "[";
        for (std::size_t j = 0; j < e->elements; ++j)
          s += e->element[j]->str ? std::string(e->element[j]->str, e->element[j]->len) + ","
                                  : std::to_string(e->element[j]->elements) + ",";
        s += "],";
      } else {
        s += (e->str ? std::string(e->str, e->len) : std::to_string(e->integer)) + ",";
      }
    }
    return s + "]";
  }
  return std::to_string(r->type) + ":" + (r->str ? std::string(r->str, r->len) : "");
}

// What the data looks like: the library with its code, the list.
std::vector<std::string> state(redisContext* c) {
  return {text(command(c, {"FUNCTION", "LIST", "WITHCODE"})),
          text(command(c, {"LRANGE", "q", "0", "-1"})),
          text(command(c, {"FCALL", "push1", "1", "probe", "x"}))};
}

std::string info_field(redisContext* c, const std::string& field) {
  ReplyPtr r = command(c, {"INFO", "persistence"});
  const std::string info(r->str, r->len);
  const auto at = info.find(field + ":");
  if (at == std::string::npos) return "";
  return info.substr(at + field.size() + 1, info.find("\r\n", at) - at - field.size() - 1);
}

void restart(LoggedServer& s, bool redis) {
  s.conn.reset();
  s.waiter.reset();
  ASSERT_EQ(s.server->stop(), 0);
  s.server.reset();
  const Args args{"--dir", s.dir.string(), "--appendonly", "yes", "--appendfsync", "always"};
  s.server.emplace(redis ? ServerProcess::start_redis(args) : ServerProcess::start_listd(args));
  s.conn.reset(s.server->connect());
}

struct Outcome {
  std::vector<std::string> replies;
  std::vector<AofArgs> effects;
  std::vector<std::string> after_restart;
  std::vector<std::string> after_rewrite;
};

Outcome run_on(bool redis) {
  Outcome run;
  LoggedServer s(redis);
  for (const Args& a : requests()) run.replies.push_back(text(command(s.conn.get(), a)));
  run.effects = s.effects();
  restart(s, redis);
  run.after_restart = state(s.conn.get());
  EXPECT_EQ(text(command(s.conn.get(), {"BGREWRITEAOF"})),
            "5:Background append only file rewriting started");
  for (int i = 0; i < 1000 && (info_field(s.conn.get(), "aof_rewrite_in_progress") != "0" ||
                               info_field(s.conn.get(), "aof_rewrite_scheduled") != "0");
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(info_field(s.conn.get(), "aof_last_bgrewrite_status"), "ok");
  restart(s, redis);
  run.after_rewrite = state(s.conn.get());
  return run;
}

TEST(FunctionPersistence, AofLogsReplaysAndRewritesFunctionsAsRedis) {
  const Outcome listd = run_on(false);
  if (HasFatalFailure()) return;
  const Outcome redis = run_on(true);
  if (HasFatalFailure()) return;
  EXPECT_EQ(listd.replies, redis.replies);
  ASSERT_GE(redis.effects.size(), 8u);
  EXPECT_EQ(listd.effects, redis.effects);
  EXPECT_EQ(listd.after_restart, redis.after_restart);
  EXPECT_EQ(listd.after_rewrite, redis.after_rewrite);
  EXPECT_NE(listd.after_rewrite[0].find("one push"), std::string::npos) << listd.after_rewrite[0];
}

TEST(FunctionPersistence, DumpRdbWithFunctionsLoadsIntoRedisAndBack) {
  const auto dir = LoggedServer::make_dir(false);
  const Args args{"--dir", dir.string(), "--dbfilename", "dump.rdb"};
  std::vector<std::string> listd_state;
  {
    ServerProcess p = ServerProcess::start_listd(args);
    ContextPtr c(p.connect());
    ASSERT_EQ(text(command(c.get(), {"FUNCTION", "LOAD", kLib1v2})), "1:lib1");
    ASSERT_EQ(text(command(c.get(), {"RPUSH", "q", "a"})), ":1");
    listd_state = state(c.get());
    ASSERT_EQ(text(command(c.get(), {"SAVE"})), "5:OK");
  }
  std::vector<std::string> redis_state;
  {
    ServerProcess redis = ServerProcess::start_redis(args);
    ContextPtr c(redis.connect());
    redis_state = state(c.get());
    listd_state[2] = ":2";  // redis' probe push follows the one listd saved
    // Redis writes its own dump (RDB 10, the code LZF-compressed); listd loads it back.
    ASSERT_EQ(text(command(c.get(), {"SAVE"})), "5:OK");
  }
  EXPECT_EQ(redis_state, listd_state);
  ServerProcess back = ServerProcess::start_listd(args);
  ContextPtr c(back.connect());
  EXPECT_EQ(text(command(c.get(), {"FUNCTION", "LIST", "WITHCODE"})), listd_state[0]);
  EXPECT_EQ(text(command(c.get(), {"LRANGE", "probe", "0", "-1"})), "[x,x,]");
  c.reset();
  EXPECT_EQ(back.stop(), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace listd::testing
