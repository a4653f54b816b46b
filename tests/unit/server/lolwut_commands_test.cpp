// LOLWUT through the executor: Redis 7.0's VERSION handling and argument errors, the default
// reply byte for byte ("Redis ver. 7.0.15\n"), and listd's own art for versions 5 and 6:
// deterministic, shaped by the arguments, clamped to Redis' limits, captioned with the version.
#include <gtest/gtest.h>

#include <string>

#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

/// The text of a RESP2 bulk reply.
std::string text_of(const std::string& reply) {
  const std::size_t eol = reply.find("\r\n");
  return reply.substr(eol + 2, std::stoul(reply.substr(1, eol - 1)));
}

std::size_t lines_of(const std::string& art) {
  std::size_t n = 0;
  for (char ch : art) n += ch == '\n';
  return n;
}

TEST(LolwutTest, TheDefaultAndOtherVersionsPrintTheVersionAsRedis70) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(t.run(c, {"LOLWUT"}), bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(t.run(c, {"LOLWUT", "10", "20"}), bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(t.run(c, {"LOLWUT", "VERSION"}), bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(t.run(c, {"LOLWUT", "version", "7", "x"}), bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(t.run(c, {"LOLWUT", "VERSION", "x"}),
            error("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"LOLWUT", "VERSION", "5", "x"}),
            error("ERR value is not an integer or out of range"));
  EXPECT_EQ(t.run(c, {"LOLWUT", "VERSION", "6", "10", "1.5"}),
            error("ERR value is not an integer or out of range"));
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"LOLWUT"}), "=22\r\ntxt:Redis ver. 7.0.15\n\r\n");
}

TEST(LolwutTest, VersionsFiveAndSixDrawTheirOwnArt) {
  TestServer t;
  auto& c = t.client();
  const std::string squares = text_of(t.run(c, {"LOLWUT", "VERSION", "5", "40", "4", "3"}));
  EXPECT_EQ(squares, text_of(t.run(c, {"LOLWUT", "VERSION", "5", "40", "4", "3"})))
      << "the same arguments draw the same art";
  EXPECT_NE(squares.find('|'), std::string::npos);
  EXPECT_EQ(squares.substr(squares.size() - 18), "Redis ver. 7.0.15\n");
  EXPECT_EQ(squares.find('\n'), 40u) << "40 columns";
  // 40 / 4 = 10-column squares, 5 lines each, 3 of them down.
  EXPECT_EQ(lines_of(squares), 15u + 2);
  // Out-of-range arguments are clamped (Redis' limits), and 2^32 + 5 is version 5, as "%u".
  const std::string wide = text_of(t.run(c, {"LOLWUT", "VERSION", "4294967301", "5000", "0"}));
  EXPECT_EQ(wide.find('\n'), 1000u);
  const std::string city = text_of(t.run(c, {"LOLWUT", "VERSION", "6", "30", "8"}));
  EXPECT_EQ(city.find('\n'), 30u);
  EXPECT_EQ(lines_of(city), 8u + 2);
  EXPECT_EQ(city.substr(city.size() - 18), "Redis ver. 7.0.15\n");
  EXPECT_EQ(lines_of(text_of(t.run(c, {"LOLWUT", "VERSION", "6", "0", "-4"}))), 1u + 2);
}

}  // namespace
