// The oracle test: random sequences of list, hash, set, sorted-set, keyspace, expiry, string,
// connection and transaction commands (valid and invalid arguments, RESP2 and RESP3; each type
// has keys mostly only its own commands touch, plus a shared key space so WRONGTYPE paths run)
// sent to listd and to a real redis-server, comparing every reply byte for byte, and both
// servers' whole contents at the end of each sequence.
//
// Running it (the binary is <build>/tests/integration/integration_tests; ctest runs the three
// fixed seeds as integration.FixedSeeds/OracleTest.RepliesMatchRedisByteForByte/seed_*):
//   integration_tests --gtest_filter='*Oracle*'                   # CI: 3 fixed seeds x 15,000
//   ORACLE_COMMANDS=100000 integration_tests --gtest_filter='*Oracle*'   # 3 x 100,000
//   ORACLE_SEED=42 ORACLE_COMMANDS=200000 integration_tests
//   --gtest_filter=OracleReplay.SeedFromEnvironment integration_tests
//   --gtest_filter=OracleReplay.SeedFromEnvironment --seed=42 --commands=100000
//   ORACLE_TRACE=/tmp/oracle.log ...                              # every command and reply
//   ORACLE_ONLY=LPOS,LPUSH ...                                    # restrict the command set
//
// The command stream depends only on the seed and on the set of enabled commands (both printed),
// never on the replies, so a seed replays the same commands. A mismatch prints the seed, the
// command index, the command, both replies and the commands before it in its sequence; the
// sequence is then abandoned (FLUSHALL starts the next one) and the test fails.
//
// An enabled table command that listd's (or redis') COMMAND INFO does not list fails the run;
// commands with a known listd difference are disabled in kCommands (enabled=false) with a comment
// naming it (printed at start-up), and narrower differences are kept out of the generator with a
// comment naming them (none today).
// TTLs are large (>= 100,000 s) and unique, so nothing expires during a run and NX/XX/GT/LT never
// compare equal times; milliseconds are often not whole seconds. EXPIRETIME/PEXPIRETIME of an
// absolute deadline (after 2100: EXPIREAT, PXAT...) compare exactly; TTL/PTTL and deadlines set
// relative to each server's clock compare within the sequence's longest step (compare_ttl).
// Blocking commands use 10-20 ms timeouts (Redis 7.0 answers a timeout up to 1/hz late; redis
// runs with hz 100), sub-millisecond ones (answered at once) or invalid ones.
// MULTI blocks (WATCH, a second connection writing a watched key, UNWATCH, queued commands with
// errors, EXEC/DISCARD) and pipelined bursts compare every reply in order; some commands go on a
// second connection. Per command, the replies that carry data are counted and a minimum asserted.
// Replies whose order Redis leaves undefined for hashtable-encoded collections (KEYS, HKEYS, HVALS,
// HGETALL, SMEMBERS, SINTER, SUNION, SDIFF) are compared with their elements sorted (HGETALL's
// field/value pairs kept together); when redis reports a compact encoding (intset, listpack) for
// the key, HKEYS/HVALS/HGETALL/SMEMBERS are compared in order. Checks beyond one exchange (Check):
// - SRANDMEMBER, HRANDFIELD: errors, nil, empty and count >= size answers compare byte for byte;
//   a genuinely random pick (classified from redis' contents read just before) is checked on
//   both servers for its shape, its size, membership (and values) and distinctness.
// - SPOP: deterministic cases go to both servers; a random pop goes to listd only, is checked the
//   same way, and redis then SREMs exactly what listd popped (replaying Redis' set rebuild when
//   the pop leaves few members), so both keep the same data.
// - HSCAN, SSCAN, ZSCAN, SCAN: each server is iterated to cursor 0 and the collected elements
//   (pairs with their values/scores) are compared as sets; a compact collection, which Redis
//   answers in one call, compares byte for byte. Cursors are 0 or invalid (a valid non-zero
//   cursor depends on each server's hash tables).
//
// Files: oracle/generators.h (arguments), oracle/command_table.h (the commands), this file (the
// runner: comparison, property checks, transactions, snapshots, counts, the gtest suites).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/command_table.h"
#include "oracle/generators.h"
#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

constexpr std::uint64_t kDefaultCommands = 15000;
// Per seed at kDefaultCommands (scaled for more): data-bearing replies per unit of table weight
// for every command (at least 1), and the share of data-bearing replies overall. Set below what
// the CI seeds reach (see docs/COMPATIBILITY.md for the measured counts).
constexpr double kMinDataPerWeight = 0.5;
constexpr long long kMinDataPercent = 33;

// ---------------------------------------------------------------------------------------------
// Options from the environment or the command line (gtest_main owns argv; /proc has it too).

std::optional<std::string> cmdline_option(const std::string& name) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  const std::string prefix = "--" + name + "=";
  while (std::getline(in, arg, '\0')) {
    if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
  }
  return std::nullopt;
}

std::optional<std::uint64_t> numeric_option(const char* env, const std::string& flag) {
  std::optional<std::string> v = cmdline_option(flag);
  if (!v) {
    if (const char* e = std::getenv(env)) v = e;
  }
  if (!v || v->empty()) return std::nullopt;
  return std::stoull(*v);
}

std::uint64_t command_count() {
  return numeric_option("ORACLE_COMMANDS", "commands").value_or(kDefaultCommands);
}

// ---------------------------------------------------------------------------------------------
// Reply comparison.

/// The reply as compared: array elements sorted for kSortArray/kSortPairs, else as it is.
std::string normalize(const std::string& reply, Normalize how) {
  if ((how == Normalize::kSortArray || how == Normalize::kSortPairs) && !reply.empty() &&
      (reply[0] == '*' || reply[0] == '~' || reply[0] == '%')) {
    const std::size_t eol = reply.find("\r\n");
    std::vector<std::string> items;
    std::size_t at = eol + 2;
    while (at < reply.size()) {
      const std::size_t len = complete_reply_length(reply, at);
      if (len == 0) break;
      items.push_back(reply.substr(at, len));
      at += len;
    }
    // Map replies (RESP3) and HGETALL's flat array (RESP2) are key/value pairs: sort the pairs.
    if (reply[0] == '%' || how == Normalize::kSortPairs) {
      std::vector<std::string> pairs;
      for (std::size_t i = 0; i + 1 < items.size(); i += 2)
        pairs.push_back(items[i] + items[i + 1]);
      if (items.size() % 2 == 1) pairs.push_back(items.back());
      items = std::move(pairs);
    }
    std::sort(items.begin(), items.end());
    std::string out = reply.substr(0, eol + 2);
    for (const std::string& i : items) out += i;
    return out;
  }
  return reply;
}

std::string describe(const Args& args) {
  std::string out;
  for (const std::string& a : args) {
    if (!out.empty()) out += ' ';
    out += '"' + escape_bytes(a, 120) + '"';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Property checks of the random and iterating commands.

/// A parsed reply: its type byte, the payload of a line or bulk reply, the elements of an
/// aggregate (a map's keys and values alternate) and its raw bytes.
struct Reply {
  char type = 0;
  std::string text;
  bool null = false;
  std::vector<Reply> items;
  std::string raw;
};

Reply parse_reply(const std::string& buf, std::size_t& at, int depth = 0) {
  if (depth > 8) throw std::runtime_error("reply nested too deep");
  Reply out;
  const std::size_t start = at;
  const std::size_t eol = buf.find("\r\n", at);
  if (at >= buf.size() || eol == std::string::npos) throw std::runtime_error("truncated reply");
  out.type = buf[at];
  out.text = buf.substr(at + 1, eol - at - 1);
  at = eol + 2;
  switch (out.type) {
    case '$':
    case '=':
    case '!': {
      const long long n = std::stoll(out.text);
      if (n < 0) {
        out.null = true;
        out.text.clear();
        break;
      }
      out.text = buf.substr(at, static_cast<std::size_t>(n));
      at += static_cast<std::size_t>(n) + 2;
      break;
    }
    case '*':
    case '~':
    case '%':
    case '>': {
      const long long n = std::stoll(out.text);
      if (n < 0) {
        out.null = true;
        break;
      }
      const long long count = out.type == '%' ? 2 * n : n;
      for (long long i = 0; i < count; ++i) out.items.push_back(parse_reply(buf, at, depth + 1));
      break;
    }
    case '_': out.null = true; break;
    default: break;
  }
  if (at > buf.size()) throw std::runtime_error("truncated reply");
  out.raw = buf.substr(start, at - start);
  return out;
}

Reply parse_reply(const std::string& buf) {
  std::size_t at = 0;
  return parse_reply(buf, at);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Redis' string2ll: an optional '-', no leading zero, no space or '+', within long long.
std::optional<long long> strict_integer(const std::string& s) {
  if (s == "0") return 0;
  const std::size_t first = !s.empty() && s[0] == '-' ? 1 : 0;
  if (first >= s.size() || s[first] < '1' || s[first] > '9' || s.size() > 20) return std::nullopt;
  for (std::size_t i = first; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return v;
}

bool compact_encoding(const std::string& encoding) {
  return encoding == "intset" || encoding == "listpack";
}

/// What redis holds at a key just before a random command: set members (value "") or hash
/// fields with their values. Empty when the key is missing or of another type.
using Contents = std::map<std::string, std::string>;

/// Checks a random pick against the contents it was drawn from. `count` is nullopt for the
/// single-element form (a bulk string); a negative count allows repeats and a positive one
/// wants distinct elements. `aggregate` is the expected type byte of a counted reply.
/// Returns what is wrong, or "".
std::string check_pick(const Reply& rep, const Contents& from, std::optional<long long> count,
                       bool withvalues, bool resp3, char aggregate) {
  if (!count) {
    if (rep.type != '$' || rep.null) return "expected a bulk string";
    return from.count(rep.text) ? ""
                                : "'" + escape_bytes(rep.text, 80) + "' is not in the collection";
  }
  const auto want = static_cast<std::size_t>(*count < 0 ? -*count : *count);
  if (rep.type != aggregate) return std::string("expected a '") + aggregate + "' reply";
  std::vector<std::pair<std::string, const std::string*>> picks;  // member, value if any
  if (withvalues && !resp3) {
    if (rep.items.size() % 2 != 0) return "odd number of elements for field/value pairs";
    for (std::size_t i = 0; i + 1 < rep.items.size(); i += 2)
      picks.emplace_back(rep.items[i].text, &rep.items[i + 1].text);
  } else if (withvalues) {
    for (const Reply& it : rep.items) {
      if (it.type != '*' || it.items.size() != 2) return "expected [field, value] pairs";
      picks.emplace_back(it.items[0].text, &it.items[1].text);
    }
  } else {
    for (const Reply& it : rep.items) {
      if (it.type != '$' || it.null) return "expected bulk strings";
      picks.emplace_back(it.text, nullptr);
    }
  }
  if (picks.size() != want)
    return "expected " + std::to_string(want) + " elements, got " + std::to_string(picks.size());
  std::set<std::string> seen;
  for (const auto& [m, v] : picks) {
    const auto it = from.find(m);
    if (it == from.end()) return "'" + escape_bytes(m, 80) + "' is not in the collection";
    if (v && *v != it->second) return "wrong value for field '" + escape_bytes(m, 80) + "'";
    if (*count > 0 && !seen.insert(m).second) return "'" + escape_bytes(m, 80) + "' repeated";
  }
  return "";
}

bool is_scan_page(const Reply& r) {
  return r.type == '*' && r.items.size() == 2 && r.items[0].type == '$' && r.items[1].type == '*';
}

// ---------------------------------------------------------------------------------------------
// The run.

struct Servers {
  ServerProcess listd;
  ServerProcess redis;
};

class OracleRun {
 public:
  OracleRun(Servers& servers, std::uint64_t seed, std::uint64_t commands)
      : servers_(servers), seed_(seed), commands_(commands), rng_(seed) {
    if (const char* trace = std::getenv("ORACLE_TRACE")) trace_.open(trace, std::ios::app);
  }

  /// Runs the whole stream; returns the failure report ("" if every reply matched).
  std::string run(const std::vector<const CommandDef*>& enabled) {
    int total_weight = 0;
    for (const CommandDef* c : enabled) total_weight += c->weight;
    if (total_weight == 0) return "";
    std::uint64_t index = 0;
    int sequence = 0;
    while (index < commands_ && mismatches_ < kMaxMismatches) {
      ++sequence;
      RespClient listd(servers_.listd.port());
      RespClient redis(servers_.redis.port());
      RespClient listd2(servers_.listd.port());
      RespClient redis2(servers_.redis.port());
      second_ = {&listd2, &redis2};
      history_.clear();
      resp3_ = false;
      db_ = 0;
      second_db_ = 0;
      max_step_ms_ = 0;
      // Each sequence starts from empty databases in db 0, in RESP2 or (1 in 4) RESP3.
      if (!step(listd, redis, {{"FLUSHALL"}}, index, sequence)) continue;
      if (rng_.chance(25)) {
        if (!step(listd, redis, {{"HELLO", "3"}}, index, sequence)) continue;
        resp3_ = true;
      }
      const std::uint64_t length = static_cast<std::uint64_t>(rng_.range(20, 400));
      bool diverged = false;
      for (std::uint64_t i = 0; i < length && index < commands_; ++i) {
        Generated g = generate(enabled, total_weight, false);
        ++index;
        if (!step(listd, redis, std::move(g), index, sequence)) {  // state diverged
          diverged = true;
          break;
        }
      }
      // What no later command read: compare both servers' whole contents.
      if (!diverged) compare_snapshots(index, sequence);
    }
    if (trace_) trace_.flush();
    return report_.str();
  }

  int mismatches() const { return mismatches_; }

  /// How often the property checks took their random/iterating paths (a seed that never does
  /// checks less than its command count suggests).
  std::string stats() const {
    std::ostringstream out;
    out << "random picks " << picks_ << " (random " << random_picks_ << "), SPOP " << spops_
        << " (random " << random_spops_ << ", rebuilt " << rebuilt_spops_ << "), scans " << scans_
        << " (iterated " << iterated_scans_ << ", " << scan_calls_ << " extra calls), RANDOMKEY "
        << random_keys_ << " (non-nil " << random_keys_found_ << "), transactions " << transactions_
        << " (watch invalidated " << invalidated_watches_ << ", aborted " << aborted_transactions_
        << "), pipelines " << pipelines_ << ", second connection " << second_commands_
        << ", TTLs within tolerance " << ttl_tolerated_ << " (exact " << ttl_exact_
        << "), snapshots " << snapshots_ << " (" << snapshot_keys_ << " keys)";
    return out.str();
  }

  struct Counts {
    long long total = 0;
    long long data = 0;  // replies that carry data: not an error, nil, 0 or empty
  };
  const std::map<std::string, Counts>& per_command() const { return per_command_; }
  long long rebuilt_spops() const { return rebuilt_spops_; }
  long long random_spops() const { return random_spops_; }
  long long random_picks() const { return random_picks_; }
  long long iterated_scans() const { return iterated_scans_; }
  long long random_keys_found() const { return random_keys_found_; }
  long long invalidated_watches() const { return invalidated_watches_; }
  long long aborted_transactions() const { return aborted_transactions_; }
  long long ttl_exact() const { return ttl_exact_; }
  long long ttl_tolerated() const { return ttl_tolerated_; }
  long long snapshot_keys() const { return snapshot_keys_; }

 private:
  static constexpr int kMaxMismatches = 5;
  // Deadlines from EXPIREAT/PEXPIREAT/EXAT/PXAT are after 2100-01-01 (TtlSource); relative ones
  // (now + at most ~116 days) are before it. Absolute deadlines are the same on both servers.
  static constexpr long long kAbsoluteFromMs = 4102444800000LL;

  const CommandDef* pick_def(const std::vector<const CommandDef*>& enabled, int total_weight) {
    long long roll = rng_.range(1, total_weight);
    const CommandDef* def = enabled.back();
    for (const CommandDef* c : enabled) {
      roll -= c->weight;
      if (roll <= 0) {
        def = c;
        break;
      }
    }
    return def;
  }

  /// A command that can run inside MULTI or a pipeline burst: compared byte for byte as it is
  /// (no sorting, no TTL tolerance, no property check) and not SELECT (the runner tracks the db).
  static bool plain(const Generated& g) {
    return g.check == Check::kCompare && g.normalize == Normalize::kNone && !g.ordered_if_compact &&
           g.name != "SELECT" && g.name != "HELLO";
  }
  // Bursts may hold blocking commands: a resumed blocked client used to re-run its old pipelined
  // requests (src/net/connection.cpp process_input reset its buffer under a pending read).
  // Not OBJECT inside MULTI: Redis' OBJECT REFCOUNT then counts the reference the queued argv
  // still holds (`MULTI; APPEND k ""; OBJECT REFCOUNT k; EXEC` gives 2 in Redis 7.0, 1 in listd:
  // an implementation detail, found by seed 13 at 100,000 commands).
  Args plain_command(const std::vector<const CommandDef*>& enabled, int total_weight, bool burst) {
    for (int tries = 0; tries < 1000; ++tries) {
      Generated g = generate(enabled, total_weight, true);
      if (!burst && g.name == "OBJECT") continue;
      if (plain(g)) return g.args;
    }
    return {"PING"};
  }

  Generated generate(const std::vector<const CommandDef*>& enabled, int total_weight, bool nested) {
    const CommandDef* def = pick_def(enabled, total_weight);
    Generated g;
    g.name = def->name;
    def->make(rng_, ttls_, g);
    if (g.check == Check::kTransaction || g.check == Check::kPipeline) {
      if (nested) return g;  // not plain(): the caller draws again
      if (g.check == Check::kTransaction)
        fill_transaction(g, enabled, total_weight);
      else
        fill_pipeline(g, enabled, total_weight);
      return g;
    }
    // Wrong arity now and then: drop the last argument or add a stray one.
    if (rng_.chance(3) && !g.args.empty()) g.args.pop_back();
    if (rng_.chance(2)) {
      std::string extra = element(rng_);
      // After a dropped argument the stray one can land in an expiry command's TTL slot: "1" or
      // "007" would then make a key expire within the run, at a moment each server sees apart.
      if (std::string(def->family) == "expire") extra = "extra";
      // In a blocking command it becomes the timeout (last, except BLMPOP/BZMPOP's): "0" would
      // block forever. In a SCAN-family command it can become the cursor: "007" is a valid one
      // that depends on hash tables.
      if (std::string(def->name).rfind("B", 0) == 0 || g.check == Check::kScan) extra = "extra";
      g.args.push_back(std::move(extra));
    }
    std::string name = def->name;
    const long long casing = rng_.range(1, 100);
    if (casing <= 10) {
      for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (casing <= 13) {
      for (std::size_t i = 0; i < name.size(); i += 2)
        name[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    }
    if (rng_.chance(1)) {  // an unknown command
      name += "_X";
      g.check = Check::kCompare;
      g.ordered_if_compact = false;
      g.normalize = Normalize::kNone;
    }
    g.args.insert(g.args.begin(), name);
    if (!nested && plain(g) && rng_.chance(4)) g.on_second = true;
    return g;
  }

  // [WATCH keys [second connection writes a watched key]] [UNWATCH] MULTI queued... EXEC|DISCARD.
  // Queued commands include unknown ones and wrong arities (EXECABORT), a nested MULTI or WATCH,
  // and "EXEC x" / "DISCARD x" (arity errors that leave the transaction open: an EXEC follows).
  void fill_transaction(Generated& g, const std::vector<const CommandDef*>& enabled,
                        int total_weight) {
    std::vector<std::string> watched;
    if (rng_.chance(40)) {
      Args watch = {"WATCH"};
      const long long n = rng_.range(1, 2);
      for (long long i = 0; i < n; ++i) watch.push_back(any_key(rng_));
      watched.assign(watch.begin() + 1, watch.end());
      g.block.push_back({0, watch});
      if (rng_.chance(50)) {
        const std::string& k = rng_.pick(watched);
        static const std::vector<std::string> kWrites = {"DEL", "RPUSH", "SET", "GET", "SADD"};
        const std::string w = rng_.pick(kWrites);
        g.block.push_back({1, w == "DEL" || w == "GET" ? Args{w, k} : Args{w, k, "w"}});
      }
    }
    if (rng_.chance(10)) g.block.push_back({0, {rng_.chance(80) ? "UNWATCH" : "unwatch"}});
    g.block.push_back({0, {rng_.chance(90) ? "MULTI" : "multi"}});
    const long long n = rng_.range(0, 6);
    for (long long i = 0; i < n; ++i) {
      const long long roll = rng_.range(1, 100);
      if (roll <= 3)
        g.block.push_back({0, {"MULTI"}});
      else if (roll <= 6)
        g.block.push_back({0, {"WATCH", any_key(rng_)}});
      else
        g.block.push_back({0, plain_command(enabled, total_weight, false)});
    }
    const long long end = rng_.range(1, 100);
    if (end <= 80) {
      g.block.push_back({0, {"EXEC"}});
    } else if (end <= 92) {
      g.block.push_back({0, {"DISCARD"}});
    } else {
      g.block.push_back({0, {end <= 96 ? "EXEC" : "DISCARD", "x"}});
      g.block.push_back({0, {"EXEC"}});
    }
  }

  void fill_pipeline(Generated& g, const std::vector<const CommandDef*>& enabled,
                     int total_weight) {
    const long long n = rng_.range(2, 6);
    for (long long i = 0; i < n; ++i)
      g.block.push_back({0, plain_command(enabled, total_weight, true)});
  }

  static std::string describe_generated(const Generated& g) {
    if (g.block.empty()) return (g.on_second ? "[second connection] " : "") + describe(g.args);
    std::string out = g.check == Check::kPipeline ? "[pipelined] " : "[transaction] ";
    for (std::size_t i = 0; i < g.block.size(); ++i) {
      if (i) out += " ; ";
      if (g.block[i].first == 1) out += "[second connection] ";
      out += describe(g.block[i].second);
    }
    return out;
  }

  /// Whether a (redis) reply carries data: not an error, nil, 0, an empty string or aggregate,
  /// and for the TTL commands not -1/-2.
  static bool data_bearing(const Generated& g, const std::string& r) {
    if (r.empty() || r[0] == '-' || r[0] == '!' || r[0] == '_') return false;
    static const std::set<std::string> kEmpty = {"$-1\r\n", "*-1\r\n", ":0\r\n",    "*0\r\n",
                                                 "~0\r\n",  "%0\r\n",  "$0\r\n\r\n"};
    if (kEmpty.count(r)) return false;
    if (g.normalize >= Normalize::kTtlSeconds && g.normalize <= Normalize::kDeadlineMs)
      return r != ":-1\r\n" && r != ":-2\r\n";
    if (g.check == Check::kScan) return r.find("*0\r\n", r.size() - 4) == std::string::npos;
    return true;
  }

  // Runs one command (or block) on both servers and checks the replies. False on a mismatch (or
  // a lost server).
  bool step(RespClient& listd, RespClient& redis, Generated g, std::uint64_t index, int sequence) {
    std::string l, r;
    std::string problem, why;
    bool same = false;
    data_override_.reset();
    step_start_ = std::chrono::steady_clock::now();
    if (g.name.empty() && !g.args.empty()) g.name = g.args[0];
    try {
      switch (g.check) {
        case Check::kCompare:
          if (g.on_second) {
            ++second_commands_;
            same = select_second() && compare(*second_.first, *second_.second, g, l, r);
          } else {
            same = compare(listd, redis, g, l, r);
          }
          break;
        case Check::kRandomPick: same = check_random_pick(listd, redis, g.args, l, r, why); break;
        case Check::kSpop: same = check_spop(listd, redis, g.args, l, r, why); break;
        case Check::kScan: same = check_scan(listd, redis, g.args, l, r, why); break;
        case Check::kRandomKey: same = check_random_key(listd, redis, g.args, l, r, why); break;
        case Check::kTransaction: same = run_block(listd, redis, g, l, r, why); break;
        case Check::kPipeline: same = run_block(listd, redis, g, l, r, why); break;
      }
    } catch (const std::exception& e) {
      problem = e.what();
      same = false;
    }
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - step_start_)
                          .count();
    max_step_ms_ = std::max<long long>(max_step_ms_, took + 1);
    if (trace_) {
      trace_ << "seed=" << seed_ << " #" << index << " " << describe_generated(g)
             << "\n  redis: " << escape_bytes(r, 2000) << "\n  listd: " << escape_bytes(l, 2000)
             << "\n";
    }
    if (problem.empty() && same) {
      // The selected db, for the second connection (SELECT only runs outside blocks).
      if (g.name == "SELECT" && !g.on_second && r == "+OK\r\n" && g.args.size() == 2)
        db_ = std::stoi(g.args[1]);
      Counts& c = per_command_[g.name];
      ++c.total;
      if (data_override_ ? *data_override_ : data_bearing(g, r)) ++c.data;
      history_.push_back(describe_generated(g) + "  ->  " + escape_bytes(r, 160));
      if (history_.size() > kHistory) history_.erase(history_.begin());
      return true;
    }
    report_mismatch(describe_generated(g), r, l, why, problem, index, sequence);
    return false;
  }

  void report_mismatch(const std::string& what, const std::string& r, const std::string& l,
                       const std::string& why, const std::string& problem, std::uint64_t index,
                       int sequence) {
    ++mismatches_;
    report_ << "\nORACLE MISMATCH seed=" << seed_ << " command #" << index << " (sequence "
            << sequence << ")\n  command: " << what << "\n  redis:   " << escape_bytes(r, 1000)
            << "\n  listd:   " << escape_bytes(l, 1000) << "\n";
    if (!why.empty()) report_ << "  check:   " << why << "\n";
    if (!problem.empty()) report_ << "  error:   " << problem << "\n";
    report_ << "  the " << history_.size()
            << " commands before it in this sequence (redis' reply):\n";
    for (const std::string& h : history_) report_ << "    " << h << "\n";
    report_ << "  reproduce: ORACLE_SEED=" << seed_ << " ORACLE_COMMANDS=" << index
            << " integration_tests --gtest_filter=OracleReplay.SeedFromEnvironment\n";
  }

  /// Puts the second connections on the main connections' db (compared like any command).
  bool select_second() {
    if (second_db_ == db_) return true;
    std::string l, r;
    exchange(*second_.first, *second_.second, {"SELECT", std::to_string(db_)}, l, r);
    if (l != r || r != "+OK\r\n") return false;
    second_db_ = db_;
    return true;
  }

  /// Sends args to both servers; the replies in l and r.
  static void exchange(RespClient& listd, RespClient& redis, const Args& args, std::string& l,
                       std::string& r) {
    const std::string request = encode_command(args);
    listd.send(request);
    redis.send(request);
    r = redis.read_reply(10s);
    l = listd.read_reply(10s);
  }

  /// A query the test makes on one server only, to learn its state (traced, not compared).
  std::string side(RespClient& c, const Args& args, const char* who) {
    if (!c.send_command(args)) throw std::runtime_error(std::string("send to ") + who + " failed");
    std::string reply = c.read_reply(10s);
    if (trace_)
      trace_ << "    (" << who << " only) " << describe(args) << " -> " << escape_bytes(reply, 400)
             << "\n";
    return reply;
  }

  /// Redis' OBJECT ENCODING of key ("" when missing).
  std::string redis_encoding(RespClient& redis, const std::string& key) {
    return parse_reply(side(redis, {"OBJECT", "ENCODING", key}, "redis")).text;
  }

  Contents redis_contents(RespClient& redis, const std::string& key, bool hash) {
    const Reply rep = parse_reply(side(redis, {hash ? "HGETALL" : "SMEMBERS", key}, "redis"));
    Contents c;
    if (rep.type == '-') return c;
    for (std::size_t i = 0; i < rep.items.size(); i += hash ? 2 : 1)
      c[rep.items[i].text] = hash && i + 1 < rep.items.size() ? rep.items[i + 1].text : "";
    return c;
  }

  bool compare(RespClient& listd, RespClient& redis, const Generated& g, std::string& l,
               std::string& r) {
    Normalize how = g.normalize;
    if (g.ordered_if_compact && g.args.size() >= 2 &&
        compact_encoding(redis_encoding(redis, g.args[1])))
      how = Normalize::kNone;
    exchange(listd, redis, g.args, l, r);
    if (g.args[0] == "HELLO") return same_hello(r, l);
    if (how >= Normalize::kTtlSeconds && how <= Normalize::kDeadlineMs)
      return compare_ttl(r, l, how);
    return normalize(r, how) == normalize(l, how);
  }

  /// HELLO's map (or RESP2 array) compared field by field, the connection id masked.
  static bool same_hello(const std::string& r, const std::string& l) {
    Reply rp = parse_reply(r), lp = parse_reply(l);
    if (rp.type != lp.type || rp.items.size() != lp.items.size()) return false;
    if (rp.type != '%' && rp.type != '*') return r == l;
    for (std::size_t i = 0; i + 1 < rp.items.size(); i += 2) {
      if (rp.items[i].raw != lp.items[i].raw) return false;
      if (rp.items[i].text != "id" && rp.items[i + 1].raw != lp.items[i + 1].raw) return false;
    }
    return true;
  }

  /// How far apart the two servers' clocks can have been, in ms, for any deadline set in this
  /// sequence and for the query now: each server read its clock within the step that set it
  /// (and within this one), so the longest step of the sequence bounds the difference.
  long long clock_slack_ms() const {
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - step_start_)
                         .count();
    return max_step_ms_ + now + 2;
  }

  /// TTL/PTTL (relative to each server's clock) and EXPIRETIME/PEXPIRETIME: -1/-2 and absolute
  /// deadlines (EXPIREAT/PXAT..., after 2100) exactly; a relative deadline or a remaining time
  /// within the clock slack (one more second for the second-resolution answers, which round).
  bool compare_ttl(const std::string& r, const std::string& l, Normalize how) {
    const Reply rp = parse_reply(r), lp = parse_reply(l);
    if (rp.type != ':' || lp.type != ':') return r == l;
    const long long rv = std::stoll(rp.text), lv = std::stoll(lp.text);
    const bool seconds = how == Normalize::kTtlSeconds || how == Normalize::kDeadlineSeconds;
    const bool absolute = (how == Normalize::kDeadlineMs && rv >= kAbsoluteFromMs) ||
                          (how == Normalize::kDeadlineSeconds && rv >= kAbsoluteFromMs / 1000);
    if (rv < 0 || lv < 0 || absolute) {
      if (rv >= 0) ++ttl_exact_;
      return rv == lv;
    }
    ++ttl_tolerated_;
    const long long slack = seconds ? clock_slack_ms() / 1000 + 1 : clock_slack_ms();
    return std::llabs(rv - lv) <= slack;
  }

  // RANDOMKEY: nil exactly when redis' db is empty; otherwise each server's key exists in the
  // other (their contents are the same). With arguments: an arity error, byte for byte.
  bool check_random_key(RespClient& listd, RespClient& redis, const Args& args, std::string& l,
                        std::string& r, std::string& why) {
    ++random_keys_;
    exchange(listd, redis, args, l, r);
    if (args.size() != 1) return l == r;
    const Reply rp = parse_reply(r), lp = parse_reply(l);
    if (rp.null || lp.null || rp.type == '-') return l == r;
    if (lp.type != '$') {
      why = "expected a bulk string";
      return false;
    }
    ++random_keys_found_;
    data_override_ = true;
    if (side(redis, {"EXISTS", lp.text}, "redis") != ":1\r\n") {
      why = "listd's key is not in redis";
      return false;
    }
    if (side(listd, {"EXISTS", rp.text}, "listd") != ":1\r\n") {
      why = "redis' key is not in listd";
      return false;
    }
    return true;
  }

  // A transaction or a pipelined burst: every reply compared byte for byte, in order. A burst
  // goes out in one write to each server and its replies are read after it.
  bool run_block(RespClient& listd, RespClient& redis, const Generated& g, std::string& l,
                 std::string& r, std::string& why) {
    const bool pipeline = g.check == Check::kPipeline;
    bool data = false;
    if (pipeline) {
      ++pipelines_;
      std::string request;
      for (const auto& [conn, args] : g.block) request += encode_command(args);
      listd.send(request);
      redis.send(request);
      for (std::size_t i = 0; i < g.block.size(); ++i) {
        const std::string rr = redis.read_reply(10s), lr = listd.read_reply(10s);
        r += rr;
        l += lr;
        Generated one;
        one.args = g.block[i].second;
        data = data || data_bearing(one, rr);
        if (rr != lr) {
          why = "reply " + std::to_string(i + 1) + " of the burst differs";
          return false;
        }
      }
      data_override_ = data;
      return true;
    }
    ++transactions_;
    for (std::size_t i = 0; i < g.block.size(); ++i) {
      const auto& [conn, args] = g.block[i];
      std::string rr, lr;
      if (conn == 1) {
        if (!select_second()) {
          why = "SELECT on the second connection failed";
          return false;
        }
        exchange(*second_.first, *second_.second, args, lr, rr);
      } else {
        exchange(listd, redis, args, lr, rr);
      }
      r += rr;
      l += lr;
      if (rr != lr) {
        why = "reply " + std::to_string(i + 1) + " of the block differs";
        return false;
      }
      if (i + 1 == g.block.size()) {
        if (rr == "*-1\r\n" || rr == "_\r\n") ++invalidated_watches_;
        if (rr.rfind("-EXECABORT", 0) == 0) ++aborted_transactions_;
        data = rr[0] == '*' && rr != "*0\r\n" && rr != "*-1\r\n";
      }
    }
    data_override_ = data;
    return true;
  }

  /// One server's contents, all 16 dbs: "db key" -> type and value (unordered collections
  /// sorted), and "db key" -> PEXPIRETIME. On a fresh RESP2 connection.
  void snapshot(int port, std::map<std::string, std::string>& values,
                std::map<std::string, long long>& deadlines) {
    RespClient c(port);
    auto call = [&](const Args& a) { return parse_reply(c.call(a, 10s)); };
    for (int db = 0; db < 16; ++db) {
      call({"SELECT", std::to_string(db)});
      const Reply keys = call({"KEYS", "*"});
      for (const Reply& k : keys.items) {
        const std::string type = call({"TYPE", k.text}).text;
        Reply v;
        bool sort = false, pairs = false;
        if (type == "string")
          v = call({"GET", k.text});
        else if (type == "list")
          v = call({"LRANGE", k.text, "0", "-1"});
        else if (type == "hash") {
          v = call({"HGETALL", k.text});
          sort = pairs = true;
        } else if (type == "set") {
          v = call({"SMEMBERS", k.text});
          sort = true;
        } else if (type == "zset")
          v = call({"ZRANGE", k.text, "0", "-1", "WITHSCORES"});
        std::vector<std::string> items;
        for (std::size_t i = 0; i < v.items.size(); i += pairs ? 2 : 1)
          items.push_back(pairs ? v.items[i].raw + v.items[i + 1].raw : v.items[i].raw);
        if (sort) std::sort(items.begin(), items.end());
        std::string value = type + " " + (v.items.empty() ? v.raw : "");
        for (const std::string& i : items) value += i;
        const std::string name = std::to_string(db) + " " + k.text;
        values[name] = value;
        deadlines[name] = std::stoll(call({"PEXPIRETIME", k.text}).text);
      }
    }
  }

  /// Compares both servers' snapshots: the same keys, types and values; the same deadlines
  /// (absolute ones exactly, relative ones within the clock slack, as compare_ttl).
  void compare_snapshots(std::uint64_t index, int sequence) {
    ++snapshots_;
    step_start_ = std::chrono::steady_clock::now();
    std::map<std::string, std::string> rv, lv;
    std::map<std::string, long long> rd, ld;
    std::string problem;
    try {
      snapshot(servers_.redis.port(), rv, rd);
      snapshot(servers_.listd.port(), lv, ld);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    snapshot_keys_ += static_cast<long long>(rv.size());
    std::string why;
    for (const auto& [k, v] : rv) {
      const auto it = lv.find(k);
      if (it == lv.end()) {
        why += " key '" + escape_bytes(k, 80) + "' missing in listd;";
      } else if (it->second != v) {
        why += " key '" + escape_bytes(k, 80) + "': redis " + escape_bytes(v, 300) + " listd " +
               escape_bytes(it->second, 300) + ";";
      } else {
        const long long a = rd[k], b = ld[k];
        const bool exact = a < 0 || b < 0 || a >= kAbsoluteFromMs;
        if (exact ? a != b : std::llabs(a - b) > clock_slack_ms())
          why += " key '" + escape_bytes(k, 80) + "': PEXPIRETIME redis " + std::to_string(a) +
                 " listd " + std::to_string(b) + ";";
      }
      if (why.size() > 2000) break;
    }
    for (const auto& [k, v] : lv)
      if (!rv.count(k)) why += " key '" + escape_bytes(k, 80) + "' only in listd;";
    if (why.empty() && problem.empty()) return;
    report_mismatch("(snapshot of all 16 dbs at the end of the sequence)", "", "", why, problem,
                    index, sequence);
  }

  // redis' contents and encoding of args[1] just before a random pick (empty without a key).
  std::pair<Contents, std::string> redis_state(RespClient& redis, const Args& args, bool hash) {
    if (args.size() < 2) return {};
    return {redis_contents(redis, args[1], hash), redis_encoding(redis, args[1])};
  }

  // SRANDMEMBER key [count] / HRANDFIELD key [count [WITHVALUES]]. Whether the answer is random
  // follows from redis' contents just before: with >= 2 elements, no count, a negative count or
  // a count in [1, size) is random (count 1 and negative counts draw with repeats).
  bool check_random_pick(RespClient& listd, RespClient& redis, const Args& args, std::string& l,
                         std::string& r, std::string& why) {
    ++picks_;
    const bool hash = upper(args[0]) == "HRANDFIELD";
    const bool withvalues = hash && args.size() == 4 && upper(args[3]) == "WITHVALUES";
    const auto [before, encoding] = redis_state(redis, args, hash);
    const auto n = static_cast<long long>(before.size());
    std::optional<long long> count;
    bool random = false;
    if (n >= 2 && args.size() == 2) {
      random = true;
    } else if (n >= 2 && (args.size() == 3 || withvalues)) {
      count = strict_integer(args[2]);
      random = count && *count != 0 && *count > -1000 && *count < n;
    }
    exchange(listd, redis, args, l, r);
    if (!random) {
      const Normalize how = compact_encoding(encoding) ? Normalize::kNone
                            : withvalues && !resp3_    ? Normalize::kSortPairs
                                                       : Normalize::kSortArray;
      return normalize(r, how) == normalize(l, how);
    }
    ++random_picks_;
    why = check_pick(parse_reply(r), before, count, withvalues, resp3_, '*');
    if (!why.empty()) {
      why = "redis' own reply fails the oracle's model: " + why;
      return false;
    }
    why = check_pick(parse_reply(l), before, count, withvalues, resp3_, '*');
    return why.empty();
  }

  // SPOP key [count]. A deterministic pop (error, nil, empty, everything) goes to both servers.
  // A random one goes to listd only; redis then SREMs exactly the popped members.
  bool check_spop(RespClient& listd, RespClient& redis, const Args& args, std::string& l,
                  std::string& r, std::string& why) {
    ++spops_;
    const auto [before, encoding] = redis_state(redis, args, false);
    const auto n = static_cast<long long>(before.size());
    std::optional<long long> count;
    bool random = n >= 2 && args.size() == 2;
    if (n >= 2 && args.size() == 3) {
      count = strict_integer(args[2]);
      random = count && *count >= 1 && *count < n;
    }
    if (!random) {
      exchange(listd, redis, args, l, r);
      const Normalize how = compact_encoding(encoding) ? Normalize::kNone : Normalize::kSortArray;
      return normalize(r, how) == normalize(l, how);
    }
    ++random_spops_;
    l = side(listd, args, "listd");
    r = "(SPOP not sent; redis SREMs listd's pick from " + std::to_string(n) + " members)";
    const Reply popped = parse_reply(l);
    why = check_pick(popped, before, count, false, resp3_, resp3_ ? '~' : '*');
    if (!why.empty()) return false;
    Args srem = {"SREM", args[1]};
    if (count) {
      for (const Reply& m : popped.items) srem.push_back(m.text);
    } else {
      srem.push_back(popped.text);
    }
    const std::string removed = side(redis, srem, "redis");
    if (removed != ":" + std::to_string(srem.size() - 2) + "\r\n") {
      why = "redis' SREM of the popped members answered " + escape_bytes(removed, 80);
      return false;
    }
    // Redis 7.0 pops a count that leaves few members (remaining * 5 <= count, t_set.c "CASE 3")
    // by building a new set from the remaining ones, which turns a hashtable of integers into
    // an intset: replay that with SINTERSTORE, then restore the TTL it drops.
    if (count && (n - *count) * 5 <= *count) {
      ++rebuilt_spops_;
      const Reply at = parse_reply(side(redis, {"PEXPIRETIME", args[1]}, "redis"));
      side(redis, {"SINTERSTORE", args[1], args[1]}, "redis");
      if (at.type == ':' && at.text[0] != '-')
        side(redis, {"PEXPIREAT", args[1], at.text}, "redis");
    }
    return true;
  }

  // SCAN cursor [...] / HSCAN|SSCAN|ZSCAN key cursor [...]: errors and compact collections
  // (answered whole in one call) compare byte for byte; otherwise each server is iterated to
  // cursor 0 and the elements collected (with their values/scores) compare as sets.
  bool check_scan(RespClient& listd, RespClient& redis, const Args& args, std::string& l,
                  std::string& r, std::string& why) {
    ++scans_;
    const std::string name = upper(args[0]);
    const std::size_t cursor_at = name == "SCAN" ? 1 : 2;
    const bool pairs = name == "HSCAN" || name == "ZSCAN";
    std::string encoding;
    if (cursor_at == 2 && args.size() >= 2) encoding = redis_encoding(redis, args[1]);
    exchange(listd, redis, args, l, r);
    if (args.size() <= cursor_at) return l == r;
    const Reply rp = parse_reply(r), lp = parse_reply(l);
    if (!is_scan_page(rp) || !is_scan_page(lp) || compact_encoding(encoding)) return l == r;
    ++iterated_scans_;
    std::set<std::string> rs, ls;
    if (!collect_scan(redis, "redis", args, cursor_at, pairs, rp, rs, why)) return false;
    if (!collect_scan(listd, "listd", args, cursor_at, pairs, lp, ls, why)) return false;
    if (rs == ls) return true;
    std::string only_r, only_l;
    for (const std::string& e : rs)
      if (!ls.count(e)) only_r += " " + escape_bytes(e, 120);
    for (const std::string& e : ls)
      if (!rs.count(e)) only_l += " " + escape_bytes(e, 120);
    why = "iterated to cursor 0, only redis returned:" + only_r + "; only listd returned:" + only_l;
    return false;
  }

  /// Adds the elements of `page` and of the pages after it, up to cursor 0, to `out` (a pair's
  /// two raw replies as one element). False (with `why`) on a bad page or an endless iteration.
  bool collect_scan(RespClient& c, const char* who, Args args, std::size_t cursor_at, bool pairs,
                    Reply page, std::set<std::string>& out, std::string& why) {
    for (int calls = 0; calls < 10000; ++calls) {
      const std::vector<Reply>& items = page.items[1].items;
      if (pairs && items.size() % 2 != 0) {
        why = std::string(who) + " returned an odd number of elements";
        return false;
      }
      for (std::size_t i = 0; i < items.size(); i += pairs ? 2 : 1)
        out.insert(pairs ? items[i].raw + items[i + 1].raw : items[i].raw);
      if (page.items[0].text == "0") return true;
      args[cursor_at] = page.items[0].text;
      ++scan_calls_;
      page = parse_reply(side(c, args, who));
      if (!is_scan_page(page)) {
        why = std::string(who) + " answered a cursor with " + escape_bytes(page.raw, 200);
        return false;
      }
    }
    why = std::string(who) + ": no cursor 0 after 10000 calls";
    return false;
  }

  static constexpr std::size_t kHistory = 25;
  Servers& servers_;
  std::uint64_t seed_;
  std::uint64_t commands_;
  Rng rng_;
  TtlSource ttls_;
  std::vector<std::string> history_;
  std::ostringstream report_;
  std::ofstream trace_;
  int mismatches_ = 0;
  bool resp3_ = false;  // this sequence's connections said HELLO 3
  long long picks_ = 0, random_picks_ = 0, spops_ = 0, random_spops_ = 0, rebuilt_spops_ = 0;
  long long scans_ = 0, iterated_scans_ = 0, scan_calls_ = 0;
  long long random_keys_ = 0, random_keys_found_ = 0, transactions_ = 0, invalidated_watches_ = 0;
  long long aborted_transactions_ = 0, pipelines_ = 0, second_commands_ = 0;
  long long ttl_exact_ = 0, ttl_tolerated_ = 0, snapshots_ = 0, snapshot_keys_ = 0;
  std::map<std::string, Counts> per_command_;
  std::optional<bool> data_override_;  // set by a check whose r is not redis' plain reply
  std::pair<RespClient*, RespClient*> second_{nullptr, nullptr};  // listd, redis
  int db_ = 0, second_db_ = 0;
  long long max_step_ms_ = 0;
  std::chrono::steady_clock::time_point step_start_;
};

class OracleTest : public ::testing::TestWithParam<std::uint64_t> {
 protected:
  static void SetUpTestSuite() {
    // hz 100: Redis 7.0 notices a blocked client's timeout in its cron, so at the default hz 10 a
    // BZPOPMIN with a 10 ms timeout answers after up to 100 ms. No reply depends on hz.
    servers_ =
        new Servers{ServerProcess::start_listd(), ServerProcess::start_redis({"--hz", "100"})};
    select_commands();
  }
  static void TearDownTestSuite() {
    delete servers_;
    servers_ = nullptr;
  }

  // Decides which commands run: enabled in the table, known to listd (and to redis), and in
  // ORACLE_ONLY if that is set. Prints every exclusion.
  static void select_commands() {
    enabled_.clear();
    std::string only_env;
    if (const char* o = std::getenv("ORACLE_ONLY")) only_env = "," + std::string(o) + ",";
    std::string unknown, disabled, filtered, active;
    for (const CommandDef& c : command_table()) {
      if (!only_env.empty() &&
          only_env.find("," + std::string(c.name) + ",") == std::string::npos) {
        filtered += std::string(" ") + c.name;
      } else if (!c.enabled) {
        disabled += std::string(" ") + c.name;
      } else if (c.name[0] == '(') {  // not a command: a block of them
        enabled_.push_back(&c);
        active += std::string(" ") + c.name;
      } else if (!server_has_command(servers_->listd.port(), c.name)) {
        unknown += std::string(" ") + c.name;
      } else if (!server_has_command(servers_->redis.port(), c.name)) {
        unknown += std::string(" ") + c.name + "(redis)";
      } else {
        enabled_.push_back(&c);
        active += std::string(" ") + c.name;
      }
    }
    std::cout << "[oracle] commands compared:" << (active.empty() ? " (none)" : active) << "\n";
    std::cout << "[oracle] SKIPPED, not implemented in listd:"
              << (unknown.empty() ? " (none)" : unknown) << "\n";
    std::cout << "[oracle] SKIPPED, disabled in oracle_test.cpp (known listd differences):"
              << (disabled.empty() ? " (none)" : disabled) << "\n";
    if (!filtered.empty()) std::cout << "[oracle] left out by ORACLE_ONLY:" << filtered << "\n";
    only_ = !only_env.empty();
    missing_ = unknown;
  }

  static void run_seed(std::uint64_t seed) {
    const std::uint64_t commands = command_count();
    std::cout << "[oracle] seed=" << seed << " commands=" << commands << "\n";
    // Every enabled table entry must run: a command missing from listd's COMMAND INFO (or
    // redis') is a failure, not a skip.
    std::size_t table_enabled = 0;
    for (const CommandDef& c : command_table()) table_enabled += c.enabled ? 1 : 0;
    if (!only_) {
      ASSERT_EQ(enabled_.size(), table_enabled)
          << "enabled table commands missing from COMMAND INFO:" << missing_;
    }
    ASSERT_FALSE(enabled_.empty()) << "no command to compare (ORACLE_ONLY?)";
    OracleRun run(*servers_, seed, commands);
    const std::string report = run.run(enabled_);
    std::cout << "[oracle] seed=" << seed << " property checks: " << run.stats() << "\n";
    EXPECT_EQ(run.mismatches(), 0) << report;
    if (run.mismatches() != 0) return;

    // The per-command table of data-bearing replies (not an error, nil, 0 or empty).
    long long total = 0, data = 0;
    std::ostringstream table;
    for (const auto& [name, c] : run.per_command()) {
      total += c.total;
      data += c.data;
      table << "  " << name << " " << c.data << "/" << c.total;
    }
    std::cout << "[oracle] seed=" << seed << " data-bearing replies " << data << "/" << total
              << " (" << (total ? 100 * data / total : 0) << " %):" << table.str() << "\n";
    // Minimums, only for a whole table at the CI volume or more (a shorter or filtered run
    // replays a seed; it is not expected to reach them). The CI seeds exceed them comfortably.
    if (only_ || commands < kDefaultCommands) return;
    const double scale = static_cast<double>(commands) / static_cast<double>(kDefaultCommands);
    for (const CommandDef* c : enabled_) {
      const auto it = run.per_command().find(c->name);
      const long long got = it == run.per_command().end() ? 0 : it->second.data;
      EXPECT_GE(got, std::max(1LL, static_cast<long long>(kMinDataPerWeight * c->weight * scale)))
          << c->name << ": too few data-bearing replies (seed " << seed << ")";
    }
    EXPECT_GE(100 * data, kMinDataPercent * total) << "share of data-bearing replies";
    const auto at_least = [&](long long got, long long want, const char* what) {
      EXPECT_GE(got, static_cast<long long>(want * scale)) << what << " (seed " << seed << ")";
    };
    // Not asserted: SPOP's rebuild path (rebuilt_spops()), which the CI seeds do not reach.
    at_least(run.random_spops(), 5, "random SPOPs");
    at_least(run.random_picks(), 50, "random SRANDMEMBER/HRANDFIELD picks");
    at_least(run.iterated_scans(), 10, "iterated SCANs");
    at_least(run.random_keys_found(), 5, "non-nil RANDOMKEYs");
    at_least(run.invalidated_watches(), 3, "EXECs aborted by a watched key");
    at_least(run.aborted_transactions(), 3, "EXECABORTs");
    at_least(run.ttl_exact(), 1, "absolute deadlines compared exactly");
    at_least(run.ttl_tolerated(), 8, "relative TTLs compared within the clock slack");
    at_least(run.snapshot_keys(), 200, "keys compared in end-of-sequence snapshots");
  }

  static inline Servers* servers_ = nullptr;
  static inline std::vector<const CommandDef*> enabled_;
  static inline bool only_ = false;    // ORACLE_ONLY is set
  static inline std::string missing_;  // enabled entries COMMAND INFO does not list
};

TEST_P(OracleTest, RepliesMatchRedisByteForByte) { run_seed(GetParam()); }

INSTANTIATE_TEST_SUITE_P(FixedSeeds, OracleTest, ::testing::Values(1001u, 2002u, 3003u),
                         [](const ::testing::TestParamInfo<std::uint64_t>& info) {
                           return "seed_" + std::to_string(info.param);
                         });

// Not parameterized, so the seed comes from ORACLE_SEED / --seed=N; skipped without one.
class OracleReplay : public OracleTest {};

TEST_F(OracleReplay, SeedFromEnvironment) {
  const std::optional<std::uint64_t> seed = numeric_option("ORACLE_SEED", "seed");
  if (!seed) GTEST_SKIP() << "set ORACLE_SEED (or pass --seed=N) to run one chosen seed";
  run_seed(*seed);
}

// O7: the property checks above accept any member, so a listd that always returned the first one
// would pass them. 2,000 draws over 10 members (about 200 each): every member is drawn and the
// most drawn one at most twice as often as the least (a uniform draw passes with overwhelming
// probability). Against listd only: redis' own randomness is not under test.
class OracleDistribution : public ::testing::Test {
 protected:
  static constexpr int kDraws = 2000;
  static constexpr int kMembers = 10;

  static void expect_uniform(const std::map<std::string, int>& hits, const char* what) {
    ASSERT_EQ(hits.size(), static_cast<std::size_t>(kMembers))
        << what << ": not every member drawn";
    int lo = kDraws, hi = 0, sum = 0;
    for (const auto& [m, n] : hits) {
      lo = std::min(lo, n);
      hi = std::max(hi, n);
      sum += n;
    }
    EXPECT_EQ(sum, kDraws) << what;
    EXPECT_LT(hi, 2 * lo) << what << ": max " << hi << " min " << lo;
  }
};

TEST_F(OracleDistribution, SrandmemberHrandfieldSpopDrawEveryMemberEvenly) {
  ServerProcess listd = ServerProcess::start_listd();
  RespClient c(listd.port());
  Args sadd = {"SADD", "s"}, hset = {"HSET", "h"};
  for (int i = 0; i < kMembers; ++i) {
    sadd.push_back("m" + std::to_string(i));
    hset.push_back("f" + std::to_string(i));
    hset.push_back("v");
  }
  ASSERT_EQ(c.call(sadd), ":10\r\n");
  ASSERT_EQ(c.call(hset), ":10\r\n");
  std::map<std::string, int> srand, hrand, spop;
  for (int i = 0; i < kDraws; ++i) {
    const Reply s = parse_reply(c.call({"SRANDMEMBER", "s"}));
    ASSERT_EQ(s.type, '$');
    ++srand[s.text];
    const Reply h = parse_reply(c.call({"HRANDFIELD", "h"}));
    ASSERT_EQ(h.type, '$');
    ++hrand[h.text];
    const Reply p = parse_reply(c.call({"SPOP", "s"}));  // popped, then put back
    ASSERT_EQ(p.type, '$');
    ++spop[p.text];
    ASSERT_EQ(c.call({"SADD", "s", p.text}), ":1\r\n");
  }
  expect_uniform(srand, "SRANDMEMBER");
  expect_uniform(hrand, "HRANDFIELD");
  expect_uniform(spop, "SPOP");
  EXPECT_EQ(listd.stop(), 0);
}

// Found by the oracle's pipelined bursts: a client that blocked inside a burst and resumed reset
// its input buffer under a pending read, so its next burst re-ran the old one (`BLPOP k 0.01`
// + `ECHO end0`, then the same with end1, answered end0 again). Against listd only.
TEST(OraclePipelines, ResumedBlockedClientDoesNotReplayItsOldRequests) {
  ServerProcess listd = ServerProcess::start_listd();
  RespClient c(listd.port());
  for (int i = 0; i < 3; ++i) {
    const std::string tag = "end" + std::to_string(i);
    ASSERT_TRUE(c.send(encode_command({"BLPOP", "nokey", "0.01"}) + encode_command({"ECHO", tag})));
    EXPECT_EQ(c.read_reply(10s), "*-1\r\n");
    EXPECT_EQ(c.read_reply(10s), "$4\r\n" + tag + "\r\n");
  }
  EXPECT_EQ(c.call({"PING"}), "+PONG\r\n");
  EXPECT_EQ(listd.stop(), 0);
}

}  // namespace
}  // namespace listd::testing
