// Stream commands through the executor: reply bytes as redis-server 7.0.15 gives them for the
// same requests, argument errors in Redis' order, WRONGTYPE, empty streams kept, COPY/RENAME.
#include <gtest/gtest.h>

#include <string>

#include "listd/server/errors.h"
#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

class StreamCommandsTest : public ::testing::Test {
 protected:
  TestServer t;
  listd::server::Client& c = t.client();
};

std::string entry(const std::string& id, std::initializer_list<std::string> fv) {
  std::string out = "*2\r\n" + bulk(id) + "*" + std::to_string(fv.size()) + "\r\n";
  for (const auto& s : fv) out += bulk(s);
  return out;
}

const std::string kMaxId = "18446744073709551615-18446744073709551615";

TEST_F(StreamCommandsTest, XaddIdsAndTheirErrors) {
  EXPECT_EQ(t.run(c, {"XADD", "x", "1-1", "f", "v"}), bulk("1-1"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "1-1", "f", "v"}),
            error("ERR The ID specified in XADD is equal or smaller than the target stream top "
                  "item"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "0-0", "f", "v"}),
            error("ERR The ID specified in XADD must be greater than 0-0"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "1-*", "g", "w"}), bulk("1-2"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "1", "a", "b", "c"}),
            error("ERR wrong number of arguments for 'xadd' command"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "MAXLEN", "1", "LIMIT", "5", "*", "f", "v"}),
            error("ERR syntax error, LIMIT cannot be used without the special ~ option"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "MAXLEN", "-1", "*", "f", "v"}),
            error("ERR The MAXLEN argument must be >= 0."));
  EXPECT_EQ(t.run(c, {"XADD", "x", "MAXLEN", "1", "MINID", "1", "*", "f", "v"}),
            error("ERR syntax error, MAXLEN and MINID options at the same time are not "
                  "compatible"));
  EXPECT_EQ(t.run(c, {"XADD", "y", "NOMKSTREAM", "5-5", "f", "v"}), "$-1\r\n");
  EXPECT_EQ(t.run(c, {"EXISTS", "y"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"XADD", "x", "abc", "f", "v"}), error("ERR Invalid stream ID specified as "
                                                            "stream command argument"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "+", "f", "v"}),
            error("ERR Invalid stream ID specified as stream command argument"));
  EXPECT_EQ(t.run(c, {"XADD", "x", kMaxId, "f", "v"}), bulk(kMaxId));
  EXPECT_EQ(t.run(c, {"XADD", "x", "*", "f", "v"}),
            error("ERR The stream has exhausted the last possible ID, unable to add more items"));
}

TEST_F(StreamCommandsTest, XaddStarUsesTheCommandTimeThenTheNextSequence) {
  const std::string now = t.run(c, {"XADD", "x", "*", "f", "v"});
  ASSERT_EQ(now.substr(now.size() - 4), "-0\r\n");
  const std::string ms = now.substr(now.find("\r\n") + 2, now.size() - now.find("\r\n") - 6);
  EXPECT_EQ(t.run(c, {"XADD", "x", "*", "f", "v"}), bulk(ms + "-1"));
  EXPECT_EQ(t.run(c, {"XADD", "x", ms + "-*", "f", "v"}), bulk(ms + "-2"));
}

TEST_F(StreamCommandsTest, RangesBothWaysWithExclusiveEndsAndCount) {
  t.run(c, {"XADD", "x", "1-1", "f", "v"});
  t.run(c, {"XADD", "x", "1-2", "g", "w"});
  t.run(c, {"XADD", "x", "2-0", "f", "v", "h", "12"});
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "-", "+"}), "*3\r\n" + entry("1-1", {"f", "v"}) +
                                                     entry("1-2", {"g", "w"}) +
                                                     entry("2-0", {"f", "v", "h", "12"}));
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "(1-1", "+", "COUNT", "1"}),
            "*1\r\n" + entry("1-2", {"g", "w"}));
  EXPECT_EQ(t.run(c, {"XREVRANGE", "x", "+", "-", "COUNT", "2"}),
            "*2\r\n" + entry("2-0", {"f", "v", "h", "12"}) + entry("1-2", {"g", "w"}));
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "1", "1"}),
            "*2\r\n" + entry("1-1", {"f", "v"}) + entry("1-2", {"g", "w"}));
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "-", "+", "COUNT", "0"}), "*-1\r\n");
  EXPECT_EQ(t.run(c, {"XRANGE", "nokey", "-", "+", "COUNT", "0"}), "*0\r\n");
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "(" + kMaxId, "+"}),
            error("ERR invalid start ID for the interval"));
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "-", "(0-0"}), error("ERR invalid end ID for the interval"));
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "-", "+", "COUNT"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"XLEN", "x"}), ":3\r\n");
  EXPECT_EQ(t.run(c, {"XLEN", "nokey"}), ":0\r\n");
}

TEST_F(StreamCommandsTest, XdelChecksEveryIdFirstAndKeepsTheEmptyStream) {
  t.run(c, {"XADD", "x", "1-1", "f", "v"});
  t.run(c, {"XADD", "x", "1-2", "f", "v"});
  EXPECT_EQ(t.run(c, {"XDEL", "x", "1-1", "bad"}),
            error("ERR Invalid stream ID specified as stream command argument"));
  EXPECT_EQ(t.run(c, {"XLEN", "x"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"XDEL", "nokey", "bad"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"XDEL", "x", "1-1", "1-2", "9-9"}), ":2\r\n");
  EXPECT_EQ(t.run(c, {"XLEN", "x"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"TYPE", "x"}), "+stream\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "ENCODING", "x"}), bulk("stream"));
  EXPECT_EQ(t.run(c, {"XADD", "x", "1-2", "f", "v"}),
            error("ERR The ID specified in XADD is equal or smaller than the target stream top "
                  "item"));
}

TEST_F(StreamCommandsTest, XtrimGrammarAndTrims) {
  for (int i = 1; i <= 250; ++i) t.run(c, {"XADD", "x", std::to_string(i) + "-0", "f", "v"});
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "MAXLEN", "0", "LIMIT", "10"}),
            error("ERR syntax error, LIMIT cannot be used without the special ~ option"));
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "LIMIT", "10"}),
            error("ERR syntax error, LIMIT cannot be used without specifying a trimming "
                  "strategy"));
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "MAXLEN", "~", "0", "LIMIT", "-1"}),
            error("ERR The LIMIT argument must be >= 0."));
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "FOO", "1"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "MAXLEN", "~", "120"}), ":100\r\n");
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "MAXLEN", "~", "0", "LIMIT", "99"}), ":0\r\n");
  EXPECT_EQ(t.run(c, {"XTRIM", "x", "MINID", "150"}), ":49\r\n");
  EXPECT_EQ(t.run(c, {"XRANGE", "x", "-", "+", "COUNT", "1"}),
            "*1\r\n" + entry("150-0", {"f", "v"}));
  EXPECT_EQ(t.run(c, {"XTRIM", "nokey", "MAXLEN", "0"}), ":0\r\n");
}

TEST_F(StreamCommandsTest, WrongTypeAndKeyspaceCommands) {
  t.run(c, {"SET", "s", "v"});
  EXPECT_EQ(t.run(c, {"XADD", "s", "*", "f", "v"}), error(listd::server::kWrongTypeErr));
  EXPECT_EQ(t.run(c, {"XRANGE", "s", "-", "+"}), error(listd::server::kWrongTypeErr));
  EXPECT_EQ(t.run(c, {"XLEN", "s"}), error(listd::server::kWrongTypeErr));
  t.run(c, {"XADD", "x", "1-1", "f", "v"});
  EXPECT_EQ(t.run(c, {"COPY", "x", "y"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"XADD", "y", "2-1", "g", "w"}), bulk("2-1"));
  EXPECT_EQ(t.run(c, {"XLEN", "x"}), ":1\r\n");
  EXPECT_EQ(t.run(c, {"RENAME", "y", "z"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"XLEN", "z"}), ":2\r\n");
  const std::string scan = t.run(c, {"SCAN", "0", "TYPE", "stream"});
  EXPECT_NE(scan.find(bulk("x")), std::string::npos) << scan;
  EXPECT_NE(scan.find(bulk("z")), std::string::npos) << scan;
  EXPECT_EQ(scan.find(bulk("s")), std::string::npos) << scan;
}

// stream-node-max-entries / -bytes decide where XADD starts a node (radix-tree-keys counts
// the nodes), and a `~` trim's default LIMIT is 100 x the entries option (as redis-server 7.0.15
// answers: 300 single-entry nodes, XTRIM MAXLEN ~ 0 removes 100).
TEST_F(StreamCommandsTest, NodeOptionsSplitNodesAndBoundApproximateTrims) {
  auto nodes = [&] {
    const std::string info = t.run(c, {"XINFO", "STREAM", "s"});
    const std::size_t at = info.find("radix-tree-keys\r\n:") + 18;
    return info.substr(at, info.find('\r', at) - at);
  };
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "stream-node-max-entries"}),
            "*2\r\n" + bulk("stream-node-max-entries") + bulk("100"));
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "stream-node-max-entries", "1"}), "+OK\r\n");
  for (int i = 1; i <= 300; ++i) t.run(c, {"XADD", "s", std::to_string(i) + "-1", "f", "v"});
  EXPECT_EQ(nodes(), "300");
  EXPECT_EQ(t.run(c, {"XTRIM", "s", "MAXLEN", "~", "0"}), ":100\r\n");
  // No entry limit, and a byte limit that a third entry crosses.
  t.run(c, {"DEL", "s"});
  t.run(c, {"CONFIG", "SET", "stream-node-max-entries", "0"});
  EXPECT_EQ(t.run(c, {"CONFIG", "SET", "stream-node-max-bytes", "1kb"}), "+OK\r\n");
  for (int i = 1; i <= 3; ++i)
    t.run(c, {"XADD", "s", std::to_string(i) + "-1", "f", std::string(400, 'x')});
  EXPECT_EQ(nodes(), "2");
  EXPECT_EQ(t.run(c, {"CONFIG", "GET", "stream-node-max-bytes"}),
            "*2\r\n" + bulk("stream-node-max-bytes") + bulk("1024"));
}

}  // namespace
