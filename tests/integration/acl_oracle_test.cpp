// The random ACL-rules oracle: ACL SETUSER rule lists built from fixed seeds out of every rule
// kind of the rule language (flags, passwords and hashes, key patterns with %R~/%W~/%RW~, channels,
// commands, categories, subcommands, first arguments, selectors whole or spread over several
// arguments, clearselectors, reset, and invalid rules of each kind), sent to listd and to
// redis-server 7.0.15. After each SETUSER: ACL GETUSER of that user, ACL DRYRUN of random
// commands with random keys and channels for a random user, an AUTH attempt, and every few steps
// ACL LIST and ACL USERS; every reply must match byte for byte, except one order Redis leaves to
// its command dict's (randomly seeded) hash: the single +cmd / -cmd words of a described rule
// list, compared sorted by name.
//   ACL_ORACLE_SEED=7 ACL_ORACLE_STEPS=5000 integration_tests --gtest_filter='AclOracle*'
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;

// Every rule kind the generator makes; the run asserts a minimum of each.
enum class Kind {
  kOnOff,
  kAddPass,
  kDelPass,
  kAddHash,
  kDelHash,
  kNoPass,
  kResetPass,
  kKey,
  kKeyPerm,
  kAllKeys,
  kResetKeys,
  kChannel,
  kAllChannels,
  kResetChannels,
  kAllowCommand,
  kDenyCommand,
  kAllowCategory,
  kDenyCategory,
  kSubcommand,
  kFirstArg,
  kAllCommands,
  kNoCommands,
  kSelector,
  kSplitSelector,
  kClearSelectors,
  kReset,
  kInvalid,
  kCount
};
constexpr std::array<const char*, static_cast<int>(Kind::kCount)> kKindNames = {
    "on/off",         ">pass",         "<pass",      "#hash",
    "!hash",          "nopass",        "resetpass",  "~pattern",
    "%R~/%W~/%RW~",   "allkeys",       "resetkeys",  "&channel",
    "allchannels",    "resetchannels", "+cmd",       "-cmd",
    "+@cat",          "-@cat",         "+cmd|sub",   "+cmd|first-arg",
    "allcommands",    "nocommands",    "(selector)", "( split selector )",
    "clearselectors", "reset",         "invalid"};

constexpr std::string_view kHashP1 =
    "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a";  // sha256("p1")
constexpr std::string_view kHashP2 =
    "3946ca64ff78d93ca61090a437cbb6b3d2ca0d488f5f9ccf3059608368b27693";  // sha256("p2")

const std::vector<std::string> kUsers = {"u0", "u1", "u2", "u3"};
const std::vector<std::string> kCommands = {
    "get", "set", "lpush", "rpop", "brpop", "hset", "del", "mset", "publish", "subscribe",
    "psubscribe", "keys", "flushall", "sort", "eval", "config", "client", "debug", "select",
    "object", "acl", "xread", "lmove", "copy", "ping", "auth", "rename", "spublish",
    // a standalone server's cluster commands, and Redis commands listd lacks (AclCatalog)
    "cluster", "readonly", "module", "failover", "asking"};
const std::vector<std::string> kSubcommands = {
    "config|get",   "config|set",     "client|list",  "client|setname", "object|encoding",
    "acl|whoami",   "acl|list",       "xinfo|stream", "command|count",  "memory|usage",
    "cluster|info", "client|caching", "memory|stats", "script|debug",   "module|list"};
const std::vector<std::string> kFirstArgs = {"select|0", "select|1", "debug|object",
                                             "get|a1",   "SELECT|0", "lpush|k:1"};
const std::vector<std::string> kCategories = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};
const std::vector<std::string> kKeyPatterns = {"a*", "b", "*", "a?", "[ab]*", "k:*", "zz"};
const std::vector<std::string> kChannels = {"ch*", "news", "*", "n?ws", "chat"};
const std::vector<std::string> kKeys = {"a1", "b", "k:1", "ab", "zz", "c"};
const std::vector<std::string> kChannelNames = {"news", "chat", "nxws", "ch*", "other"};
const std::vector<std::string> kInvalidRules = {"+nosuchcmd",
                                                "-nosuchcmd",
                                                "+@nosuch",
                                                "-@nosuch",
                                                "#abc",
                                                "!XYZ",
                                                "#" + std::string(64, 'G'),
                                                "~a b",
                                                "%X~a",
                                                "%~a",
                                                "%RR~a",
                                                "&a b",
                                                "bogus",
                                                "+config|nosuch",
                                                "+config|get|x",
                                                "+get|a|b",
                                                "+debug|",
                                                "+",
                                                "-",
                                                "+@",
                                                "(on)",
                                                "(~a",
                                                "(+nosuch)",
                                                "<never-set",
                                                "()",
                                                "-select|0",
                                                "ON ",
                                                "%W",
                                                "+cluster|nosuch",
                                                "+readonly|x|y",
                                                "(~a \"b)"};

class RuleGenerator {
 public:
  explicit RuleGenerator(std::uint64_t seed) : rng_(seed) {}

  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  template <typename T>
  const T& any(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(pick(static_cast<int>(v.size())))];
  }
  std::array<int, static_cast<int>(Kind::kCount)>& counts() { return counts_; }

  // ACL SETUSER <user> <1-5 rules>; a selector may span several arguments.
  Args setuser() {
    Args cmd{"ACL", "SETUSER", any(kUsers)};
    const int n = 1 + pick(6);
    for (int i = 0; i < n; ++i) append_user_rule(cmd);
    return cmd;
  }

  // A rule a selector also takes (keys, channels, commands).
  std::string selector_rule() {
    switch (pick(18)) {
      case 0: return count(Kind::kKey, "~" + any(kKeyPatterns));
      case 1: {
        const std::string perm = any<std::string>({"%R~", "%W~", "%RW~", "%WR~", "%r~"});
        return count(Kind::kKeyPerm, perm + any(kKeyPatterns));
      }
      case 2: return count(Kind::kAllKeys, pick(2) ? "allkeys" : "~*");
      case 3: return count(Kind::kResetKeys, "resetkeys");
      case 4: return count(Kind::kChannel, "&" + any(kChannels));
      case 5: return count(Kind::kAllChannels, pick(2) ? "allchannels" : "&*");
      case 6: return count(Kind::kResetChannels, "resetchannels");
      case 7: return count(Kind::kAllowCommand, "+" + any(kCommands));
      case 8: return count(Kind::kDenyCommand, "-" + any(pick(3) ? kCommands : kSubcommands));
      case 9:
      case 10:
      case 11:
      case 12: {
        const bool allow = pick(3) != 0;
        return count(allow ? Kind::kAllowCategory : Kind::kDenyCategory,
                     (allow ? "+@" : "-@") + any(kCategories));
      }
      case 13: return count(Kind::kSubcommand, "+" + any(kSubcommands));
      case 14: return count(Kind::kFirstArg, "+" + any(kFirstArgs));
      case 15:
      case 16: {
        static const std::vector<std::string> kAll = {"allcommands", "+@all", "ALLCOMMANDS"};
        return count(Kind::kAllCommands, any(kAll));
      }
      default: return count(Kind::kNoCommands, pick(2) ? "nocommands" : "-@all");
    }
  }

 private:
  std::string count(Kind k, std::string rule) {
    ++counts_[static_cast<int>(k)];
    return rule;
  }

  void append_user_rule(Args& cmd) {
    switch (pick(22)) {
      case 0: {
        static const std::vector<std::string> kFlags = {"on", "off", "ON", "sanitize-payload",
                                                        "skip-sanitize-payload"};
        cmd.push_back(count(Kind::kOnOff, any(kFlags)));
        return;
      }
      case 1: cmd.push_back(count(Kind::kAddPass, pick(2) ? ">p1" : ">p2")); return;
      case 2: cmd.push_back(count(Kind::kDelPass, pick(2) ? "<p1" : "<p2")); return;
      case 3:
        cmd.push_back(count(Kind::kAddHash, "#" + std::string(pick(2) ? kHashP1 : kHashP2)));
        return;
      case 4:
        cmd.push_back(count(Kind::kDelHash, "!" + std::string(pick(2) ? kHashP1 : kHashP2)));
        return;
      case 5: cmd.push_back(count(Kind::kNoPass, "nopass")); return;
      case 6: cmd.push_back(count(Kind::kResetPass, "resetpass")); return;
      case 7: cmd.push_back(count(Kind::kClearSelectors, "clearselectors")); return;
      case 8:
        if (pick(3) == 0) {
          cmd.push_back(count(Kind::kReset, "reset"));
          return;
        }
        break;
      case 9: cmd.push_back(count(Kind::kInvalid, any(kInvalidRules))); return;
      case 10: append_selector(cmd); return;
      default: break;
    }
    cmd.push_back(selector_rule());
  }

  void append_selector(Args& cmd) {
    std::vector<std::string> rules;
    const int n = 1 + pick(3);
    for (int i = 0; i < n; ++i) rules.push_back(selector_rule());
    if (pick(2)) {
      std::string whole = "(";
      for (const auto& r : rules) whole += (whole.size() > 1 ? " " : "") + r;
      cmd.push_back(count(Kind::kSelector, whole + ")"));
      return;
    }
    count(Kind::kSplitSelector, "");
    rules.front().insert(0, "(");
    rules.back() += ")";
    cmd.insert(cmd.end(), rules.begin(), rules.end());
  }

  std::mt19937_64 rng_;
  std::array<int, static_cast<int>(Kind::kCount)> counts_{};
};

// A random command for ACL DRYRUN, with keys and channels from small pools.
Args dryrun_command(RuleGenerator& g) {
  const std::string k = g.any(kKeys), k2 = g.any(kKeys), ch = g.any(kChannelNames);
  switch (g.pick(33)) {
    case 0: return {"GET", k};
    case 1: return {"SET", k, "v"};
    case 30: return {"SET", k, "v", g.pick(2) ? "GET" : "get"};
    case 31: return {"BITFIELD", k, "GET", "u8", "0"};
    case 32: return {"BITFIELD", k, "GET", "u8", "0", "INCRBY", "u8", "0", "1"};
    case 2: return {"LPUSH", k, "v"};
    case 3: return {"RPOPLPUSH", k, k2};
    case 4: return {"LMOVE", k, k2, "LEFT", "RIGHT"};
    case 5: return {"DEL", k, k2};
    case 6: return {"MSET", k, "v", k2, "v"};
    case 7: return {"COPY", k, k2};
    case 8: return {"SORT", k};
    case 9: return {"SORT", k, "STORE", k2};
    case 10: return {"PUBLISH", ch, "m"};
    case 11: return {"SUBSCRIBE", ch, g.any(kChannelNames)};
    case 12: return {"PSUBSCRIBE", ch};
    case 13: return {"SSUBSCRIBE", ch};
    case 14: return {"CONFIG", "GET", "port"};
    case 15: return {"CONFIG", "SET", "maxclients", "10"};
    case 16: return {"SELECT", g.pick(2) ? "0" : "1"};
    case 17: return {"DEBUG", "OBJECT", k};
    case 18: return {"CLIENT", "LIST"};
    case 19: return {"ACL", "WHOAMI"};
    case 20: return {"KEYS", "*"};
    case 21: return {"EVAL", "return 1", "1", k};
    case 22: return {"XREAD", "STREAMS", k, k2, "0", "0"};
    case 23: return {"BLPOP", k, k2, "0"};
    case 24: return {"HSET", k, "f", "v"};
    case 25: return {"RENAME", k, k2};
    case 26: return {"OBJECT", "ENCODING", k};
    case 27: return {"SPUBLISH", ch, "m"};
    case 28: return {"PING"};
    default: return {g.any<std::string>({"GET", "NOSUCH", "CONFIG", "AUTH"})};  // arity, unknown
  }
}

bool is_single_command_word(std::string_view w) {
  return w.size() > 1 && (w[0] == '+' || w[0] == '-') && w[1] != '@';
}

/// A described rule list with each run of single-command words sorted by name (Redis emits them
/// in its dicts' hash order; a container still comes before its subcommands, and the first
/// arguments of one command lose only their order); a selector's ')' stays at the run's end.
std::string normalize_rules(std::string_view text) {
  std::vector<std::string> words;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t sp = std::min(text.find(' ', at), text.size());
    words.emplace_back(text.substr(at, sp - at));
    at = sp + 1;
  }
  for (std::size_t i = 0; i < words.size();) {
    if (!is_single_command_word(words[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    bool closes = false;
    while (j < words.size() && is_single_command_word(words[j]) && !closes) {
      closes = words[j].back() == ')';
      if (closes) words[j].pop_back();
      ++j;
    }
    std::stable_sort(
        words.begin() + static_cast<long>(i), words.begin() + static_cast<long>(j),
        [](const std::string& a, const std::string& b) { return a.substr(1) < b.substr(1); });
    if (closes) words[j - 1] += ')';
    i = j;
  }
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out.substr(0, text.size());
}

/// A raw RESP2 reply with normalize_rules applied to every bulk string (lengths are unchanged).
std::string normalize_bulks(const std::string& raw) {
  std::string out;
  for (std::size_t at = 0; at < raw.size();) {
    const std::size_t eol = raw.find("\r\n", at);
    if (eol == std::string::npos) return out + raw.substr(at);
    out += raw.substr(at, eol + 2 - at);
    if (raw[at] == '$' && raw[at + 1] != '-') {
      const std::size_t len = std::stoul(raw.substr(at + 1, eol - at - 1));
      out += normalize_rules(std::string_view(raw).substr(eol + 2, len)) + "\r\n";
      at = eol + 2 + len + 2;
    } else {
      at = eol + 2;
    }
  }
  return out;
}

struct Pair {
  RespClient& listd;
  RespClient& redis;
  std::uint64_t seed;
  int step;

  // Both replies, compared after `normalize`; false (with a failure) on a mismatch.
  bool same(const Args& cmd, bool normalized = false) {
    std::string want = redis.call(cmd), got = listd.call(cmd);
    if (normalized) {
      want = normalize_bulks(want);
      got = normalize_bulks(got);
    }
    if (got == want) return true;
    std::string text;
    for (const auto& a : cmd) text += (text.empty() ? "" : " ") + ("'" + a + "'");
    ADD_FAILURE() << "seed " << seed << " step " << step << ": " << text
                  << "\n  redis: " << escape_bytes(want, 2000)
                  << "\n  listd: " << escape_bytes(got, 2000);
    return false;
  }
};

std::string quoted(const Args& cmd) {
  std::string text;
  for (const auto& a : cmd) text += (text.empty() ? "'" : " '") + a + "'";
  return text;
}

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(AclOracle, RandomRulesDescribeAndDecideAsRedis) {
  std::vector<std::uint64_t> seeds = {1, 2, 3};
  if (const char* s = std::getenv("ACL_ORACLE_SEED"); s && *s)
    seeds = {std::strtoull(s, nullptr, 10)};
  const int steps = static_cast<int>(env_or("ACL_ORACLE_STEPS", 200));
  const bool trace = env_or("ACL_ORACLE_TRACE", 0) != 0;
  ServerProcess listd_server = ServerProcess::start_listd();
  ServerProcess redis_server = ServerProcess::start_redis();
  RespClient listd_admin(listd_server.port()), redis_admin(redis_server.port());
  std::array<int, static_cast<int>(Kind::kCount)> totals{};
  int accepted = 0, setusers = 0, allowed = 0, dryruns = 0;
  for (std::uint64_t seed : seeds) {
    RuleGenerator g(seed);
    Args deluser{"ACL", "DELUSER"};
    deluser.insert(deluser.end(), kUsers.begin(), kUsers.end());
    listd_admin.call(deluser);
    redis_admin.call(deluser);
    // Fresh AUTH connections: deleting a user closes the connections authenticated as it.
    RespClient listd_auth(listd_server.port()), redis_auth(redis_server.port());
    Pair admin{listd_admin, redis_admin, seed, 0};
    Pair auth{listd_auth, redis_auth, seed, 0};
    for (int i = 0; i < steps; ++i) {
      admin.step = auth.step = i;
      const Args set = g.setuser();
      if (trace) std::cerr << "step " << i << ": " << quoted(set) << "\n";
      const std::string reply = redis_admin.call(set);
      const std::string ours = listd_admin.call(set);
      ++setusers;
      if (reply == "+OK\r\n") ++accepted;
      if (ours != reply) {
        admin.listd.call({"PING"});  // keep both connections in step for the report
        ADD_FAILURE() << "seed " << seed << " step " << i
                      << ": SETUSER differs\n  redis: " << escape_bytes(reply, 2000)
                      << "\n  listd: " << escape_bytes(ours, 2000);
        return;
      }
      if (i % 2 == 0 && !admin.same({"ACL", "GETUSER", set[2]}, true)) return;
      for (int d = 0; d < 3; ++d) {
        Args dry{"ACL", "DRYRUN", g.any(kUsers)};
        const Args cmd = dryrun_command(g);
        dry.insert(dry.end(), cmd.begin(), cmd.end());
        const std::string verdict = redis_admin.call(dry);
        ++dryruns;
        if (verdict == "+OK\r\n") ++allowed;
        const std::string our_verdict = listd_admin.call(dry);
        if (our_verdict != verdict) {
          std::string text;
          for (const auto& a : dry) text += " '" + a + "'";
          ADD_FAILURE() << "seed " << seed << " step " << i << ":" << text
                        << "\n  redis: " << escape_bytes(verdict)
                        << "\n  listd: " << escape_bytes(our_verdict);
          return;
        }
      }
      if (!auth.same({"AUTH", g.any(kUsers), g.any<std::string>({"p1", "p2", "x"})})) return;
      if (i % 20 == 19 && (!admin.same({"ACL", "LIST"}, true) || !admin.same({"ACL", "USERS"})))
        return;
    }
    for (int k = 0; k < static_cast<int>(Kind::kCount); ++k) totals[k] += g.counts()[k];
  }
  if (trace)
    for (int k = 0; k < static_cast<int>(Kind::kCount); ++k)
      std::cerr << kKindNames[k] << ": " << totals[k] << "\n";
  for (int k = 0; k < static_cast<int>(Kind::kCount); ++k)
    EXPECT_GE(totals[k], static_cast<int>(seeds.size()) * 10) << "rule kind " << kKindNames[k];
  EXPECT_GE(accepted * 100, setusers * 30) << accepted << " of " << setusers << " SETUSER ok";
  EXPECT_GE(allowed * 100, dryruns * 10) << allowed << " of " << dryruns << " DRYRUN allowed";
  EXPECT_GE((dryruns - allowed) * 100, dryruns * 10) << "too few DRYRUN refusals";
}

}  // namespace
}  // namespace listd::testing
