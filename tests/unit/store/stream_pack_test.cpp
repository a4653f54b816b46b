#include "listd/store/stream_pack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/store/listpack.h"

namespace listd::store {
namespace {

// The same appends to a Listpack and a StreamPack.
struct Both {
  Listpack lp;
  StreamPack sp;
  void integer(std::int64_t v) {
    lp.append_int(v);
    sp.append_int(v);
  }
  void string(std::string_view s) {
    lp.append_string(s);
    sp.append_string(s);
  }
};

std::vector<std::string> texts(const StreamPack& sp) {
  std::vector<std::string> out;
  char buf[24];
  for (auto p = sp.first(); p != StreamPack::kNone; p = sp.next(p))
    out.emplace_back(sp.at(p).text(buf));
  return out;
}

void fill(Both& b) {
  const std::vector<std::int64_t> ints = {0,       127,     128,       -1,       -4096,
                                          4095,    4096,    -32768,    32767,    -8388608,
                                          8388607, 1 << 30, INT64_MAX, INT64_MIN};
  for (const std::int64_t v : ints) b.integer(v);
  b.string("");
  b.string("job");
  b.string("12345");  // stored as an integer, as lpAppend does
  b.string(std::string(63, 'a'));
  b.string(std::string(64, 'b'));
  b.string(std::string(4095, 'c'));
  b.string(std::string(4096, 'd'));
  b.string(std::string(20000, 'e'));
}

TEST(StreamPack, EmptyCountsRedisHeaderAndTerminator) {
  StreamPack sp;
  EXPECT_EQ(sp.bytes(), 7u);
  EXPECT_EQ(sp.first(), StreamPack::kNone);
  EXPECT_EQ(sp.to_listpack(), Listpack().raw());
}

TEST(StreamPack, IsRedisListpackByteForByteWithoutTheBackLengths) {
  Both b;
  fill(b);
  EXPECT_EQ(b.sp.to_listpack(), b.lp.raw());
  EXPECT_EQ(b.sp.bytes(), b.lp.bytes());
  EXPECT_EQ(b.sp.count(), b.lp.count());
  std::vector<std::string> want;
  char buf[24];
  for (auto p = b.lp.first(); p != Listpack::kNone; p = b.lp.next(p))
    want.emplace_back(b.lp.at(p).text(buf));
  EXPECT_EQ(texts(b.sp), want);
}

TEST(StreamPack, ReplaceIntKeepsRedisSizeAndMovesTheLastEntryMark) {
  Both b;
  b.integer(5);
  b.integer(7);
  b.sp.mark_last_entry();
  const std::size_t mark = b.sp.last_entry();
  b.integer(9);
  b.string("tail");
  // 5 -> 100000 widens the first element from 1 to 4 bytes: what follows moves by 3.
  const std::size_t first_lp = b.lp.first();
  b.lp.replace_int(first_lp, 100000);
  b.sp.replace_int(b.sp.first(), 100000);
  EXPECT_EQ(b.sp.to_listpack(), b.lp.raw());
  EXPECT_EQ(b.sp.bytes(), b.lp.bytes());
  EXPECT_EQ(b.sp.last_entry(), mark + 3);
  EXPECT_EQ(b.sp.int_at(b.sp.last_entry()), 9);
  // Narrowing it back, and a change after the mark, which stays where it is.
  b.lp.replace_int(first_lp, 1);
  b.sp.replace_int(b.sp.first(), 1);
  EXPECT_EQ(b.sp.last_entry(), mark);
  b.lp.replace_int(b.lp.next(b.lp.next(b.lp.first())), -70000);
  b.sp.replace_int(mark, -70000);
  EXPECT_EQ(b.sp.last_entry(), mark);
  EXPECT_EQ(b.sp.to_listpack(), b.lp.raw());
  EXPECT_EQ(b.sp.bytes(), b.lp.bytes());
}

TEST(StreamPack, FromListpackRoundTripsTheBytesAndTheHeaderAsLoaded) {
  Both b;
  fill(b);
  const StreamPack sp = StreamPack::from_listpack(b.lp);
  EXPECT_EQ(sp.to_listpack(), b.lp.raw());
  EXPECT_EQ(texts(sp), texts(b.sp));
  EXPECT_LT(sp.memory_usage(), b.lp.bytes());  // the back-lengths are not kept
}

}  // namespace
}  // namespace listd::store
