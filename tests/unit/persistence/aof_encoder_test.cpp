#include "listd/persistence/aof_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using listd::persistence::AofEncoder;
using listd::persistence::append_resp_command;

namespace {

std::string enc(std::vector<std::string_view> argv) {
  std::string out;
  append_resp_command(out, argv);
  return out;
}

}  // namespace

TEST(AofEncoder, CommandIsArrayOfBulkStrings) {
  EXPECT_EQ(enc({"LPUSH", "q", "hello"}), "*3\r\n$5\r\nLPUSH\r\n$1\r\nq\r\n$5\r\nhello\r\n");
}

TEST(AofEncoder, EmptyAndBinaryArgumentsAreLengthPrefixed) {
  using namespace std::string_view_literals;
  EXPECT_EQ(enc({"SET", "k", ""}), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
  EXPECT_EQ(enc({"RPUSH", "k", "a\r\n\0b"sv}),
            "*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$5\r\na\r\n\0b\r\n"sv);
}

TEST(AofEncoder, SelectBeforeFirstCommandAndOnEveryDatabaseChange) {
  AofEncoder e;
  const std::string_view a[] = {"LPUSH", "q", "x"};
  e.append(0, a);
  e.append(0, a);
  e.append(2, a);
  e.append(0, a);
  const std::string cmd = "*3\r\n$5\r\nLPUSH\r\n$1\r\nq\r\n$1\r\nx\r\n";
  const std::string sel0 = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";
  const std::string sel2 = "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n";
  EXPECT_EQ(e.buffer(), sel0 + cmd + cmd + sel2 + cmd + sel0 + cmd);
}

TEST(AofEncoder, ClearKeepsTheSelectedDatabaseResetForgetsIt) {
  AofEncoder e;
  const std::string_view a[] = {"DEL", "k"};
  e.append(3, a);
  e.clear();
  EXPECT_TRUE(e.empty());
  e.append(3, a);
  EXPECT_EQ(e.buffer(), "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
  e.clear();
  e.reset_selected_db();
  e.append(3, a);
  EXPECT_EQ(e.buffer(), "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
}

TEST(AofEncoder, LongArgumentLengths) {
  const std::string big(100000, 'x');
  const std::string out = enc({"SET", "k", big});
  EXPECT_EQ(out, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + big + "\r\n");
}

TEST(AofEncoder, TimestampAnnotationIsARedisCommentLine) {
  AofEncoder e;
  e.annotate_timestamp(1764500000);
  const std::string_view a[] = {"LPUSH", "q", "x"};
  e.append(0, a);
  EXPECT_EQ(e.buffer(),
            "#TS:1764500000\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + enc({"LPUSH", "q", "x"}));
}
