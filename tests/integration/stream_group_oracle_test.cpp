// Consumer groups against Redis' own replies: scripted sequences (explicit ids) of XGROUP,
// XSETID, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and XINFO sent to a real listd and a
// real redis-server 7.0.15 on RESP2 and RESP3, each reply the same bytes. Replies that carry
// times (idle, delivery and seen times) are compared with those numbers masked, and the masked
// numbers are checked as properties (non-negative). Then dump.rdb with groups both ways: the
// same XINFO STREAM FULL (times included: the file carries them) after each load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"
#include "support/stream_reply_masks.h"
#include "support/temp_dir.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;
using Script = std::vector<Args>;

Script entries(const std::string& key, int from, int to) {
  Script s;
  for (int i = from; i <= to; ++i)
    s.push_back({"XADD", key, std::to_string(i) + "-1", "job", "j" + std::to_string(i)});
  return s;
}

Script with(Script base, const Script& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::vector<Script> scripts() {
  return {
      // XGROUP and XSETID: every subcommand, its options and errors in Redis' order.
      {{"XGROUP", "CREATE", "x", "g", "$"},
       {"XGROUP", "CREATE", "x", "g", "$", "MKSTREAM"},
       {"XGROUP", "CREATE", "x", "g", "$", "MKSTREAM"},
       {"XGROUP", "CREATE", "x", "g2", "0", "ENTRIESREAD", "-2"},
       {"XGROUP", "CREATE", "x", "g2", "0", "ENTRIESREAD", "x"},
       {"XGROUP", "CREATE", "x", "g2", "0", "BOGUS"},
       {"XGROUP", "CREATE", "x", "g2", "-"},
       {"XGROUP", "CREATE", "x", "g2", "1-1", "ENTRIESREAD", "3"},
       {"XGROUP", "CREATE", "x", "g3", "0", "MKSTREAM", "MKSTREAM", "MKSTREAM", "MKSTREAM"},
       {"XGROUP", "SETID", "x", "nog", "0"},
       {"XGROUP", "SETID", "x", "g", "+"},
       {"XGROUP", "SETID", "x", "g", "0", "ENTRIESREAD"},
       {"XGROUP", "SETID", "x", "g", "0", "MKSTREAM"},
       {"XGROUP", "SETID", "x", "g", "5", "ENTRIESREAD", "2"},
       {"XGROUP", "SETID", "nokey", "g", "5"},
       {"XGROUP", "CREATECONSUMER", "x", "g", "alice"},
       {"XGROUP", "CREATECONSUMER", "x", "g", "alice"},
       {"XGROUP", "CREATECONSUMER", "x", "nog", "alice"},
       {"XGROUP", "DELCONSUMER", "x", "g", "bob"},
       {"XGROUP", "DELCONSUMER", "x", "g", "alice"},
       {"XGROUP", "DESTROY", "x", "g2"},
       {"XGROUP", "DESTROY", "x", "g2"},
       {"XGROUP", "DESTROY", "nokey", "g2"},
       {"XGROUP", "HELP"},
       {"XGROUP", "NOPE", "x", "g"},
       {"XGROUP", "CREATE", "x"},
       {"SET", "str", "v"},
       {"XGROUP", "CREATE", "str", "g", "$"},
       {"XSETID", "x", "0-1"},
       {"XSETID", "x", "5-5", "ENTRIESADDED", "-1"},
       {"XSETID", "x", "5-5", "MAXDELETEDID", "6-0"},
       {"XSETID", "x", "5-5", "MAXDELETEDID", "+"},
       {"XSETID", "x", "5-5", "ENTRIESADDED"},
       {"XSETID", "nokey", "5-5"},
       {"XSETID", "str", "5-5"},
       {"XSETID", "x", "5-5", "ENTRIESADDED", "9", "MAXDELETEDID", "4-0"},
       {"XADD", "x", "5-5", "f", "v"},
       {"XADD", "x", "6-1", "f", "v"},
       {"XSETID", "x", "6-0"},
       {"XSETID", "x", "7-0", "ENTRIESADDED", "0"},
       {"XSETID", "x", "7-0", "ENTRIESADDED", "1"}},
      // XREADGROUP: `>` delivers each entry once, history replays the consumer's own PEL.
      with(entries("s", 1, 12),
           {{"XGROUP", "CREATE", "s", "g", "0"},
            {"XREADGROUP", "GROUP", "g", "c1", "COUNT", "3", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c2", "COUNT", "2", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0"},
            {"XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "s", "1-1"},
            {"XREADGROUP", "GROUP", "g", "c3", "STREAMS", "s", "0"},
            {"XACK", "s", "g", "1-1", "3-1", "9-9"},
            {"XACK", "s", "g", "2-1", "bad"},
            {"XACK", "s", "nog", "2-1"},
            {"XACK", "nokey", "g", "2-1"},
            {"XDEL", "s", "2-1"},
            {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0"},
            {"XREADGROUP", "GROUP", "g", "c1", "NOACK", "COUNT", "2", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "0"},
            {"XGROUP", "SETID", "s", "g", "0"},
            {"XREADGROUP", "GROUP", "g", "c4", "COUNT", "2", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0"},
            {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c4", "BLOCK", "10", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "s", "$"},
            {"XREADGROUP", "GROUP", "nog", "c4", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "nokey", ">"},
            {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "s"},
            {"XREADGROUP", "COUNT", "1", "STREAMS", "s", ">"},
            {"XREADGROUP", "GROUP", "g", "c4", "STREAMS", "s", "bad"},
            {"XREAD", "GROUP", "g", "c4", "STREAMS", "s", ">"},
            {"XREAD", "NOACK", "STREAMS", "s", "0"},
            {"MULTI"},
            {"XREADGROUP", "GROUP", "g", "c5", "BLOCK", "0", "STREAMS", "s", ">"},
            {"EXEC"},
            // From a script BLOCK is an error, named as the script spelled the command.
            {"EVAL",
             "return redis.pcall('xreadgroup','GROUP','g','c5','BLOCK','0','STREAMS',"
             "'s','>')",
             "0"},
            {"EVAL", "return redis.pcall('XREAD','BLOCK','x','STREAMS','s','0')", "0"},
            {"EVAL", "return redis.pcall('XREAD','COUNT','x','BLOCK','0','STREAMS','s','0')", "0"},
            {"EVAL", "return redis.pcall('XREADGROUP','GROUP','g','c5','STREAMS','s','>')", "0"},
            // Redis prints key and group names with %s in these errors: they stop at a NUL.
            {"XPENDING", std::string("k\0\xff", 3), "g"},
            {"XREADGROUP", "GROUP", std::string("g\0x", 3), "c", "STREAMS", "s", ">"},
            {"XADD", std::string("n\0\xff", 3), "1-1", "f", "v"},
            {"XGROUP", "CREATECONSUMER", std::string("n\0\xff", 3), std::string("g\0x", 3), "c"},
            {"XINFO", "CONSUMERS", std::string("n\0\xff", 3), std::string("g\0x", 3)},
            {"XCLAIM", std::string("n\0\xff", 3), "g", "c", "0", "1-1"}}),
      // XPENDING both forms, XCLAIM and XAUTOCLAIM with their options and errors.
      with(entries("p", 1, 10),
           {{"XGROUP", "CREATE", "p", "g", "0"},
            {"XPENDING", "p", "g"},
            {"XREADGROUP", "GROUP", "g", "alice", "COUNT", "4", "STREAMS", "p", ">"},
            {"XREADGROUP", "GROUP", "g", "bob", "COUNT", "3", "STREAMS", "p", ">"},
            {"XPENDING", "p", "g"},
            {"XPENDING", "p", "g", "-", "+", "10"},
            {"XPENDING", "p", "g", "-", "+", "10", "bob"},
            {"XPENDING", "p", "g", "-", "+", "10", "nobody"},
            {"XPENDING", "p", "g", "(1-1", "(4-1", "2"},
            {"XPENDING", "p", "g", "IDLE", "3600000", "-", "+", "10"},
            {"XPENDING", "p", "g", "IDLE", "0", "-", "+", "10", "alice"},
            {"XPENDING", "p", "g", "-", "+", "-1"},
            {"XPENDING", "p", "g", "-", "+"},
            {"XPENDING", "p", "g", "IDLE", "10", "-", "+"},
            {"XPENDING", "p", "g", "IDLE", "x", "-", "+", "10"},
            {"XPENDING", "p", "g", "-", "+", "x"},
            {"XPENDING", "p", "g", "bad", "+", "10"},
            {"XPENDING", "p", "g", "(", "+", "10"},
            {"XPENDING", "p", "g", "-", "(0-0", "10"},
            {"XPENDING", "p", "nog"},
            {"XPENDING", "nokey", "g", "-", "+", "10"},
            {"XPENDING", "p", "g", "1", "2", "3", "4", "5", "6", "7"},
            {"XCLAIM", "p", "g", "carol", "3600000", "1-1", "2-1"},
            {"XCLAIM", "p", "g", "carol", "0", "1-1", "2", "JUSTID"},
            {"XCLAIM", "p", "g", "carol", "0", "3-1", "RETRYCOUNT", "7"},
            {"XCLAIM", "p", "g", "carol", "0", "9-1", "FORCE", "JUSTID"},
            {"XCLAIM", "p", "g", "carol", "0", "99-1", "FORCE"},
            {"XDEL", "p", "4-1"},
            {"XCLAIM", "p", "g", "carol", "0", "4-1"},
            {"XCLAIM", "p", "g", "carol", "0", "5-1", "LASTID", "20-0", "JUSTID"},
            {"XCLAIM", "p", "g", "carol", "0", "LASTID", "1-1"},
            {"XCLAIM", "p", "g", "carol", "x", "1-1"},
            {"XCLAIM", "p", "g", "carol", "0", "1-1", "IDLE", "x"},
            {"XCLAIM", "p", "g", "carol", "0", "1-1", "TIME", "x"},
            {"XCLAIM", "p", "g", "carol", "0", "1-1", "RETRYCOUNT", "x"},
            {"XCLAIM", "p", "g", "carol", "0", "1-1", "BOGUS"},
            {"XCLAIM", "p", "g", "carol", "0", "1-1", "LASTID", "bad"},
            {"XCLAIM", "p", "nog", "carol", "0", "1-1"},
            {"XCLAIM", "nokey", "g", "carol", "0", "1-1"},
            {"XCLAIM", "p", "g", "dave", "0", "6-1", "IDLE", "5000"},
            {"XCLAIM", "p", "g", "dave", "0", "7-1", "TIME", "1000"},
            {"XPENDING", "p", "g", "-", "+", "10", "dave"},
            {"XPENDING", "p", "g", "IDLE", "4000", "-", "+", "10"},
            {"XPENDING", "p", "g"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "0", "COUNT", "2"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "0", "COUNT", "2", "JUSTID"},
            {"XAUTOCLAIM", "p", "g", "erin", "3600000", "0"},
            {"XDEL", "p", "6-1", "9-1"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "-", "COUNT", "1"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "(1-1"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "0", "COUNT", "0"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "0", "COUNT", "x"},
            {"XAUTOCLAIM", "p", "g", "erin", "x", "0"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "bad"},
            {"XAUTOCLAIM", "p", "g", "erin", "0", "0", "BOGUS"},
            {"XAUTOCLAIM", "p", "nog", "erin", "0", "0"},
            {"XAUTOCLAIM", "nokey", "g", "erin", "0", "0"},
            {"XPENDING", "p", "g"},
            {"XPENDING", "p", "g", "-", "+", "10"}}),
      // XAUTOCLAIM scans at most COUNT * 10 pending entries per call: the cursor says where.
      with(entries("q", 1, 30),
           {{"XGROUP", "CREATE", "q", "g", "0"},
            {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "q", ">"},
            {"XCLAIM", "q", "g", "c2", "0", "25-1", "26-1", "IDLE", "100000", "JUSTID"},
            {"XAUTOCLAIM", "q", "g", "c3", "50000", "0", "COUNT", "1"},
            {"XAUTOCLAIM", "q", "g", "c3", "50000", "11-1", "COUNT", "2", "JUSTID"},
            {"XAUTOCLAIM", "q", "g", "c3", "50000", "27-1", "COUNT", "2"},
            {"XPENDING", "q", "g"}}),
      // XINFO: every form, on a stream of several nodes with groups, tombstones and trims
      // (radix-tree-nodes follows the node keys), and on an empty one.
      {{"XINFO", "STREAM", "nokey"},
       {"XINFO", "HELP"},
       {"XINFO", "NOPE", "x"},
       {"XGROUP", "CREATE", "e", "g", "$", "MKSTREAM"},
       {"XINFO", "STREAM", "e"},
       {"XINFO", "STREAM", "e", "FULL"},
       {"XINFO", "GROUPS", "e"},
       {"XINFO", "CONSUMERS", "e", "g"},
       {"XINFO", "CONSUMERS", "e", "nog"},
       {"XINFO", "STREAM", "e", "FULL", "COUNT"},
       {"XINFO", "STREAM", "e", "FULL", "LIMIT", "1"},
       {"XINFO", "STREAM", "e", "PART"},
       {"XINFO", "STREAM", "e", "FULL", "COUNT", "x"},
       {"SET", "str", "v"},
       {"XINFO", "GROUPS", "str"}},
      with(entries("i", 1, 450),
           {{"XINFO", "STREAM", "i"},
            {"XGROUP", "CREATE", "i", "g1", "0"},
            {"XGROUP", "CREATE", "i", "g2", "$"},
            {"XGROUP", "CREATE", "i", "g3", "200-1", "ENTRIESREAD", "7"},
            {"XREADGROUP", "GROUP", "g1", "a", "COUNT", "3", "STREAMS", "i", ">"},
            {"XREADGROUP", "GROUP", "g1", "b", "COUNT", "2", "STREAMS", "i", ">"},
            {"XINFO", "GROUPS", "i"},
            {"XINFO", "STREAM", "i", "FULL", "COUNT", "2"},
            {"XDEL", "i", "300-1", "2-1"},
            {"XINFO", "GROUPS", "i"},
            {"XTRIM", "i", "MAXLEN", "~", "250"},
            {"XINFO", "STREAM", "i"},
            {"XADD", "i", "100000-1", "f", "v"},
            {"XADD", "i", "4294967296-1", "f", "v"},
            {"XINFO", "STREAM", "i"},
            {"XINFO", "STREAM", "i", "FULL", "COUNT", "0"},
            {"XINFO", "STREAM", "i", "FULL", "COUNT", "-5"},
            {"XINFO", "CONSUMERS", "i", "g1"},
            {"XTRIM", "i", "MAXLEN", "0"},
            {"XINFO", "STREAM", "i"},
            {"XINFO", "GROUPS", "i"}}),
  };
}

TEST(StreamGroupOracle, RepliesMatchRedisByteForByte) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  for (const bool resp3 : {false, true}) {
    RespClient a(listd.port());
    RespClient b(redis.port());
    if (resp3) {
      a.call({"HELLO", "3"});
      b.call({"HELLO", "3"});
    }
    for (const Script& script : scripts()) {
      a.call({"FLUSHALL"});
      b.call({"FLUSHALL"});
      for (const Args& request : script) {
        std::string what;
        for (const std::string& s : request) what += s.substr(0, 40) + " ";
        what = (resp3 ? "RESP3: " : "RESP2: ") + what;
        EXPECT_EQ(mask_stream_times(request, a.call(request), what),
                  mask_stream_times(request, b.call(request), what))
            << what;
      }
    }
  }
}

// Groups with pending entries of several consumers, a consumer without any, a pending entry
// deleted from the stream, a NOACK read and a group with an unknown entries-read.
Script groups_to_save() {
  return with(entries("s", 1, 250),
              {{"XGROUP", "CREATE", "s", "g1", "0"},
               {"XGROUP", "CREATE", "s", "g2", "100-1", "ENTRIESREAD", "100"},
               {"XGROUP", "CREATE", "s", "g3", "0"},
               {"XREADGROUP", "GROUP", "g1", "a", "COUNT", "120", "STREAMS", "s", ">"},
               {"XREADGROUP", "GROUP", "g1", "b", "COUNT", "7", "STREAMS", "s", ">"},
               {"XGROUP", "CREATECONSUMER", "s", "g1", "idle"},
               {"XCLAIM", "s", "g1", "b", "0", "3-1", "5-1", "RETRYCOUNT", "9"},
               {"XACK", "s", "g1", "1-1", "2-1", "50-1"},
               {"XREADGROUP", "GROUP", "g2", "c", "NOACK", "COUNT", "5", "STREAMS", "s", ">"},
               {"XREADGROUP", "GROUP", "g3", "d", "COUNT", "3", "STREAMS", "s", ">"},
               {"XGROUP", "SETID", "s", "g3", "200-1"},
               {"XDEL", "s", "4-1", "240-1"}});
}

std::string full_info(RespClient& c) {
  return c.call({"XINFO", "STREAM", "s", "FULL", "COUNT", "0"}) + c.call({"XINFO", "GROUPS", "s"});
}

TEST(StreamGroupOracle, GroupsSurviveDumpRdbIntoRedisAndBack) {
  TempDir d;
  std::string before;
  {
    ServerProcess listd = ServerProcess::start_listd({"--dir", d.path()});
    RespClient a(listd.port());
    for (const Args& r : groups_to_save()) a.call(r);
    before = full_info(a);
    ASSERT_NE(before.find("pel-count"), std::string::npos);
    ASSERT_EQ(a.call({"SAVE"}), "+OK\r\n");
  }
  {
    ServerProcess redis =
        ServerProcess::start_redis({"--dir", d.path(), "--dbfilename", "dump.rdb"});
    RespClient b(redis.port());
    EXPECT_EQ(full_info(b), before);
    ASSERT_EQ(b.call({"SAVE"}), "+OK\r\n");
  }
  ServerProcess back = ServerProcess::start_listd({"--dir", d.path()});
  RespClient a(back.port());
  EXPECT_EQ(full_info(a), before);
  // The loaded PELs work: the pending entries are claimable and acknowledged once.
  EXPECT_EQ(a.call({"XACK", "s", "g1", "3-1", "3-1"}), ":1\r\n");
}

}  // namespace
}  // namespace listd::testing
