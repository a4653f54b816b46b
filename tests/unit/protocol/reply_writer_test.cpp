#include "listd/protocol/reply_writer.h"

#include <gtest/gtest.h>

using namespace listd::protocol;

namespace {

std::string encode(RespVersion v, void (*f)(ReplyWriter&)) {
  std::string out;
  ReplyWriter w(out, v);
  f(w);
  return out;
}

TEST(ReplyWriter, NullsDependOnTheProtocol) {
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.null(); }), "$-1\r\n");
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.null_array(); }), "*-1\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.null(); }), "_\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.null_array(); }), "_\r\n");
}

TEST(ReplyWriter, AggregatesDowngradeInResp2) {
  auto map = [](ReplyWriter& w) {
    w.map_header(1);
    w.bulk("k");
    w.integer(-5);
  };
  EXPECT_EQ(encode(RespVersion::kResp2, map), "*2\r\n$1\r\nk\r\n:-5\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, map), "%1\r\n$1\r\nk\r\n:-5\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.set_header(2); }), "~2\r\n");
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.set_header(2); }), "*2\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.push_header(3); }), ">3\r\n");
}

TEST(ReplyWriter, DoublesAndVerbatim) {
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.double_value(1.1); }),
            "$18\r\n1.1000000000000001\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.double_value(3); }), ",3\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.double_value(1.0 / 0.0); }),
            ",inf\r\n");
  EXPECT_EQ(encode(RespVersion::kResp3, [](ReplyWriter& w) { w.verbatim("a:1"); }),
            "=7\r\ntxt:a:1\r\n");
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.verbatim("a:1"); }),
            "$3\r\na:1\r\n");
}

TEST(ReplyWriter, ErrorsStayOnOneLineAndBulksAreBinarySafe) {
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.error("ERR a\r\nb"); }),
            "-ERR a  b\r\n");
  EXPECT_EQ(
      encode(RespVersion::kResp2, [](ReplyWriter& w) { w.bulk(std::string_view("\0\r\n", 3)); }),
      std::string("$3\r\n\0\r\n\r\n", 9));
  EXPECT_EQ(
      encode(RespVersion::kResp2, [](ReplyWriter& w) { w.integer(-9223372036854775807LL - 1); }),
      ":-9223372036854775808\r\n");
}

// Short bulks are assembled on the stack with their header, long ones appended in parts: both
// sides of the boundary, and an output buffer that already holds bytes, encode the same way.
TEST(ReplyWriter, BulksOfEverySizeAroundTheInlineBoundary) {
  for (std::size_t n : {0u, 1u, 9u, 10u, 127u, 128u, 129u, 1000u, 100000u}) {
    const std::string payload(n, 'x');
    std::string out = "prefix";
    ReplyWriter w(out, RespVersion::kResp2);
    w.bulk(payload);
    w.bulk(payload);
    const std::string one = "$" + std::to_string(n) + "\r\n" + payload + "\r\n";
    EXPECT_EQ(out, "prefix" + one + one) << n;
  }
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.bulk(std::string_view()); }),
            "$0\r\n\r\n");  // a null data() pointer: UBSan checks the copy is skipped
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.array_header(1234567); }),
            "*1234567\r\n");
  EXPECT_EQ(encode(RespVersion::kResp2, [](ReplyWriter& w) { w.integer(9223372036854775807LL); }),
            ":9223372036854775807\r\n");
}

}  // namespace
