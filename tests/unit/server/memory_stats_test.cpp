// MEMORY STATS: Redis 7.0.15's fields in its order (the shape is compared with redis-server's
// in tests/python/test_memory_stats.py), and values that add up: the overhead is
// the sum of its parts, the dataset the rest of the heap count, keys.count the DBSIZE sum, and
// the per-database figures grow with the keys and expiries they measure.
#include "listd/server/memory_stats.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/test_server.h"

using listd::testing::TestServer;

namespace {

// The RESP2 reply's top-level field names in order and their raw values (a nested map's value
// is kept as its text).
struct Fields {
  std::vector<std::string> names;
  std::map<std::string, std::string> values;
  long long num(const std::string& name) const { return std::stoll(values.at(name)); }
  double dbl(const std::string& name) const { return std::stod(values.at(name)); }
};

std::string read_line(const std::string& s, std::size_t& at) {
  const std::size_t end = s.find("\r\n", at);
  std::string line = s.substr(at, end - at);
  at = end + 2;
  return line;
}

// One RESP2 element at `at` as text: an integer's digits, a bulk's bytes, an array's elements
// joined by spaces.
std::string read_element(const std::string& s, std::size_t& at) {
  const std::string line = read_line(s, at);
  if (line[0] == ':') return line.substr(1);
  if (line[0] == '$') {
    const std::size_t n = std::stoul(line.substr(1));
    std::string bytes = s.substr(at, n);
    at += n + 2;
    return bytes;
  }
  std::string joined;
  for (long long i = std::stoll(line.substr(1)); i > 0; --i)
    joined += (joined.empty() ? "" : " ") + read_element(s, at);
  return joined;
}

Fields memory_stats(TestServer& t, listd::server::Client& c) {
  const std::string reply = t.run(c, {"MEMORY", "STATS"});
  std::size_t at = 0;
  const long long n = std::stoll(read_line(reply, at).substr(1));
  Fields f;
  for (long long i = 0; i < n; i += 2) {
    std::string name = read_element(reply, at);
    f.values[name] = read_element(reply, at);
    f.names.push_back(std::move(name));
  }
  EXPECT_EQ(at, reply.size());
  return f;
}

const std::vector<std::string> kHead = {
    "peak.allocated", "total.allocated", "startup.allocated", "replication.backlog",
    "clients.slaves", "clients.normal",  "cluster.links",     "aof.buffer",
    "lua.caches",     "functions.caches"};
const std::vector<std::string> kTail = {"overhead.total",
                                        "keys.count",
                                        "keys.bytes-per-key",
                                        "dataset.bytes",
                                        "dataset.percentage",
                                        "peak.percentage",
                                        "allocator.allocated",
                                        "allocator.active",
                                        "allocator.resident",
                                        "allocator-fragmentation.ratio",
                                        "allocator-fragmentation.bytes",
                                        "allocator-rss.ratio",
                                        "allocator-rss.bytes",
                                        "rss-overhead.ratio",
                                        "rss-overhead.bytes",
                                        "fragmentation",
                                        "fragmentation.bytes"};

std::vector<std::string> expected_names(const std::vector<std::string>& dbs) {
  std::vector<std::string> names = kHead;
  names.insert(names.end(), dbs.begin(), dbs.end());
  names.insert(names.end(), kTail.begin(), kTail.end());
  return names;
}

// "overhead.hashtable.main N overhead.hashtable.expires N ..." of a db.N field.
long long db_figure(const Fields& f, const std::string& db, const std::string& name) {
  const std::string& text = f.values.at(db);
  const std::size_t at = text.find(name + " ");
  return std::stoll(text.substr(at + name.size() + 1));
}

}  // namespace

TEST(MemoryStats, FieldsInRedisOrderWithADbMapPerDatabaseWithKeys) {
  TestServer t;
  auto& c = t.client();
  EXPECT_EQ(memory_stats(t, c).names, expected_names({}));
  t.run(c, {"RPUSH", "q", "a", "b"});
  t.run(c, {"SELECT", "3"});
  t.run(c, {"SET", "s", "v"});
  const Fields f = memory_stats(t, c);
  EXPECT_EQ(f.names, expected_names({"db.0", "db.3"}));
  EXPECT_EQ(f.values.at("db.3").substr(0, 24), "overhead.hashtable.main ");
  EXPECT_NE(f.values.at("db.3").find(" overhead.hashtable.slot-to-keys 0"), std::string::npos);
}

TEST(MemoryStats, OverheadIsTheSumOfItsPartsAndTheDatasetTheRest) {
  TestServer t;
  auto& c = t.client();
  for (int i = 0; i < 50; ++i) t.run_strings(c, {"RPUSH", "q" + std::to_string(i), "x"});
  t.run(c, {"SET", "lease", "v", "PX", "100000"});
  t.run(c, {"SELECT", "5"});
  t.run(c, {"SET", "s", "v"});
  const Fields f = memory_stats(t, c);
  long long parts = 0;
  for (const char* name :
       {"startup.allocated", "replication.backlog", "clients.slaves", "clients.normal",
        "cluster.links", "aof.buffer", "lua.caches", "functions.caches"})
    parts += f.num(name);
  for (const char* db : {"db.0", "db.5"})
    for (const char* name : {"overhead.hashtable.main", "overhead.hashtable.expires",
                             "overhead.hashtable.slot-to-keys"})
      parts += db_figure(f, db, name);
  EXPECT_EQ(f.num("overhead.total"), parts);
  EXPECT_LE(f.num("overhead.total"), f.num("total.allocated"));
  EXPECT_EQ(f.num("dataset.bytes"), f.num("total.allocated") - f.num("overhead.total"));
  EXPECT_LE(f.num("total.allocated"), f.num("peak.allocated"));
  EXPECT_EQ(f.num("keys.count"), 52);  // DBSIZE of db 0 (51) and db 5 (1)
  const long long net = f.num("total.allocated") - f.num("startup.allocated");
  EXPECT_EQ(f.num("keys.bytes-per-key"), net / 52);
  EXPECT_NEAR(f.dbl("dataset.percentage"), 100.0 * f.num("dataset.bytes") / net, 0.01);
  EXPECT_NEAR(f.dbl("peak.percentage"), 100.0 * f.num("total.allocated") / f.num("peak.allocated"),
              0.01);
  EXPECT_GT(f.num("clients.normal"), 0);  // this client's structure at least
  EXPECT_EQ(f.num("clients.slaves"), 0);
  EXPECT_EQ(db_figure(f, "db.5", "overhead.hashtable.expires"), 0);
  EXPECT_GT(db_figure(f, "db.0", "overhead.hashtable.expires"), 0);
}

TEST(MemoryStats, AllocatorFiguresAreTheHeapCountAndTheRssAsRedisUnderLibc) {
  TestServer t;
  auto& c = t.client();
  const Fields f = memory_stats(t, c);
  EXPECT_EQ(f.num("allocator.allocated"), f.num("total.allocated"));
  EXPECT_EQ(f.num("allocator.active"), f.num("allocator.resident"));
  EXPECT_EQ(f.num("allocator-fragmentation.bytes"),
            f.num("allocator.active") - f.num("allocator.allocated"));
  EXPECT_EQ(f.num("fragmentation.bytes"), f.num("allocator.resident") - f.num("total.allocated"));
  EXPECT_EQ(f.values.at("allocator-rss.ratio"), "1");
  EXPECT_EQ(f.num("allocator-rss.bytes"), 0);
  EXPECT_EQ(f.values.at("rss-overhead.ratio"), "1");
  EXPECT_EQ(f.num("rss-overhead.bytes"), 0);
  EXPECT_NEAR(f.dbl("fragmentation"),
              static_cast<double>(f.num("allocator.resident")) / f.num("total.allocated"), 0.001);
}

TEST(MemoryStats, DatabaseFiguresGrowWithKeysAndExpiries) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"SET", "first", "v"});
  const Fields before = memory_stats(t, c);
  const std::string long_key(100, 'k');
  for (int i = 0; i < 200; ++i)
    t.run_strings(c, {"SET", long_key + std::to_string(i), "v", "EX", "1000"});
  const Fields after = memory_stats(t, c);
  // Each key adds an entry header; each expiry a deadline holding a heap copy of the key.
  EXPECT_GE(db_figure(after, "db.0", "overhead.hashtable.main") -
                db_figure(before, "db.0", "overhead.hashtable.main"),
            200 * static_cast<long long>(sizeof(listd::store::Entry)));
  EXPECT_GE(db_figure(after, "db.0", "overhead.hashtable.expires"), 200 * 101);
#if !defined(__SANITIZE_ADDRESS__)
  // The heap count includes operator new's blocks only outside sanitizer builds (ASan keeps its
  // own operator new: counting_operator_new.cpp), and the keys are new'd.
  EXPECT_GT(after.num("dataset.bytes"), before.num("dataset.bytes"));
#endif
  t.run(c, {"FLUSHALL"});
  EXPECT_EQ(memory_stats(t, c).names, expected_names({}));
}

TEST(MemoryStats, InfoMemoryOverheadIsTheStatsOverhead) {
  TestServer t;
  auto& c = t.client();
  t.run(c, {"RPUSH", "q", "a"});
  const Fields f = memory_stats(t, c);
  const std::string info = t.run(c, {"INFO", "memory"});
  const std::size_t at = info.find("used_memory_overhead:");
  ASSERT_NE(at, std::string::npos);
  // Nothing allocated or freed in between changes the parts (the same client, keys, buffers).
  EXPECT_EQ(std::stoll(info.substr(at + 21)), f.num("overhead.total"));
}

TEST(MemoryStats, HelpListsStatsAsRedis) {
  TestServer t;
  auto& c = t.client();
  const std::string help = t.run(c, {"MEMORY", "HELP"});
  EXPECT_NE(help.find("+PURGE\r\n+    Attempt to purge dirty pages for reclamation by the "
                      "allocator.\r\n+STATS\r\n+    Return information about the memory usage "
                      "of the server.\r\n+USAGE <key> [SAMPLES <count>]\r\n"),
            std::string::npos)
      << help;
}
