// Keyspace notifications against Redis' own: the same scripts run on a real listd and a real
// redis-server 7.0.15 under several notify-keyspace-events settings (KEA, KEAn, El, Kg$, ...),
// and the notification streams must match message for message:
//   - a RESP2 listener on PSUBSCRIBE __key*__:* (every event, in publish order);
//   - the RESP3 driver, itself subscribed to __key*__:*, which runs most scripts: its one stream
//     interleaves its replies with the push frames of its own events, so where an event lands
//     relative to a reply (before or after it, inside an EXEC or a ZPOPMIN reply) is compared
//     byte for byte too;
//   - the replies of a client served by a later push (BLPOP, BLMOVE, BZPOPMIN, ... served).
// A plain RESP2 driver runs what has no deterministic place in the driver's stream (expiry) or
// no deterministic reply (SPOP of a few members of many).
//
// Every write command of listd's table (COMMAND, flag `write`) must appear in a script: a new
// write command without coverage fails WritesOfTheCommandTableAreAllCovered; so must every read
// command with a key (its `keymiss`, or none): ReadsWithAKeyAreAllCovered.
//
// No sleep-and-hope: each script ends with a PUBLISH on __keysync__:<n> that the listener reads
// up to; a blocking script polls INFO blocked_clients, an active-expiry script DBSIZE (bounded).
// What Redis orders by its randomly seeded dicts never has two candidates in one step (one due
// key per SCAN or active cycle, integer sets for whole-set replies).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

// A short TTL, and a DEBUG SLEEP that outlasts it. Not 1 ms: Redis 7.0's PEXPIRE reads the clock
// twice (the deadline from one mstime(), checkAlreadyExpired against a later one), so a server
// stalled for a millisecond between them deletes the key at once and publishes `del` instead
// of `expire` (seen under load). A 25 ms stall inside one command is not a thing to wait for.
constexpr const char* kShortTtlMs = "25";
constexpr const char* kPastShortTtl = "0.05";  // seconds: twice the TTL

// DUMP's payload of the string "hello" (the same bytes on both servers).
const std::string kHelloPayload("\x00\x05hello\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a", 17);

using Args = std::vector<std::string>;

enum class Mode {
  kSelf,          ///< on the subscribed RESP3 driver: replies and its own pushes compared
  kPlain,         ///< on the unsubscribed RESP2 driver: only the events compared
  kBlocking,      ///< `blocker` parks a third client first, then the commands run as kSelf
  kActiveExpiry,  ///< kPlain, then wait until the active expiry cycle emptied the db
};

struct Script {
  Mode mode;
  std::vector<Args> commands;
  Args blocker{};
};

// ---- the scripts ------------------------------------------------------------------------------

std::vector<Script> list_scripts() {
  return {
      {Mode::kSelf,
       {{"LPUSH", "l", "a", "b", "c"},
        {"RPUSH", "l", "d"},
        {"LPUSHX", "l", "e"},
        {"RPUSHX", "l", "f"},
        {"LPUSHX", "nol", "x"},
        {"RPUSHX", "nol", "x"},
        {"LPOP", "l"},
        {"RPOP", "l"},
        {"LPOP", "l", "2"},
        {"RPOP", "l", "0"},
        {"LPOP", "nol"},
        {"LSET", "l", "0", "z"},
        {"LSET", "l", "99", "z"},
        {"LINSERT", "l", "BEFORE", "z", "y"},
        {"LINSERT", "l", "AFTER", "nope", "x"},
        {"LREM", "l", "0", "y"},
        {"LREM", "l", "0", "nope"},
        {"LTRIM", "l", "0", "0"},
        {"LTRIM", "l", "0", "5"},
        {"LTRIM", "l", "5", "1"},
        {"RPUSH", "l", "a", "b", "a"},
        {"LREM", "l", "0", "a"},
        {"LREM", "l", "1", "b"}}},
      {Mode::kSelf,
       {{"RPUSH", "s", "1", "2"},
        {"LMOVE", "s", "d", "LEFT", "RIGHT"},
        {"LMOVE", "s", "d", "RIGHT", "LEFT"},
        {"LMOVE", "d", "d", "LEFT", "RIGHT"},
        {"RPOPLPUSH", "d", "e"},
        {"RPOPLPUSH", "nos", "x"},
        {"RPOPLPUSH", "e", "e"},
        {"RPUSH", "m1", "a", "b", "c"},
        {"LMPOP", "2", "nol", "m1", "LEFT", "COUNT", "2"},
        {"LMPOP", "1", "m1", "RIGHT"},
        {"LMPOP", "1", "nol", "RIGHT"},
        {"SET", "str", "v"},
        {"LPUSH", "str", "x"},
        {"LMOVE", "d", "str", "LEFT", "LEFT"}}},
      {Mode::kSelf,
       {{"RPUSH", "b", "1", "2", "3", "4", "5"},
        {"BLPOP", "nob", "b", "0"},
        {"BRPOP", "b", "0"},
        {"BLMOVE", "b", "bd", "LEFT", "RIGHT", "0"},
        {"BRPOPLPUSH", "b", "bd", "0"},
        {"BLMPOP", "0", "2", "nob", "b", "LEFT", "COUNT", "5"},
        {"MULTI"},
        {"BLPOP", "nob", "0"},
        {"RPUSH", "tx", "a"},
        {"BRPOP", "tx", "0"},
        {"EXEC"}}},
  };
}

std::vector<Script> blocking_scripts() {
  return {
      {Mode::kBlocking, {{"RPUSH", "q1", "a", "b"}}, {"BLPOP", "q1", "0"}},
      {Mode::kBlocking, {{"LPUSH", "q2", "x"}}, {"BRPOP", "noq", "q2", "0"}},
      {Mode::kBlocking, {{"RPUSH", "q3", "a"}}, {"BLMOVE", "q3", "q3d", "RIGHT", "LEFT", "0"}},
      {Mode::kBlocking, {{"RPUSH", "q4", "a", "b"}}, {"BRPOPLPUSH", "q4", "q4", "0"}},
      {Mode::kBlocking,
       {{"RPUSH", "q5", "a", "b", "c"}},
       {"BLMPOP", "0", "1", "q5", "RIGHT", "COUNT", "5"}},
      {Mode::kBlocking,
       {{"MULTI"}, {"RPUSH", "q6", "a"}, {"SET", "q6s", "v"}, {"EXEC"}},
       {"BLPOP", "q6", "0"}},
      {Mode::kBlocking, {{"ZADD", "z1", "1", "a", "2", "b"}}, {"BZPOPMIN", "z1", "0"}},
      {Mode::kBlocking, {{"ZADD", "z2", "1", "a"}}, {"BZPOPMAX", "z2", "0"}},
      {Mode::kBlocking,
       {{"ZADD", "z3", "1", "a", "2", "b"}},
       {"BZMPOP", "0", "1", "z3", "MIN", "COUNT", "3"}},
  };
}

std::vector<Script> hash_set_scripts() {
  return {
      {Mode::kSelf,
       {{"HSET", "h", "f", "v", "g", "w"},
        {"HSETNX", "h", "f", "x"},
        {"HSETNX", "h", "n", "1"},
        {"HSETNX", "h2", "n", "1"},
        {"HMSET", "h", "a", "1"},
        {"HINCRBY", "h", "n", "2"},
        {"HINCRBY", "h", "f", "2"},
        {"HINCRBYFLOAT", "h", "n", "1.5"},
        {"HINCRBYFLOAT", "h3", "n", "1.5"},
        {"HDEL", "h", "f", "nope"},
        {"HDEL", "h", "nope"},
        {"HDEL", "h", "g", "a", "n"},
        {"HDEL", "noh", "f"}}},
      {Mode::kSelf,
       {{"SADD", "s", "a", "b", "c"},
        {"SADD", "s", "a"},
        {"SREM", "s", "a"},
        {"SREM", "s", "nope"},
        {"SREM", "nos", "nope"},
        {"SMOVE", "s", "s2", "b"},
        {"SMOVE", "s", "s2", "nope"},
        {"SMOVE", "s", "s2", "c"},
        {"SMOVE", "s2", "s2", "b"},
        {"SADD", "s3", "b"},
        {"SMOVE", "s3", "s2", "b"},
        {"SADD", "sp", "x"},
        {"SPOP", "sp"},
        {"SADD", "sp2", "1", "2", "3"},
        {"SPOP", "sp2", "5"},
        {"SPOP", "sp2", "0"},
        {"SPOP", "nosp"},
        {"SADD", "s4", "1", "2", "3"},
        {"SADD", "s5", "2", "3", "4"},
        {"SINTERSTORE", "d", "s4", "s5"},
        {"SINTERSTORE", "d", "s4", "s5"},
        {"SINTERSTORE", "d", "s4", "nokey"},
        {"SINTERSTORE", "d", "s4", "nokey"},
        {"SUNIONSTORE", "u", "s4", "s5"},
        {"SUNIONSTORE", "u", "nokey"},
        {"SDIFFSTORE", "df", "s4", "s5"},
        {"SDIFFSTORE", "df", "s4", "s4"},
        {"SDIFFSTORE", "df", "s4", "s4"}}},
      // Which members a partial SPOP takes is random: its events are not.
      {Mode::kPlain, {{"SADD", "sp3", "1", "2", "3", "4"}, {"SPOP", "sp3", "2"}, {"SPOP", "sp3"}}},
  };
}

std::vector<Script> zset_scripts() {
  return {
      {Mode::kSelf,
       {{"ZADD", "z", "1", "a", "2", "b", "3", "c"},
        {"ZADD", "z", "1", "a"},
        {"ZADD", "z", "XX", "1", "nope"},
        {"ZADD", "noz", "XX", "1", "a"},
        {"ZADD", "z", "CH", "5", "a"},
        {"ZADD", "z", "NX", "1", "a"},
        {"ZINCRBY", "z", "2", "b"},
        {"ZADD", "z", "INCR", "1", "c"},
        {"ZADD", "z", "GT", "INCR", "-1", "c"},
        {"ZADD", "zn", "1", "a"},
        {"ZADD", "zn", "INCR", "+inf", "a"},
        {"ZADD", "zn", "INCR", "-inf", "a"},
        {"ZREM", "z", "nope"},
        {"ZREM", "z", "a"},
        {"ZREMRANGEBYSCORE", "z", "0", "4"},
        {"ZREMRANGEBYSCORE", "z", "100", "200"},
        {"ZREMRANGEBYRANK", "z", "0", "0"},
        {"ZADD", "zl", "0", "a", "0", "b", "0", "c"},
        {"ZREMRANGEBYLEX", "zl", "[a", "[b"},
        {"ZREMRANGEBYLEX", "zl", "-", "+"},
        {"ZADD", "zr", "1", "a", "2", "b"},
        {"ZREMRANGEBYRANK", "zr", "0", "-1"},
        {"ZREM", "zn", "a"}}},
      {Mode::kSelf,
       {{"ZADD", "zp", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"},
        {"ZPOPMIN", "zp"},
        {"ZPOPMAX", "zp", "2"},
        {"ZPOPMIN", "zp", "0"},
        {"ZPOPMIN", "nozp"},
        {"BZPOPMIN", "zp", "0"},
        {"BZPOPMAX", "nozp", "zp", "0"},
        {"ZADD", "zp", "1", "x", "2", "y"},
        {"BZMPOP", "0", "1", "zp", "MAX", "COUNT", "1"},
        {"ZMPOP", "2", "nozp", "zp", "MIN", "COUNT", "9"},
        {"ZMPOP", "1", "nozp", "MIN"}}},
      // Algebra and ZRANGESTORE: the destination's `new`, then the reply, then the event; an
      // empty result deletes it (`del`) or does nothing.
      {Mode::kSelf,
       {{"ZADD", "za", "1", "a", "2", "b"},
        {"SADD", "sa", "b", "c"},
        {"ZUNIONSTORE", "zd", "2", "za", "sa"},
        {"ZINTERSTORE", "zd", "2", "za", "sa", "WEIGHTS", "2", "3"},
        {"ZDIFFSTORE", "zd", "2", "za", "sa"},
        {"ZINTERSTORE", "zd", "2", "za", "nokey"},
        {"ZDIFFSTORE", "zd", "1", "nokey"},
        {"ZRANGESTORE", "zd", "za", "0", "0"},
        {"ZRANGESTORE", "zd", "za", "5", "9"},
        {"ZRANGESTORE", "zd", "za", "5", "9"},
        {"ZUNION", "2", "nokey", "nokey2"},
        {"ZINTER", "2", "nokey", "nokey2"},
        {"ZDIFF", "2", "nokey", "nokey2"},
        {"ZRANDMEMBER", "nokey"},
        {"ZRANDMEMBER", "nokey", "2"}}},
      // SORT: STORE notifies `sortstore` (after the destination's `new`), or `del` when the
      // result is empty; the BY and GET keys are read lookups (`keymiss`).
      {Mode::kSelf,
       {{"RPUSH", "sl", "3", "1", "2"},
        {"SET", "w_1", "9"},
        {"SORT", "sl", "STORE", "sd"},
        {"SORT", "sl", "BY", "w_*", "GET", "#", "GET", "nokey_*", "STORE", "sd"},
        {"SORT", "sl", "LIMIT", "5", "1", "STORE", "sd"},
        {"SORT", "sl", "LIMIT", "5", "1", "STORE", "sd"},
        {"SORT", "nokey", "STORE", "sd"},
        {"SORT", "nokey", "BY", "nosort"},
        {"SORT_RO", "nokey", "BY", "w_*", "GET", "g_*"},
        {"SORT_RO", "sl", "BY", "w_*", "GET", "g_*->f"}}},
      // Geo: GEOADD notifies `zadd`; the STORE searches `georadiusstore` / `geosearchstore`
      // after the destination's `new`, or `del` when nothing is found.
      {Mode::kSelf,
       {{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
        {"GEOADD", "g", "13.361389", "38.115556", "Palermo"},
        {"GEOADD", "g", "CH", "13.4", "38.1", "Palermo"},
        {"GEOADD", "nog", "XX", "1", "2", "m"},
        {"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "gd"},
        {"GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "gd"},
        {"GEORADIUSBYMEMBER", "g", "Palermo", "1", "m", "STORE", "gd2"},
        {"GEORADIUSBYMEMBER", "g", "Palermo", "1", "km", "STORE", "gd"},
        {"GEOSEARCHSTORE", "gd", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
        {"GEOSEARCHSTORE", "gd", "g", "FROMLONLAT", "0", "0", "BYBOX", "1", "1", "km"},
        {"GEOSEARCHSTORE", "gd", "nog", "FROMLONLAT", "0", "0", "BYBOX", "1", "1", "km"},
        {"GEORADIUS", "g", "15", "37", "200", "km"},
        {"GEORADIUS", "nog", "15", "37", "200", "km"},
        {"GEORADIUS_RO", "nog", "15", "37", "200", "km"},
        {"GEORADIUSBYMEMBER", "nog", "Palermo", "200", "km"},
        {"GEORADIUSBYMEMBER_RO", "nog", "Palermo", "200", "km"},
        {"GEOSEARCH", "nog", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
        {"GEODIST", "nog", "a", "b"},
        {"GEOHASH", "nog", "a"},
        {"GEOPOS", "nog", "a"}}},
  };
}

std::vector<Script> stream_scripts() {
  return {
      {Mode::kSelf,
       {{"XADD", "x", "1-1", "f", "v"},
        {"XADD", "x", "1-1", "f", "v"},
        {"XADD", "x", "NOMKSTREAM", "2-1", "f", "v"},
        {"XADD", "nox", "NOMKSTREAM", "2-1", "f", "v"},
        {"XADD", "x", "MAXLEN", "1", "3-1", "f", "v"},
        {"XADD", "x", "MAXLEN", "5", "4-1", "f", "v"},
        {"XDEL", "x", "9-9"},
        {"XDEL", "x", "3-1"},
        {"XTRIM", "x", "MAXLEN", "5"},
        {"XTRIM", "x", "MINID", "~", "9"},
        {"XTRIM", "nox", "MAXLEN", "0"},
        {"XADD", "x", "5-1", "f", "v"},
        {"XRANGE", "x", "-", "+"},
        {"XREVRANGE", "nox", "+", "-"},
        {"XLEN", "nox"},
        {"XREAD", "STREAMS", "nox", "x", "0", "0"},
        {"XTRIM", "x", "MAXLEN", "0"}}},
      // Consumer groups (xgroup-*, xsetid; XACK and XREADGROUP of a known consumer publish
      // nothing). A consumer made by XREADGROUP publishes mid-command: the plain driver.
      {Mode::kSelf,
       {{"XGROUP", "CREATE", "gx", "g", "$", "MKSTREAM"},
        {"XGROUP", "CREATE", "gx", "g", "$"},
        {"XGROUP", "CREATE", "nogx", "g", "$"},
        {"XGROUP", "CREATECONSUMER", "gx", "g", "c"},
        {"XGROUP", "CREATECONSUMER", "gx", "g", "c"},
        {"XADD", "gx", "1-1", "f", "v"},
        {"XADD", "gx", "2-1", "f", "v"},
        {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "gx", ">"},
        {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "nogx", ">"},
        {"XACK", "gx", "g", "1-1"},
        {"XACK", "nogx", "g", "1-1"},
        {"XGROUP", "SETID", "gx", "g", "0"},
        {"XSETID", "gx", "5-0"},
        {"XSETID", "nogx", "5-0"},
        {"XGROUP", "DELCONSUMER", "gx", "g", "c"},
        {"XGROUP", "DELCONSUMER", "gx", "g", "c"},
        {"XGROUP", "DESTROY", "gx", "g"},
        {"XGROUP", "DESTROY", "gx", "g"}}},
      {Mode::kPlain,
       {{"XGROUP", "CREATE", "gy", "g", "0", "MKSTREAM"},
        {"XADD", "gy", "1-1", "f", "v"},
        {"XADD", "gy", "2-1", "f", "v"},
        {"XREADGROUP", "GROUP", "g", "newc", "STREAMS", "gy", ">"},
        {"XREADGROUP", "GROUP", "g", "newc2", "NOACK", "STREAMS", "gy", ">"},
        {"XCLAIM", "gy", "g", "newc3", "0", "1-1"},
        {"XCLAIM", "gy", "g", "newc4", "3600000", "1-1"},
        {"XDEL", "gy", "2-1"},
        {"XAUTOCLAIM", "gy", "g", "newc5", "0", "0"},
        {"XAUTOCLAIM", "gy", "g", "newc6", "3600000", "0"},
        {"XCLAIM", "nogy", "g", "c", "0", "1-1"},
        {"XAUTOCLAIM", "nogy", "g", "c", "0", "0"},
        {"XPENDING", "gy", "g"},
        {"XPENDING", "nogy", "g"},
        {"XINFO", "STREAM", "gy", "FULL"},
        {"XINFO", "STREAM", "nogy"},
        {"XINFO", "GROUPS", "nogy"},
        {"XINFO", "CONSUMERS", "gy", "g"},
        {"XINFO", "CONSUMERS", "nogy", "g"}}},
      // XREADGROUP BLOCK served by XADD (its consumer created as it is served), woken with
      // -NOGROUP by XGROUP DESTROY and with -UNBLOCKED by DEL.
      {Mode::kSelf, {{"XGROUP", "CREATE", "gb", "g", "$", "MKSTREAM"}}},
      {Mode::kBlocking,
       {{"XADD", "gb", "1-1", "f", "v"}},
       {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "gb", ">"}},
      {Mode::kSelf, {{"XGROUP", "CREATE", "gb", "g2", "$"}}},
      {Mode::kBlocking,
       {{"XGROUP", "DESTROY", "gb", "g"}},
       {"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "gb", ">"}},
      {Mode::kBlocking,
       {{"DEL", "gb"}},
       {"XREADGROUP", "GROUP", "g2", "c", "BLOCK", "0", "STREAMS", "gb", ">"}},
  };
}

std::vector<Script> string_scripts() {
  return {
      {Mode::kSelf,
       {{"SET", "k", "v"},
        {"SET", "k", "v", "EX", "100"},
        {"SET", "k", "v", "KEEPTTL"},
        {"SET", "k", "v", "NX"},
        {"SET", "k2", "v", "XX"},
        {"SET", "k", "v2", "GET"},
        {"SET", "nk", "v", "GET"},
        {"SET", "k3", "v", "NX", "GET"},
        {"SET", "k3", "w", "PX", "100000", "GET"},
        {"SETNX", "k", "x"},
        {"SETNX", "n", "x"},
        {"SETEX", "se", "100", "v"},
        {"PSETEX", "pse", "100000", "v"},
        {"GETSET", "k", "new"},
        {"GETSET", "gsn", "v"},
        {"GETDEL", "k"},
        {"GETDEL", "nokey"},
        {"SET", "g", "v"},
        {"GETEX", "g"},
        {"GETEX", "g", "EX", "100"},
        {"GETEX", "g", "PERSIST"},
        {"GETEX", "g", "PERSIST"},
        {"GETEX", "g", "PXAT", "1"},
        {"GETEX", "nokey", "EX", "1"}}},
      {Mode::kSelf,
       {{"MSET", "a", "1", "b", "2"},
        {"MSETNX", "a", "1", "c", "3"},
        {"MSETNX", "c", "3", "d", "4"},
        {"INCR", "i"},
        {"DECR", "i"},
        {"INCRBY", "i", "5"},
        {"DECRBY", "i", "2"},
        {"INCR", "a"},
        {"SET", "t", "text"},
        {"INCR", "t"},
        {"INCRBYFLOAT", "f", "1.5"},
        {"INCRBYFLOAT", "f", "1"},
        {"INCRBYFLOAT", "t", "1"},
        {"APPEND", "ap", "x"},
        {"APPEND", "ap", "y"},
        {"SETRANGE", "sr", "2", "ab"},
        {"SETRANGE", "sr", "0", "z"},
        {"SETRANGE", "sr", "0", ""},
        {"SETRANGE", "nosr", "0", ""}}},
      // HyperLogLog: pfadd only when a register changed; PFMERGE is a pfadd too
      {Mode::kSelf,
       {{"PFADD", "hl", "a", "b"},
        {"PFADD", "hl", "a"},
        {"PFADD", "hl2"},
        {"PFCOUNT", "hl"},
        {"PFCOUNT", "nohl"},
        {"PFCOUNT", "hl", "nohl"},
        {"PFMERGE", "hl3", "hl", "nohl"},
        {"PFDEBUG", "TODENSE", "hl3"},
        {"PFDEBUG", "ENCODING", "nohl"}}},
      // Bitmaps: setbit only when a bit changed or the string grew; BITOP's set or del
      {Mode::kSelf,
       {{"SETBIT", "b", "7", "1"},
        {"SETBIT", "b", "7", "1"},
        {"SETBIT", "b", "3", "0"},
        {"SETBIT", "b", "20", "0"},
        {"GETBIT", "b", "7"},
        {"GETBIT", "nob", "7"},
        {"BITCOUNT", "b"},
        {"BITCOUNT", "nob", "0", "1"},
        {"BITPOS", "b", "1"},
        {"BITPOS", "nob", "0"},
        {"BITOP", "OR", "d", "b", "nob"},
        {"BITOP", "AND", "d", "nob"},
        {"BITOP", "AND", "d", "nob"},
        {"BITFIELD", "f", "SET", "u8", "0", "1", "GET", "u8", "0"},
        {"BITFIELD", "f", "SET", "u8", "0", "1"},
        {"BITFIELD", "f", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9"},
        {"BITFIELD", "g", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9"},
        {"BITFIELD", "nob", "GET", "u8", "0"},
        {"BITFIELD_RO", "f", "GET", "u8", "0"},
        {"BITFIELD_RO", "nob", "GET", "u8", "0"}}},
  };
}

// MIGRATE's target, one redis-server both sides send to (with REPLACE, so either order works).
const std::string& migrate_target_port() {
  static ServerProcess target = ServerProcess::start_redis();
  static const std::string port = std::to_string(target.port());
  return port;
}

std::vector<Script> generic_scripts() {
  const std::string& target = migrate_target_port();
  return {
      {Mode::kSelf,
       {{"SET", "a", "1"},
        {"RPUSH", "b", "x"},
        {"DEL", "a", "b", "nokey"},
        {"SET", "c", "1"},
        {"UNLINK", "c", "nokey"},
        {"SET", "e", "v"},
        {"EXPIRE", "e", "100"},
        {"EXPIRE", "e", "100", "NX"},
        {"EXPIRE", "noe", "100"},
        {"PEXPIRE", "e", "100000"},
        {"EXPIREAT", "e", "4000000000"},
        {"PEXPIREAT", "e", "4000000000000"},
        {"EXPIRE", "e", "-1"},
        {"SET", "p", "v"},
        {"PERSIST", "p"},
        {"EXPIRE", "p", "100"},
        {"PERSIST", "p"},
        {"PERSIST", "nop"},
        {"SET", "r", "v", "EX", "100"},
        {"RENAME", "r", "r2"},
        {"RENAME", "r2", "r2"},
        {"RENAME", "nor", "x"},
        {"SET", "ex", "1"},
        {"RENAMENX", "r2", "ex"},
        {"RENAMENX", "r2", "r3"},
        {"RENAME", "r3", "ex"},
        {"COPY", "ex", "c1"},
        {"COPY", "ex", "c1"},
        {"COPY", "ex", "c1", "REPLACE"},
        {"COPY", "ex", "c1", "DB", "1"},
        {"COPY", "nocopy", "c2"},
        {"RESTORE", "rs", "0", kHelloPayload},
        {"RESTORE", "rs", "0", kHelloPayload},
        {"RESTORE", "rs", "100000", kHelloPayload, "REPLACE"},
        {"RESTORE", "rs", "1", kHelloPayload, "REPLACE", "ABSTTL"},
        {"RESTORE", "rs", "1", kHelloPayload, "ABSTTL"},
        {"RESTORE-ASKING", "ra", "0", kHelloPayload},
        {"RESTORE-ASKING", "ra", "100000", kHelloPayload, "REPLACE"},
        {"DUMP", "ex"},
        {"DUMP", "nodump"},
        // MIGRATE: nothing here with COPY; a `del` when the key leaves; NOKEY
        {"MIGRATE", "127.0.0.1", target, "ex", "0", "5000", "COPY", "REPLACE"},
        {"MIGRATE", "127.0.0.1", target, "c1", "0", "5000", "REPLACE"},
        {"MIGRATE", "127.0.0.1", target, "nomigrate", "0", "5000"},
        {"COPY", "ex", "c1"},
        {"MOVE", "c1", "1"},
        {"MOVE", "ex", "2"},
        {"MOVE", "nomove", "2"},
        {"SWAPDB", "0", "1"},
        {"SWAPDB", "0", "1"},
        {"SELECT", "2"},
        {"FLUSHDB"},
        {"SELECT", "0"}}},
      // Reads notify only `keymiss` (class m), and only for a counted lookup: OBJECT and MEMORY
      // USAGE never do.
      {Mode::kSelf,
       {{"GET", "nokey"},
        {"MGET", "nokey", "nokey2"},
        {"EXISTS", "nokey"},
        {"TYPE", "nokey"},
        {"TTL", "nokey"},
        {"PTTL", "nokey"},
        {"STRLEN", "nokey"},
        {"GETRANGE", "nokey", "0", "1"},
        {"SUBSTR", "nokey", "0", "1"},
        {"LLEN", "nokey"},
        {"LRANGE", "nokey", "0", "-1"},
        {"LINDEX", "nokey", "0"},
        {"LPOS", "nokey", "a"},
        {"HGET", "nokey", "f"},
        {"HGETALL", "nokey"},
        {"HLEN", "nokey"},
        {"HEXISTS", "nokey", "f"},
        {"HRANDFIELD", "nokey"},
        {"SMEMBERS", "nokey"},
        {"SCARD", "nokey"},
        {"SISMEMBER", "nokey", "a"},
        {"SRANDMEMBER", "nokey"},
        {"SINTER", "nokey", "nokey2"},
        {"SINTERCARD", "2", "nokey", "nokey2", "LIMIT", "1"},
        {"LCS", "nokey", "nokey2"},
        {"ZSCORE", "nokey", "a"},
        {"ZCARD", "nokey"},
        {"ZINTERCARD", "2", "nokey", "nokey2", "LIMIT", "1"},
        {"ZRANGE", "nokey", "0", "-1"},
        {"ZRANK", "nokey", "a"},
        {"EXPIRETIME", "nokey"},
        {"PEXPIRETIME", "nokey"},
        {"TOUCH", "nokey", "nokey2"},
        {"HKEYS", "nokey"},
        {"HVALS", "nokey"},
        {"HMGET", "nokey", "f", "g"},
        {"HSTRLEN", "nokey", "f"},
        {"HSCAN", "nokey", "0"},
        {"SMISMEMBER", "nokey", "a"},
        {"SUNION", "nokey", "nokey2"},
        {"SDIFF", "nokey", "nokey2"},
        {"SSCAN", "nokey", "0"},
        {"ZCOUNT", "nokey", "0", "1"},
        {"ZLEXCOUNT", "nokey", "-", "+"},
        {"ZMSCORE", "nokey", "a"},
        {"ZRANGEBYSCORE", "nokey", "0", "1"},
        {"ZRANGEBYLEX", "nokey", "-", "+"},
        {"ZREVRANGE", "nokey", "0", "-1"},
        {"ZREVRANGEBYSCORE", "nokey", "1", "0"},
        {"ZREVRANGEBYLEX", "nokey", "+", "-"},
        {"ZREVRANK", "nokey", "a"},
        {"ZSCAN", "nokey", "0"},
        {"SET", "here", "v"},
        {"MGET", "here", "nokey"},
        {"SINTER", "here", "nokey"},
        {"OBJECT", "ENCODING", "nokey"},
        {"OBJECT", "FREQ", "nokey"},
        {"OBJECT", "IDLETIME", "nokey"},
        {"OBJECT", "REFCOUNT", "nokey"},
        {"MEMORY", "USAGE", "nokey"},
        {"FLUSHALL"}}},
      // Lazy expiry: the key is due when the next command looks it up (DEBUG SLEEP stops the
      // server, so no active cycle can run between), by a read and by a write.
      {Mode::kPlain,
       {{"SET", "lz", "v"},
        {"PEXPIRE", "lz", kShortTtlMs},
        {"DEBUG", "SLEEP", kPastShortTtl},
        {"GET", "lz"},
        {"RPUSH", "le", "a"},
        {"PEXPIRE", "le", kShortTtlMs},
        {"DEBUG", "SLEEP", kPastShortTtl},
        {"LPUSH", "le", "b"},
        {"SET", "past", "v", "PXAT", "1"},
        {"EXISTS", "past"}}},
      // SCAN deletes the due keys it meets (after MATCH; through TYPE's lookup when given).
      // One due key per SCAN: several would come in hash order, which differs.
      {Mode::kPlain,
       {{"SELECT", "8"},
        {"SET", "sc1", "v", "PXAT", "1"},
        {"SET", "sc2", "v"},
        {"SCAN", "0", "COUNT", "100"},
        {"RPUSH", "sc3", "a"},
        {"PEXPIRE", "sc3", kShortTtlMs},
        {"DEBUG", "SLEEP", kPastShortTtl},
        {"SCAN", "0", "TYPE", "list", "COUNT", "100"},
        {"SET", "sc4", "v", "PXAT", "1"},
        {"SCAN", "0", "TYPE", "string", "COUNT", "100"},
        {"SET", "sc5", "v", "PXAT", "1"},
        {"SCAN", "0", "MATCH", "nomatch*", "COUNT", "100"},
        {"DEL", "sc5"},
        {"SELECT", "0"}}},
      // The FUNCTION writes publish nothing; a function's own writes do, as any command's.
      {Mode::kSelf,
       {{"FUNCTION", "LOAD",
         "#!lua name=kev\nredis.register_function('kev', function(k) "
         "return redis.call('set', k[1], 'v') end)"},
        {"FCALL", "kev", "1", "fk"},
        {"FUNCTION", "DELETE", "kev"},
        {"FUNCTION", "RESTORE", "bad"},
        {"FUNCTION", "FLUSH"}}},
      // Active expiry in its own db, waited for by polling DBSIZE there; one key at a time, as
      // Redis' cycle picks keys in no fixed order.
      {Mode::kActiveExpiry, {{"SELECT", "9"}, {"SET", "ax", "v"}, {"PEXPIRE", "ax", kShortTtlMs}}},
      {Mode::kActiveExpiry,
       {{"SELECT", "9"}, {"HSET", "ah", "f", "v"}, {"PEXPIRE", "ah", kShortTtlMs}}},
  };
}

std::vector<Script> all_scripts() {
  std::vector<Script> all;
  for (auto part : {list_scripts(), blocking_scripts(), hash_set_scripts(), zset_scripts(),
                    stream_scripts(), string_scripts(), generic_scripts()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

// ---- a minimal RESP tree for COMMAND's reply ---------------------------------------------------

struct Node {
  char type = 0;
  std::string text;  // bulk / simple / integer payload
  std::vector<Node> items;
};

Node parse_node(std::string_view buf, std::size_t& pos) {
  Node n;
  n.type = buf[pos];
  const std::size_t eol = buf.find("\r\n", pos);
  const std::string head(buf.substr(pos + 1, eol - pos - 1));
  pos = eol + 2;
  if (n.type == '$') {
    const long long len = std::stoll(head);
    if (len >= 0) {
      n.text = std::string(buf.substr(pos, static_cast<std::size_t>(len)));
      pos += static_cast<std::size_t>(len) + 2;
    }
  } else if (n.type == '*' || n.type == '~' || n.type == '>') {
    const long long count = std::stoll(head);
    for (long long i = 0; i < count; ++i) n.items.push_back(parse_node(buf, pos));
  } else {
    n.text = head;
  }
  return n;
}

bool has_flag(const Node& entry, std::string_view flag) {
  return std::any_of(entry.items[2].items.begin(), entry.items[2].items.end(),
                     [&](const Node& f) { return f.text == flag; });
}

/// An entry's name if it has `flag` (and, with `keyed`, a first key position), else "".
std::string selected(const Node& entry, std::string_view flag, bool keyed) {
  if (!has_flag(entry, flag) || (keyed && entry.items[3].text == "0")) return {};
  return entry.items[0].text;
}

/// Names (lower case, `container|sub` for subcommands) of every command of the table flagged
/// `flag` (with a key, when `keyed`).
std::set<std::string> commands_flagged(int port, std::string_view flag, bool keyed) {
  RespClient c(port);
  const std::string raw = c.call({"COMMAND"});
  std::size_t pos = 0;
  const Node all = parse_node(raw, pos);
  std::set<std::string> out;
  for (const Node& entry : all.items) {
    out.insert(selected(entry, flag, keyed));
    if (entry.items.size() > 9)
      for (const Node& sub : entry.items[9].items) out.insert(selected(sub, flag, keyed));
  }
  out.erase("");
  return out;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

/// The name a command has in COMMAND: `container|sub` when its second word is a subcommand.
std::string table_name(const Args& cmd) {
  static const std::set<std::string> kContainers = {
      "object", "memory", "config", "client", "command", "debug", "xgroup", "xinfo", "function"};
  const std::string name = lower(cmd[0]);
  if (kContainers.count(name) && cmd.size() > 1) return name + "|" + lower(cmd[1]);
  return name;
}

// ---- one server's side -------------------------------------------------------------------------

/// A frame with the step it was read in, for failure messages.
struct Frame {
  std::string bytes;
  std::size_t step;
};

std::string bulk_of(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}

struct Side {
  std::string name;
  int port = 0;
  std::unique_ptr<RespClient> self{}, plain{}, listener{}, blocker{};
  std::vector<Frame> self_stream{}, listener_stream{}, blocker_stream{};

  void open() {
    self = std::make_unique<RespClient>(port);
    plain = std::make_unique<RespClient>(port);
    listener = std::make_unique<RespClient>(port);
    blocker = std::make_unique<RespClient>(port);
    if (self->call({"HELLO", "3"}).rfind("%7", 0) != 0)
      throw std::runtime_error(name + ": HELLO 3 failed");
    self->call({"PSUBSCRIBE", "__key*__:*"});
    listener->call({"PSUBSCRIBE", "__key*__:*"});
  }

  /// Sends `commands` and a `PING marker` on `c`, reads up to the marker's reply.
  static void run_on(RespClient& c, const std::vector<Args>& commands, const std::string& marker,
                     std::vector<Frame>* stream, std::size_t step) {
    std::string bytes;
    for (const Args& cmd : commands) bytes += encode_command(cmd);
    bytes += encode_command({"PING", marker});
    if (!c.send(bytes)) throw std::runtime_error("connection closed");
    for (;;) {
      const std::string r = c.read_reply();
      if (r == bulk_of(marker) || r == "+" + marker + "\r\n") return;
      if (stream) stream->push_back({r, step});
    }
  }

  long long info_number(const std::string& field) {
    const std::string r = plain->call({"INFO", "clients"});
    const auto at = r.find(field + ":");
    return at == std::string::npos ? -1 : std::atoll(r.c_str() + at + field.size() + 1);
  }

  template <class Pred>
  void wait_until(Pred done, const char* what) {
    for (int i = 0; i < 2000; ++i) {
      if (done()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    throw std::runtime_error(name + ": timed out waiting for " + what);
  }

  void run(const Script& s, std::size_t step) {
    const std::string marker = "mark-" + std::to_string(step);
    switch (s.mode) {
      case Mode::kSelf: run_on(*self, s.commands, marker, &self_stream, step); break;
      case Mode::kPlain: run_on(*plain, s.commands, marker, nullptr, step); break;
      case Mode::kBlocking:
        if (!blocker->send(encode_command(s.blocker)))
          throw std::runtime_error("blocker connection closed");
        wait_until([&] { return info_number("blocked_clients") == 1; }, "the blocked client");
        run_on(*self, s.commands, marker, &self_stream, step);
        blocker_stream.push_back({blocker->read_reply(), step});
        break;
      case Mode::kActiveExpiry:
        run_on(*plain, s.commands, marker, nullptr, step);
        wait_until([&] { return plain->call({"DBSIZE"}) == ":0\r\n"; }, "active expiry");
        plain->call({"SELECT", "0"});
        break;
    }
    sync(step);
  }

  /// Every event of the step is published before this message: the listener reads up to it.
  void sync(std::size_t step) {
    const std::string channel = "__keysync__:" + std::to_string(step);
    run_on(*self, {{"PUBLISH", channel, "sync"}}, "sync-" + std::to_string(step), &self_stream,
           step);
    for (;;) {
      const std::string r = listener->read_reply();
      listener_stream.push_back({r, step});
      if (r.find(bulk_of(channel)) != std::string::npos) return;
    }
  }

  void configure(const std::string& flags, std::size_t step) {
    run_on(*plain, {{"FLUSHALL"}, {"CONFIG", "SET", "notify-keyspace-events", flags}},
           "config-" + std::to_string(step), nullptr, step);
    sync(step);
  }
};

std::string describe(const std::vector<Frame>& frames, std::size_t i) {
  return i < frames.size()
             ? escape_bytes(frames[i].bytes) + " (step " + std::to_string(frames[i].step) + ")"
             : "<none>";
}

void compare(const char* what, const std::vector<Frame>& ours, const std::vector<Frame>& theirs,
             const std::vector<std::string>& step_names) {
  const std::size_t n = std::min(ours.size(), theirs.size());
  std::size_t i = 0;
  while (i < n && ours[i].bytes == theirs[i].bytes) ++i;
  if (i == n && ours.size() == theirs.size()) return;
  const std::size_t step = i < ours.size() ? ours[i].step : theirs[i].step;
  ADD_FAILURE() << what << ": frame " << i << " of " << ours.size() << "/" << theirs.size()
                << " differs\n  listd: " << describe(ours, i)
                << "\n  redis: " << describe(theirs, i) << "\n  step " << step << ": "
                << step_names.at(step);
}

std::string script_text(const Script& s) {
  std::ostringstream out;
  if (!s.blocker.empty()) {
    out << "(blocked:";
    for (const auto& a : s.blocker) out << " " << a;
    out << ") ";
  }
  for (const Args& cmd : s.commands) {
    out << "[";
    for (std::size_t j = 0; j < cmd.size(); ++j) out << (j ? " " : "") << cmd[j];
    out << "] ";
  }
  return out.str();
}

class KeyspaceEventsOracle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    listd_ = new ServerProcess(ServerProcess::start_listd());
    redis_ = new ServerProcess(ServerProcess::start_redis({"--enable-debug-command", "yes"}));
  }
  static void TearDownTestSuite() {
    delete listd_;
    delete redis_;
    listd_ = redis_ = nullptr;
  }

  static ServerProcess* listd_;
  static ServerProcess* redis_;
};

ServerProcess* KeyspaceEventsOracle::listd_ = nullptr;
ServerProcess* KeyspaceEventsOracle::redis_ = nullptr;

std::set<std::string> commands_in_scripts() {
  std::set<std::string> used;
  for (const Script& s : all_scripts()) {
    for (const Args& cmd : s.commands) used.insert(table_name(cmd));
    if (!s.blocker.empty()) used.insert(table_name(s.blocker));
  }
  return used;
}

TEST_F(KeyspaceEventsOracle, WritesOfTheCommandTableAreAllCovered) {
  const std::set<std::string> used = commands_in_scripts();
  const std::set<std::string> writes = commands_flagged(listd_->port(), "write", false);
  ASSERT_GT(writes.size(), 50u);
  for (const std::string& w : writes)
    EXPECT_TRUE(used.count(w)) << "write command '" << w << "' has no keyspace-events script";
}

// A read of a missing key is a `keymiss` (or not): every read command with a key is in a script.
TEST_F(KeyspaceEventsOracle, ReadsWithAKeyAreAllCovered) {
  const std::set<std::string> used = commands_in_scripts();
  const std::set<std::string> reads = commands_flagged(listd_->port(), "readonly", true);
  ASSERT_GT(reads.size(), 30u);
  for (const std::string& r : reads)
    EXPECT_TRUE(used.count(r)) << "read command '" << r << "' has no keyspace-events script";
}

TEST_F(KeyspaceEventsOracle, NotificationStreamsMatchRedis) {
  const std::vector<Script> scripts = all_scripts();
  Side ours{"listd", listd_->port()}, theirs{"redis", redis_->port()};
  ours.open();
  theirs.open();
  std::vector<std::string> step_names;
  // KEA and KEAn as the issue asks, then narrower sets: one channel only, single classes, the
  // key-miss and expired classes alone (A leaves out n and m).
  for (const std::string flags :
       {"KEA", "KEAn", "El", "Kg$", "Eshz", "KEm", "Ex", "KEAnm", "Ed", "Et", "Ee"}) {
    step_names.push_back("CONFIG SET notify-keyspace-events " + flags);
    ours.configure(flags, step_names.size() - 1);
    theirs.configure(flags, step_names.size() - 1);
    for (const Script& s : scripts) {
      step_names.push_back(flags + ": " + script_text(s));
      ours.run(s, step_names.size() - 1);
      theirs.run(s, step_names.size() - 1);
    }
  }
  compare("listener (RESP2, PSUBSCRIBE)", ours.listener_stream, theirs.listener_stream, step_names);
  compare("driver (RESP3, subscribed to its own events)", ours.self_stream, theirs.self_stream,
          step_names);
  compare("served blocked clients", ours.blocker_stream, theirs.blocker_stream, step_names);
  // The comparison proves little if nothing was published: KEA alone yields hundreds.
  EXPECT_GT(ours.listener_stream.size(), 1000u);
}

}  // namespace
}  // namespace listd::testing
