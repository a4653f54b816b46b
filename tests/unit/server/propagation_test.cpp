// What the executor writes to the AOF: effects, not requests (propagation.h), and loading it
// back through the command table (Persistence::load_at_startup).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "listd/persistence/aof_loader.h"
#include "listd/server/persistence.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using Cmds = std::vector<std::vector<std::string>>;

namespace {

using listd::testing::TempDir;

// A TestServer logging to an AOF in `dir` (appendonly yes, fsync no: tests need no disk sync).
void enable_aof(TestServer& t, const std::string& dir) {
  ASSERT_FALSE(t.config().apply_directive(std::vector<std::string>{"dir", dir}));
  ASSERT_FALSE(t.config().apply_directive(std::vector<std::string>{"appendonly", "yes"}));
  ASSERT_FALSE(t.config().apply_directive(std::vector<std::string>{"appendfsync", "no"}));
  t.exec().persistence().set_logger([](listd::config::LogLevel, std::string_view) {});
  std::string err;
  ASSERT_TRUE(t.exec().persistence().load_at_startup(err)) << err;
}

Cmds decode(std::string_view bytes) {
  Cmds out;
  listd::persistence::load_aof_bytes(bytes,
                                     [&](std::span<const std::string_view> argv, std::string&) {
                                       out.emplace_back(argv.begin(), argv.end());
                                       return true;
                                     });
  return out;
}

// The commands written since the last call (and writes them to the file, as a turn ends).
Cmds take_logged(TestServer& t) {
  Cmds c = decode(t.exec().persistence().pending_bytes());
  t.exec().persistence().flush_turn();
  return c;
}

}  // namespace

TEST(Propagation, PushThenServedBlockingPopIsLoggedAsTheirEffects) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  auto& b = t.client();
  EXPECT_EQ(t.run(b, {"BRPOP", "q", "0"}), "");
  EXPECT_EQ(t.run(a, {"lpush", "q", "a", "b", "c"}), ":3\r\n");
  EXPECT_EQ(take_logged(t), (Cmds{{"SELECT", "0"}, {"lpush", "q", "a", "b", "c"}, {"RPOP", "q"}}));
}

TEST(Propagation, ServedMovesAndMultiPopsAreTheirNonBlockingForms) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  auto& b = t.client();
  auto& c = t.client();
  auto& e = t.client();
  t.run(b, {"BLMOVE", "q2", "proc", "RIGHT", "LEFT", "0"});
  t.run(c, {"BRPOPLPUSH", "q3", "proc", "0"});
  t.run(e, {"BLMPOP", "0", "1", "q4", "LEFT", "COUNT", "5"});
  take_logged(t);
  t.run(a, {"LPUSH", "q2", "t1"});
  t.run(a, {"LPUSH", "q3", "t2"});
  t.run(a, {"RPUSH", "q4", "x", "y"});
  EXPECT_EQ(take_logged(t), (Cmds{{"SELECT", "0"},
                                  {"LPUSH", "q2", "t1"},
                                  {"LMOVE", "q2", "proc", "right", "left"},
                                  {"LPUSH", "q3", "t2"},
                                  {"RPOPLPUSH", "q3", "proc"},
                                  {"RPUSH", "q4", "x", "y"},
                                  {"LPOP", "q4", "2"}}));
}

TEST(Propagation, BlockingCommandAnsweredAtOnceIsItsNonBlockingForm) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  t.run(a, {"RPUSH", "k2", "x", "y", "z"});
  t.run(a, {"RPUSH", "src", "m"});
  take_logged(t);
  t.run(a, {"BLPOP", "k1", "k2", "0"});
  t.run(a, {"BRPOP", "k1", "k2", "0"});
  t.run(a, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "1"});
  t.run(a, {"BLMPOP", "1", "2", "k1", "k2", "RIGHT"});
  t.run(a, {"BLMPOP", "1", "2", "k1", "k2", "RIGHT"});  // both empty now: blocks, nothing logged
  EXPECT_EQ(take_logged(t), (Cmds{{"LPOP", "k2"},
                                  {"RPOP", "k2"},
                                  {"LMOVE", "src", "dst", "LEFT", "RIGHT"},
                                  {"RPOP", "k2", "1"}}));
}

TEST(Propagation, CommandsThatChangeNothingAreNotLogged) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  t.run(a, {"RPOP", "nothing"});
  t.run(a, {"LRANGE", "nothing", "0", "-1"});
  t.run(a, {"DEL", "nothing"});
  t.run(a, {"GET", "x"});
  EXPECT_TRUE(take_logged(t).empty());
}

TEST(Propagation, RelativeExpiryBecomesAbsolute) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  const long long now = t.clock().unix_ms();
  const std::string in10s = std::to_string(now + 10000);
  const std::string in5s = std::to_string(now + 5000);
  t.run(a, {"SET", "k", "v", "EX", "10"});
  t.run(a, {"SET", "p", "v", "PX", "5000", "GET"});
  t.run(a, {"SETEX", "s", "10", "val"});
  t.run(a, {"PSETEX", "ps", "5000", "val"});
  t.run(a, {"EXPIRE", "k", "5"});
  t.run(a, {"PEXPIRE", "p", "10000"});
  t.run(a, {"GETEX", "s", "PX", "5000"});
  t.run(a, {"GETEX", "s", "PERSIST"});
  t.run(a, {"SET", "plain", "v"});
  t.run(a, {"GETDEL", "plain"});
  t.run(a, {"EXPIRE", "ps", "-1"});
  EXPECT_EQ(take_logged(t), (Cmds{{"SELECT", "0"},
                                  {"SET", "k", "v", "PXAT", in10s},
                                  {"SET", "p", "v", "PXAT", in5s},
                                  {"SET", "s", "val", "PXAT", in10s},
                                  {"SET", "ps", "val", "PXAT", in5s},
                                  {"PEXPIREAT", "k", in5s},
                                  {"PEXPIREAT", "p", in10s},
                                  {"PEXPIREAT", "s", in5s},
                                  {"PERSIST", "s"},
                                  {"SET", "plain", "v"},
                                  {"DEL", "plain"},
                                  {"DEL", "ps"}}));
}

TEST(Propagation, ExpiredKeysAreLoggedAsDel) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  t.run(a, {"SET", "lazy", "v", "PX", "100"});
  t.run(a, {"SET", "active", "v", "PX", "100"});
  take_logged(t);
  t.clock().advance_ms(200);
  EXPECT_EQ(t.run(a, {"GET", "lazy"}), "$-1\r\n");
  t.exec().tick();
  EXPECT_EQ(take_logged(t), (Cmds{{"DEL", "lazy"}, {"DEL", "active"}}));
}

TEST(Propagation, TransactionsAreWrappedInMultiExec) {
  TempDir d;
  TestServer t;
  enable_aof(t, d.path());
  auto& a = t.client();
  auto& w = t.client();
  t.run(w, {"BLPOP", "jobs", "0"});
  t.run(a, {"MULTI"});
  t.run(a, {"RPUSH", "jobs", "j1"});
  t.run(a, {"RPOP", "missing"});
  t.run(a, {"SELECT", "3"});
  t.run(a, {"SET", "s", "1"});
  EXPECT_EQ(t.run(a, {"EXEC"}), "*4\r\n:1\r\n$-1\r\n+OK\r\n+OK\r\n");
  EXPECT_EQ(take_logged(t), (Cmds{{"SELECT", "0"},
                                  {"MULTI"},
                                  {"RPUSH", "jobs", "j1"},
                                  {"SELECT", "3"},
                                  {"SET", "s", "1"},
                                  {"EXEC"},
                                  {"SELECT", "0"},
                                  {"LPOP", "jobs"}}))
      << "the waiter is served after EXEC";
  // A transaction that changed nothing writes nothing.
  t.run(a, {"MULTI"});
  t.run(a, {"RPOP", "missing"});
  t.run(a, {"EXEC"});
  EXPECT_TRUE(take_logged(t).empty());
}

namespace {

// Every key of every db, as a comparable string (type, value, expiry).
std::string dump(TestServer& t) {
  std::string out;
  auto& ks = t.exec().keyspace();
  for (int i = 0; i < ks.database_count(); ++i) {
    std::vector<std::string> keys;
    ks.db(i).dict().for_each([&](const listd::store::Entry& e) {
      std::string line = std::to_string(i) + " " + std::string(e.key()) + " " +
                         std::string(e.value.type_name()) + " " + std::to_string(e.expire_at_ms) +
                         ":";
      if (e.value.is(listd::store::ValueType::kString))
        line += std::string(e.value.as_string().view());
      if (e.value.is(listd::store::ValueType::kList))
        e.value.as_list().scan_forward(
            [&](std::size_t, std::string_view v) { line += std::string(v) + ","; });
      keys.push_back(line);
    });
    std::sort(keys.begin(), keys.end());
    for (auto& k : keys) out += k + "\n";
  }
  return out;
}

}  // namespace

TEST(Propagation, ARandomWorkloadReloadsToTheSameData) {
  TempDir d;
  std::string before;
  {
    TestServer t;
    enable_aof(t, d.path());
    auto& a = t.client();
    auto& w1 = t.client();
    auto& w2 = t.client();
    std::mt19937 rng(5);
    int served = 0;  // waiters that got an element (their pops were logged as effects)
    const char* keys[] = {"jobs", "processing", "q", "other"};
    for (int i = 0; i < 3000; ++i) {
      const std::string k = keys[rng() % 4], k2 = keys[rng() % 4], v = "v" + std::to_string(i);
      switch (rng() % 12) {
        case 0: t.run(a, {"LPUSH", k, v, v + "b"}); break;
        case 1: t.run(a, {"RPUSH", k, v}); break;
        case 2: t.run(a, {"LPOP", k}); break;
        case 3: t.run(a, {"RPOP", k, "2"}); break;
        case 4: t.run(a, {"LMOVE", k, k2, "LEFT", "RIGHT"}); break;
        case 5:
          if (!w1.blocked()) t.run(w1, {"BLMOVE", k, k2, "RIGHT", "LEFT", "0"});
          break;
        case 6:
          if (!w2.blocked()) t.run(w2, {"BRPOP", k, k2, "0"});
          break;
        case 7: t.run(a, {"SET", "s" + k, v, "PX", std::to_string(rng() % 500)}); break;
        case 8: t.run(a, {"SELECT", std::to_string(rng() % 3)}); break;
        case 9: t.run(a, {"LREM", k, "1", "v" + std::to_string(i - 7)}); break;
        case 10:
          t.run(a, {"MULTI"});
          t.run(a, {"RPUSH", k, v});
          t.run(a, {"LPOP", k2});
          t.run(a, {"EXEC"});
          break;
        default: t.advance_ms(rng() % 100); break;
      }
      for (auto* w : {&w1, &w2})
        if (!w->blocked() && !t.take_output(*w).empty()) ++served;
      t.exec().persistence().flush_turn();
    }
    EXPECT_GE(served, 50);  // 71 with this seed
    before = dump(t);
    t.exec().persistence().shutdown();
  }
  // Equal dumps mean something only if they hold data: lists and strings in several dbs.
  std::map<std::string, int> types;
  std::set<char> dbs;
  std::size_t lines = 0;
  for (std::size_t at = 0, end; (end = before.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = before.substr(at, end - at);
    const auto t1 = line.find(' '), t2 = line.find(' ', t1 + 1), t3 = line.find(' ', t2 + 1);
    ++types[line.substr(t2 + 1, t3 - t2 - 1)];
    dbs.insert(line[0]);
    ++lines;
  }
  EXPECT_GE(lines, 6u) << before;
  EXPECT_GE(types["list"], 3) << before;
  EXPECT_GE(types["string"], 1) << before;
  EXPECT_GE(dbs.size(), 2u) << before;
  TestServer back;
  enable_aof(back, d.path());
  EXPECT_EQ(dump(back), before);
}

TEST(Propagation, LoadingRefusesAnUnknownCommandNamingFileAndOffset) {
  TempDir d;
  {
    TestServer t;
    enable_aof(t, d.path());
    auto& a = t.client();
    t.run(a, {"RPUSH", "q", "a"});
    t.exec().persistence().flush_turn();
    t.exec().persistence().shutdown();
  }
  const std::string incr = d.path() + "/appendonlydir/appendonly.aof.1.incr.aof";
  const auto size = std::filesystem::file_size(incr);
  {
    std::FILE* f = std::fopen(incr.c_str(), "ab");
    std::fputs("*2\r\n$9\r\nLISTDNOTE\r\n$1\r\nx\r\n", f);
    std::fclose(f);
  }
  TestServer back;
  ASSERT_FALSE(back.config().apply_directive(std::vector<std::string>{"dir", d.path()}));
  ASSERT_FALSE(back.config().apply_directive(std::vector<std::string>{"appendonly", "yes"}));
  back.exec().persistence().set_logger([](listd::config::LogLevel, std::string_view) {});
  std::string err;
  EXPECT_FALSE(back.exec().persistence().load_at_startup(err));
  EXPECT_NE(
      err.find(
          "Unknown command 'LISTDNOTE' reading the append only file appendonly.aof.1.incr.aof"),
      std::string::npos)
      << err;
  EXPECT_NE(err.find("offset " + std::to_string(size)), std::string::npos) << err;
}

TEST(Propagation, TornTailIsCutAtStartUnlessForbidden) {
  TempDir d;
  {
    TestServer t;
    enable_aof(t, d.path());
    auto& a = t.client();
    t.run(a, {"RPUSH", "q", "a"});
    t.run(a, {"RPUSH", "q", "b"});
    t.exec().persistence().flush_turn();
    t.exec().persistence().shutdown();
  }
  const std::string incr = d.path() + "/appendonlydir/appendonly.aof.1.incr.aof";
  const auto full = std::filesystem::file_size(incr);
  std::filesystem::resize_file(incr, full - 3);
  {
    TestServer strict;
    ASSERT_FALSE(strict.config().apply_directive(std::vector<std::string>{"dir", d.path()}));
    ASSERT_FALSE(strict.config().apply_directive(std::vector<std::string>{"appendonly", "yes"}));
    ASSERT_FALSE(
        strict.config().apply_directive(std::vector<std::string>{"aof-load-truncated", "no"}));
    strict.exec().persistence().set_logger([](listd::config::LogLevel, std::string_view) {});
    std::string err;
    EXPECT_FALSE(strict.exec().persistence().load_at_startup(err));
    EXPECT_NE(err.find("Unexpected end of file"), std::string::npos) << err;
  }
  TestServer back;
  enable_aof(back, d.path());
  auto& a = back.client();
  EXPECT_EQ(back.run(a, {"LRANGE", "q", "0", "-1"}), "*1\r\n$1\r\na\r\n");
  EXPECT_LT(std::filesystem::file_size(incr), full - 3) << "cut back to the last complete command";
}
