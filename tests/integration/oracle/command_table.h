// The oracle's command table: for each compared command its family, weight and argument
// generator, and how its replies are checked. Included by oracle_test.cpp only.
#pragma once

#include "oracle/generators.h"

namespace listd::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// The command table. enabled=false marks a known listd difference (say which in a comment).

// kSortArray: sort the elements of an array/set reply (or the key/value pairs of a map);
// kSortPairs: also keep an array's consecutive pairs together (HGETALL in RESP2).
// kTtlSeconds/kTtlMs (TTL, PTTL: relative to each server's clock) and kDeadlineSeconds/
// kDeadlineMs (EXPIRETIME, PEXPIRETIME): compared by compare_ttl() (see there).
enum class Normalize {
  kNone,
  kTtlSeconds,
  kTtlMs,
  kDeadlineSeconds,
  kDeadlineMs,
  kSortArray,
  kSortPairs
};

// How the replies are checked (see the top of the file): one exchange compared after
// normalize(), or one of the property checks of the random and iterating commands.
// kRandomKey: RANDOMKEY by property; kTransaction: a WATCH/MULTI/.../EXEC block as one unit;
// kPipeline: a burst of commands sent in one write (the runner generates their contents).
enum class Check { kCompare, kRandomPick, kSpop, kScan, kRandomKey, kTransaction, kPipeline };

struct Generated {
  Args args{};
  std::string name{};  // the table entry (args[0] may be cased differently or mangled)
  /// kTransaction / kPipeline: the commands in order, each for connection 0 (the sequence's
  /// main one) or 1 (the second connection).
  std::vector<std::pair<int, Args>> block{};
  /// A plain command sent on the second connection instead (cross-connection visibility).
  bool on_second = false;
  Normalize normalize = Normalize::kNone;
  Check check = Check::kCompare;
  /// Compare in order (normalize ignored) when redis reports a compact encoding for args[1].
  bool ordered_if_compact = false;
};

struct CommandDef {
  const char* name;
  const char* family;
  int weight;
  bool enabled;
  std::function<void(Rng&, TtlSource&, Generated&)> make;  // appends the arguments after the name
};

void push_elements(Rng& r, Args& a, int max) {
  // Now and then a long push, so lists cross listd's and Redis' block boundaries and ranges,
  // indexes, LPOS and LSET meet lists of hundreds of elements.
  const long long n = r.chance(8) ? r.range(20, 600) : r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(element(r));
}
void push_keys(Rng& r, Args& a, int max) {
  const long long n = r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(any_key(r));
}
void push_strkeys(Rng& r, Args& a, int max) {
  const long long n = r.range(1, max);
  for (long long i = 0; i < n; ++i) a.push_back(strkey(r));
}

// numkeys (sometimes wrong), 1-3 sorted-set keys, MIN|MAX (sometimes wrong), maybe COUNT n:
// ZMPOP's arguments, and BZMPOP's after its timeout.
void push_zmpop_args(Rng& r, Args& a) {
  static const std::vector<std::string> kWhere = {"MIN", "MAX", "min", "Max", "LEFT"};
  const long long n = r.range(1, 3);
  a.push_back(numkeys(r, n));
  for (long long i = 0; i < n; ++i) a.push_back(zkey(r));
  a.push_back(r.pick(kWhere));
  if (r.chance(50)) {
    a.push_back(r.chance(90) ? "COUNT" : "count");
    a.push_back(integer(r, -1, 4));
  }
}

// BZPOPMIN/BZPOPMAX: 1-3 keys, then a short timeout.
void push_bzpop_args(Rng& r, Args& a) {
  const long long n = r.range(1, 3);
  for (long long i = 0; i < n; ++i) a.push_back(zkey(r));
  a.push_back(block_timeout(r));
}

const std::vector<CommandDef>& command_table() {
  static const std::vector<CommandDef> kCommands = {
      // Lists.
      {"LPUSH", "list", 10, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(lkey(r)); push_elements(r, g.args, 4); }},
      {"RPUSH", "list", 10, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(lkey(r)); push_elements(r, g.args, 4); }},
      {"LPUSHX", "list", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(lkey(r)); push_elements(r, g.args, 3); }},
      {"RPUSHX", "list", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(lkey(r)); push_elements(r, g.args, 3); }},
      {"LPOP", "list", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(lkey(r));
         if (r.chance(50)) g.args.push_back(integer(r, -1, 4)); }},
      {"RPOP", "list", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(lkey(r));
         if (r.chance(50)) g.args.push_back(integer(r, -1, 4)); }},
      {"LLEN", "list", 4, true, [](Rng& r, TtlSource&, Generated& g) { g.args.push_back(lkey(r)); }},
      {"LRANGE", "list", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), list_index(r), list_index(r)}; }},
      {"LINDEX", "list", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), list_index(r)}; }},
      {"LSET", "list", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), list_index(r), element(r)}; }},
      {"LINSERT", "list", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         static const std::vector<std::string> kWhere = {"BEFORE", "AFTER", "before", "After", "MIDDLE"};
         g.args = {lkey(r), r.pick(kWhere), element(r), element(r)}; }},
      {"LREM", "list", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), integer(r, -3, 3), element(r)}; }},
      // Mostly a trim that keeps most of the list (random bounds would empty it most times).
      {"LTRIM", "list", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         if (r.chance(70))
           g.args = {lkey(r), std::to_string(r.range(0, 2)),
                     r.chance(50) ? std::to_string(-r.range(1, 3)) : std::to_string(r.range(50, 700))};
         else
           g.args = {lkey(r), list_index(r), list_index(r)};
       }},
      {"LPOS", "list", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), element(r)};
         const long long options = r.range(0, 3);
         for (long long i = 0; i < options; ++i) {
           const long long which = r.range(1, 100);
           if (which <= 32) {
             g.args.push_back(r.chance(80) ? "RANK" : "rank");
             g.args.push_back(integer(r, -3, 3));
           } else if (which <= 64) {
             g.args.push_back("COUNT");
             g.args.push_back(integer(r, -1, 3));
           } else if (which <= 94) {
             g.args.push_back("MAXLEN");
             g.args.push_back(integer(r, -1, 5));
           } else {
             g.args.push_back("FOO");
             g.args.push_back("1");
           }
         }
         if (r.chance(3)) g.args.push_back("RANK");  // option without its value
       }},
      {"RPOPLPUSH", "list", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), lkey(r)}; }},
      {"LMOVE", "list", 5, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), lkey(r), direction(r), direction(r)}; }},
      {"LMPOP", "list", 5, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         const long long roll = r.range(1, 100);
         std::string numkeys = std::to_string(n);
         if (roll <= 5) numkeys = "0";
         else if (roll <= 8) numkeys = "-1";
         else if (roll <= 12) numkeys = std::to_string(n + 2);  // more than given
         else if (roll <= 15) numkeys = r.pick(kBadIntegers);
         g.args.push_back(numkeys);
         for (long long i = 0; i < n; ++i) g.args.push_back(lkey(r));
         g.args.push_back(direction(r));
         if (r.chance(50)) {
           g.args.push_back(r.chance(90) ? "COUNT" : "count");
           g.args.push_back(integer(r, -1, 4));
         }
         if (r.chance(3)) g.args.push_back("COUNT");
       }},

      // Blocking list commands: with data present they answer at once; on empty keys after a
      // short timeout (Redis 7.0 notices it in its cron: redis runs with hz 100).
      {"BLPOP", "list", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         for (long long i = 0; i < n; ++i) g.args.push_back(lkey(r));
         g.args.push_back(block_timeout(r)); }},
      {"BRPOP", "list", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         for (long long i = 0; i < n; ++i) g.args.push_back(lkey(r));
         g.args.push_back(block_timeout(r)); }},
      {"BRPOPLPUSH", "list", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), lkey(r), block_timeout(r)}; }},
      {"BLMOVE", "list", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {lkey(r), lkey(r), direction(r), direction(r), block_timeout(r)}; }},
      {"BLMPOP", "list", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(block_timeout(r));
         const long long n = r.range(1, 3);
         g.args.push_back(numkeys(r, n));
         for (long long i = 0; i < n; ++i) g.args.push_back(lkey(r));
         g.args.push_back(direction(r));
         if (r.chance(50)) {
           g.args.push_back(r.chance(90) ? "COUNT" : "count");
           g.args.push_back(integer(r, -1, 4));
         }
       }},

      // Connection and transactions. PING and ECHO with 0-2 arguments (wrong arity included).
      {"PING", "connection", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(0, 2);
         for (long long i = 0; i < n; ++i) g.args.push_back(element(r)); }},
      {"ECHO", "connection", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.chance(80) ? 1 : r.chance(50) ? 0 : 2;
         for (long long i = 0; i < n; ++i) g.args.push_back(element(r)); }},
      {"RANDOMKEY", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         if (r.chance(5)) g.args.push_back("x");
         g.check = Check::kRandomKey; }},
      // The runner fills in the block (see OracleRun::fill_transaction / fill_pipeline).
      {"MULTI", "transaction", 4, true, [](Rng&, TtlSource&, Generated& g) {
         g.check = Check::kTransaction; }},
      {"(pipeline)", "pipeline", 3, true, [](Rng&, TtlSource&, Generated& g) {
         g.check = Check::kPipeline; }},

      // Keyspace.
      {"DEL", "keyspace", 3, true, [](Rng& r, TtlSource&, Generated& g) { push_keys(r, g.args, 3); }},
      {"UNLINK", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) { push_keys(r, g.args, 2); }},
      {"EXISTS", "keyspace", 3, true, [](Rng& r, TtlSource&, Generated& g) { push_keys(r, g.args, 3); }},
      {"TOUCH", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) { push_keys(r, g.args, 3); }},
      {"TYPE", "keyspace", 3, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {any_key(r)}; }},
      {"RENAME", "keyspace", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {any_key(r), any_key(r)}; }},
      {"RENAMENX", "keyspace", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {any_key(r), any_key(r)}; }},
      {"COPY", "keyspace", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {any_key(r), any_key(r)};
         if (r.chance(30)) {
           g.args.push_back("DB");
           g.args.push_back(r.pick(std::vector<std::string>{"0", "1", "1", "16", "-1", "x"}));
         }
         if (r.chance(40)) g.args.push_back(r.chance(90) ? "REPLACE" : "FOO");
       }},
      {"MOVE", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {any_key(r), r.pick(std::vector<std::string>{"0", "1", "1", "2", "16", "x"})}; }},
      {"KEYS", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {r.pick(kKeyPatterns)};
         g.normalize = Normalize::kSortArray;  // hash-table order is not part of the contract
       }},
      {"DBSIZE", "keyspace", 2, true, [](Rng&, TtlSource&, Generated&) {}},
      // Mostly back to db 0, where the typed keys grow (another db starts empty).
      {"SELECT", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {r.pick(std::vector<std::string>{"0", "0", "0", "0", "0", "1", "2", "16", "-1", "x"})}; }},
      {"FLUSHDB", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         if (r.chance(30)) g.args.push_back(r.pick(std::vector<std::string>{"ASYNC", "SYNC", "FOO"})); }},
      {"SWAPDB", "keyspace", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {r.pick(std::vector<std::string>{"0", "1", "2", "x"}),
                   r.pick(std::vector<std::string>{"0", "1", "16"})}; }},
      {"OBJECT", "keyspace", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         static const std::vector<std::string> kSub = {"encoding", "Encoding", "REFCOUNT", "refcount"};
         g.args = {r.chance(85) ? "ENCODING" : r.pick(kSub), any_key(r)};
       }},
      {"SCAN", "keyspace", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {scan_cursor(r)};
         push_scan_options(r, g.args, kKeyPatterns, true);
         g.check = Check::kScan;
       }},

      // Expiry.
      {"EXPIRE", "expire", 3, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {ekey(r), t.seconds(r)};
         if (r.chance(30)) g.args.push_back(expire_flag(r));
         if (r.chance(5)) g.args.push_back(expire_flag(r));
       }},
      {"PEXPIRE", "expire", 2, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {ekey(r), t.milliseconds(r)};
         if (r.chance(30)) g.args.push_back(expire_flag(r));
       }},
      {"EXPIREAT", "expire", 2, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {ekey(r), t.unix_seconds(r)};
         if (r.chance(30)) g.args.push_back(expire_flag(r));
       }},
      {"PEXPIREAT", "expire", 2, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {ekey(r), t.unix_milliseconds(r)};
         if (r.chance(30)) g.args.push_back(expire_flag(r));
       }},
      {"PEXPIRETIME", "expire", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {ekey(r)}; g.normalize = Normalize::kDeadlineMs; }},
      {"TTL", "expire", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {ekey(r)}; g.normalize = Normalize::kTtlSeconds; }},
      {"PTTL", "expire", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {ekey(r)}; g.normalize = Normalize::kTtlMs; }},
      {"EXPIRETIME", "expire", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {ekey(r)}; g.normalize = Normalize::kDeadlineSeconds; }},
      {"PERSIST", "expire", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {ekey(r)}; }},

      // Hashes.
      {"HSET", "hash", 8, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(hkey(r));
         if (r.chance(1)) {  // past hash-max-listpack-entries (512), or just under it
           const long long n = r.range(505, 530);
           for (long long i = 0; i < n; ++i) {
             g.args.push_back("f" + std::to_string(i));
             g.args.push_back(std::to_string(i));
           }
           return;
         }
         const long long n = r.chance(3) ? r.range(20, 80) : r.range(1, 3);
         for (long long i = 0; i < n; ++i) {
           g.args.push_back(field(r));
           g.args.push_back(r.chance(30) ? integer(r, -5, 5) : element(r));
         }
       }},
      {"HSETNX", "hash", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r), field(r), element(r)}; }},
      {"HGET", "hash", 4, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {hkey(r), field(r)}; }},
      {"HMGET", "hash", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(hkey(r)); push_fields(r, g.args, 4); }},
      {"HDEL", "hash", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(hkey(r)); push_fields(r, g.args, 3); }},
      {"HLEN", "hash", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {hkey(r)}; }},
      {"HEXISTS", "hash", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {hkey(r), field(r)}; }},
      {"HINCRBY", "hash", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r), field(r), integer(r, -5, 5)}; }},
      {"HKEYS", "hash", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r)}; g.normalize = Normalize::kSortArray; g.ordered_if_compact = true; }},
      {"HVALS", "hash", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r)}; g.normalize = Normalize::kSortArray; g.ordered_if_compact = true; }},
      {"HGETALL", "hash", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r)}; g.normalize = Normalize::kSortPairs; g.ordered_if_compact = true; }},
      {"HSTRLEN", "hash", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {hkey(r), field(r)}; }},
      {"HMSET", "hash", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(hkey(r));
         const long long n = r.range(1, 3);
         for (long long i = 0; i < n; ++i) {
           g.args.push_back(field(r));
           g.args.push_back(r.chance(30) ? integer(r, -5, 5) : element(r));
         }
       }},
      {"HINCRBYFLOAT", "hash", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r), field(r), float_arg(r)}; }},
      {"HRANDFIELD", "hash", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey_mostly(r)};
         if (r.chance(75)) g.args.push_back(pick_count(r));
         if (r.chance(40)) g.args.push_back(r.pick(std::vector<std::string>{"WITHVALUES", "withvalues", "FOO"}));
         g.check = Check::kRandomPick;
       }},
      {"HSCAN", "hash", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {hkey(r), scan_cursor(r)};
         push_scan_options(r, g.args, kMemberPatterns, false);
         g.check = Check::kScan;
       }},

      // Sets.
      {"SADD", "set", 8, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(skey(r)); push_set_members(r, g.args, 6); }},
      {"SREM", "set", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(skey(r)); push_set_members(r, g.args, 3); }},
      {"SISMEMBER", "set", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {skey(r), set_member(r)}; }},
      {"SMISMEMBER", "set", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(skey(r)); push_set_members(r, g.args, 4); }},
      {"SCARD", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {skey(r)}; }},
      {"SMEMBERS", "set", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {skey(r)}; g.normalize = Normalize::kSortArray; g.ordered_if_compact = true; }},
      {"SPOP", "set", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {skey_mostly(r)};
         // Mostly small counts: big ones empty the set, and then nothing is random.
         // Now and then a count that leaves few members (Redis' set rebuild, see check_spop).
         if (r.chance(60))
           g.args.push_back(r.chance(60)   ? std::to_string(r.range(1, 3))
                            : r.chance(40) ? std::to_string(r.range(5, 40))
                                           : pick_count(r));
         g.check = Check::kSpop;
       }},
      {"SRANDMEMBER", "set", 6, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {skey_mostly(r)};
         if (r.chance(75)) g.args.push_back(pick_count(r));
         g.check = Check::kRandomPick;
       }},
      {"SSCAN", "set", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {skey(r), scan_cursor(r)};
         push_scan_options(r, g.args, kMemberPatterns, false);
         g.check = Check::kScan;
       }},
      {"SMOVE", "set", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {skey(r), skey(r), set_member(r)}; }},
      {"SINTER", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         push_skeys(r, g.args, 3); g.normalize = Normalize::kSortArray; }},
      {"SUNION", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         push_skeys(r, g.args, 3); g.normalize = Normalize::kSortArray; }},
      {"SDIFF", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         push_skeys(r, g.args, 3); g.normalize = Normalize::kSortArray; }},
      {"SINTERCARD", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         g.args.push_back(numkeys(r, n));
         for (long long i = 0; i < n; ++i) g.args.push_back(skey(r));
         if (r.chance(40)) {
           g.args.push_back(r.chance(90) ? "LIMIT" : "limit");
           g.args.push_back(integer(r, -1, 4));
         }
       }},
      {"SINTERSTORE", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(skey(r)); push_skeys(r, g.args, 3); }},
      {"SUNIONSTORE", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(skey(r)); push_skeys(r, g.args, 3); }},
      {"SDIFFSTORE", "set", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(skey(r)); push_skeys(r, g.args, 3); }},

      // Sorted sets.
      {"ZADD", "zset", 10, true, [](Rng& r, TtlSource&, Generated& g) {
         static const std::vector<std::string> kFlags = {"NX", "XX", "GT", "LT", "CH", "INCR",
                                                         "ch", "nx", "FOO"};
         g.args.push_back(zkey(r));
         const bool lex = g.args.back() == kLexKey;
         const long long flags = r.chance(60) ? 0 : r.range(1, 3);
         for (long long i = 0; i < flags; ++i) {
           std::string f = r.pick(kFlags);
           if (f == "FOO" && r.chance(80)) f = "CH";
           g.args.push_back(f);
         }
         if (r.chance(2)) {  // past zset-max-listpack-entries (128), or just under it
           const long long n = r.range(120, 140);
           for (long long i = 0; i < n; ++i) {
             g.args.push_back(lex ? "0" : r.chance(50) ? score(r) : std::to_string(i));
             g.args.push_back("m" + std::to_string(i));
           }
           return;
         }
         const long long n = r.chance(10) ? r.range(20, 150) : r.range(1, 6);
         for (long long i = 0; i < n; ++i) {
           g.args.push_back(lex ? "0" : score(r));
           g.args.push_back(zmember(r));
         }
       }},
      {"ZINCRBY", "zset", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r), score(r), zmember(r)};
         if (g.args[0] == kLexKey) g.args[1] = "0";
       }},
      {"ZREM", "zset", 4, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(zkey(r)); push_zmembers(r, g.args, 3); }},
      {"ZCARD", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {zkey(r)}; }},
      {"ZSCORE", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {zkey(r), zmember(r)}; }},
      {"ZMSCORE", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(zkey(r)); push_zmembers(r, g.args, 4); }},
      {"ZRANK", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {zkey(r), zmember(r)}; }},
      {"ZREVRANK", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {zkey(r), zmember(r)}; }},
      {"ZCOUNT", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r)};
         push_score_range(r, g.args, false); }},
      {"ZRANGE", "zset", 8, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long mode = r.range(1, 100);
         g.args.push_back(mode > 75 ? kLexKey : zkey(r));
         const bool rev = r.chance(30);
         if (mode <= 40) {  // by index
           g.args.push_back(index(r));
           g.args.push_back(index(r));
         } else if (mode <= 75) {
           g.args.push_back(score_bound(r));
           g.args.push_back(score_bound(r));
           g.args.push_back(r.chance(90) ? "BYSCORE" : "byscore");
         } else {
           g.args.push_back(lex_bound(r));
           g.args.push_back(lex_bound(r));
           g.args.push_back(r.chance(90) ? "BYLEX" : "bylex");
         }
         if (rev) g.args.push_back(r.chance(90) ? "REV" : "rev");
         if (r.chance(mode <= 40 ? 8 : 40)) push_limit(r, g.args);
         if (r.chance(mode > 75 ? 10 : 40)) g.args.push_back("WITHSCORES");
         if (r.chance(3)) g.args.push_back(r.pick(std::vector<std::string>{"BYSCORE", "BYLEX", "FOO"}));
       }},
      {"ZRANGEBYSCORE", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r)};
         push_score_range(r, g.args, false);
         if (r.chance(40)) g.args.push_back("WITHSCORES");
         if (r.chance(30)) push_limit(r, g.args);
       }},
      {"ZREVRANGEBYSCORE", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r)};
         push_score_range(r, g.args, true);
         if (r.chance(30)) push_limit(r, g.args);
         if (r.chance(40)) g.args.push_back("withscores");
       }},
      {"ZREMRANGEBYSCORE", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r), score_bound(r), score_bound(r)}; }},
      {"ZREMRANGEBYRANK", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r), index(r), index(r)}; }},
      {"ZPOPMIN", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r)};
         if (r.chance(50)) g.args.push_back(integer(r, -1, 4));
       }},
      {"ZPOPMAX", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r)};
         if (r.chance(50)) g.args.push_back(integer(r, -1, 4));
       }},
      {"ZMPOP", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         push_zmpop_args(r, g.args);
         if (r.chance(3)) g.args.push_back("COUNT");
       }},
      {"ZREVRANGE", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r), index(r), index(r)};
         if (r.chance(40)) g.args.push_back(r.chance(90) ? "WITHSCORES" : "withscores");
       }},
      // BYLEX answers are defined on kLexKey only (see kLexKey).
      {"ZRANGEBYLEX", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {kLexKey, lex_bound(r), lex_bound(r)};
         if (r.chance(30)) push_limit(r, g.args);
       }},
      {"ZREVRANGEBYLEX", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {kLexKey, lex_bound(r), lex_bound(r)};
         if (r.chance(30)) push_limit(r, g.args);
       }},
      {"ZLEXCOUNT", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {kLexKey, lex_bound(r), lex_bound(r)}; }},
      {"ZREMRANGEBYLEX", "zset", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {kLexKey, lex_bound(r), lex_bound(r)}; }},
      {"ZSCAN", "zset", 3, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {zkey(r), scan_cursor(r)};
         push_scan_options(r, g.args, kMemberPatterns, false);
         g.check = Check::kScan;
       }},
      // Blocking pops: rare, since a timeout costs up to 1/hz (10 ms here) more in Redis 7.0.
      {"BZPOPMIN", "zset", 1, true, [](Rng& r, TtlSource&, Generated& g) { push_bzpop_args(r, g.args); }},
      {"BZPOPMAX", "zset", 1, true, [](Rng& r, TtlSource&, Generated& g) { push_bzpop_args(r, g.args); }},
      {"BZMPOP", "zset", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args.push_back(block_timeout(r));
         push_zmpop_args(r, g.args);
       }},

      // Strings.
      {"SET", "string", 8, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {strkey(r), string_value(r)};
         push_set_options(r, t, g.args);
       }},
      {"GET", "string", 3, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r)}; }},
      {"SETNX", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r), string_value(r)}; }},
      {"SETEX", "string", 1, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {strkey(r), t.seconds(r), string_value(r)}; }},
      {"PSETEX", "string", 1, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {strkey(r), t.milliseconds(r), string_value(r)}; }},
      {"GETSET", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r), string_value(r)}; }},
      {"GETDEL", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r)}; }},
      {"GETEX", "string", 2, true, [](Rng& r, TtlSource& t, Generated& g) {
         g.args = {strkey(r)};
         push_getex_options(r, t, g.args);
       }},
      {"MGET", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) { push_strkeys(r, g.args, 4); }},
      {"MSET", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         for (long long i = 0; i < n; ++i) {
           g.args.push_back(strkey(r));
           g.args.push_back(string_value(r));
         }
       }},
      {"MSETNX", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         for (long long i = 0; i < n; ++i) {
           g.args.push_back(strkey(r));
           g.args.push_back(string_value(r));
         }
       }},
      {"INCR", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r)}; }},
      {"DECR", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r)}; }},
      {"INCRBY", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), integer(r, -100, 100)}; }},
      {"DECRBY", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), integer(r, -100, 100)}; }},
      {"INCRBYFLOAT", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), float_arg(r)}; }},
      {"APPEND", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), r.chance(20) ? string_value(r) : element(r)}; }},
      {"STRLEN", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) { g.args = {strkey(r)}; }},
      {"GETRANGE", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), integer(r, -10, 50), integer(r, -10, 50)}; }},
      {"SUBSTR", "string", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), integer(r, -10, 50), integer(r, -10, 50)}; }},
      {"LCS", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         static const std::vector<std::string> kOptions = {"LEN", "IDX", "WITHMATCHLEN", "idx",
                                                           "MINMATCHLEN", "FOO"};
         g.args = {strkey(r), strkey(r)};
         const long long n = r.range(0, 3);
         for (long long i = 0; i < n; ++i) {
           g.args.push_back(r.pick(kOptions));
           if (g.args.back() == "MINMATCHLEN" && r.chance(90)) g.args.push_back(integer(r, -1, 3));
         }
       }},
      {"SETRANGE", "string", 2, true, [](Rng& r, TtlSource&, Generated& g) {
         g.args = {strkey(r), setrange_offset(r), r.chance(10) ? std::string() : element(r)}; }},
      {"ZINTERCARD", "zset", 1, true, [](Rng& r, TtlSource&, Generated& g) {
         const long long n = r.range(1, 3);
         g.args.push_back(numkeys(r, n));
         for (long long i = 0; i < n; ++i) g.args.push_back(r.chance(20) ? skey(r) : zkey(r));
         if (r.chance(40)) {
           g.args.push_back(r.chance(90) ? "LIMIT" : "limit");
           g.args.push_back(integer(r, -1, 4));
         }
       }},
  };
  return kCommands;
}

}  // namespace
}  // namespace listd::testing
