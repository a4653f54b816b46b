// The executor's own rules: lookup, arity, unknown commands, AUTH, MULTI queueing, HELLO and
// RESP3, CLIENT/CONFIG/COMMAND introspection. Expected bytes as Redis 7.0.15 sends them.
#include <gtest/gtest.h>

#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

TEST(Executor, UnknownCommandQuotesArgsWithTrailingSpace) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"foo", "a", "b"}),
            "-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n");
  EXPECT_EQ(t.run(c, {"NOPE"}), "-ERR unknown command 'NOPE', with args beginning with: \r\n");
  EXPECT_EQ(t.run(c, {"nope", "a\r\nb"}),
            "-ERR unknown command 'nope', with args beginning with: 'a  b' \r\n");
  const std::string long_arg(200, 'x');
  const std::string out = t.run(c, {"nope", long_arg, "y"});
  EXPECT_EQ(out, "-ERR unknown command 'nope', with args beginning with: '" +
                     std::string(128, 'x') + "' \r\n");
}

TEST(Executor, CommandNamesAreCaseInsensitiveAndArityUsesLowerCase) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"PiNg"}), "+PONG\r\n");
  EXPECT_EQ(t.run(c, {"ECHO"}), "-ERR wrong number of arguments for 'echo' command\r\n");
  EXPECT_EQ(t.run(c, {"client", "setname"}),
            "-ERR wrong number of arguments for 'client|setname' command\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "nosuch"}),
            "-ERR unknown subcommand 'nosuch'. Try CLIENT HELP.\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT"}), "-ERR wrong number of arguments for 'client' command\r\n");
}

// execute() remembers the last command found: repeated, re-cased, prefixed and container names
// must still resolve to the right command (and stats must land on it).
TEST(Executor, RepeatedCommandNamesResolveThroughTheLookupCache) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"LPUSH", "k", "a"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"lpush", "k", "b"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"LPUSHX", "k", "c"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"LPUS", "k", "c"}),
            "-ERR unknown command 'LPUS', with args beginning with: 'k' 'c' \r\n");
  EXPECT_EQ(t.run(c, {"lPush", "k", "d"}), ":4\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "ID"}).substr(0, 1), ":");
  EXPECT_EQ(t.run(c, {"client", "nosuch"}),
            "-ERR unknown subcommand 'nosuch'. Try CLIENT HELP.\r\n");
  const std::string stats = t.run(c, {"INFO", "commandstats"});
  EXPECT_NE(stats.find("cmdstat_lpush:calls=3,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("cmdstat_lpushx:calls=1,"), std::string::npos) << stats;
}

TEST(Executor, AuthGatesEveryCommandButAuthHelloQuit) {
  TestServer t(std::vector<std::pair<std::string, std::string>>{{"requirepass", "pw"}});
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"PING"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(t.run(c, {"AUTH", "bad"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(t.run(c, {"AUTH", "pw"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PING"}), "+PONG\r\n");
  auto& d = t.client();
  EXPECT_EQ(t.run(d, {"AUTH", "default", "pw"}), "+OK\r\n");
}

TEST(Executor, AuthWithoutPasswordConfigured) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"AUTH", "x"}),
            "-ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?\r\n");
  EXPECT_EQ(t.run(c, {"AUTH", "u", "p"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(t.run(c, {"AUTH", "a", "b", "c"}), "-ERR syntax error\r\n");
}

TEST(Executor, HelloSwitchesProtocolAndRepliesAMap) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"HELLO", "4"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(t.run(c, {"HELLO", "x"}),
            "-ERR Protocol version is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"HELLO", "3", "FOO"}), "-ERR Syntax error in HELLO option 'FOO'\r\n");
  const std::string id = std::to_string(c.id);
  EXPECT_EQ(
      t.run(c, {"HELLO", "3"}),
      "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n"
      "$2\r\nid\r\n:" +
          id +
          "\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
          "$7\r\nmodules\r\n*0\r\n");
  EXPECT_EQ(t.run(c, {"GET", "nokey"}), "_\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "appendonly"}), "%1\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
  EXPECT_EQ(t.run(c, {"RESET"}), "+RESET\r\n");
  EXPECT_EQ(t.run(c, {"GET", "nokey"}), "$-1\r\n");
}

TEST(Executor, BenchmarkConfigProbesAnswerPairs) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "save"}), "*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "appendonly"}), "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "nosuch"}), "*0\r\n");
}

TEST(Executor, MultiRulesMatchRedis) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"EXEC"}), "-ERR EXEC without MULTI\r\n");
  EXPECT_EQ(t.run(c, {"DISCARD"}), "-ERR DISCARD without MULTI\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"WATCH", "x"}), "-ERR WATCH inside MULTI is not allowed\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "-ERR MULTI calls can not be nested\r\n");
  EXPECT_EQ(t.run(c, {"PING"}), "+QUEUED\r\n");
  // Neither error above aborts the transaction (Redis 7.0.15 on the wire).
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n+PONG\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"NOSUCH"}), "-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"DISCARD"}), "+OK\r\n");
}

// Redis 7.0.15 on the wire: a rejected EXEC is wrapped in EXECABORT even outside MULTI.
TEST(Executor, ExecWithArgumentsOutsideMultiIsExecAbort) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"EXEC", "x"}),
            "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "-ERR EXEC without MULTI\r\n");
}

// PING has arity -1 (it queues in MULTI) and rejects a second message in its handler.
TEST(Executor, PingWithTwoMessagesIsAnArityError) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"PING", "a"}), "$1\r\na\r\n");
  EXPECT_EQ(t.run(c, {"PING", "a", "b"}), "-ERR wrong number of arguments for 'ping' command\r\n");
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"PING", "a", "b"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(c, {"EXEC"}), "*1\r\n-ERR wrong number of arguments for 'ping' command\r\n");
}

TEST(Executor, ClientNameListAndReplyModes) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"CLIENT", "GETNAME"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "SETNAME", "a b"}),
            "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "SETNAME", "worker-1"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "GETNAME"}), "$8\r\nworker-1\r\n");
  const std::string list = t.run(c, {"CLIENT", "LIST"});
  EXPECT_NE(list.find("name=worker-1 "), std::string::npos) << list;
  EXPECT_NE(list.find(" flags=N "), std::string::npos);
  EXPECT_NE(list.find(" cmd=client|list "), std::string::npos);
  EXPECT_NE(list.find(" resp=2"), std::string::npos);
  EXPECT_EQ(t.run(c, {"CLIENT", "SETINFO", "LIB-NAME", "redis-py"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(t.run(c, {"PING"}), "");
  EXPECT_EQ(t.run(c, {"CLIENT", "REPLY", "ON"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(t.run(c, {"PING"}), "");
  EXPECT_EQ(t.run(c, {"PING"}), "+PONG\r\n");
}

TEST(Executor, ClientKillClosesTheTarget) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  EXPECT_EQ(t.run(a, {"CLIENT", "KILL", "ID", std::to_string(b.id)}), ":1\r\n");
  EXPECT_TRUE(b.close_after_reply);
  const auto kills = t.exec().clients().take_kill_list();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0], &b);
  EXPECT_EQ(t.run(a, {"CLIENT", "KILL", "1.2.3.4:5"}), "-ERR No such client\r\n");
}

// The movable keys and the error order of COMMAND GETKEYS, replies taken from redis-server 7.0.15.
TEST(Executor, CommandGetkeysMovableKeys) {
  TestServer t;
  auto& c = t.client();
  auto keys = [&](std::vector<std::string_view> argv) {
    argv.insert(argv.begin(), {"COMMAND", "GETKEYS"});
    return t.run(c, argv);
  };
  EXPECT_EQ(keys({"XREAD", "STREAMS", "s1", "s2", "0"}), "*1\r\n$2\r\ns1\r\n");
  EXPECT_EQ(keys({"XREAD", "BLOCK", "0", "COUNT", "1", "STREAMS", "a", "b", "c", "d"}),
            "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(keys({"XREADGROUP", "GROUP", "streams", "c", "STREAMS", "s1", "s2", ">", ">"}),
            "*2\r\n$2\r\ns1\r\n$2\r\ns2\r\n");
  EXPECT_EQ(keys({"XREAD", "COUNT", "1", "STREAMS"}),
            "-ERR Invalid arguments specified for command\r\n");
  EXPECT_EQ(keys({"XREAD", "COUNT", "1", "a", "b"}),
            "-ERR Invalid arguments specified for command\r\n");
  EXPECT_EQ(keys({"XREAD", "STREAMS", "a"}),
            "-ERR Invalid number of arguments specified for command\r\n");
  EXPECT_EQ(keys({"GEORADIUSBYMEMBER", "g", "m", "1", "km", "STOREDIST", "d", "STORE", "e"}),
            "*3\r\n$1\r\ng\r\n$1\r\ne\r\n$1\r\nd\r\n");
  EXPECT_EQ(keys({"GEORADIUS", "g", "0", "0", "1", "km", "STORE", "a", "STORE", "b"}),
            "*2\r\n$1\r\ng\r\n$1\r\na\r\n");
  EXPECT_EQ(keys({"GEORADIUS", "g", "0", "0", "1", "km", "STORE"}), "*1\r\n$1\r\ng\r\n");
  // Scripts have NO_MANDATORY_KEYS: no keys is an empty reply, not an error.
  EXPECT_EQ(keys({"EVAL", "x", "5", "a"}), "*0\r\n");
  EXPECT_EQ(keys({"FCALL", "f", "0"}), "*0\r\n");
  EXPECT_EQ(keys({"ZUNIONSTORE", "d", "0", "a"}),
            "-ERR Invalid arguments specified for command\r\n");
  EXPECT_EQ(keys({"LMPOP", "0", "a", "LEFT"}), "-ERR Invalid arguments specified for command\r\n");
  EXPECT_EQ(keys({"SSUBSCRIBE", "a", "b"}), "-ERR The command has no key arguments\r\n");
  EXPECT_EQ(keys({"PING", "x"}), "-ERR The command has no key arguments\r\n");
}

TEST(Executor, CommandIntrospection) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "ping", "x"}),
            "-ERR The command has no key arguments\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "get"}),
            "-ERR wrong number of arguments for 'command|getkeys' command\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "lpush", "k"}),
            "-ERR Invalid number of arguments specified for command\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "nosuch", "x"}), "-ERR Invalid command specified\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "GETKEYS", "mset", "a", "1", "b", "2"}),
            "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(t.run(c, {"COMMAND", "INFO", "nosuch"}), "*1\r\n$-1\r\n");
  const std::string info = t.run(c, {"COMMAND", "INFO", "get"});
  EXPECT_EQ(info.substr(0, 30), "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+rea");
  const std::string count = t.run(c, {"COMMAND", "COUNT"});
  EXPECT_EQ(count[0], ':');
}

TEST(Executor, SelectAndSwapdb) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"SELECT", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(t.run(c, {"SELECT", "x"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(t.run(c, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"SWAPDB", "0", "1"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"SELECT", "1"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(t.run(c, {"FLUSHALL"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":0\r\n");
}

TEST(Executor, InfoHasTheFieldsToolsRead) {
  TestServer t;
  auto& c = t.client();
  const std::string info = t.run(c, {"INFO"});
  for (const char* field :
       {"redis_version:7.0.15", "listd_version:", "connected_clients:1", "blocked_clients:0",
        "used_memory:", "loading:0",
        "total_commands_processed:", "total_connections_received:", "rdb_bgsave_in_progress:0",
        "aof_rewrite_in_progress:0", "total_blocking_keys:0", "# Keyspace"})
    EXPECT_NE(info.find(field), std::string::npos) << field;
  const std::string stats = t.run(c, {"INFO", "commandstats"});
  EXPECT_NE(stats.find("cmdstat_info:calls=1"), std::string::npos) << stats;
}

}  // namespace

namespace {

TEST(Executor, LmpopInvalidatesOnlyThePoppedKeyForWatch) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  EXPECT_EQ(t.run(b, {"RPUSH", "L", "x"}), ":1\r\n");
  EXPECT_EQ(t.run(a, {"WATCH", "K2"}), "+OK\r\n");
  EXPECT_EQ(t.run(b, {"LMPOP", "2", "L", "K2", "LEFT"}), "*2\r\n$1\r\nL\r\n*1\r\n$1\r\nx\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "*1\r\n+PONG\r\n");
}

TEST(Executor, RejectedExecEndsTheTransaction) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"EXEC", "x"}),
            "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command\r\n");
  EXPECT_EQ(t.run(c, {"DISCARD"}), "-ERR DISCARD without MULTI\r\n");
}

TEST(Executor, ErrorsQuoteArgumentsUpToTheirFirstNulByte) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"LINDEX_X", std::string_view("k\0\xff", 3), "-2"}),
            "-ERR unknown command 'LINDEX_X', with args beginning with: 'k' '-2' \r\n");
}

}  // namespace

namespace {

TEST(Executor, BlockingPopServedAtOnceInvalidatesOnlyItsKey) {
  TestServer t;
  auto& a = t.client();
  auto& b = t.client();
  EXPECT_EQ(t.run(b, {"RPUSH", "second", "x"}), ":1\r\n");
  EXPECT_EQ(t.run(a, {"WATCH", "first"}), "+OK\r\n");
  EXPECT_EQ(t.run(b, {"BLPOP", "first", "second", "0"}), "*2\r\n$6\r\nsecond\r\n$1\r\nx\r\n");
  EXPECT_EQ(t.run(a, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(a, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(a, {"EXEC"}), "*1\r\n+PONG\r\n");
}

// Redis 7 serves the waiters whose kind matches the key's type and skips the others.
TEST(Executor, ListWaiterAheadOfSortedSetWaiterDoesNotStarveIt) {
  TestServer t;
  auto& list_waiter = t.client();
  auto& zset_waiter = t.client();
  auto& producer = t.client();
  EXPECT_EQ(t.run(list_waiter, {"BLPOP", "k", "0"}), "");
  EXPECT_EQ(t.run(zset_waiter, {"BZPOPMIN", "k", "0"}), "");
  EXPECT_EQ(t.run(producer, {"ZADD", "k", "1", "m"}), ":1\r\n");
  EXPECT_EQ(t.take_output(zset_waiter), "*3\r\n$1\r\nk\r\n$1\r\nm\r\n$1\r\n1\r\n");
  EXPECT_TRUE(list_waiter.blocked());
  EXPECT_EQ(t.run(producer, {"RPUSH", "k2", "v"}), ":1\r\n");
  EXPECT_TRUE(list_waiter.blocked());
  EXPECT_EQ(t.run(producer, {"RPUSH", "k", "v"}), ":1\r\n");
  EXPECT_EQ(t.take_output(list_waiter), "*2\r\n$1\r\nk\r\n$1\r\nv\r\n");
  EXPECT_EQ(t.exec().blocking().waiters().blocked_count(), 0u);
}

}  // namespace

namespace {

// The idle-client policy (config `timeout`) is the executor's: net closes what cron names.
TEST(ExecutorCron, NamesClientsIdlePastTheTimeoutButNeverABlockedOne) {
  TestServer t(std::vector<std::pair<std::string, std::string>>{{"timeout", "5"}});
  auto& idle = t.client();
  auto& blocked = t.client();
  auto& active = t.client();
  t.run(blocked, {"BLPOP", "q", "0"});
  t.clock().advance_ms(4000);
  t.run(active, {"PING"});
  const std::uint64_t now = t.clock().monotonic_ms() + 1001;
  const auto close = t.exec().cron(now);
  EXPECT_EQ(close, std::vector<listd::server::Client*>{&idle});
  t.exec().blocking().end_wait(blocked);
}

TEST(ExecutorCron, NamesNobodyWithoutATimeout) {
  TestServer t;
  t.client();
  EXPECT_TRUE(t.exec().cron(t.clock().monotonic_ms() + 3'600'000).empty());
}

}  // namespace
