// The effect stream (effect_stream.h): execution units and their MULTI/EXEC wrapping, and the
// effect of every write command in the table. The expected effects are what Redis 7.0.15 writes
// to its AOF for the same commands (captured with a real redis-server; the integration test
// EffectsMatchRedisAof compares the two servers' files directly).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "listd/server/command_table.h"
#include "listd/server/effect_stream.h"
#include "support/fake_restore_target.h"
#include "support/test_server.h"

using listd::server::EffectConsumer;
using listd::server::EffectStream;
using listd::testing::TestServer;
using Effects = std::vector<std::vector<std::string>>;

namespace {

/// A consumer that records every effect, its database as a leading "db=N" word.
class Recorder final : public EffectConsumer {
 public:
  bool wants_effects() const noexcept override { return wanted; }
  void on_effect(int db, std::span<const std::string_view> argv) override {
    std::vector<std::string> e{"db=" + std::to_string(db)};
    e.insert(e.end(), argv.begin(), argv.end());
    seen.push_back(std::move(e));
  }
  /// The recorded effects without their db word (all in db 0), then forgets them.
  Effects take() {
    Effects out;
    for (auto& e : seen) out.emplace_back(e.begin() + 1, e.end());
    seen.clear();
    return out;
  }
  bool wanted = true;
  Effects seen;
};

TEST(EffectStream, AUnitOfOneEffectIsNotWrapped) {
  EffectStream s;
  Recorder r;
  s.subscribe(r);
  s.begin_unit();
  s.emit(0, {"SET", "a", "1"});
  s.end_unit();
  EXPECT_EQ(r.seen, (Effects{{"db=0", "SET", "a", "1"}}));
}

TEST(EffectStream, AUnitOfSeveralIsWrappedWithTheDbsOfItsEnds) {
  EffectStream s;
  Recorder r;
  s.subscribe(r);
  s.begin_unit();
  s.emit(2, {"DEL", "e"});
  s.begin_unit();  // nested (EXEC's queued commands): joins the outer unit
  s.emit(5, {"SET", "e", "2"});
  s.end_unit();
  EXPECT_TRUE(r.seen.empty()) << "nothing leaves before the outermost unit ends";
  s.end_unit();
  EXPECT_EQ(
      r.seen,
      (Effects{
          {"db=2", "MULTI"}, {"db=2", "DEL", "e"}, {"db=5", "SET", "e", "2"}, {"db=5", "EXEC"}}));
}

TEST(EffectStream, UnwrappableUnitsAndEffectsOutsideUnitsGoOneByOne) {
  EffectStream s;
  Recorder r;
  s.subscribe(r);
  s.emit(0, {"DEL", "x"});  // active expiry: no unit
  EXPECT_EQ(r.seen.size(), 1u);
  s.begin_unit(/*wrap_allowed=*/false);
  s.emit(0, {"DEL", "y"});
  s.emit(0, {"DEL", "z"});
  s.end_unit();
  EXPECT_EQ(r.seen, (Effects{{"db=0", "DEL", "x"}, {"db=0", "DEL", "y"}, {"db=0", "DEL", "z"}}));
}

TEST(EffectStream, NothingIsBufferedWhileNoConsumerWantsEffects) {
  EffectStream s;
  Recorder r;
  r.wanted = false;
  s.subscribe(r);
  EXPECT_FALSE(s.active());
  s.begin_unit();
  s.emit(0, {"SET", "a", "1"});
  r.wanted = true;
  s.end_unit();
  EXPECT_TRUE(r.seen.empty());
  s.unsubscribe(r);
  EXPECT_FALSE(s.active());
}

// ---- every write command's effect ----------------------------------------------------------

/// One command of the table with the state it needs and the effect Redis 7.0 logs for it.
/// "<member>" in an expected effect matches any member the set held (SPOP is random).
struct EffectCase {
  std::string command;  // the table's name
  std::vector<std::vector<std::string>> setup;
  std::vector<std::string> run;
  Effects expected;  // empty: the run's argv itself (the default effect)
};

constexpr long long kNow = 1700000000000;  // ManualClock's start
const std::string kIn10s = std::to_string(kNow + 10000);
const std::string kIn5s = std::to_string(kNow + 5000);
const std::string kFar = "4102444800600";  // an absolute deadline in ms (2100-01-01T00:00:00.6)

/// FUNCTION DUMP's payload of a server holding only `library` (the bulk reply's bytes).
std::string function_dump(const std::string& library) {
  TestServer t;
  auto& a = t.client();
  t.run_strings(a, {"FUNCTION", "LOAD", library});
  const std::string reply = t.run(a, {"FUNCTION", "DUMP"});
  const std::size_t body = reply.find("\r\n") + 2;
  return reply.substr(body, reply.size() - body - 2);
}

std::vector<EffectCase> cases() {
  using V = std::vector<std::string>;
  const V list = {"RPUSH", "l", "a", "b", "c"};
  const V str = {"SET", "s", "v"};
  // DUMP's payload of the string "hello".
  const std::string hello("\x00\x05hello\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a", 17);
  const V num = {"SET", "n", "10"};
  const V hash = {"HSET", "h", "f", "1"};
  const V entry = {"XADD", "x", "1-1", "f", "v"};
  static listd::testing::FakeRestoreTarget migrate_target;  // answers +OK to every RESTORE
  const V group = {"XGROUP", "CREATE", "x", "g", "0"};
  const V read_one = {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"};
  const std::string library =
      "#!lua name=lib\nredis.register_function('f', function() return 1 end)";
  auto claim = [](const std::string& id, const std::string& count, const std::string& last) {
    return V{"XCLAIM",     "x",   "g",     "c",      "0",      id,  "TIME", std::to_string(kNow),
             "RETRYCOUNT", count, "FORCE", "JUSTID", "LASTID", last};
  };
  const V set = {"SADD", "st", "m1", "m2", "m3"};
  const V set2 = {"SADD", "st2", "m2"};
  const V zset = {"ZADD", "z", "1", "a", "2", "b", "3", "c"};
  const V geo = {"GEOADD",  "g",         "13.361389", "38.115556",
                 "Palermo", "15.087269", "37.502669", "Catania"};
  return {
      // Keyspace
      {"del", {str}, {"DEL", "s"}, {}},
      {"unlink", {str}, {"UNLINK", "s"}, {}},
      {"rename", {str}, {"RENAME", "s", "t"}, {}},
      {"renamenx", {str}, {"RENAMENX", "s", "t"}, {}},
      // SORT is logged as sent when it stored (a set's unsorted order is ALPHA-sorted then)
      {"sort", {list}, {"SORT", "l", "ALPHA", "STORE", "d"}, {}},
      {"copy", {str}, {"COPY", "s", "t"}, {}},
      // MIGRATE: a DEL of the keys the target acknowledged (Redis rewrites its argv so)
      {"migrate",
       {str, list},
       {"MIGRATE", "127.0.0.1", migrate_target.port(), "", "0", "5000", "KEYS", "s", "l", "no"},
       {{"DEL", "s", "l"}}},
      // RESTORE: a relative TTL as an absolute one with ABSTTL, DEL for a deadline already past
      {"restore", {}, {"RESTORE", "r", "0", hello}, {}},
      {"restore",
       {},
       {"RESTORE", "r", "10000", hello},
       {{"RESTORE", "r", kIn10s, hello, "ABSTTL"}}},
      {"restore", {}, {"RESTORE", "r", kFar, hello, "ABSTTL"}, {}},
      {"restore", {str}, {"RESTORE", "s", "1", hello, "REPLACE", "ABSTTL"}, {{"DEL", "s"}}},
      {"restore-asking",
       {},
       {"RESTORE-ASKING", "r", "10000", hello},
       {{"RESTORE-ASKING", "r", kIn10s, hello, "ABSTTL"}}},
      {"move", {str}, {"MOVE", "s", "1"}, {}},
      {"flushdb", {str}, {"FLUSHDB"}, {}},
      {"flushall", {str}, {"FLUSHALL"}, {}},
      {"swapdb", {str}, {"SWAPDB", "0", "1"}, {}},
      {"persist", {{"SET", "s", "v", "EX", "100"}}, {"PERSIST", "s"}, {}},
      // Expiry: the absolute deadline (PEXPIREAT as sent), DEL for a deadline already past
      {"expire", {str}, {"EXPIRE", "s", "10"}, {{"PEXPIREAT", "s", kIn10s}}},
      {"pexpire", {str}, {"PEXPIRE", "s", "5000", "NX"}, {{"PEXPIREAT", "s", kIn5s, "NX"}}},
      {"expireat", {str}, {"EXPIREAT", "s", "4102444800"}, {{"PEXPIREAT", "s", "4102444800000"}}},
      {"pexpireat", {str}, {"PEXPIREAT", "s", kFar, "NX"}, {}},
      {"pexpireat", {str}, {"PEXPIREAT", "s", "1"}, {{"DEL", "s"}}},
      {"expire", {str}, {"EXPIRE", "s", "-1"}, {{"DEL", "s"}}},
      // Lists
      {"lpush", {}, {"LPUSH", "l", "a", "b"}, {}},
      {"rpush", {}, {"RPUSH", "l", "a"}, {}},
      {"lpushx", {list}, {"LPUSHX", "l", "x"}, {}},
      {"rpushx", {list}, {"RPUSHX", "l", "x"}, {}},
      {"lpop", {list}, {"LPOP", "l", "2"}, {}},
      {"rpop", {list}, {"RPOP", "l"}, {}},
      {"lset", {list}, {"LSET", "l", "0", "x"}, {}},
      {"linsert", {list}, {"LINSERT", "l", "BEFORE", "b", "x"}, {}},
      {"lrem", {list}, {"LREM", "l", "0", "a"}, {}},
      {"ltrim", {list}, {"LTRIM", "l", "0", "1"}, {}},
      {"rpoplpush", {list}, {"RPOPLPUSH", "l", "d"}, {}},
      {"lmove", {list}, {"LMOVE", "l", "d", "left", "right"}, {}},
      {"lmpop", {list}, {"LMPOP", "2", "none", "l", "LEFT", "COUNT", "5"}, {{"LPOP", "l", "3"}}},
      {"blpop", {list}, {"BLPOP", "none", "l", "0"}, {{"LPOP", "l"}}},
      {"brpop", {list}, {"BRPOP", "l", "1"}, {{"RPOP", "l"}}},
      {"blmove",
       {list},
       {"BLMOVE", "l", "d", "right", "LEFT", "0"},
       {{"LMOVE", "l", "d", "right", "LEFT"}}},
      {"brpoplpush", {list}, {"BRPOPLPUSH", "l", "d", "0"}, {{"RPOPLPUSH", "l", "d"}}},
      {"blmpop", {list}, {"BLMPOP", "0", "1", "l", "RIGHT", "COUNT", "2"}, {{"RPOP", "l", "2"}}},
      // Strings: expiry made absolute, floats logged as the value they produced
      {"set", {}, {"SET", "s", "v"}, {}},
      {"set", {}, {"SET", "s", "v", "NX", "EX", "10"}, {{"SET", "s", "v", "PXAT", kIn10s}}},
      {"set", {str}, {"SET", "s", "w", "GET", "PX", "5000"}, {{"SET", "s", "w", "PXAT", kIn5s}}},
      {"set", {}, {"SET", "s", "v", "NX", "PXAT", kFar}, {{"SET", "s", "v", "PXAT", kFar}}},
      {"set", {str}, {"SET", "s", "w", "GET", "XX", "get"}, {{"SET", "s", "w", "XX"}}},
      {"set", {str}, {"SET", "s", "w", "KEEPTTL"}, {}},
      {"setnx", {}, {"SETNX", "s", "v"}, {}},
      {"setex", {}, {"SETEX", "s", "10", "v"}, {{"SET", "s", "v", "PXAT", kIn10s}}},
      {"psetex", {}, {"PSETEX", "s", "5000", "v"}, {{"SET", "s", "v", "PXAT", kIn5s}}},
      {"getset", {str}, {"GETSET", "s", "w"}, {{"SET", "s", "w"}}},
      {"getdel", {str}, {"GETDEL", "s"}, {{"DEL", "s"}}},
      {"getex", {str}, {"GETEX", "s", "EX", "10"}, {{"PEXPIREAT", "s", kIn10s}}},
      {"getex", {str}, {"GETEX", "s", "PXAT", kFar}, {{"PEXPIREAT", "s", kFar}}},
      {"getex", {{"SET", "s", "v", "EX", "100"}}, {"GETEX", "s", "PERSIST"}, {{"PERSIST", "s"}}},
      {"getex", {str}, {"GETEX", "s", "EXAT", "1"}, {{"DEL", "s"}}},
      {"mset", {}, {"MSET", "a", "1", "b", "2"}, {}},
      {"msetnx", {}, {"MSETNX", "a", "1", "b", "2"}, {}},
      {"incr", {num}, {"INCR", "n"}, {}},
      {"decr", {num}, {"DECR", "n"}, {}},
      {"incrby", {num}, {"INCRBY", "n", "5"}, {}},
      {"decrby", {num}, {"DECRBY", "n", "5"}, {}},
      {"incrbyfloat", {num}, {"INCRBYFLOAT", "n", "0.5"}, {{"SET", "n", "10.5", "KEEPTTL"}}},
      {"append", {str}, {"APPEND", "s", "w"}, {}},
      {"setrange", {str}, {"SETRANGE", "s", "2", "xy"}, {}},
      // Bitmaps: logged as sent
      {"setbit", {}, {"SETBIT", "s", "7", "1"}, {}},
      {"bitop", {str}, {"BITOP", "NOT", "d", "s"}, {}},
      {"bitfield", {}, {"BITFIELD", "s", "SET", "u8", "0", "255", "GET", "i4", "0"}, {}},
      // HyperLogLog: logged as sent (PFCOUNT too, when it refreshed the cached count)
      {"pfadd", {}, {"PFADD", "p", "a", "b"}, {}},
      {"pfmerge", {{"PFADD", "q", "a"}}, {"PFMERGE", "p", "q"}, {}},
      {"pfdebug", {{"PFADD", "p", "a"}}, {"PFDEBUG", "TODENSE", "p"}, {}},
      // Hashes
      {"hset", {}, {"HSET", "h", "f", "v"}, {}},
      {"hsetnx", {}, {"HSETNX", "h", "f", "v"}, {}},
      {"hmset", {}, {"HMSET", "h", "f", "v"}, {}},
      {"hdel", {hash}, {"HDEL", "h", "f"}, {}},
      {"hincrby", {hash}, {"HINCRBY", "h", "f", "2"}, {}},
      {"hincrbyfloat", {hash}, {"HINCRBYFLOAT", "h", "f", "0.5"}, {{"HSET", "h", "f", "1.5"}}},
      // Sets: SPOP is logged as what it removed
      {"sadd", {}, {"SADD", "st", "a"}, {}},
      {"srem", {set}, {"SREM", "st", "m1"}, {}},
      {"smove", {set}, {"SMOVE", "st", "st2", "m1"}, {}},
      {"sinterstore", {set, set2}, {"SINTERSTORE", "d", "st", "st2"}, {}},
      {"sunionstore", {set, set2}, {"SUNIONSTORE", "d", "st", "st2"}, {}},
      {"sdiffstore", {set, set2}, {"SDIFFSTORE", "d", "st", "st2"}, {}},
      {"spop", {set}, {"SPOP", "st"}, {{"SREM", "st", "<member>"}}},
      {"spop",
       {set},
       {"SPOP", "st", "2"},
       {{"MULTI"}, {"SREM", "st", "<member>"}, {"SREM", "st", "<member>"}, {"EXEC"}}},
      {"spop", {set}, {"SPOP", "st", "3"}, {{"DEL", "st"}}},
      // Sorted sets: the blocking and multi-key pops as the ZPOPMIN/ZPOPMAX they performed
      // Streams: XADD logs the id it made, a `~` trim as the exact trim it did
      {"xadd",
       {},
       {"XADD", "x", "MAXLEN", "~", "0", "*", "f", "v"},
       {{"XADD", "x", "MAXLEN", "=", "0", std::to_string(kNow) + "-0", "f", "v"}}},
      {"xdel", {{"XADD", "x", "1-1", "f", "v"}}, {"XDEL", "x", "1-1"}, {}},
      {"xtrim",
       {{"XADD", "x", "1-1", "f", "v"}, {"XADD", "x", "1-2", "f", "v"}},
       {"XTRIM", "x", "MINID", "~", "2"},
       {{"XTRIM", "x", "MINID", "=", "18446744073709551615-18446744073709551615"}}},
      // Consumer groups: XREADGROUP as the XCLAIM ... FORCE JUSTID LASTID it implies per
      // entry, NOACK as the consumer's creation and the group's new last id (Redis 7.0
      // streamPropagateXCLAIM / streamPropagateGroupID / streamPropagateConsumerCreation)
      {"xgroup|create", {}, {"XGROUP", "CREATE", "x", "g", "$", "MKSTREAM"}, {}},
      {"xgroup|setid", {entry, group}, {"XGROUP", "SETID", "x", "g", "0", "ENTRIESREAD", "0"}, {}},
      {"xgroup|destroy", {entry, group}, {"XGROUP", "DESTROY", "x", "g"}, {}},
      {"xgroup|createconsumer", {entry, group}, {"XGROUP", "CREATECONSUMER", "x", "g", "c"}, {}},
      {"xgroup|delconsumer",
       {entry, group, {"XGROUP", "CREATECONSUMER", "x", "g", "c"}},
       {"XGROUP", "DELCONSUMER", "x", "g", "c"},
       {}},
      {"xsetid", {entry, group}, {"XSETID", "x", "9-9", "ENTRIESADDED", "5"}, {}},
      // FUNCTION's writes go out as they were sent (Redis 7.0 functionLoadCommand & co.).
      {"function|load", {}, {"FUNCTION", "LOAD", library}, {}},
      {"function|delete", {{"FUNCTION", "LOAD", library}}, {"FUNCTION", "DELETE", "lib"}, {}},
      {"function|flush", {{"FUNCTION", "LOAD", library}}, {"FUNCTION", "FLUSH", "SYNC"}, {}},
      {"function|restore", {}, {"FUNCTION", "RESTORE", function_dump(library)}, {}},
      {"xack", {entry, group, read_one}, {"XACK", "x", "g", "1-1"}, {}},
      {"xreadgroup",
       {entry, group, {"XADD", "x", "1-2", "f", "v"}},
       {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"},
       {{"MULTI"}, claim("1-1", "1", "1-1"), claim("1-2", "1", "1-2"), {"EXEC"}}},
      {"xreadgroup",
       {entry, group},
       {"XREADGROUP", "GROUP", "g", "c", "NOACK", "STREAMS", "x", ">"},
       {{"MULTI"},
        {"XGROUP", "CREATECONSUMER", "x", "g", "c"},
        {"XGROUP", "SETID", "x", "g", "1-1", "ENTRIESREAD", "1"},
        {"EXEC"}}},
      // XCLAIM logs the id as written; XAUTOCLAIM also logs the drop of a deleted entry
      {"xclaim",
       {entry, group, read_one},
       {"XCLAIM", "x", "g", "d", "0", "1-1"},
       {{"XCLAIM", "x", "g", "d", "0", "1-1", "TIME", std::to_string(kNow), "RETRYCOUNT", "2",
         "FORCE", "JUSTID", "LASTID", "1-1"}}},
      {"xclaim",
       {entry, group},
       {"XCLAIM", "x", "g", "d", "0", "1", "LASTID", "1-1"},
       {{"XGROUP", "SETID", "x", "g", "1-1", "ENTRIESREAD", "-1"}}},
      {"xautoclaim",
       {entry, group, read_one, {"XADD", "x", "1-2", "f", "v"}, read_one, {"XDEL", "x", "1-1"}},
       {"XAUTOCLAIM", "x", "g", "d", "0", "0", "JUSTID"},
       {{"MULTI"},
        {"XCLAIM", "x", "g", "c", "0", "1-1", "TIME", std::to_string(kNow), "RETRYCOUNT", "1",
         "FORCE", "JUSTID", "LASTID", "1-2"},
        {"XCLAIM", "x", "g", "d", "0", "1-2", "TIME", std::to_string(kNow), "RETRYCOUNT", "1",
         "FORCE", "JUSTID", "LASTID", "1-2"},
        {"EXEC"}}},
      {"zadd", {}, {"ZADD", "z", "1", "a"}, {}},
      {"zincrby", {zset}, {"ZINCRBY", "z", "2", "a"}, {}},
      {"zrem", {zset}, {"ZREM", "z", "a"}, {}},
      {"zremrangebyscore", {zset}, {"ZREMRANGEBYSCORE", "z", "1", "2"}, {}},
      {"zremrangebyrank", {zset}, {"ZREMRANGEBYRANK", "z", "0", "0"}, {}},
      {"zremrangebylex",
       {{"ZADD", "z", "0", "a", "0", "b"}},
       {"ZREMRANGEBYLEX", "z", "-", "+"},
       {}},
      {"zpopmin", {zset}, {"ZPOPMIN", "z", "5"}, {}},
      {"zpopmax", {zset}, {"ZPOPMAX", "z"}, {}},
      {"zmpop", {zset}, {"ZMPOP", "1", "z", "MAX", "COUNT", "2"}, {{"ZPOPMAX", "z", "2"}}},
      {"bzpopmin", {zset}, {"BZPOPMIN", "z", "0"}, {{"ZPOPMIN", "z"}}},
      {"bzpopmax", {zset}, {"BZPOPMAX", "none", "z", "0"}, {{"ZPOPMAX", "z"}}},
      {"bzmpop", {zset}, {"BZMPOP", "0", "1", "z", "MIN", "COUNT", "9"}, {{"ZPOPMIN", "z", "3"}}},
      // Sorted-set algebra and ZRANGESTORE: logged as sent
      {"zunionstore", {zset}, {"ZUNIONSTORE", "d", "1", "z"}, {}},
      {"zinterstore", {zset}, {"ZINTERSTORE", "d", "2", "z", "z", "WEIGHTS", "1", "2"}, {}},
      {"zdiffstore", {zset}, {"ZDIFFSTORE", "d", "1", "z"}, {}},
      {"zrangestore", {zset}, {"ZRANGESTORE", "d", "z", "0", "-1"}, {}},
      // Geo: GEOADD as the lower-case ZADD Redis rewrites it into; the STORE searches as sent
      {"geoadd",
       {},
       {"GEOADD", "g", "CH", "13.361389", "38.115556", "Palermo"},
       {{"zadd", "g", "CH", "3479099956230698", "Palermo"}}},
      {"georadius", {geo}, {"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d"}, {}},
      {"georadiusbymember",
       {geo},
       {"GEORADIUSBYMEMBER", "g", "Palermo", "200", "km", "STOREDIST", "d"},
       {}},
      {"geosearchstore",
       {geo},
       {"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
       {}},
  };
}

/// Runs `c` on a fresh server with a recorder subscribed; returns the run's effects.
Effects effects_of(const EffectCase& c, std::set<std::string>* members = nullptr) {
  TestServer t;
  Recorder r;
  t.exec().effects().subscribe(r);
  auto& a = t.client();
  for (const auto& cmd : c.setup) t.run_strings(a, cmd);
  if (members)
    t.exec().keyspace().db(0).dict().for_each([&](const listd::store::Entry& e) {
      if (e.value.is(listd::store::ValueType::kSet))
        e.value.as_set().for_each([&](std::string_view m) { members->emplace(m); });
    });
  r.take();
  const std::string reply = t.run_strings(a, c.run);
  EXPECT_NE(reply.substr(0, 1), "-") << reply;
  Effects e = r.take();
  t.exec().effects().unsubscribe(r);
  return e;
}

TEST(CommandEffects, EveryWriteCommandHasACaseAndOwnEffectsAreFlagged) {
  TestServer t;
  std::set<std::string> write_commands;
  std::map<std::string, const listd::server::CommandSpec*> specs;  // subcommands included
  t.exec().commands().for_each([&](const listd::server::CommandSpec& spec) {
    specs[spec.full_name] = &spec;
    for (const auto& sub : spec.subcommands) specs[sub->full_name] = sub.get();
  });
  for (const auto& [name, spec] : specs)
    if (spec->flags & listd::server::kWrite) write_commands.insert(name);
  std::set<std::string> covered;
  std::set<std::string> own;  // commands some case expects a non-default effect from
  for (const EffectCase& c : cases()) {
    covered.insert(c.command);
    if (!c.expected.empty()) own.insert(c.command);
  }
  EXPECT_EQ(covered, write_commands) << "a write command without a case here: add one";
  for (const std::string& name : write_commands) {
    const auto* spec = specs[name];
    EXPECT_EQ(static_cast<bool>(spec->flags & listd::server::kOwnEffect), own.count(name) == 1)
        << name << ": kOwnEffect must be set exactly on the commands whose effect is not argv";
  }
}

TEST(CommandEffects, EachWriteCommandLogsWhatRedisLogs) {
  for (const EffectCase& c : cases()) {
    std::set<std::string> members;
    Effects got = effects_of(c, &members);
    const Effects want = c.expected.empty() ? Effects{c.run} : c.expected;
    ASSERT_EQ(got.size(), want.size()) << c.run[0] << " " << ::testing::PrintToString(got);
    std::set<std::string> popped;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (!want[i].empty() && want[i].back() == "<member>") {
        ASSERT_EQ(got[i].size(), want[i].size()) << c.run[0];
        EXPECT_TRUE(members.count(got[i].back())) << got[i].back();
        EXPECT_TRUE(popped.insert(got[i].back()).second) << "popped twice: " << got[i].back();
        got[i].back() = "<member>";
      }
      EXPECT_EQ(got[i], want[i]) << ::testing::PrintToString(c.run);
    }
  }
}

TEST(CommandEffects, CommandsThatChangeNothingEmitNothing) {
  TestServer t;
  Recorder r;
  t.exec().effects().subscribe(r);
  auto& a = t.client();
  for (const std::vector<std::string>& cmd :
       std::vector<std::vector<std::string>>{{"RPOP", "none"},
                                             {"DEL", "none"},
                                             {"SET", "s", "v", "XX"},
                                             {"EXPIRE", "none", "5"},
                                             {"SPOP", "none"},
                                             {"GETEX", "none", "EX", "5"},
                                             {"LMPOP", "1", "none", "LEFT"},
                                             {"BITOP", "OR", "none", "none2"},
                                             {"BITFIELD", "none", "GET", "u8", "0"},
                                             {"ZINTERSTORE", "none", "1", "none2"},
                                             {"GEORADIUS", "none", "1", "2", "5", "km"},
                                             {"GEOADD", "none", "XX", "1", "2", "m"},
                                             {"MULTI"},
                                             {"RPOP", "none"},
                                             {"EXEC"}})
    t.run_strings(a, cmd);
  EXPECT_TRUE(r.seen.empty()) << ::testing::PrintToString(r.seen);
  t.exec().effects().unsubscribe(r);
}

// Redis 7.0's execution units, as its AOF shows them.
TEST(CommandEffects, UnitsAreWrappedOnlyWhenTheyHoldSeveralEffects) {
  TestServer t;
  Recorder r;
  t.exec().effects().subscribe(r);
  auto& a = t.client();
  // A transaction with one write is logged without MULTI/EXEC.
  t.run(a, {"MULTI"});
  t.run(a, {"SET", "a", "1"});
  t.run(a, {"GET", "a"});
  t.run(a, {"EXEC"});
  EXPECT_EQ(r.take(), (Effects{{"SET", "a", "1"}}));
  // A write that meets an expired key: its DEL and the write form one unit.
  t.run(a, {"SET", "e", "1", "PX", "100"});
  t.clock().advance_ms(200);
  r.take();
  t.run(a, {"SET", "e", "2"});
  EXPECT_EQ(r.take(), (Effects{{"MULTI"}, {"DEL", "e"}, {"SET", "e", "2"}, {"EXEC"}}));
  // RANDOMKEY and SCAN may expire any number of keys: their units are never wrapped (the
  // stream's side is EffectStream.UnwrappableUnitsAndEffectsOutsideUnitsGoOneByOne).
  for (const char* name : {"randomkey", "scan"})
    EXPECT_TRUE(t.exec().commands().find(name)->flags & listd::server::kTouchesArbitraryKeys);
  t.exec().effects().unsubscribe(r);
}

// A served waiter is its own unit, after the push that served it, and logs the pop it did.
TEST(CommandEffects, ServedWaitersLogThePopTheyPerformed) {
  TestServer t;
  Recorder r;
  t.exec().effects().subscribe(r);
  auto& p = t.client();
  auto& w1 = t.client();
  auto& w2 = t.client();
  auto& w3 = t.client();
  EXPECT_EQ(t.run(w1, {"BZPOPMAX", "z", "0"}), "");
  EXPECT_EQ(t.run(w2, {"BZMPOP", "0", "1", "z", "MIN", "COUNT", "5"}), "");
  EXPECT_EQ(t.run(w3, {"BRPOPLPUSH", "q", "proc", "0"}), "");
  t.run(p, {"ZADD", "z", "1", "a", "2", "b", "3", "c"});
  t.run(p, {"RPUSH", "q", "j"});
  EXPECT_EQ(r.take(), (Effects{{"ZADD", "z", "1", "a", "2", "b", "3", "c"},
                               {"ZPOPMAX", "z"},
                               {"ZPOPMIN", "z", "2"},
                               {"RPUSH", "q", "j"},
                               {"RPOPLPUSH", "q", "proc"}}));
  t.exec().effects().unsubscribe(r);
}

}  // namespace
