// The argument grammars of command_args.h through the four commands that share the MPOP one
// (LMPOP, BLMPOP, ZMPOP, BZMPOP) and the two that take LEFT|RIGHT (LMOVE, BLMOVE): every case
// answers what Redis 7.0.15 answered for it (captured from a real redis-server), so the order
// of the checks is Redis' (numkeys, WHERE, COUNT, then the timeout of the blocking forms).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/resp.h"
#include "support/test_server.h"

namespace {

using listd::testing::TestServer;
using namespace listd::testing::resp;

const std::string kNumkeys = error("ERR numkeys should be greater than 0");
const std::string kCount = error("ERR count should be greater than 0");
const std::string kSyntax = error("ERR syntax error");
const std::string kTimeoutNotFloat = error("ERR timeout is not a float or out of range");
const std::string kTimeoutNegative = error("ERR timeout is negative");

struct Case {
  std::vector<std::string> args;  ///< after the command name and (blocking forms) the timeout
  std::string expected;
};

// The arguments, with HEAD/TAIL/OTHER standing for the family's words (LEFT/RIGHT/MIN for
// lists, MIN/MAX/LEFT for sorted sets).
const std::vector<Case> kGrammarCases = {
    {{"abc", "k", "HEAD"}, kNumkeys},
    {{"0", "k", "HEAD"}, kNumkeys},
    {{"-1", "k", "HEAD"}, kNumkeys},
    {{"+1", "k", "HEAD"}, kNumkeys},  // Redis' string2ll: no sign, no leading zero, no space
    {{"01", "k", "HEAD"}, kNumkeys},
    {{" 1", "k", "HEAD"}, kNumkeys},
    {{"2", "k", "HEAD"}, kSyntax},  // WHERE would be past the end
    {{"99999999999999", "k", "HEAD"}, kSyntax},
    {{"1", "k", "UP"}, kSyntax},
    {{"1", "k", "OTHER"}, kSyntax},             // the other family's word
    {{"abc", "k", "UP"}, kNumkeys},             // numkeys before WHERE
    {{"1", "k", "UP", "COUNT", "0"}, kSyntax},  // WHERE before COUNT
    {{"1", "k", "HEAD", "COUNT", "0"}, kCount},
    {{"1", "k", "HEAD", "COUNT", "x"}, kCount},
    {{"1", "k", "HEAD", "COUNT", "-5"}, kCount},
    {{"1", "k", "HEAD", "COUNT"}, kSyntax},
    {{"1", "k", "HEAD", "COUNT", "1", "COUNT", "2"}, kSyntax},
    {{"1", "k", "HEAD", "FOO"}, kSyntax},
    {{"1", "k", "HEAD", "COUNT", "1", "FOO"}, kSyntax},
};

struct Family {
  const char* command;
  bool blocking;
  const char* head;
  const char* tail;
  const char* other;
};

class MpopGrammar : public ::testing::TestWithParam<Family> {
 protected:
  std::string run(const std::string& timeout, const std::vector<std::string>& args) {
    const Family& f = GetParam();
    std::vector<std::string> argv = {f.command};
    if (f.blocking) argv.push_back(timeout);
    for (const std::string& a : args) {
      if (a == "HEAD")
        argv.emplace_back(f.head);
      else if (a == "TAIL")
        argv.emplace_back(f.tail);
      else if (a == "OTHER")
        argv.emplace_back(f.other);
      else
        argv.push_back(a);
    }
    return t.run_strings(c, argv);
  }

  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_P(MpopGrammar, ErrorsComeInRedisOrder) {
  for (const Case& k : kGrammarCases) {
    std::string shown;
    for (const std::string& a : k.args) shown += a + " ";
    EXPECT_EQ(run("0", k.args), k.expected) << GetParam().command << " " << shown;
  }
}

TEST_P(MpopGrammar, WordsAreCaseInsensitiveAndAbsentKeysAnswerNil) {
  // Served at once or, for the blocking forms, inside MULTI (which never blocks).
  if (GetParam().blocking) t.run(c, {"MULTI"});
  const std::string queued = GetParam().blocking ? "+QUEUED\r\n" : "*-1\r\n";
  const std::string lower_head = [&] {
    std::string s = GetParam().head;
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  }();
  EXPECT_EQ(run("0", {"1", "k", lower_head, "count", "2"}), queued);
  EXPECT_EQ(run("0", {"2", "k", "k2", "TAIL"}), queued);
  if (GetParam().blocking) {
    EXPECT_EQ(t.run(c, {"EXEC"}), "*2\r\n*-1\r\n*-1\r\n");
  }
}

TEST(MpopTimeout, TheBlockingFormsCheckTheTimeoutLast) {
  for (const auto& [command, head] : {std::pair{"BLMPOP", "LEFT"}, std::pair{"BZMPOP", "MIN"}}) {
    TestServer t;
    auto& c = t.client();
    EXPECT_EQ(t.run(c, {command, "x", "1", "k", head}), kTimeoutNotFloat) << command;
    EXPECT_EQ(t.run(c, {command, "x", "1", "k", head, "COUNT", "0"}), kCount) << command;
    EXPECT_EQ(t.run(c, {command, "-1", "1", "k", head}), kTimeoutNegative) << command;
    EXPECT_EQ(t.run(c, {command, "x", "0", "k", head}), kNumkeys) << command;
  }
}

TEST_P(MpopGrammar, PopsFromTheFirstNonEmptyKeyAtTheChosenEnd) {
  const Family& f = GetParam();
  const bool list = std::string(f.head) == "LEFT";
  if (list)
    t.run(c, {"RPUSH", "k2", "a", "b", "c"});
  else
    t.run(c, {"ZADD", "k2", "1", "a", "2", "b", "3", "c"});
  const std::string got = run("0", {"2", "k", "k2", "TAIL", "COUNT", "2"});
  if (list)
    EXPECT_EQ(got, "*2\r\n" + bulk("k2") + array({"c", "b"}));
  else
    EXPECT_EQ(got, "*2\r\n" + bulk("k2") + "*2\r\n*2\r\n" + bulk("c") + bulk("3") + "*2\r\n" +
                       bulk("b") + bulk("2"));
}

INSTANTIATE_TEST_SUITE_P(AllFour, MpopGrammar,
                         ::testing::Values(Family{"LMPOP", false, "LEFT", "RIGHT", "MIN"},
                                           Family{"BLMPOP", true, "LEFT", "RIGHT", "MIN"},
                                           Family{"ZMPOP", false, "MIN", "MAX", "LEFT"},
                                           Family{"BZMPOP", true, "MIN", "MAX", "LEFT"}),
                         [](const auto& info) { return std::string(info.param.command); });

TEST(ParseEnd, LmoveAndBlmoveTakeLeftOrRightInAnyCase) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"RPUSH", "s", "a", "b"});
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "d", "up", "LEFT"}), kSyntax);
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "d", "LEFT", "down"}), kSyntax);
  EXPECT_EQ(t.run(c, {"BLMOVE", "s", "d", "up", "LEFT", "x"}), kSyntax);  // before the timeout
  EXPECT_EQ(t.run(c, {"LMOVE", "s", "d", "Left", "rIGHT"}), bulk("a"));
  EXPECT_EQ(t.run(c, {"BLMOVE", "s", "d", "right", "left", "0"}), bulk("b"));
  EXPECT_EQ(t.run(c, {"LRANGE", "d", "0", "-1"}), array({"b", "a"}));
}

}  // namespace
