// ACL rules and their description (Redis 7.0 acl.c ACLSetUser / ACLDescribeUser), through
// ACL SETUSER and ACL LIST on an in-process executor. Every expected line was printed by
// redis-server 7.0.15 for the same rules, except where a comment says why listd differs.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/acl_categories.h"
#include "listd/server/acl_file.h"
#include "listd/server/acl_user.h"
#include "listd/server/command_table.h"
#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

// The ACL LIST line of `user` after ACL SETUSER `rules`.
std::string describe(TestServer& t, const std::vector<std::string>& rules,
                     const std::string& user = "u") {
  auto& c = t.client();
  std::vector<std::string> argv{"ACL", "SETUSER", user};
  argv.insert(argv.end(), rules.begin(), rules.end());
  EXPECT_EQ(t.run_strings(c, argv), "+OK\r\n");
  std::string out = t.run(c, {"ACL", "LIST"});
  const std::string prefix = "user " + user + " ";
  const std::size_t at = out.find(prefix);
  if (at == std::string::npos) return out;
  return out.substr(at, out.find("\r\n", at) - at);
}

std::string setuser_error(TestServer& t, const std::vector<std::string>& rules) {
  auto& c = t.client();
  std::vector<std::string> argv{"ACL", "SETUSER", "u"};
  argv.insert(argv.end(), rules.begin(), rules.end());
  return t.run_strings(c, argv);
}

TEST(AclRules, DefaultUserMayRunEverything) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"ACL", "LIST"}), array({"user default on nopass ~* &* +@all"}));
  EXPECT_EQ(t.run(c, {"ACL", "USERS"}), array({"default"}));
  EXPECT_EQ(t.run(c, {"ACL", "WHOAMI"}), bulk("default"));
}

TEST(AclRules, WorkerUserIsDescribedAsRedisDoes) {
  TestServer t;
  // Redis prints the single commands in its command dict's (hash) order; listd in its table's.
  EXPECT_EQ(describe(t, {"on", ">p", "+brpop", "+lpush", "+hset", "~task:*", "~review:*"}),
            "user u on #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 ~task:* "
            "~review:* resetchannels -@all +lpush +brpop +hset");
}

TEST(AclRules, CategoriesAreFittedBackAsRedisDoes) {
  TestServer t;
  EXPECT_EQ(describe(t, {"-@all", "+@list"}), "user u off resetchannels -@all +@list");
  EXPECT_EQ(describe(t, {"reset", "+@all", "-@dangerous", "%R~r*", "%W~w*", "&ch", "(+get ~g*)"}),
            "user u off sanitize-payload %R~r* %W~w* resetchannels &ch +@all -@dangerous (~g* "
            "resetchannels -@all +get)");
  EXPECT_EQ(describe(t, {"reset", "+@all", "-@write", "+set", "-config|set", "~*"}),
            "user u off sanitize-payload ~* resetchannels +@all -@write -config|set +set");
}

TEST(AclRules, FirstArgumentsAndSubcommands) {
  TestServer t;
  EXPECT_EQ(describe(t, {"+select|0", "+select|1", "+config|get"}),
            "user u off resetchannels -@all +select|0 +select|1 +config|get");
  // -@all forgets the first arguments.
  EXPECT_EQ(describe(t, {"-@all", "+config|get"}), "user u off resetchannels -@all +config|get");
}

TEST(AclRules, PatternsMergeAndPasswordsStayUnique) {
  TestServer t;
  EXPECT_EQ(describe(t, {"%R~a", "%W~a", "~b", "%R", ">x", ">x", "&c", "&c", "allchannels"}),
            "user u off #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 ~a ~b "
            "%R~ &* -@all");
  EXPECT_EQ(describe(t, {"<x", "resetkeys", "allkeys", "nopass", "on"}),
            "user u on nopass ~* &* -@all");
  EXPECT_EQ(describe(t, {"resetpass", "resetchannels", "#" + std::string(64, 'a')}),
            "user u on #" + std::string(64, 'a') + " ~* resetchannels -@all");
  EXPECT_EQ(describe(t, {"!" + std::string(64, 'a'), "allcommands", "nocommands", "+@all"}),
            "user u on ~* resetchannels +@all");
}

TEST(AclRules, SelectorsAreAddedAndCleared) {
  TestServer t;
  EXPECT_EQ(describe(t, {"(~a", "+get)", "(%R~b +@read)"}),
            "user u off resetchannels -@all (~a resetchannels -@all +get) (%R~b resetchannels "
            "-@all +@read)");
  EXPECT_EQ(describe(t, {"clearselectors"}), "user u off resetchannels -@all");
}

TEST(AclRules, RefusedRulesChangeNothingAndSayWhy) {
  TestServer t;
  const std::string hash_err =
      "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters "
      "and contain only lowercase hexadecimal characters";
  EXPECT_EQ(setuser_error(t, {"on", "#abc"}), error(hash_err));
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"ACL", "GETUSER", "u"}), "$-1\r\n");  // all or nothing: not created
  EXPECT_EQ(setuser_error(t, {"+nosuch"}),
            error("ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name "
                  "in ACL"));
  EXPECT_EQ(setuser_error(t, {"-@nosuch"}),
            error("ERR Error in ACL SETUSER modifier '-@nosuch': Unknown command or category "
                  "name in ACL"));
  EXPECT_EQ(setuser_error(t, {"~*", "~x"}),
            error("ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern "
                  "(or the 'allkeys' flag) is not valid and does not have any effect. Try "
                  "'resetkeys' to start with an empty list of patterns"));
  EXPECT_EQ(setuser_error(t, {"<nope"}),
            error("ERR Error in ACL SETUSER modifier '<nope': The password you are trying to "
                  "remove from the user does not exist"));
  EXPECT_EQ(setuser_error(t, {"+config|get|x"}),
            error("ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a "
                  "subcommand is not supported"));
  EXPECT_EQ(setuser_error(t, {"+config|"}),
            error("ERR Error in ACL SETUSER modifier '+config|': Syntax error"));
  EXPECT_EQ(setuser_error(t, {"%~x"}),
            error("ERR Error in ACL SETUSER modifier '%~x': Syntax error"));
  EXPECT_EQ(setuser_error(t, {"(+get", "~x"}),
            error("ERR Unmatched parenthesis in acl selector starting at '(+get'."));
  EXPECT_EQ(t.run(c, {"ACL", "SETUSER", "a b"}),
            error("ERR Usernames can't contain spaces or null characters"));
}

// Rules may name Redis 7.0.15 commands listd lacks (MODULE, ...), as
// an aclfile written for Redis does, and they count in the best fit as in Redis (found by
// integration.AclOracle: Redis' @dangerous `+client` case lists CLIENT PAUSE / UNPAUSE too).
TEST(AclRules, RulesNameRedisCommandsListdLacks) {
  TestServer t;
  EXPECT_EQ(describe(t, {"-@all", "+module|list", "+failover"}),
            "user u off resetchannels -@all +failover +module|list");
  EXPECT_EQ(
      describe(t, {"reset", "+@all", "-module", "-client|caching", "-memory|stats"}),
      "user u off sanitize-payload resetchannels +@all -client|caching -memory|stats -module");
  // Redis: +@all -@dangerous +client|pause +client|kill +client|list +client|unblock
  // +client|no-evict +client|unpause (its dict's order).
  EXPECT_EQ(describe(t, {"reset", "+@all", "-@dangerous", "+client"}),
            "user u off sanitize-payload resetchannels +@all -@dangerous +client|list "
            "+client|kill +client|no-evict +client|unblock +client|pause +client|unpause");
  EXPECT_EQ(setuser_error(t, {"+module|nosuch"}),
            error("ERR Error in ACL SETUSER modifier '+module|nosuch': Unknown command or "
                  "category name in ACL"));
  auto& c = t.client();
  // They are still not commands here.
  EXPECT_EQ(t.run(c, {"ACL", "DRYRUN", "u", "module", "list"}),
            error("ERR Command 'module' not found"));
}

// 7.0.15 splits a selector's rules with sdssplitargs and, when its quotes do not balance,
// applies none of them: the selector is added empty (found by integration.AclOracle).
TEST(AclRules, SelectorWithUnbalancedQuotesIsAddedEmpty) {
  TestServer t;
  EXPECT_EQ(describe(t, {"(~a \"b)"}), "user u off resetchannels -@all (resetchannels -@all)");
}

TEST(AclRules, GetuserListsEachField) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"ACL", "SETUSER", "u", "on", "~k*", "&n", "+get", "(~s* +set)"});
  EXPECT_EQ(t.run(c, {"ACL", "GETUSER", "u"}),
            "*12\r\n" + bulk("flags") + array({"on"}) + bulk("passwords") + "*0\r\n" +
                bulk("commands") + bulk("-@all +get") + bulk("keys") + bulk("~k*") +
                bulk("channels") + bulk("&n") + bulk("selectors") + "*1\r\n*6\r\n" +
                bulk("commands") + bulk("-@all +set") + bulk("keys") + bulk("~s*") +
                bulk("channels") + bulk(""));
}

TEST(AclRules, CatListsCategoriesAndTheirCommands) {
  TestServer t;
  auto& c = t.client();
  const std::string cats = t.run(c, {"ACL", "CAT"});
  EXPECT_EQ(cats.substr(0, 27), "*21\r\n$8\r\nkeyspace\r\n$4\r\nread");
  EXPECT_EQ(t.run(c, {"ACL", "CAT", "transaction"}),
            array({"multi", "exec", "discard", "watch", "unwatch"}));
  EXPECT_EQ(t.run(c, {"ACL", "CAT", "nope"}), error("ERR Unknown category 'nope'"));
}

TEST(AclRules, EveryCommandHasRedisCategories) {
  // A command added without a row in acl_command_categories.cpp would fall back on the flag-
  // derived categories: regenerate the table (scripts/gen_acl_categories.py) instead.
  const auto table = listd::server::CommandTable::with_all_commands();
  // CLIENT SETINFO and NO-TOUCH are Redis 7.2's: 7.0 has no row, they keep the derived ones;
  // so does QUEUES, a listd extension (@admin @slow @dangerous, from its flags).
  for (const auto* spec : table.by_slot()) {
    if (spec->full_name != "client|setinfo" && spec->full_name != "client|no-touch" &&
        spec->full_name != "queues") {
      EXPECT_NE(listd::server::acl_command_row(spec->full_name), nullptr) << spec->full_name;
    }
  }
}

// Redis aborts when a description does not rebuild the same command bits
// (ACLDescribeSelectorCommandRules); here: random rule lists, described, the description applied
// to a fresh user: same description, same verdict on every command and subcommand.
TEST(AclRules, DescriptionsRebuildTheSameUser) {
  using listd::server::AclCatalog;
  using listd::server::AclDenial;
  using listd::server::AclUser;
  const auto table = listd::server::CommandTable::with_all_commands();
  const AclCatalog catalog(table);
  const std::vector<std::string> words = {
      "+@all",      "-@all",        "+@list",        "-@write",   "+@read",      "-@dangerous",
      "+@blocking", "-@slow",       "+get",          "-lpush",    "+config|get", "-config",
      "+client",    "-client|kill", "+select|0",     "+select|1", "~k*",         "%R~r*",
      "%W~w*",      "allkeys",      "resetkeys",     "&ch",       "allchannels", "resetchannels",
      "on",         "off",          "nopass",        ">pw",       "(+get ~s*)",  "clearselectors",
      "+@stream",   "-@pubsub",     "+@transaction", "-xread"};
  std::mt19937 rng(21);  // fixed: a failure replays
  for (int round = 0; round < 300; ++round) {
    AclUser user(catalog, "u", false);
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) user.apply(words[rng() % words.size()]);
    const std::string described = user.describe();
    AclUser rebuilt(catalog, "u", false);
    const auto split = *listd::base::split_args(described);
    const std::vector<std::string_view> views(split.begin(), split.end());
    std::string error;
    for (const auto& rule : listd::server::merge_selector_arguments(views, error))
      ASSERT_EQ(rebuilt.apply(rule), listd::server::AclRuleError::kNone) << described;
    ASSERT_EQ(rebuilt.describe(), described);
    for (const auto* spec : table.by_slot()) {
      std::vector<std::string_view> argv{spec->parent ? spec->parent->name : spec->name};
      if (spec->parent) argv.push_back(spec->name);
      std::size_t a = 0, b = 0;
      ASSERT_EQ(user.check(*spec, argv, a), rebuilt.check(*spec, argv, b))
          << described << " / " << spec->full_name;
    }
  }
}

}  // namespace

// A fuzzer finding. "(+set" opens a second selector before the first is closed: Redis' merge
// drops "(@read" and keeps "(+set ~w*erous))", whose key pattern "w*erous)" ends in ")". 7.0.15
// accepts it and prints this line, which it refuses on reload ("+set)" is no command): ACL SAVE
// then ACL LOAD loses such a user in Redis too. listd keeps Redis' bytes.
TEST(AclRules, PatternEndingInParenthesisIsDescribedAsRedisDoes) {
  TestServer t;
  const std::string line =
      describe(t, {"on", "nopass", "allkeys", "allchannels", "(@read", "(+set", "~w*erous))"});
  EXPECT_EQ(line, "user u on nopass ~* &* -@all (~w*erous) resetchannels -@all +set)");
  EXPECT_EQ(setuser_error(t, {"on", "nopass", "~*", "&*", "-@all", "(~w*erous)", "resetchannels",
                              "-@all", "+set)"}),
            "-ERR Error in ACL SETUSER modifier '+set)': Unknown command or category name in "
            "ACL\r\n");
}

// A fuzzer finding (corpus/acl/setuser_nul_in_selector). Redis 7.0.15 prints a selector's key
// pattern as a C string, so a NUL byte ends the description there ("+get" and the rest of the
// pattern vanish from ACL LIST, as they do in Redis), and an error names the rule up to the NUL.
TEST(AclRules, ANulByteEndsWhatRedisPrintsOfARule) {
  TestServer t;
  using namespace std::string_literals;
  EXPECT_EQ(describe(t, {"(~a\0b &c\0d +get)"s}),
            "user u off resetchannels -@all (~a resetchannels -@all)");
  EXPECT_EQ(setuser_error(t, {"on", "~a\0b"s}),
            "-ERR Error in ACL SETUSER modifier '~a': Syntax error\r\n");
}
