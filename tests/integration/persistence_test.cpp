// Durability of the real listd: acknowledged pushes were written before their reply (they survive
// kill -9), and listd's files interoperate with Redis 7.0 (redis-server loads listd's AOF
// directory and dump.rdb with identical data; redis-check-aof and redis-check-rdb accept them;
// listd loads a dump.rdb written by redis-server).
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace listd::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

ReplyPtr cmd(redisContext* c, const std::vector<std::string>& argv) {
  std::vector<const char*> a;
  std::vector<size_t> l;
  for (const auto& s : argv) {
    a.push_back(s.data());
    l.push_back(s.size());
  }
  return ReplyPtr(static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(a.size()), a.data(), l.data())));
}

std::string str(const ReplyPtr& r) { return r && r->str ? std::string(r->str, r->len) : ""; }

int shell(const std::string& command, std::string* out = nullptr) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::size_t n;
  std::string o;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) o.append(buf, n);
  const int st = ::pclose(p);
  if (out) *out = o;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

using listd::testing::TempDir;

std::string info_field(redisContext* c, const std::string& field) {
  const std::string info = str(cmd(c, {"INFO", "persistence"}));
  const auto at = info.find(field + ":");
  if (at == std::string::npos) return "";
  const auto end = info.find('\r', at);
  return info.substr(at + field.size() + 1, end - at - field.size() - 1);
}

std::string info_clients_field(redisContext* c, const std::string& field) {
  const std::string info = str(cmd(c, {"INFO", "clients"}));
  const auto at = info.find(field + ":");
  if (at == std::string::npos) return "";
  const auto end = info.find('\r', at);
  return info.substr(at + field.size() + 1, end - at - field.size() - 1);
}

// Polls INFO clients until `n` clients are blocked (bounded: 10 s).
bool wait_blocked_clients(redisContext* c, int n) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (info_clients_field(c, "blocked_clients") == std::to_string(n)) return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

// The pid of the only child of `pid` (its BGSAVE or rewrite child), -1 if there is not exactly
// one. Read from /proc/<pid>/task/*/children.
pid_t only_child(pid_t pid) {
  std::vector<pid_t> kids;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    FILE* f = std::fopen((task.path() / "children").c_str(), "r");
    if (!f) continue;
    long k = 0;
    while (std::fscanf(f, "%ld", &k) == 1) kids.push_back(static_cast<pid_t>(k));
    std::fclose(f);
  }
  return kids.size() == 1 ? kids[0] : -1;
}

std::vector<std::string> strings_of(const ReplyPtr& r) {
  std::vector<std::string> out;
  if (!r || r->type != REDIS_REPLY_ARRAY) return out;
  for (std::size_t i = 0; i < r->elements; ++i)
    out.emplace_back(r->element[i]->str, r->element[i]->len);
  return out;
}

// Every key of every database in a canonical text form: type, value and whether it has a TTL.
using Snapshot = std::map<std::string, std::string>;
Snapshot snapshot(redisContext* c) {
  std::map<std::string, std::string> out;
  for (int db = 0; db < 16; ++db) {
    cmd(c, {"SELECT", std::to_string(db)});
    for (const std::string& key : strings_of(cmd(c, {"KEYS", "*"}))) {
      const std::string type = str(cmd(c, {"TYPE", key}));
      std::string v = type + ":";
      std::vector<std::string> items;
      if (type == "string") {
        v += str(cmd(c, {"GET", key}));
      } else if (type == "list") {
        for (auto& e : strings_of(cmd(c, {"LRANGE", key, "0", "-1"}))) v += e + ",";
      } else if (type == "hash") {
        items = strings_of(cmd(c, {"HGETALL", key}));
        std::vector<std::string> pairs;
        for (std::size_t i = 0; i + 1 < items.size(); i += 2)
          pairs.push_back(items[i] + "=" + items[i + 1]);
        std::sort(pairs.begin(), pairs.end());
        for (auto& p : pairs) v += p + ",";
      } else if (type == "set") {
        items = strings_of(cmd(c, {"SMEMBERS", key}));
        std::sort(items.begin(), items.end());
        for (auto& e : items) v += e + ",";
      } else if (type == "zset") {
        for (auto& e : strings_of(cmd(c, {"ZRANGE", key, "0", "-1", "WITHSCORES"}))) v += e + ",";
      }
      auto ttl = cmd(c, {"PTTL", key});
      v += ttl && ttl->integer >= 0 ? " ttl" : " persist";
      out[std::to_string(db) + "/" + key] = v;
    }
  }
  cmd(c, {"SELECT", "0"});
  return out;
}

// A mixed workload: pushes and pops, served blocking moves and pops, expiry, a transaction,
// several databases, binary values, hashes, sets and sorted sets. Every command must succeed: a
// server refusing writes would otherwise leave two equal, empty snapshots.
void workload(const ServerProcess& p, int rounds, unsigned seed) {
  ContextPtr c(p.connect());
  ContextPtr waiter(p.connect());
  std::mt19937 rng(seed);
  int errors = 0;
  int served_waiters = 0;
  auto run = [&](const std::vector<std::string>& argv) {
    ReplyPtr r = cmd(c.get(), argv);
    if (!r || r->type == REDIS_REPLY_ERROR) {
      ++errors;
      ADD_FAILURE() << argv[0] << ": " << (r ? str(r) : "no reply");
    }
  };
  for (int i = 0; i < rounds; ++i) {
    const std::string v = "v" + std::to_string(i) + (i % 7 == 0 ? std::string("\r\n\0x", 4) : "");
    switch (rng() % 11) {
      case 0: run({"LPUSH", "jobs", v, v + "b"}); break;
      case 1: run({"RPUSH", "jobs", v}); break;
      case 2: run({"RPOP", "jobs"}); break;
      case 3: run({"LMOVE", "jobs", "processing", "RIGHT", "LEFT"}); break;
      case 4: run({"SET", "s" + std::to_string(i % 10), v, "EX", "1000"}); break;
      case 5: run({"SELECT", std::to_string(rng() % 3)}); break;
      case 6: {
        // A waiter blocked on an empty key (the server shows it blocked before the push), served
        // by the push: logged as push then LMOVE.
        // (A new key per seed: a key left by an earlier workload would serve BLMOVE at once.)
        const std::string q = "wq" + std::to_string(seed) + "-" + std::to_string(i);
        redisAppendCommand(waiter.get(), "BLMOVE %s done RIGHT LEFT 0", q.c_str());
        int done = 0;
        while (!done && redisBufferWrite(waiter.get(), &done) == REDIS_OK) {
        }
        if (!wait_blocked_clients(c.get(), 1)) {
          ++errors;
          ADD_FAILURE() << "the BLMOVE waiter on " << q << " never blocked";
        }
        run({"SELECT", "0"});
        run({"RPUSH", q, "t" + std::to_string(i), "u"});
        void* raw = nullptr;
        redisGetReply(waiter.get(), &raw);
        ReplyPtr r(static_cast<redisReply*>(raw));
        if (str(r) == "u") {
          ++served_waiters;
        } else {
          ++errors;
          ADD_FAILURE() << "BLMOVE on " << q << " got '" << str(r) << "'";
        }
        break;
      }
      case 7:
        run({"MULTI"});
        run({"RPUSH", "tx", v});
        run({"LPOP", "jobs"});
        run({"EXEC"});
        break;
      case 8:
        run({"HSET", "h", "f" + std::to_string(i % 20), v});
        run({"SADD", "set", std::to_string(i % 50)});
        run({"ZADD", "z", std::to_string(i % 13) + ".5", "m" + std::to_string(i % 30)});
        break;
      case 9: run({"EXPIRE", "jobs", "5000"}); break;
      default: run({"LREM", "jobs", "1", "v" + std::to_string(i - 3)}); break;
    }
  }
  EXPECT_EQ(errors, 0);
  EXPECT_GT(served_waiters, 0) << "no blocked waiter was served by a push";
}

// A snapshot worth comparing: many keys, and every type the workload writes.
void expect_rich(const Snapshot& data, std::size_t min_keys) {
  EXPECT_GE(data.size(), min_keys);
  std::map<std::string, int> types;
  for (const auto& [key, value] : data) ++types[value.substr(0, value.find(':'))];
  for (const char* type : {"string", "list", "hash", "set", "zset"})
    EXPECT_GT(types[type], 0) << "no " << type << " in the snapshot";
}

void wait_rewrite_done(redisContext* c, int rewrites) {
  // A condition, not a duration: the bound is only there to end a hung run (60 s, scaled for
  // the sanitizer pass; a loaded machine once took the ASan build past a fixed 20 s).
  const int polls = static_cast<int>(3000 * test_slowdown());
  for (int i = 0; i < polls; ++i) {
    if (info_field(c, "aof_rewrite_in_progress") == "0" &&
        std::stoi(info_field(c, "aof_rewrites")) >= rewrites)
      return;
    std::this_thread::sleep_for(20ms);
  }
  FAIL() << "rewrite did not finish";
}

}  // namespace

// SIGKILL keeps the page cache, so this proves that a push is written to the AOF before its reply
// (it would pass with appendfsync no too); the power-loss crash test covers the fsync itself.
TEST(Persistence, AcknowledgedPushesAreWrittenBeforeTheReplyAndSurviveKillNine) {
  TempDir d;
  std::vector<std::string> acked;
  {
    ServerProcess p = ServerProcess::start_listd(
        {"--appendonly", "yes", "--appendfsync", "always", "--dir", d.path()});
    std::atomic<bool> stop{false};
    std::atomic<int> acks{0};
    std::vector<std::thread> producers;
    std::vector<std::vector<std::string>> per(4);
    for (int t = 0; t < 4; ++t) {
      producers.emplace_back([&, t] {
        ContextPtr c(p.connect());
        for (int i = 0; !stop; ++i) {
          const std::string id = "p" + std::to_string(t) + "-" + std::to_string(i);
          auto r = cmd(c.get(), {"LPUSH", "jobs", id});
          if (!r || r->type != REDIS_REPLY_INTEGER) break;  // the server died: indeterminate
          per[static_cast<std::size_t>(t)].push_back(id);
          ++acks;
        }
      });
    }
    // Kill once enough pushes were acknowledged (bounded: 30 s), with producers still running.
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (acks < 2000 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(p.kill_and_reap());
    stop = true;
    for (auto& th : producers) th.join();
    for (auto& v : per) acked.insert(acked.end(), v.begin(), v.end());
  }
  ASSERT_GT(acked.size(), 100u);
  ServerProcess back = ServerProcess::start_listd({"--appendonly", "yes", "--dir", d.path()});
  ContextPtr c(back.connect());
  const auto items = strings_of(cmd(c.get(), {"LRANGE", "jobs", "0", "-1"}));
  const std::set<std::string> have(items.begin(), items.end());
  EXPECT_EQ(have.size(), items.size()) << "no duplicates";
  std::size_t lost = 0;
  for (const auto& id : acked) lost += have.count(id) ? 0 : 1;
  EXPECT_EQ(lost, 0u) << "of " << acked.size() << " acknowledged pushes";
}

TEST(Persistence, RedisLoadsListdAofDirectoryWithARewriteInIt) {
  TempDir d;
  Snapshot listd_data;
  {
    ServerProcess p = ServerProcess::start_listd(
        {"--appendonly", "yes", "--appendfsync", "everysec", "--dir", d.path()});
    workload(p, 600, 1);
    ContextPtr c(p.connect());
    EXPECT_EQ(str(cmd(c.get(), {"BGREWRITEAOF"})), "Background append only file rewriting started");
    workload(p, 300, 2);  // lands in the new incr file while the child writes the base
    wait_rewrite_done(c.get(), 1);
    workload(p, 300, 3);
    listd_data = snapshot(c.get());
    EXPECT_EQ(p.stop(), 0);
  }
  expect_rich(listd_data, 20);
  const std::string dir = d.path() + "/appendonlydir";
  std::string manifest;
  shell("cat " + dir + "/appendonly.aof.manifest", &manifest);
  EXPECT_NE(manifest.find("appendonly.aof.2.base.rdb seq 2 type b"), std::string::npos) << manifest;
  EXPECT_EQ(manifest.find("type h"), std::string::npos)
      << "history files are deleted after the switch";
  std::string out;
  EXPECT_EQ(shell("redis-check-aof " + dir + "/appendonly.aof.manifest", &out), 0) << out;
  EXPECT_NE(out.find("All AOF files and manifest are valid"), std::string::npos) << out;

  // listd itself reloads the same data.
  {
    ServerProcess again = ServerProcess::start_listd({"--appendonly", "yes", "--dir", d.path()});
    ContextPtr c(again.connect());
    EXPECT_EQ(snapshot(c.get()), listd_data);
  }
  // Real Redis loads the directory (a copy: Redis appends its own incr file).
  TempDir r;
  fs::copy(dir, r.path() + "/appendonlydir");
  ServerProcess redis = ServerProcess::start_redis({"--appendonly", "yes", "--dir", r.path()});
  ContextPtr rc(redis.connect());
  EXPECT_EQ(snapshot(rc.get()), listd_data);
}

TEST(Persistence, DumpRdbLoadsIntoRedisAndBack) {
  TempDir d;
  Snapshot listd_data;
  {
    ServerProcess p = ServerProcess::start_listd({"--dir", d.path()});
    workload(p, 800, 4);
    ContextPtr c(p.connect());
    // A list long enough for several of listd's packed blocks, with a 20 KB element.
    for (int i = 0; i < 300; ++i) cmd(c.get(), {"RPUSH", "long", "element-" + std::to_string(i)});
    cmd(c.get(), {"RPUSH", "long", std::string(20000, 'x')});
    EXPECT_EQ(str(cmd(c.get(), {"SAVE"})), "OK");
    listd_data = snapshot(c.get());
    expect_rich(listd_data, 20);
    const auto before = cmd(c.get(), {"LASTSAVE"})->integer;
    EXPECT_EQ(str(cmd(c.get(), {"BGSAVE"})), "Background saving started");
    for (int i = 0; i < 300 && info_field(c.get(), "rdb_bgsave_in_progress") != "0"; ++i)
      std::this_thread::sleep_for(20ms);
    for (int i = 0; i < 300 && info_field(c.get(), "rdb_bgsave_in_progress") == "1"; ++i)
      std::this_thread::sleep_for(20ms);
    for (int i = 0; i < 150 && info_field(c.get(), "rdb_saves") != "2"; ++i)
      std::this_thread::sleep_for(20ms);
    EXPECT_EQ(info_field(c.get(), "rdb_saves"), "2");
    EXPECT_EQ(info_field(c.get(), "rdb_last_bgsave_status"), "ok");
    EXPECT_GE(cmd(c.get(), {"LASTSAVE"})->integer, before);
  }
  std::string out;
  EXPECT_EQ(shell("redis-check-rdb " + d.path() + "/dump.rdb", &out), 0) << out;
  EXPECT_NE(out.find("RDB looks OK"), std::string::npos) << out;
  {
    ServerProcess redis =
        ServerProcess::start_redis({"--dir", d.path(), "--dbfilename", "dump.rdb"});
    ContextPtr rc(redis.connect());
    EXPECT_EQ(snapshot(rc.get()), listd_data);
    // Redis writes its own dump (RDB 10, compact encodings); listd loads it back.
    EXPECT_EQ(str(cmd(rc.get(), {"SAVE"})), "OK");
  }
  ServerProcess back = ServerProcess::start_listd({"--dir", d.path()});
  ContextPtr c(back.connect());
  EXPECT_EQ(snapshot(c.get()), listd_data);
}

// As Redis: the first base is written by a background rewrite; commands from the fork on go to
// a temporary incr file that joins the manifest with the base.
TEST(Persistence, ConfigSetAppendonlyStartsLoggingFromTheCurrentData) {
  TempDir d;
  ServerProcess p = ServerProcess::start_listd({"--dir", d.path()});
  ContextPtr c(p.connect());
  cmd(c.get(), {"RPUSH", "before", "a", "b"});
  for (int i = 0; i < 20000; ++i) cmd(c.get(), {"RPUSH", "bulk", "element-" + std::to_string(i)});
  EXPECT_EQ(strings_of(cmd(c.get(), {"CONFIG", "GET", "appendonly"})),
            (std::vector<std::string>{"appendonly", "no"}));
  EXPECT_EQ(str(cmd(c.get(), {"CONFIG", "SET", "appendonly", "yes"})), "OK");
  EXPECT_EQ(info_field(c.get(), "aof_enabled"), "1");
  cmd(c.get(), {"RPUSH", "after", "c"});  // most likely while the child writes the base
  wait_rewrite_done(c.get(), 1);
  cmd(c.get(), {"RPUSH", "after", "d"});
  std::string manifest;
  shell("cat " + d.path() + "/appendonlydir/appendonly.aof.manifest", &manifest);
  EXPECT_EQ(manifest,
            "file appendonly.aof.1.base.rdb seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
  EXPECT_FALSE(fs::exists(d.path() + "/appendonlydir/temp-appendonly.aof.incr"));
  EXPECT_TRUE(p.kill_and_reap());
  ServerProcess back = ServerProcess::start_listd({"--appendonly", "yes", "--dir", d.path()});
  ContextPtr b(back.connect());
  EXPECT_EQ(strings_of(cmd(b.get(), {"LRANGE", "before", "0", "-1"})),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(strings_of(cmd(b.get(), {"LRANGE", "after", "0", "-1"})),
            (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(cmd(b.get(), {"LLEN", "bulk"})->integer, 20000);
}

// Redis 7.0 answers BGREWRITEAOF with appendonly no by writing a base-only AOF (a manifest
// with one base and no incr file); redis-server and listd load it.
TEST(Persistence, BgrewriteaofWithAppendonlyNoWritesABaseOnlyAof) {
  TempDir d;
  Snapshot listd_data;
  {
    ServerProcess p = ServerProcess::start_listd({"--dir", d.path()});
    workload(p, 300, 1);
    ContextPtr c(p.connect());
    EXPECT_EQ(str(cmd(c.get(), {"BGREWRITEAOF"})), "Background append only file rewriting started");
    wait_rewrite_done(c.get(), 1);
    EXPECT_EQ(info_field(c.get(), "aof_enabled"), "0");
    EXPECT_EQ(info_field(c.get(), "aof_last_bgrewrite_status"), "ok");
    // A second one replaces the first base (which becomes history and is deleted).
    EXPECT_EQ(str(cmd(c.get(), {"BGREWRITEAOF"})), "Background append only file rewriting started");
    wait_rewrite_done(c.get(), 2);
    listd_data = snapshot(c.get());
    expect_rich(listd_data, 10);
    EXPECT_EQ(p.stop(), 0);
  }
  const std::string dir = d.path() + "/appendonlydir";
  std::string manifest;
  shell("cat " + dir + "/appendonly.aof.manifest", &manifest);
  EXPECT_EQ(manifest, "file appendonly.aof.2.base.rdb seq 2 type b\n");
  EXPECT_FALSE(fs::exists(dir + "/appendonly.aof.1.base.rdb"));
  TempDir r;
  fs::copy(dir, r.path() + "/appendonlydir");  // before listd, started on it, adds an incr file
  {
    ServerProcess back = ServerProcess::start_listd({"--appendonly", "yes", "--dir", d.path()});
    ContextPtr c(back.connect());
    EXPECT_EQ(snapshot(c.get()), listd_data);
  }
  ServerProcess redis = ServerProcess::start_redis({"--appendonly", "yes", "--dir", r.path()});
  ContextPtr rc(redis.connect());
  EXPECT_EQ(snapshot(rc.get()), listd_data);
}

// Redis' SHUTDOWN: a final snapshot when save points are configured (or SAVE), none with
// NOSAVE; a failed snapshot keeps the server up unless FORCE. SIGTERM saves the same way.
TEST(Persistence, ShutdownSavesAsRedisDoes) {
  TempDir d;
  const std::string dump = d.path() + "/dump.rdb";
  {  // save points configured: SHUTDOWN writes dump.rdb, and the data comes back
    ServerProcess p = ServerProcess::start_listd({"--dir", d.path(), "--save", "3600 1"});
    ContextPtr c(p.connect());
    cmd(c.get(), {"RPUSH", "jobs", "a", "b"});
    EXPECT_EQ(cmd(c.get(), {"SHUTDOWN"}), nullptr);  // no reply: the connection closes
    EXPECT_EQ(p.stop(), 0);
    EXPECT_TRUE(fs::exists(dump));
    ServerProcess back = ServerProcess::start_listd({"--dir", d.path()});
    ContextPtr b(back.connect());
    EXPECT_EQ(strings_of(cmd(b.get(), {"LRANGE", "jobs", "0", "-1"})),
              (std::vector<std::string>{"a", "b"}));
  }
  fs::remove(dump);
  {  // NOSAVE wins over save points; SAVE and NOSAVE together are a syntax error
    ServerProcess p = ServerProcess::start_listd({"--dir", d.path(), "--save", "3600 1"});
    ContextPtr c(p.connect());
    cmd(c.get(), {"RPUSH", "jobs", "a"});
    EXPECT_EQ(str(cmd(c.get(), {"SHUTDOWN", "SAVE", "NOSAVE"})), "ERR syntax error");
    EXPECT_EQ(cmd(c.get(), {"SHUTDOWN", "NOSAVE"}), nullptr);
    EXPECT_EQ(p.stop(), 0);
    EXPECT_FALSE(fs::exists(dump));
  }
  {  // no save points: SHUTDOWN SAVE still saves; SIGTERM with save points saves
    ServerProcess p = ServerProcess::start_listd({"--dir", d.path()});
    ContextPtr c(p.connect());
    cmd(c.get(), {"RPUSH", "jobs", "a"});
    EXPECT_EQ(cmd(c.get(), {"SHUTDOWN", "SAVE"}), nullptr);
    EXPECT_EQ(p.stop(), 0);
    EXPECT_TRUE(fs::exists(dump));
    fs::remove(dump);
    ServerProcess q = ServerProcess::start_listd({"--dir", d.path(), "--save", "3600 1"});
    ContextPtr qc(q.connect());
    cmd(qc.get(), {"RPUSH", "jobs", "b"});
    EXPECT_EQ(q.stop(), 0);  // SIGTERM
    EXPECT_TRUE(fs::exists(dump));
    fs::remove(dump);
  }
  {  // the snapshot cannot be written (dump.rdb is a directory): the server stays up
    ServerProcess p = ServerProcess::start_listd({"--dir", d.path(), "--save", "3600 1"});
    fs::create_directory(dump);  // after start: loading a directory would refuse to start
    ContextPtr c(p.connect());
    cmd(c.get(), {"RPUSH", "jobs", "a"});
    EXPECT_EQ(str(cmd(c.get(), {"SHUTDOWN"})), "ERR Errors trying to SHUTDOWN. Check logs.");
    EXPECT_EQ(str(cmd(c.get(), {"PING"})), "PONG");
    EXPECT_EQ(cmd(c.get(), {"SHUTDOWN", "FORCE"}), nullptr);
    EXPECT_EQ(p.stop(), 0);
  }
}

// aof-timestamp-enabled writes Redis 7.0's "#TS:<unix s>" annotations, which redis-check-aof,
// redis-server and listd accept; aof-use-rdb-preamble no is refused (listd's base is an RDB).
TEST(Persistence, TimestampAnnotationsAndPreambleOption) {
  TempDir d;
  Snapshot listd_data;
  {
    ServerProcess p = ServerProcess::start_listd(
        {"--appendonly", "yes", "--aof-timestamp-enabled", "yes", "--dir", d.path()});
    ContextPtr c(p.connect());
    EXPECT_EQ(strings_of(cmd(c.get(), {"CONFIG", "GET", "aof-timestamp-enabled"})),
              (std::vector<std::string>{"aof-timestamp-enabled", "yes"}));
    EXPECT_EQ(str(cmd(c.get(), {"CONFIG", "SET", "aof-use-rdb-preamble", "no"}))
                  .rfind("ERR CONFIG SET failed", 0),
              0u);
    cmd(c.get(), {"RPUSH", "jobs", "a"});
    std::this_thread::sleep_for(1100ms);  // a new second: a second annotation
    cmd(c.get(), {"RPUSH", "jobs", "b"});
    listd_data = snapshot(c.get());
    EXPECT_EQ(listd_data, (Snapshot{{"0/jobs", "list:a,b, persist"}}));
    EXPECT_EQ(p.stop(), 0);
  }
  const std::string dir = d.path() + "/appendonlydir";
  std::string incr;
  shell("cat " + dir + "/appendonly.aof.1.incr.aof", &incr);
  std::size_t annotations = 0;
  for (std::size_t at = incr.find("#TS:"); at != std::string::npos; at = incr.find("#TS:", at + 1))
    ++annotations;
  EXPECT_EQ(annotations, 2u) << incr;
  EXPECT_EQ(incr.rfind("#TS:", 0), 0u) << "the annotation precedes the first command";
  std::string out;
  EXPECT_EQ(shell("redis-check-aof " + dir + "/appendonly.aof.manifest", &out), 0) << out;
  TempDir r;
  fs::copy(dir, r.path() + "/appendonlydir");
  {
    ServerProcess again = ServerProcess::start_listd({"--appendonly", "yes", "--dir", d.path()});
    ContextPtr c(again.connect());
    EXPECT_EQ(snapshot(c.get()), listd_data);
  }
  ServerProcess redis = ServerProcess::start_redis({"--appendonly", "yes", "--dir", r.path()});
  ContextPtr rc(redis.connect());
  EXPECT_EQ(snapshot(rc.get()), listd_data);
}

// no-appendfsync-on-rewrite yes: while a child saves, `always` does not fsync (Redis' trade-off);
// once the child is gone, fsyncs resume.
TEST(Persistence, NoAppendfsyncOnRewritePausesFsyncWhileAChildSaves) {
  TempDir d;
  // No automatic rewrite: its child would pause the fsyncs again after the BGSAVE (100 MB of
  // AOF is past auto-aof-rewrite-min-size).
  ServerProcess p = ServerProcess::start_listd(
      {"--appendonly", "yes", "--appendfsync", "always", "--no-appendfsync-on-rewrite", "yes",
       "--auto-aof-rewrite-percentage", "0", "--dir", d.path()});
  ContextPtr c(p.connect());
  // Enough data that the BGSAVE child outlives the pushes below (hundreds of ms).
  const std::string big(200, 'x');
  for (int batch = 0; batch < 100; ++batch) {
    std::vector<std::string> argv{"RPUSH", "bulk"};
    for (int i = 0; i < 5000; ++i) argv.push_back(big);
    cmd(c.get(), argv);
  }
  EXPECT_EQ(str(cmd(c.get(), {"BGSAVE"})), "Background saving started");
  // Freeze the child (found at once; it needs far longer for 100 MB), so it is still saving
  // during the pushes however fast this machine is.
  const pid_t child = only_child(p.pid());
  ASSERT_GT(child, 0) << "no BGSAVE child under listd";
  ASSERT_EQ(::kill(child, SIGSTOP), 0);
  const std::string before = info_field(c.get(), "aof_fsyncs");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(cmd(c.get(), {"LPUSH", "jobs", "x"})->integer, i + 1);
  EXPECT_EQ(info_field(c.get(), "rdb_bgsave_in_progress"), "1");
  const std::string during = info_field(c.get(), "aof_fsyncs");
  EXPECT_EQ(during, before);
  ASSERT_EQ(::kill(child, SIGCONT), 0);
  // The thawed child completes its save.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (info_field(c.get(), "rdb_bgsave_in_progress") != "0" &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_EQ(info_field(c.get(), "rdb_bgsave_in_progress"), "0")
      << "the BGSAVE child never finished";
  EXPECT_EQ(info_field(c.get(), "rdb_last_bgsave_status"), "ok");
  // The next push after the child (once cron has seen it gone) is fsynced again. The bound
  // only ends a hung run: cron looks once a second, later on a loaded machine.
  const int polls = static_cast<int>(1500 * test_slowdown());
  for (int i = 0; i < polls; ++i) {
    cmd(c.get(), {"LPUSH", "jobs", "y"});
    if (std::stoll(info_field(c.get(), "aof_fsyncs")) > std::stoll(during)) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GT(std::stoll(info_field(c.get(), "aof_fsyncs")), std::stoll(during));
}

// After a failed BGSAVE with save points configured, Redis 7.0 refuses writes and PING with
// MISCONF (stop-writes-on-bgsave-error yes, the default) until a save succeeds. Both servers run
// the same script; their replies must be identical.
TEST(Persistence, MisconfAfterAFailedBgsaveAsRedis) {
  auto script = [](ServerProcess p, const std::string& dir) {
    std::vector<std::string> out;
    ContextPtr c(p.connect());
    auto run = [&](const std::vector<std::string>& argv) {
      ReplyPtr r = cmd(c.get(), argv);
      if (!r) return out.push_back("(no reply)");
      if (r->type == REDIS_REPLY_INTEGER) return out.push_back(":" + std::to_string(r->integer));
      if (r->type == REDIS_REPLY_NIL) return out.push_back("(nil)");
      if (r->type == REDIS_REPLY_ARRAY) return out.push_back("*" + std::to_string(r->elements));
      out.push_back((r->type == REDIS_REPLY_ERROR ? "-" : "+") + str(r));
    };
    auto wait_bgsave = [&] {
      for (int i = 0; i < 500 && info_field(c.get(), "rdb_bgsave_in_progress") != "0"; ++i)
        std::this_thread::sleep_for(20ms);
      EXPECT_EQ(info_field(c.get(), "rdb_bgsave_in_progress"), "0")
          << "BGSAVE still running after 10 s";
    };
    run({"SET", "k", "v"});
    fs::create_directory(dir + "/dump.rdb");  // the rename onto it fails
    run({"BGSAVE"});
    wait_bgsave();
    out.push_back(info_field(c.get(), "rdb_last_bgsave_status"));
    run({"SET", "k", "v2"});
    run({"PING"});
    run({"GET", "k"});
    run({"RPUSH", "q", "a"});
    run({"MULTI"});
    run({"SET", "k", "v3"});
    run({"EXEC"});
    run({"SAVE"});  // fails too; does not clear the state
    run({"CONFIG", "SET", "stop-writes-on-bgsave-error", "no"});
    run({"SET", "k", "v4"});
    run({"CONFIG", "SET", "stop-writes-on-bgsave-error", "yes"});
    run({"SET", "k", "v5"});
    fs::remove(dir + "/dump.rdb");
    run({"BGSAVE"});
    wait_bgsave();
    out.push_back(info_field(c.get(), "rdb_last_bgsave_status"));
    run({"SET", "k", "v6"});
    run({"PING"});
    return out;
  };
  TempDir dl, dr;
  const auto listd =
      script(ServerProcess::start_listd({"--dir", dl.path(), "--save", "3600 1"}), dl.path());
  const auto redis =
      script(ServerProcess::start_redis({"--dir", dr.path(), "--save", "3600 1"}), dr.path());
  EXPECT_EQ(listd, redis);
  ASSERT_GE(listd.size(), 4u);
  EXPECT_EQ(listd[2], "err");
  EXPECT_EQ(listd[3].rfind("-MISCONF ", 0), 0u) << listd[3];
}

}  // namespace listd::testing
