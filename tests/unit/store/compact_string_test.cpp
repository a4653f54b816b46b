// CompactString: bytes, and the Redis 7.0 form kept in the pointer's low bits (OBJECT ENCODING
// and REFCOUNT depend on the command that made a string, not on its bytes).
#include "listd/store/compact_string.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

using listd::store::CompactString;
using listd::store::StringForm;

namespace {

TEST(CompactString, KeepsBytesAndFormThroughMoves) {
  CompactString s(std::string("a\0b", 3), StringForm::kRaw);
  EXPECT_EQ(s.view(), std::string_view("a\0b", 3));
  EXPECT_EQ(s.form(), StringForm::kRaw);
  CompactString moved(std::move(s));
  EXPECT_EQ(moved.view(), std::string_view("a\0b", 3));
  EXPECT_EQ(moved.form(), StringForm::kRaw);
  CompactString empty("", StringForm::kRaw);  // APPEND "" to "" is a raw empty string in Redis
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.encoding_name(), "raw");
  empty = std::move(moved);
  EXPECT_EQ(empty.size(), 3u);
}

TEST(CompactString, EncodingNameFollowsTheForm) {
  EXPECT_EQ(CompactString("12").encoding_name(), "int");
  EXPECT_EQ(CompactString("-9223372036854775808").encoding_name(), "int");
  EXPECT_EQ(CompactString("007").encoding_name(), "embstr");
  EXPECT_EQ(CompactString("").encoding_name(), "embstr");
  EXPECT_EQ(CompactString(std::string(44, 'x')).encoding_name(), "embstr");
  EXPECT_EQ(CompactString(std::string(45, 'x')).encoding_name(), "raw");
  EXPECT_EQ(CompactString("12", StringForm::kRaw).encoding_name(), "raw");
  EXPECT_EQ(CompactString("3", StringForm::kFormatted).encoding_name(), "embstr");
  EXPECT_EQ(CompactString(std::string(45, '1'), StringForm::kFormatted).encoding_name(), "raw");
  EXPECT_EQ(CompactString("12", StringForm::kUnshared).encoding_name(), "int");
}

TEST(CompactString, OnlyStoredIntegersBelow10000AreShared) {
  EXPECT_TRUE(CompactString("0").shared_integer());
  EXPECT_TRUE(CompactString("9999").shared_integer());
  EXPECT_FALSE(CompactString("10000").shared_integer());
  EXPECT_FALSE(CompactString("-1").shared_integer());
  EXPECT_FALSE(CompactString("5", StringForm::kRaw).shared_integer());
  EXPECT_FALSE(CompactString("5", StringForm::kFormatted).shared_integer());
  const CompactString copy = CompactString("5").clone();  // COPY: dupStringObject unshares
  EXPECT_EQ(copy.form(), StringForm::kUnshared);
  EXPECT_FALSE(copy.shared_integer());
  EXPECT_EQ(CompactString("x", StringForm::kRaw).clone().form(), StringForm::kRaw);
}

TEST(CompactString, EditRawGrowsWithZeroBytesAndBecomesRaw) {
  CompactString s("12", StringForm::kEncoded);
  char* p = s.edit_raw(1);  // no growth: the bytes as they are
  EXPECT_EQ(s.view(), "12");
  p[0] = '3';
  EXPECT_EQ(s.view(), "32");
  EXPECT_EQ(s.form(), StringForm::kRaw);
  p = s.edit_raw(5);
  EXPECT_EQ(s.view(), std::string("32\0\0\0", 5));
  p[4] = 'x';
  EXPECT_EQ(s.view(), std::string("32\0\0x", 5));
  CompactString empty;
  EXPECT_EQ(empty.edit_raw(0), nullptr);
  empty.edit_raw(2);
  EXPECT_EQ(empty.view(), std::string(2, '\0'));
  EXPECT_EQ(empty.encoding_name(), "raw");
}

}  // namespace
