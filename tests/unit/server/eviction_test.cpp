// Eviction past maxmemory in-process (Redis 7.0 evict.c): which keys each policy evicts, -OOM
// when nothing may be evicted, OBJECT FREQ / IDLETIME, and what an eviction emits (DEL effects,
// `evicted` notifications, evicted_keys). The limit is set at the heap's current count, so each
// new value of about 1 KB evicts about one key.
//
// The sampled policies are probabilistic; each assertion's bound is argued where it is made
// and is far from what sampling can miss (no assertion fails with a probability above 1e-12).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/base/memory_accounting.h"
#include "listd/server/effect_stream.h"
#include "support/effect_line_recorder.h"
#include "support/test_server.h"

namespace listd::server {
namespace {

const std::string kValue(1000, 'v');

using Recorder = testing::EffectLineRecorder;

class EvictionTest : public ::testing::Test {
 protected:
  // No time limit on a cycle: what one command evicts does not depend on the machine's speed.
  void SetUp() override { set("maxmemory-eviction-tenacity", "100"); }
  void set(std::string_view name, std::string_view value) {
    ASSERT_EQ(t.run(c, {"CONFIG", "SET", name, value}), "+OK\r\n") << name;
  }
  void put(const std::string& key) { ASSERT_EQ(t.run_strings(c, {"SET", key, kValue}), "+OK\r\n"); }
  void put_px(const std::string& key, long long ms) {
    ASSERT_EQ(t.run_strings(c, {"SET", key, kValue, "PX", std::to_string(ms)}), "+OK\r\n");
  }
  bool exists(const std::string& key) { return t.run_strings(c, {"EXISTS", key}) == ":1\r\n"; }
  /// maxmemory at the heap's count now: the next values evict about one key each.
  void limit_at_current_usage() { set("maxmemory", std::to_string(base::used_memory())); }

  testing::TestServer t;
  Client& c = t.client();
};

TEST_F(EvictionTest, AllkeysLruKeepsTheRecentlyUsedKeys) {
  set("maxmemory-policy", "allkeys-lru");
  set("maxmemory-samples", "10");
  for (int i = 0; i < 1100; ++i) put("k:" + std::to_string(i));
  t.advance_ms(10'000);
  for (int i = 0; i < 100; ++i) t.run_strings(c, {"GET", "k:" + std::to_string(i)});  // touched
  t.advance_ms(10'000);
  limit_at_current_usage();
  for (int i = 0; i < 300; ++i) put("n:" + std::to_string(i));
  const std::uint64_t evicted = t.exec().evictor().evicted_keys();
  EXPECT_GE(evicted, 250u);
  int touched_alive = 0;
  for (int i = 0; i < 100; ++i) touched_alive += exists("k:" + std::to_string(i));
  // A touched key (idle 10 s) is evicted only when the pool holds no untouched one (idle 20 s).
  // Untouched keys stay at least 700 of at most 1400 keys, so 10 keys sampled in a row are all
  // touched or new with p <= 0.5^10 ~ 1e-3 per eviction, ignoring that the pool keeps its
  // candidates: about 0.3 expected losses over 300 evictions; losing 10 has p < 1e-15.
  EXPECT_GE(touched_alive, 90);
}

TEST_F(EvictionTest, VolatileTtlEvictsTheShortestTtlsAndNeverAPersistentKey) {
  set("maxmemory-policy", "volatile-ttl");
  set("maxmemory-samples", "20");
  for (int i = 0; i < 100; ++i) put("p:" + std::to_string(i));
  for (int i = 0; i < 200; ++i) put_px("t:" + std::to_string(i), 100'000 + i * 1000);
  limit_at_current_usage();
  for (int i = 0; i < 50; ++i) put("n:" + std::to_string(i));
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(exists("p:" + std::to_string(i))) << i;
  int short_lost = 0, long_lost = 0;
  for (int i = 0; i < 200; ++i)
    if (!exists("t:" + std::to_string(i))) ++(i < 100 ? short_lost : long_lost);
  EXPECT_GE(short_lost + long_lost, 40);
  // A key of the longer half goes only if none of the 20 sampled keys (and none in the pool)
  // is of the shorter half, which keeps at least 50 of 150: p <= (2/3)^20 ~ 3e-4 per eviction,
  // 0.015 expected over 50; more than 5 has p < 1e-13.
  EXPECT_LE(long_lost, 5);
}

TEST_F(EvictionTest, VolatilePoliciesWithoutVolatileKeysAnswerOom) {
  put("a");
  for (const char* policy : {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}) {
    set("maxmemory-policy", policy);
    set("maxmemory", "1");
    EXPECT_EQ(t.run(c, {"SET", "b", "x"}),
              "-OOM command not allowed when used memory > 'maxmemory'.\r\n")
        << policy;
    EXPECT_EQ(t.run(c, {"GET", "a"}), "$1000\r\n" + kValue + "\r\n");
    set("maxmemory", "0");
  }
  EXPECT_EQ(t.exec().evictor().evicted_keys(), 0u);
}

TEST_F(EvictionTest, AllkeysRandomEvictsUntilUnderTheLimitEvenTheLastKey) {
  set("maxmemory-policy", "allkeys-random");
  for (int i = 0; i < 50; ++i) put("k:" + std::to_string(i));
  set("maxmemory", "1");
  // Every key goes, then the write is refused: nothing is left to evict.
  EXPECT_EQ(t.run(c, {"SET", "x", "y"}),
            "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
  EXPECT_EQ(t.run(c, {"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(t.exec().evictor().evicted_keys(), 50u);
  const std::string info = t.run(c, {"INFO", "stats"});
  EXPECT_NE(info.find("\r\nevicted_keys:50\r\n"), std::string::npos);
  EXPECT_EQ(t.run(c, {"CONFIG", "RESETSTAT"}), "+OK\r\n");
  EXPECT_EQ(t.exec().evictor().evicted_keys(), 0u);
}

TEST_F(EvictionTest, EvictionsAreDelEffectsAndEvictedNotificationsAndTouchWatches) {
  Recorder r;
  t.exec().effects().subscribe(r);
  Client& sub = t.client();
  Client& watcher = t.client();
  set("notify-keyspace-events", "Ee");
  t.run(sub, {"SUBSCRIBE", "__keyevent@0__:evicted"});
  set("maxmemory-policy", "allkeys-lru");
  put("victim");
  EXPECT_EQ(t.run(watcher, {"WATCH", "victim"}), "+OK\r\n");
  r.lines.clear();
  set("maxmemory", "1");
  // The eviction runs before the command, whatever it is, and is logged alone (unwrapped).
  EXPECT_EQ(t.run(c, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(r.lines, (std::vector<std::string>{"DEL victim "}));
  EXPECT_EQ(t.take_output(sub),
            "*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:evicted\r\n$6\r\nvictim\r\n");
  set("maxmemory", "0");  // (past maxmemory MULTI would refuse PING)
  EXPECT_EQ(t.run(watcher, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(t.run(watcher, {"PING"}), "+QUEUED\r\n");
  EXPECT_EQ(t.run(watcher, {"EXEC"}), "*-1\r\n");
  t.exec().effects().unsubscribe(r);
}

TEST_F(EvictionTest, ABlockedClientStaysBlockedAndIsServedAfterEvictions) {
  Client& worker = t.client();
  EXPECT_EQ(t.run(worker, {"BLPOP", "jobs", "0"}), "");
  set("maxmemory-policy", "allkeys-lru");
  for (int i = 0; i < 20; ++i) put("k:" + std::to_string(i));
  limit_at_current_usage();
  for (int i = 0; i < 20; ++i) put("n:" + std::to_string(i));
  EXPECT_GT(t.exec().evictor().evicted_keys(), 0u);
  EXPECT_TRUE(worker.blocked());
  set("maxmemory", "0");
  EXPECT_EQ(t.run(c, {"RPUSH", "jobs", "j1"}), ":1\r\n");
  EXPECT_EQ(t.take_output(worker), "*2\r\n$4\r\njobs\r\n$2\r\nj1\r\n");
}

TEST_F(EvictionTest, ALoweredMaxmemoryEvictsFromTheTickWithoutACommand) {
  set("maxmemory-policy", "allkeys-random");
  for (int i = 0; i < 200; ++i) put("k:" + std::to_string(i));
  const std::size_t used = base::used_memory();
  set("maxmemory", std::to_string(used - 100 * kValue.size()));
  for (int i = 0; i < 1000 && t.exec().evictor().background_pending(); ++i) t.advance_ms(1);
  EXPECT_FALSE(t.exec().evictor().background_pending());
  EXPECT_GE(t.exec().evictor().evicted_keys(), 80u);
  EXPECT_LE(base::used_memory(), used - 100 * kValue.size() + 4096);  // + what the test allocates
}

TEST_F(EvictionTest, ObjectFreqCountsAccessesUnderLfuAndDecaysWithTime) {
  EXPECT_EQ(t.run(c, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "FREQ", "k"}),
            "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
            "note that when switching between policies at runtime LRU and LFU data will take "
            "some time to adjust.\r\n");
  set("maxmemory-policy", "allkeys-lfu");
  set("lfu-log-factor", "0");  // every access increments the counter
  EXPECT_EQ(t.run(c, {"SET", "f", "v"}), "+OK\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "FREQ", "f"}), ":5\r\n");  // LFU_INIT_VAL
  for (int i = 0; i < 10; ++i) t.run(c, {"GET", "f"});
  EXPECT_EQ(t.run(c, {"OBJECT", "FREQ", "f"}), ":15\r\n");  // OBJECT does not touch
  t.advance_ms(3 * 60'000);                                 // lfu-decay-time 1: -1 a minute
  EXPECT_EQ(t.run(c, {"OBJECT", "FREQ", "f"}), ":12\r\n");
  EXPECT_EQ(t.run(c, {"OBJECT", "IDLETIME", "f"}),
            "-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that "
            "when switching between policies at runtime LRU and LFU data will take some time to "
            "adjust.\r\n");
}

TEST_F(EvictionTest, AllkeysLfuEvictsTheRarelyUsedKeys) {
  set("maxmemory-policy", "allkeys-lfu");
  set("lfu-log-factor", "0");
  set("maxmemory-samples", "10");
  for (int i = 0; i < 1000; ++i) put("k:" + std::to_string(i));
  for (int i = 0; i < 100; ++i)
    for (int j = 0; j < 5; ++j) t.run_strings(c, {"GET", "k:" + std::to_string(i)});
  limit_at_current_usage();
  for (int i = 0; i < 300; ++i) put("n:" + std::to_string(i));
  int hot_alive = 0;
  for (int i = 0; i < 100; ++i) hot_alive += exists("k:" + std::to_string(i));
  // Hot keys (frequency 10) lose only to a pool without any cold or new key (frequency 5):
  // hot keys are at most 100 of 1000, p <= 0.1^10 per eviction.
  EXPECT_GE(hot_alive, 99);
}

TEST_F(EvictionTest, ObjectIdletimeIsTheTimeSinceTheLastTouch) {
  t.run(c, {"SET", "k", "v"});
  t.advance_ms(5000);
  EXPECT_EQ(t.run(c, {"OBJECT", "IDLETIME", "k"}), ":5\r\n");
  t.run(c, {"GET", "k"});
  EXPECT_EQ(t.run(c, {"OBJECT", "IDLETIME", "k"}), ":0\r\n");
}

}  // namespace
}  // namespace listd::server
