// Streams against Redis' own replies: scripted command sequences (explicit ids, so every byte
// can match) sent to a real listd and a real redis-server 7.0.15 on RESP2 and RESP3; each
// reply must be the same bytes. Then dump.rdb both ways: listd's file loads into redis-server
// and Redis' file into listd, with the same entries and counters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace listd::testing {
namespace {

using Args = std::vector<std::string>;
using Script = std::vector<Args>;

Args xadd(const std::string& key, const std::string& id, std::vector<std::string> fv) {
  Args a{"XADD", key, id};
  a.insert(a.end(), fv.begin(), fv.end());
  return a;
}

// A stream of `n` entries n-0.. with a field set that changes every 7th entry (so nodes hold
// both compressed and full entries) and values that are sometimes integers.
Script filled(const std::string& key, int n) {
  Script s;
  for (int i = 1; i <= n; ++i) {
    if (i % 7 == 0)
      s.push_back(xadd(key, std::to_string(i) + "-0", {"other", std::to_string(i * 1000)}));
    else
      s.push_back(xadd(key, std::to_string(i) + "-" + std::to_string(i % 3),
                       {"job", "j" + std::to_string(i), "state", std::to_string(i - 50)}));
  }
  return s;
}

Script with(Script base, const Script& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::vector<Script> scripts() {
  return {
      {xadd("x", "1-1", {"f", "v"}),
       xadd("x", "1-1", {"f", "v"}),
       xadd("x", "0-0", {"f", "v"}),
       xadd("x", "1-*", {"g", "w"}),
       xadd("x", "5", {"a", "b", "c"}),
       xadd("x", "18446744073709551615-18446744073709551615", {"f", "v"}),
       xadd("x", "*", {"f", "v"}),
       xadd("x", "-", {"f", "v"}),
       {"XADD", "y", "NOMKSTREAM", "1-1", "f", "v"},
       {"XRANGE", "x", "-", "+"},
       {"XRANGE", "x", "(1-1", "+", "COUNT", "1"},
       {"XREVRANGE", "x", "+", "(1-1"},
       {"XRANGE", "x", "- ", "+"},
       {"XRANGE", "x", "1-01", "+"},
       {"XRANGE", "x", " 1", "+"},
       {"XRANGE", "x", "-", "+", "COUNT", "-3"},
       {"XRANGE", "x", "-", "+", "LIMIT", "1"},
       {"TYPE", "x"},
       {"OBJECT", "ENCODING", "x"},
       {"XLEN", "x"}},
      with(filled("s", 333), {{"XRANGE", "s", "100", "130"},
                              {"XREVRANGE", "s", "+", "-", "COUNT", "17"},
                              {"XDEL", "s", "1-1", "7-0", "7-0", "300-0", "301-1"},
                              {"XRANGE", "s", "-", "12"},
                              {"XTRIM", "s", "MAXLEN", "~", "200"},
                              {"XRANGE", "s", "-", "+", "COUNT", "3"},
                              {"XTRIM", "s", "MINID", "~", "250"},
                              {"XTRIM", "s", "MINID", "250", "LIMIT", "5"},
                              {"XTRIM", "s", "MINID", "~", "250", "LIMIT", "5"},
                              {"XTRIM", "s", "MINID", "=", "260-2"},
                              {"XRANGE", "s", "-", "+", "COUNT", "3"},
                              {"XTRIM", "s", "MAXLEN", "50"},
                              {"XLEN", "s"},
                              {"XADD", "s", "MAXLEN", "~", "10", "400-1", "job", "x", "state", "y"},
                              {"XADD", "s", "MINID", "380", "401-1", "job", "x", "state", "y"},
                              {"XLEN", "s"},
                              {"XREVRANGE", "s", "+", "-", "COUNT", "2"},
                              {"XTRIM", "s", "MAXLEN", "0"},
                              {"XRANGE", "s", "-", "+"},
                              {"XADD", "s", "401-1", "f", "v"}}),
      {xadd("big", "1-1", {"f", std::string(3000, 'a')}),
       xadd("big", "1-2", {"f", std::string(3000, 'b')}),
       xadd("big", "1-3", {"f", std::string(5000, 'c')}),
       xadd("big", "1-4", {"f", "small"}),
       {"XTRIM", "big", "MAXLEN", "~", "1"},
       {"XRANGE", "big", "1-3", "+"},
       {"XLEN", "big"}},
  };
}

TEST(StreamOracle, RepliesMatchRedisByteForByte) {
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
        const std::string mine = a.call(request);
        const std::string theirs = b.call(request);
        // `*` makes a time-based id: compared by shape only.
        if (request.size() > 2 && request[0] == "XADD" && request[2] == "*") continue;
        EXPECT_EQ(mine, theirs) << (resp3 ? "RESP3: " : "RESP2: ") << what;
      }
    }
  }
}

// Every entry and the stream's counters as one string (XRANGE, XLEN; XINFO comes later).
std::string stream_state(RespClient& c, const std::string& key) {
  return c.call({"XRANGE", key, "-", "+"}) + c.call({"XLEN", key}) + c.call({"TYPE", key});
}

TEST(StreamOracle, DumpRdbLoadsIntoRedisAndBack) {
  TempDir d;
  std::string before;
  {
    ServerProcess listd = ServerProcess::start_listd({"--dir", d.path()});
    RespClient a(listd.port());
    for (const Args& r : filled("s", 333)) a.call(r);
    a.call({"XDEL", "s", "5-2", "200-2"});
    a.call({"XTRIM", "s", "MINID", "120"});
    a.call({"XADD", "empty", "9-9", "f", "v"});
    a.call({"XDEL", "empty", "9-9"});
    before = stream_state(a, "s") + stream_state(a, "empty");
    ASSERT_EQ(a.call({"SAVE"}), "+OK\r\n");
  }
  {
    ServerProcess redis =
        ServerProcess::start_redis({"--dir", d.path(), "--dbfilename", "dump.rdb"});
    RespClient b(redis.port());
    EXPECT_EQ(stream_state(b, "s") + stream_state(b, "empty"), before);
    // The counters came through: the next id must still be above the deleted top.
    EXPECT_EQ(b.call({"XADD", "empty", "9-9", "f", "v"}),
              "-ERR The ID specified in XADD is equal or smaller than the target stream top "
              "item\r\n");
    ASSERT_EQ(b.call({"SAVE"}), "+OK\r\n");
  }
  ServerProcess back = ServerProcess::start_listd({"--dir", d.path()});
  RespClient a(back.port());
  EXPECT_EQ(stream_state(a, "s") + stream_state(a, "empty"), before);
  EXPECT_EQ(a.call({"XADD", "s", "333-0", "f", "v"}),
            "-ERR The ID specified in XADD is equal or smaller than the target stream top "
            "item\r\n");
  EXPECT_EQ(a.call({"XADD", "s", "334-0", "f", "v"}), "$5\r\n334-0\r\n");
}

}  // namespace
}  // namespace listd::testing
