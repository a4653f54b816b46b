#include "listd/server/replication_backlog.h"

#include <gtest/gtest.h>

namespace listd::server {
namespace {

std::string tail(const ReplicationBacklog& b, long long from) {
  std::string out;
  b.copy_from(from, out);
  return out;
}

TEST(ReplicationBacklog, StartsEmptyAfterTheGivenOffset) {
  ReplicationBacklog b(16, 100);
  EXPECT_EQ(b.histlen(), 0u);
  EXPECT_EQ(b.first_byte_offset(), 101);
  EXPECT_TRUE(b.contains(101));  // the next byte: a replica that has everything
  EXPECT_FALSE(b.contains(100));
  EXPECT_FALSE(b.contains(102));
  EXPECT_EQ(tail(b, 101), "");
}

TEST(ReplicationBacklog, KeepsTheBytesWithTheirOffsets) {
  ReplicationBacklog b(16, 0);
  b.append("abc");
  b.append("def");
  EXPECT_EQ(b.end_offset(), 6);
  EXPECT_EQ(b.first_byte_offset(), 1);
  EXPECT_EQ(tail(b, 1), "abcdef");
  EXPECT_EQ(tail(b, 4), "def");
  EXPECT_EQ(tail(b, 7), "");
}

TEST(ReplicationBacklog, ForgetsTheOldestBytesWhenItWrapsAround) {
  ReplicationBacklog b(8, 0);
  b.append("abcdef");
  b.append("ghij");
  EXPECT_EQ(b.histlen(), 8u);
  EXPECT_EQ(b.first_byte_offset(), 3);
  EXPECT_FALSE(b.contains(2));
  EXPECT_EQ(tail(b, 3), "cdefghij");
  EXPECT_EQ(tail(b, 6), "fghij");
  b.append("k");
  EXPECT_EQ(tail(b, 4), "defghijk");
}

TEST(ReplicationBacklog, AWriteLargerThanTheCapacityKeepsItsEnd) {
  ReplicationBacklog b(4, 10);
  b.append("0123456789");
  EXPECT_EQ(b.end_offset(), 20);
  EXPECT_EQ(b.first_byte_offset(), 17);
  EXPECT_EQ(tail(b, 17), "6789");
}

TEST(ReplicationBacklog, ResizeKeepsTheNewestBytes) {
  ReplicationBacklog b(8, 0);
  b.append("abcdefghij");  // holds cdefghij
  b.resize(4);
  EXPECT_EQ(b.first_byte_offset(), 7);
  EXPECT_EQ(tail(b, 7), "ghij");
  b.resize(16);
  b.append("kl");
  EXPECT_EQ(tail(b, 7), "ghijkl");
  EXPECT_EQ(b.capacity(), 16u);
}

}  // namespace
}  // namespace listd::server
