// The stream part of an AOF rewrite in command form (persistence/aof_stream_rewrite.h): the bytes
// redis-server 7.0.15 wrote for the same stream (aof-use-rdb-preamble no, BGREWRITEAOF, its
// base file read back by hand), and a replay of them into a fresh server rebuilding the same
// stream (XINFO STREAM FULL byte for byte).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/persistence/aof_encoder.h"
#include "listd/persistence/aof_stream_rewrite.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

using Argv = std::vector<std::string>;

// Entries with and without the master fields, an XDEL, two groups, pending entries with fixed
// delivery times, a consumer without any, and an empty stream with a group.
const std::vector<Argv> kBuild = {
    {"XADD", "s", "1-1", "job", "000000000001", "state", "queued"},
    {"XADD", "s", "2-1", "job", "abc", "state", "running", "n", "7"},
    {"XADD", "s", "3-1", "job", "x"},
    {"XADD", "s", "4-1", "a", "b"},
    {"XDEL", "s", "3-1"},
    {"XGROUP", "CREATE", "s", "g1", "0"},
    {"XGROUP", "CREATE", "s", "g0", "$", "ENTRIESREAD", "4"},
    {"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "s", ">"},
    {"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "1", "STREAMS", "s", ">"},
    {"XGROUP", "CREATECONSUMER", "s", "g1", "carol"},
    {"XCLAIM", "s", "g1", "alice", "0", "1-1", "TIME", "1000000", "RETRYCOUNT", "3", "FORCE",
     "JUSTID"},
    {"XCLAIM", "s", "g1", "alice", "0", "2-1", "TIME", "1000001", "RETRYCOUNT", "1", "FORCE",
     "JUSTID"},
    {"XCLAIM", "s", "g1", "bob", "0", "4-1", "TIME", "1000002", "RETRYCOUNT", "2", "FORCE",
     "JUSTID"},
    {"XSETID", "s", "9-9", "ENTRIESADDED", "10", "MAXDELETEDID", "3-1"},
    {"XADD", "e", "MAXLEN", "0", "5-5", "f", "v"},
    {"XGROUP", "CREATE", "e", "ge", "$"},
};

// What redis-server 7.0.15 wrote after `SELECT 0`, stream "e" first (its key order).
const std::vector<Argv> kRedisRewriteOfE = {
    {"XADD", "e", "MAXLEN", "0", "0-1", "x", "y"},
    {"XSETID", "e", "5-5", "ENTRIESADDED", "1", "MAXDELETEDID", "0-0"},
    {"XGROUP", "CREATE", "e", "ge", "5-5", "ENTRIESREAD", "-1"},
};
const std::vector<Argv> kRedisRewriteOfS = {
    {"XADD", "s", "1-1", "job", "000000000001", "state", "queued"},
    {"XADD", "s", "2-1", "job", "abc", "state", "running", "n", "7"},
    {"XADD", "s", "4-1", "a", "b"},
    {"XSETID", "s", "9-9", "ENTRIESADDED", "10", "MAXDELETEDID", "3-1"},
    {"XGROUP", "CREATE", "s", "g0", "4-1", "ENTRIESREAD", "4"},
    {"XGROUP", "CREATE", "s", "g1", "4-1", "ENTRIESREAD", "4"},
    {"XCLAIM", "s", "g1", "alice", "0", "1-1", "TIME", "1000000", "RETRYCOUNT", "3", "JUSTID",
     "FORCE"},
    {"XCLAIM", "s", "g1", "alice", "0", "2-1", "TIME", "1000001", "RETRYCOUNT", "1", "JUSTID",
     "FORCE"},
    {"XCLAIM", "s", "g1", "bob", "0", "4-1", "TIME", "1000002", "RETRYCOUNT", "2", "JUSTID",
     "FORCE"},
    {"XGROUP", "CREATECONSUMER", "s", "g1", "carol"},
};

std::string resp(const std::vector<Argv>& commands) {
  std::string out;
  for (const Argv& a : commands) {
    const std::vector<std::string_view> v(a.begin(), a.end());
    persistence::append_resp_command(out, v);
  }
  return out;
}

std::string rewrite(testing::TestServer& t, const std::string& key) {
  std::string out;
  const store::Entry* e = t.exec().keyspace().db(0).lookup(key, t.clock().unix_ms());
  persistence::append_stream_rewrite(out, key, e->value.as_stream());
  return out;
}

/// Runs RESP commands (a rewrite's output) on `c`; every one must succeed.
void replay(testing::TestServer& t, Client& c, const std::string& bytes) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    std::size_t eol = bytes.find("\r\n", i);
    const int n = std::stoi(bytes.substr(i + 1, eol - i - 1));
    i = eol + 2;
    Argv argv;
    for (int k = 0; k < n; ++k) {
      eol = bytes.find("\r\n", i);
      const auto len = static_cast<std::size_t>(std::stoll(bytes.substr(i + 1, eol - i - 1)));
      argv.push_back(bytes.substr(eol + 2, len));
      i = eol + 2 + len + 2;
    }
    const std::string reply = t.run_strings(c, argv);
    ASSERT_NE(reply[0], '-') << argv[0] << ": " << reply;
  }
}

class AofStreamRewrite : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const Argv& a : kBuild) ASSERT_NE(t.run_strings(c, a)[0], '-') << a[0];
  }
  testing::TestServer t;
  Client& c = t.client();
};

TEST_F(AofStreamRewrite, WritesTheCommandsRedis70Writes) {
  EXPECT_EQ(rewrite(t, "s"), resp(kRedisRewriteOfS));
  EXPECT_EQ(rewrite(t, "e"), resp(kRedisRewriteOfE));
}

TEST_F(AofStreamRewrite, ReplayedIntoAFreshServerRebuildsTheSameStream) {
  testing::TestServer fresh;
  Client& f = fresh.client();
  for (const std::string key : {"s", "e"}) {
    SCOPED_TRACE(key);
    replay(fresh, f, rewrite(t, key));
    EXPECT_EQ(fresh.run(f, {"XINFO", "STREAM", key, "FULL"}),
              t.run(c, {"XINFO", "STREAM", key, "FULL"}));
    EXPECT_EQ(rewrite(fresh, key), rewrite(t, key));
  }
}

}  // namespace
}  // namespace listd::server
