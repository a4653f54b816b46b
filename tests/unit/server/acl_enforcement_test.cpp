// ACL checks before a command runs (Redis processCommand's ACLCheckAllPerm), inside MULTI and
// EXEC, in redis.call, for pub/sub channels; AUTH with users; ACL LOG; what happens to clients
// when their user changes or goes. Texts as redis-server 7.0.15 sends them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/server/acl.h"
#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

const std::string kKeyErr =
    "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n";
const std::string kChannelErr =
    "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n";

// A client authenticated as the worker user of the seeds.
listd::server::Client& worker(TestServer& t) {
  auto& admin = t.client();
  EXPECT_EQ(t.run(admin, {"ACL", "SETUSER", "worker", "on", ">pw", "+brpop", "+lpush", "+hset",
                          "~task:*", "~review:*", "&jobs"}),
            "+OK\r\n");
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"AUTH", "worker", "pw"}), "+OK\r\n");
  return c;
}

TEST(AclEnforcement, RefusesCommandsKeysAndChannelsWithRedisTexts) {
  TestServer t;
  auto& w = worker(t);
  EXPECT_EQ(t.run(w, {"ACL", "WHOAMI"}),
            error("NOPERM this user has no permissions to run the 'acl|whoami' command"));
  EXPECT_EQ(t.run(w, {"LPUSH", "task:1", "a"}), integer(1));
  EXPECT_EQ(t.run(w, {"LPUSH", "other", "a"}), kKeyErr);
  EXPECT_EQ(t.run(w, {"FLUSHALL"}),
            error("NOPERM this user has no permissions to run the 'flushall' command"));
  EXPECT_EQ(t.run(w, {"CONFIG", "GET", "port"}),
            error("NOPERM this user has no permissions to run the 'config|get' command"));
  EXPECT_EQ(t.run(w, {"BRPOP", "task:1", "0"}), key_value("task:1", "a"));
  EXPECT_EQ(t.run(w, {"BRPOP", "task:1", "other", "0"}), kKeyErr);  // refused before blocking
  EXPECT_FALSE(w.blocked());
}

TEST(AclEnforcement, ReadAndWritePatternsFollowTheKeySpecs) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "u", "on", "nopass", "+@all", "%R~r*", "%W~w*"});
  auto& u = t.client();
  t.run(u, {"AUTH", "u", "x"});
  EXPECT_EQ(t.run(u, {"LPUSH", "w1", "a"}), integer(1));  // insert: write only
  EXPECT_EQ(t.run(u, {"LPUSH", "r1", "a"}), kKeyErr);
  EXPECT_EQ(t.run(u, {"LRANGE", "r1", "0", "-1"}), "*0\r\n");
  EXPECT_EQ(t.run(u, {"LRANGE", "w1", "0", "-1"}), kKeyErr);
  EXPECT_EQ(t.run(u, {"LPOP", "w1"}), kKeyErr);  // access + delete: both
  // LMOVE reads and deletes its source, inserts into its destination.
  EXPECT_EQ(t.run(u, {"LMOVE", "r1", "w2", "LEFT", "LEFT"}), kKeyErr);
  // Variable flags, from Redis' key functions: SET overwrites (write only) unless GET reads too;
  // BITFIELD only reads while it only GETs.
  EXPECT_EQ(t.run(u, {"SET", "w3", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(u, {"SET", "w3", "v", "GET"}), kKeyErr);
  EXPECT_EQ(t.run(u, {"BITFIELD", "r3", "GET", "u8", "0"}), "*1\r\n:0\r\n");
  EXPECT_EQ(t.run(u, {"BITFIELD", "r3", "SET", "u8", "0", "1"}), kKeyErr);
  // EXISTS neither reads nor writes the value (RO without ACCESS): any pattern.
  EXPECT_EQ(t.run(u, {"EXISTS", "w3", "r3"}), integer(1));
}

// SET and BITFIELD have Redis' VARIABLE_FLAGS key specs: the access follows the arguments
// (setGetKeys, bitfieldGetKeys; found by integration.AclOracle: SET k v needs write only).
TEST(AclEnforcement, SetAndBitfieldNeedTheAccessTheirArgumentsAskFor) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "u", "on", "nopass", "+@all", "%W~a*", "%R~b*"});
  const auto dryrun = [&](std::vector<std::string> cmd) {
    cmd.insert(cmd.begin(), {"ACL", "DRYRUN", "u"});
    return t.run_strings(admin, cmd);
  };
  const auto denied = [](const std::string& key) {
    return bulk("This user has no permissions to access the '" + key + "' key");
  };
  EXPECT_EQ(dryrun({"SET", "a1", "v"}), "+OK\r\n");
  EXPECT_EQ(dryrun({"SET", "a1", "v", "GET"}), denied("a1"));
  EXPECT_EQ(dryrun({"SET", "b1", "v"}), denied("b1"));
  EXPECT_EQ(dryrun({"BITFIELD", "b1", "GET", "u8", "0"}), "+OK\r\n");
  EXPECT_EQ(dryrun({"BITFIELD", "b1", "OVERFLOW", "WRAP", "GET", "u8", "0"}), "+OK\r\n");
  EXPECT_EQ(dryrun({"BITFIELD", "b1"}), "+OK\r\n");
  EXPECT_EQ(dryrun({"BITFIELD", "b1", "GET", "u8", "0", "SET", "u8", "0", "1"}), denied("b1"));
  EXPECT_EQ(dryrun({"BITFIELD", "b1", "GET", "u8"}), denied("b1"));  // a syntax error: a write
  EXPECT_EQ(dryrun({"BITFIELD", "a1", "INCRBY", "u8", "0", "1"}), denied("a1"));  // reads too
  auto& u = t.client();
  t.run(u, {"AUTH", "u", "x"});
  EXPECT_EQ(t.run(u, {"SET", "a1", "v"}), "+OK\r\n");
}

TEST(AclEnforcement, ChannelsArePatternsAndPsubscribeMatchesLiterally) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "p", "on", "nopass", "+@all", "~*", "resetchannels", "&news.*"});
  auto& p = t.client();
  t.run(p, {"AUTH", "p", "x"});
  EXPECT_EQ(t.run(p, {"PUBLISH", "news.1", "m"}), integer(0));
  EXPECT_EQ(t.run(p, {"PUBLISH", "sports", "m"}), kChannelErr);
  EXPECT_EQ(t.run(p, {"PSUBSCRIBE", "news.1"}), kChannelErr);
  EXPECT_EQ(t.run(p, {"SUBSCRIBE", "news.1", "sports"}), kChannelErr);
  EXPECT_NE(t.run(p, {"PSUBSCRIBE", "news.*"}), kChannelErr);
}

TEST(AclEnforcement, RevokedChannelsDisconnectSubscribers) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "s", "on", "nopass", "+@all", "~*", "&a", "&b"});
  auto& s = t.client();
  t.run(s, {"AUTH", "s", "x"});
  t.run(s, {"SUBSCRIBE", "a"});
  t.run(admin, {"ACL", "SETUSER", "s", "&c"});  // still allowed: stays
  EXPECT_FALSE(s.close_after_reply);
  t.run(admin, {"ACL", "SETUSER", "s", "resetchannels", "&b"});
  EXPECT_TRUE(s.close_after_reply);
}

TEST(AclEnforcement, AuthWithUsersAndTheLogOfFailures) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "u", "on", ">pw", "+@all", "~*"});
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"AUTH", "u", "bad"}),
            error("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(t.run(c, {"AUTH", "nobody", "pw"}),
            error("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(t.run(c, {"AUTH", "pw"}),
            error("ERR AUTH <password> called without any password configured for the default "
                  "user. Are you sure your configuration is correct?"));
  EXPECT_EQ(t.run(c, {"HELLO", "2", "AUTH", "u", "pw"}).substr(0, 4), "*14\r");
  EXPECT_EQ(t.run(c, {"ACL", "WHOAMI"}), bulk("u"));
  t.run(admin, {"ACL", "SETUSER", "u", "off"});
  EXPECT_EQ(t.run(c, {"AUTH", "u", "pw"}),
            error("WRONGPASS invalid username-password pair or user is disabled."));
  auto& log = t.exec().acl().log_entries();
  ASSERT_EQ(log.size(), 2u);  // u (bad, then disabled: one entry), nobody; newest first
  EXPECT_EQ(log[0].username, "u");
  EXPECT_EQ(log[0].count, 2);
  EXPECT_EQ(log[0].object, "AUTH");
  EXPECT_EQ(log[1].username, "nobody");
  EXPECT_EQ(t.run(c, {"RESET"}), "+RESET\r\n");
  EXPECT_EQ(t.run(c, {"ACL", "WHOAMI"}), bulk("default"));
}

TEST(AclEnforcement, RequirepassIsTheDefaultUsersPassword) {
  TestServer t(Settings{{"requirepass", "secret"}});
  auto& admin = t.client();
  EXPECT_EQ(t.run(admin, {"AUTH", "default", "secret"}), "+OK\r\n");
  EXPECT_EQ(
      t.run(admin, {"ACL", "LIST"}),
      array({"user default on #2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b "
             "~* &* +@all"}));
  EXPECT_EQ(t.run(admin, {"CONFIG", "SET", "requirepass", ""}), "+OK\r\n");
  EXPECT_EQ(t.run(admin, {"ACL", "LIST"}), array({"user default on nopass ~* &* +@all"}));
  auto& fresh = t.client();
  EXPECT_EQ(t.run(fresh, {"PING"}), "+PONG\r\n");
}

TEST(AclEnforcement, DeniedCommandsAreLoggedWithRedisFields) {
  TestServer t;
  auto& w = worker(t);
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "worker", "+multi"});
  t.run(w, {"KEYS", "*"});
  t.run(w, {"LPUSH", "x", "1"});
  t.run(w, {"MULTI"});
  t.run(w, {"FLUSHALL"});
  const std::string log = t.run(admin, {"ACL", "LOG", "1"});
  EXPECT_NE(log.find("$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$5\r\nmulti\r\n$6\r\nobject"
                     "\r\n$8\r\nflushall\r\n$8\r\nusername\r\n$6\r\nworker\r\n$11\r\nage-seconds"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("user=worker"), std::string::npos);
  auto& entries = t.exec().acl().log_entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].object, "x");
  EXPECT_EQ(entries[1].reason, listd::server::AclLogReason::kKey);
  EXPECT_EQ(entries[2].object, "keys");
  EXPECT_EQ(t.run(admin, {"ACL", "LOG", "RESET"}), "+OK\r\n");
  EXPECT_EQ(t.run(admin, {"ACL", "LOG"}), "*0\r\n");
}

TEST(AclEnforcement, QueuedCommandsAreCheckedWhenQueuedAndAgainAtExec) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "m", "on", "nopass", "+@all", "~*"});
  auto& m = t.client();
  t.run(m, {"AUTH", "m", "x"});
  t.run(m, {"MULTI"});
  EXPECT_EQ(t.run(m, {"SET", "k", "v"}), "+QUEUED\r\n");
  t.run(admin, {"ACL", "SETUSER", "m", "-set"});
  EXPECT_EQ(t.run(m, {"EXEC"}),
            "*1\r\n-NOPERM ACLs rules changed between the moment the transaction was accumulated "
            "and the EXEC call. This command is no longer allowed for the following reason: no "
            "permission to execute the command or subcommand\r\n");
}

TEST(AclEnforcement, ScriptsCallAsTheCallersUser) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "s", "on", "nopass", "+eval", "+get", "~a"});
  auto& s = t.client();
  t.run(s, {"AUTH", "s", "x"});
  EXPECT_EQ(t.run(s, {"EVAL", "return redis.call('get', 'a')", "0"}), "$-1\r\n");
  const std::string denied = t.run(s, {"EVAL", "return redis.call('get', 'b')", "0"});
  EXPECT_NE(denied.find("The user executing the script can't access at least one of the keys "
                        "mentioned in the command arguments"),
            std::string::npos)
      << denied;
  EXPECT_EQ(t.exec().acl().log_entries().front().context, listd::server::AclLogContext::kLua);
}

TEST(AclEnforcement, DeletedUsersClientsAreClosedAndKillUserFindsThem) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "d", "on", "nopass", "+@all", "~*"});
  auto& d = t.client();
  t.run(d, {"AUTH", "d", "x"});
  EXPECT_NE(t.run(admin, {"CLIENT", "LIST"}).find("user=d "), std::string::npos);
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "USER", "nobody"}), error("ERR No such user 'nobody'"));
  EXPECT_EQ(t.run(admin, {"ACL", "DELUSER", "default"}),
            error("ERR The 'default' user cannot be removed"));
  EXPECT_EQ(t.run(admin, {"ACL", "DELUSER", "d", "nobody"}), integer(1));
  EXPECT_TRUE(d.close_after_reply);
  EXPECT_FALSE(d.authenticated);
  EXPECT_EQ(t.run(admin, {"CLIENT", "KILL", "USER", "default"}), integer(1));
}

}  // namespace

// Keys found by scanning (XREAD's STREAMS, GEORADIUS' STORE) are checked too, as in 7.0.15.
TEST(AclEnforcement, ChecksScannedStreamAndStoreKeys) {
  TestServer t;
  auto& admin = t.client();
  t.run(admin, {"ACL", "SETUSER", "u", "on", "nopass", "+@all", "~s*"});
  auto& u = t.client();
  t.run(u, {"AUTH", "u", "x"});
  EXPECT_EQ(t.run(u, {"XREAD", "STREAMS", "s1", "x", "0", "0"}), kKeyErr);
  EXPECT_EQ(t.run(u, {"XREAD", "STREAMS", "s1", "0"}), "*-1\r\n");
  EXPECT_EQ(t.run(u, {"GEORADIUS", "s1", "0", "0", "1", "km", "STORE", "x"}), kKeyErr);
  EXPECT_EQ(t.run(u, {"GEORADIUS", "s1", "0", "0", "1", "km", "STORE", "s2"}), integer(0));
}
