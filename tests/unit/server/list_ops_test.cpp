// list_move, the one coding of Redis' LMOVE rule (LMOVE, RPOPLPUSH, BLMOVE, BRPOPLPUSH and a
// served BLMOVE waiter), and list_push, the one door through which lists are created: rotation
// keeps the key, a move deletes an emptied source and creates an absent destination (waking its
// waiters), and a created list's access time is the command's time.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "listd/server/key_access.h"
#include "listd/server/list_ops.h"
#include "support/resp.h"
#include "support/test_server.h"

namespace {

using listd::server::End;
using listd::testing::TestServer;
using namespace listd::testing::resp;

class ListOpsTest : public ::testing::Test {
 protected:
  listd::store::Database& db() { return t.exec().keyspace().db(0); }
  listd::store::Entry* entry(std::string_view key) { return db().peek(key); }
  std::string range(std::string_view key) { return t.run(c, {"LRANGE", key, "0", "-1"}); }
  std::string move(std::string_view src, std::string_view dst, End from, End to) {
    std::string out;  // the bulk reply list_move writes, decoded back to the element
    listd::protocol::ReplyWriter w(out, listd::protocol::RespVersion::kResp2);
    listd::server::list_move(w, t.exec(), db(), entry(src), dst, entry(dst), from, to);
    const std::size_t eol = out.find("\r\n");
    return out.substr(eol + 2, out.size() - eol - 4);
  }

  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(ListOpsTest, RotatingAOneElementListKeepsTheKeyAndItsTtl) {
  t.run(c, {"RPUSH", "k", "a"});
  t.run(c, {"PEXPIRE", "k", "100000"});
  listd::store::Entry* before = entry("k");
  EXPECT_EQ(move("k", "k", End::kHead, End::kTail), "a");
  EXPECT_EQ(entry("k"), before);  // never deleted in between
  EXPECT_EQ(range("k"), array({"a"}));
  EXPECT_EQ(t.run(c, {"PTTL", "k"}), ":100000\r\n");
}

TEST_F(ListOpsTest, RotationMovesTheElementToTheOtherEnd) {
  t.run(c, {"RPUSH", "k", "a", "b", "c"});
  EXPECT_EQ(move("k", "k", End::kTail, End::kHead), "c");
  EXPECT_EQ(range("k"), array({"c", "a", "b"}));
  EXPECT_EQ(move("k", "k", End::kHead, End::kTail), "c");
  EXPECT_EQ(range("k"), array({"a", "b", "c"}));
  EXPECT_EQ(move("k", "k", End::kHead, End::kHead), "a");
  EXPECT_EQ(range("k"), array({"a", "b", "c"}));
}

TEST_F(ListOpsTest, MovingTheLastElementDeletesTheSourceAndCreatesTheDestination) {
  t.run(c, {"RPUSH", "s", "x"});
  EXPECT_EQ(move("s", "d", End::kHead, End::kTail), "x");
  EXPECT_EQ(entry("s"), nullptr);
  EXPECT_EQ(range("d"), array({"x"}));
}

TEST_F(ListOpsTest, MovingOntoAnExistingListPushesAtTheChosenEnd) {
  t.run(c, {"RPUSH", "s", "1", "2"});
  t.run(c, {"RPUSH", "d", "a"});
  EXPECT_EQ(move("s", "d", End::kTail, End::kHead), "2");
  EXPECT_EQ(move("s", "d", End::kHead, End::kTail), "1");
  EXPECT_EQ(entry("s"), nullptr);
  EXPECT_EQ(range("d"), array({"2", "a", "1"}));
}

TEST_F(ListOpsTest, CreatingTheDestinationWakesItsWaiters) {
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BLPOP", "d", "0"}), "");
  t.run(c, {"RPUSH", "s", "x"});
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "d", "LEFT", "RIGHT"}), bulk("x"));
  EXPECT_EQ(t.take_output(w), array({"d", "x"}));
}

TEST_F(ListOpsTest, ACreatedListsAccessTimeIsTheCommandsTime) {
  const auto now_s = [&] { return listd::server::lru_clock(t.clock().unix_ms()); };
  t.run(c, {"RPUSH", "a", "x", "y"});
  EXPECT_EQ(entry("a")->lru, now_s());
  t.advance_ms(5000);
  t.run(c, {"LMOVE", "a", "b", "LEFT", "LEFT"});
  EXPECT_EQ(entry("b")->lru, now_s());
  // A served BLMOVE creates its destination at the time of the command that served it.
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"}), "");
  t.advance_ms(7000);
  t.run(c, {"RPUSH", "src", "v"});
  EXPECT_EQ(t.take_output(w), bulk("v"));
  EXPECT_EQ(entry("dst")->lru, now_s());
}

TEST_F(ListOpsTest, LmoveAndRpoplpushRotateLikeTheServedWaiter) {
  t.run(c, {"RPUSH", "k", "a", "b"});
  EXPECT_EQ(t.run(c, {"RPOPLPUSH", "k", "k"}), bulk("b"));
  EXPECT_EQ(t.run(c, {"LMOVE", "k", "k", "LEFT", "RIGHT"}), bulk("b"));
  EXPECT_EQ(t.run(c, {"BLMOVE", "k", "k", "RIGHT", "LEFT", "0"}), bulk("b"));
  EXPECT_EQ(t.run(c, {"BRPOPLPUSH", "k", "k", "0"}), bulk("a"));
  EXPECT_EQ(range("k"), array({"a", "b"}));
  // A served waiter moving onto its own source: the element pushed is popped and pushed back.
  auto& w = t.client();
  EXPECT_EQ(t.run(w, {"BLMOVE", "e", "e", "LEFT", "RIGHT", "0"}), "");
  t.run(c, {"RPUSH", "e", "only"});
  EXPECT_EQ(t.take_output(w), bulk("only"));
  EXPECT_EQ(range("e"), array({"only"}));
}

}  // namespace
