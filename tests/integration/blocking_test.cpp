// Blocking pops end to end against the real listd over TCP (hiredis): the seed scenarios, the
// timeout/push race, BLMOVE chains, disconnects, CLIENT UNBLOCK, MULTI, pipelining behind a
// blocked BRPOP and the BRPOP 0.1 timer.
//
// Clients are ordered by polling `INFO clients` -> blocked_clients in a bounded loop (Redis'
// wait_for_blocked_client), never by a fixed sleep: a worker counts as "arrived" once the
// server shows it blocked.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/server_process.h"

namespace listd::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using Reply = ReplyPtr;
using Conn = ContextPtr;

/// A reply rendered as text for compact assertions: "nil", "(error) ...", ":3", "x", "[k, v]".
std::string show(const redisReply* r) {
  if (!r) return "<no reply>";
  switch (r->type) {
    case REDIS_REPLY_NIL: return "nil";
    case REDIS_REPLY_ERROR: return "(error) " + std::string(r->str, r->len);
    case REDIS_REPLY_INTEGER: return ":" + std::to_string(r->integer);
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS: return std::string(r->str, r->len);
    case REDIS_REPLY_ARRAY: {
      std::string out = "[";
      for (std::size_t i = 0; i < r->elements; ++i) {
        if (i) out += ", ";
        out += show(r->element[i]);
      }
      return out + "]";
    }
    default: return "<type " + std::to_string(r->type) + ">";
  }
}

class BlockingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.emplace(ServerProcess::start_listd());
    admin_ = connect();
  }
  void TearDown() override {
    // No waiter may be left behind by a scenario.
    if (admin_) {
      EXPECT_EQ(info_field("blocked_clients"), 0);
    }
    admin_.reset();
    if (server_) {
      EXPECT_EQ(server_->stop(), 0);
    }
  }

  Conn connect() { return Conn(server_->connect()); }

  /// Runs a command on `c` and returns its reply rendered by show().
  template <class... Args>
  std::string run(redisContext* c, const char* fmt, Args... args) {
    Reply r(static_cast<redisReply*>(redisCommand(c, fmt, args...)));
    return show(r.get());
  }

  /// Sends a command without reading its reply (a worker that is about to block).
  template <class... Args>
  void send(redisContext* c, const char* fmt, Args... args) {
    ASSERT_EQ(redisAppendCommand(c, fmt, args...), REDIS_OK);
    int done = 0;
    while (!done) ASSERT_EQ(redisBufferWrite(c, &done), REDIS_OK);
  }

  /// Reads the next reply of `c` (bounded by the 10 s socket timeout).
  std::string receive(redisContext* c) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK) return "<error: " + std::string(c->errstr) + ">";
    Reply r(static_cast<redisReply*>(raw));
    return show(r.get());
  }

  /// A numeric field of INFO clients (-1 if absent).
  long long info_field(const std::string& name) {
    const std::string info = run(admin_.get(), "INFO clients");
    const std::size_t at = info.find(name + ":");
    if (at == std::string::npos) return -1;
    return std::stoll(info.substr(at + name.size() + 1));
  }

  /// Polls until INFO clients shows `n` blocked clients; fails the test after 10 s.
  void wait_for_blocked(long long n) {
    const auto deadline = Clock::now() + 10s;
    long long now = -1;
    while (Clock::now() < deadline) {
      now = info_field("blocked_clients");
      if (now == n) return;
      std::this_thread::sleep_for(1ms);
    }
    FAIL() << "blocked_clients stayed " << now << ", expected " << n;
  }

  /// `n` workers, each sending `cmd` and counted as blocked before the next one arrives.
  std::vector<Conn> block_workers(std::size_t n, const char* cmd, long long already_blocked = 0) {
    std::vector<Conn> out;
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(connect());
      send(out.back().get(), cmd);
      wait_for_blocked(already_blocked + static_cast<long long>(i) + 1);
    }
    return out;
  }

  std::optional<ServerProcess> server_;
  Conn admin_;
};

TEST_F(BlockingTest, TenWorkersOneLpushOnlyTheOldestGetsIt) {
  auto w = block_workers(10, "BRPOP task:queue 5");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  EXPECT_EQ(receive(w[0].get()), "[task:queue, 6]");
  wait_for_blocked(9);
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), ":0");
  // The other nine are still waiting, in arrival order: one push of nine elements serves them
  // oldest first, one element each.
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue e1 e2 e3 e4 e5 e6 e7 e8 e9"), ":9");
  for (std::size_t i = 1; i < 10; ++i)
    EXPECT_EQ(receive(w[i].get()), "[task:queue, e" + std::to_string(i) + "]")
        << "worker " << i + 1;
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), ":0");
}

TEST_F(BlockingTest, ArrivalOrderBrpopBrpopLpush) {
  auto w = block_workers(2, "BRPOP task:queue 5");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  EXPECT_EQ(receive(w[0].get()), "[task:queue, 6]");
  wait_for_blocked(1);
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 7"), ":1");
  EXPECT_EQ(receive(w[1].get()), "[task:queue, 7]");
}

TEST_F(BlockingTest, ArrivalOrderLpushBrpopBrpop) {
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  Conn w1 = connect();
  EXPECT_EQ(run(w1.get(), "BRPOP task:queue 5"), "[task:queue, 6]");
  auto w2 = block_workers(1, "BRPOP task:queue 5");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 7"), ":1");
  EXPECT_EQ(receive(w2[0].get()), "[task:queue, 7]");
}

TEST_F(BlockingTest, ArrivalOrderBrpopLpushBrpop) {
  auto w1 = block_workers(1, "BRPOP task:queue 5");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  EXPECT_EQ(receive(w1[0].get()), "[task:queue, 6]");
  wait_for_blocked(0);
  auto w2 = block_workers(1, "BRPOP task:queue 5");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 7"), ":1");
  EXPECT_EQ(receive(w2[0].get()), "[task:queue, 7]");
}

TEST_F(BlockingTest, LpushOfThreeWithTenWaitersServesTheThreeOldest) {
  auto w = block_workers(10, "BRPOP task:queue 5");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6 7 8"), ":3");
  EXPECT_EQ(receive(w[0].get()), "[task:queue, 6]");
  EXPECT_EQ(receive(w[1].get()), "[task:queue, 7]");
  EXPECT_EQ(receive(w[2].get()), "[task:queue, 8]");
  wait_for_blocked(7);
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), ":0");
  // The other seven still wait in order: RPUSH a..g, BRPOP takes g first.
  EXPECT_EQ(run(admin_.get(), "RPUSH task:queue a b c d e f g"), ":7");
  for (std::size_t i = 3; i < 10; ++i)
    EXPECT_EQ(receive(w[i].get()),
              "[task:queue, " + std::string(1, static_cast<char>('g' - (i - 3))) + "]");
}

TEST_F(BlockingTest, MultiKeyWorkerIsServedFromEitherKeyAndLeavesBothQueues) {
  auto w = block_workers(1, "BRPOP task:queue:vip task:queue:normal 5");
  EXPECT_EQ(info_field("total_blocking_keys"), 2);
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue:normal n1"), ":1");
  EXPECT_EQ(receive(w[0].get()), "[task:queue:normal, n1]");
  wait_for_blocked(0);
  EXPECT_EQ(info_field("total_blocking_keys"), 0);
  // First non-empty key in argument order when both have data.
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue:normal n2"), ":1");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue:vip v1"), ":1");
  EXPECT_EQ(run(w[0].get(), "BRPOP task:queue:vip task:queue:normal 5"), "[task:queue:vip, v1]");
  EXPECT_EQ(run(w[0].get(), "BRPOP task:queue:vip task:queue:normal 5"), "[task:queue:normal, n2]");
}

TEST_F(BlockingTest, TimeoutThenPushLeavesTheElementForTheNextConsumer) {
  Conn w = connect();
  EXPECT_EQ(run(w.get(), "BRPOP task:queue 0.05"), "nil");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), ":1");
  EXPECT_EQ(run(w.get(), "BRPOP task:queue 0.05"), "[task:queue, 6]");
}

TEST_F(BlockingTest, TimeoutRacingPushesNeverLosesOrDuplicatesAnElement) {
  // A worker loops on 1 ms BRPOPs while a producer pushes: each element is received once or
  // stays in the list, whichever side of each deadline the push lands on.
  constexpr int kElements = 300;
  std::atomic<bool> stop{false};
  std::atomic<int> acked{0};  // pushes the producer has seen acknowledged
  std::vector<std::string> received;
  int nils = 0;
  int nils_after_an_ack = 0;  // the BRPOP was sent before a push's ack and still timed out
  std::thread worker([&] {
    Conn c = connect();
    while (!stop.load()) {
      const int acked_before = acked.load();
      Reply r(static_cast<redisReply*>(redisCommand(c.get(), "BRPOP race 0.001")));
      if (!r) break;
      if (r->type == REDIS_REPLY_NIL) {
        ++nils;
        if (acked.load() > acked_before) ++nils_after_an_ack;
      } else if (r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
        received.emplace_back(r->element[1]->str, r->element[1]->len);
      }
    }
  });
  Conn producer = connect();
  for (int i = 0; i < kElements; ++i) {
    EXPECT_EQ(run(producer.get(), "LPUSH race %d", i).substr(0, 1), ":");
    ++acked;
    // Pauses longer than the worker's timeout, so deadlines and pushes interleave.
    if (i % 10 == 0) std::this_thread::sleep_for(3ms);
  }
  // Let the worker drain what is left, then stop it.
  const auto deadline = Clock::now() + 10s;
  while (run(admin_.get(), "LLEN race") != ":0" && Clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  stop = true;
  worker.join();
  std::set<std::string> unique(received.begin(), received.end());
  EXPECT_EQ(unique.size(), received.size()) << "an element was delivered twice";
  EXPECT_EQ(received.size(), static_cast<std::size_t>(kElements)) << "an element was lost";
  EXPECT_GT(nils, 0) << "the worker never timed out: the race was not exercised";
  // How often a timeout and a push overlapped (timing-dependent, so printed, not asserted: the
  // same-turn case itself is pinned down on the manual clock in blocking_commands_test.cpp).
  std::printf("BRPOP 0.001 race: %d nils, %d of them after a push was acknowledged\n", nils,
              nils_after_an_ack);
}

TEST_F(BlockingTest, BlmoveChainServesTheFirstClientFromTheDestination) {
  auto a = block_workers(1, "BLPOP dst 0");
  auto b = block_workers(1, "BLMOVE src dst RIGHT LEFT 0", 1);
  EXPECT_EQ(run(admin_.get(), "LPUSH src v"), ":1");
  EXPECT_EQ(receive(b[0].get()), "v");
  EXPECT_EQ(receive(a[0].get()), "[dst, v]");
  EXPECT_EQ(run(admin_.get(), "EXISTS src dst"), ":0");
}

TEST_F(BlockingTest, DisconnectWhileBlockedLosesNothing) {
  auto w = block_workers(1, "BRPOP task:queue 0");
  w.clear();  // close the worker's socket
  wait_for_blocked(0);
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), ":1");
}

TEST_F(BlockingTest, HalfClosedWorkerIsNeverHandedAnElement) {
  // As Redis 7.0.15 does: a worker that shut down its sending side is gone, and the element
  // goes to the next waiter instead of being lost with it.
  auto dead = block_workers(1, "BRPOP task:queue 0");
  auto alive = block_workers(1, "BRPOP task:queue 0", 1);
  ASSERT_EQ(::shutdown(dead[0]->fd, SHUT_WR), 0);
  wait_for_blocked(1);
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), ":1");
  EXPECT_EQ(receive(alive[0].get()), "[task:queue, 6]");
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), ":0");
}

TEST_F(BlockingTest, ClientUnblockAnswersNilOrAnError) {
  Conn w = connect();
  const std::string id = run(w.get(), "CLIENT ID").substr(1);
  send(w.get(), "BRPOP task:queue 0");
  wait_for_blocked(1);
  EXPECT_EQ(run(admin_.get(), "CLIENT UNBLOCK %s", id.c_str()), ":1");
  EXPECT_EQ(receive(w.get()), "nil");
  EXPECT_EQ(run(admin_.get(), "CLIENT UNBLOCK %s", id.c_str()), ":0");
  send(w.get(), "BLMOVE src dst LEFT LEFT 0");
  wait_for_blocked(1);
  EXPECT_EQ(run(admin_.get(), "CLIENT UNBLOCK %s ERROR", id.c_str()), ":1");
  EXPECT_EQ(receive(w.get()), "(error) UNBLOCKED client unblocked via CLIENT UNBLOCK");
  EXPECT_EQ(run(admin_.get(), "LPUSH src x"), ":1");
  EXPECT_EQ(run(admin_.get(), "LLEN src"), ":1");
}

TEST_F(BlockingTest, PushAndPopInOneTransactionWakesNobody) {
  auto w = block_workers(1, "BRPOP task:queue 0");
  EXPECT_EQ(run(admin_.get(), "MULTI"), "OK");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 6"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "RPOP task:queue"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "EXEC"), "[:1, 6]");
  wait_for_blocked(1);
  // A push inside a transaction wakes the worker only once EXEC has run.
  EXPECT_EQ(run(admin_.get(), "MULTI"), "OK");
  EXPECT_EQ(run(admin_.get(), "LPUSH task:queue 7 8"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "LLEN task:queue"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "EXEC"), "[:2, :2]");
  EXPECT_EQ(receive(w[0].get()), "[task:queue, 7]");
  EXPECT_EQ(run(admin_.get(), "LRANGE task:queue 0 -1"), "[8]");
}

TEST_F(BlockingTest, BlockingCommandsInsideMultiAnswerAtOnce) {
  EXPECT_EQ(run(admin_.get(), "MULTI"), "OK");
  EXPECT_EQ(run(admin_.get(), "BRPOP k 0"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "BRPOPLPUSH k d 0"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "BLMOVE k d LEFT LEFT 0"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "BLMPOP 0 1 k LEFT"), "QUEUED");
  EXPECT_EQ(run(admin_.get(), "EXEC"), "[nil, nil, nil, nil]");
}

TEST_F(BlockingTest, PipelinedCommandsWaitBehindABlockedBrpop) {
  Conn w = connect();
  // One write: the blocking command and three more behind it.
  ASSERT_EQ(redisAppendCommand(w.get(), "BRPOP q 0"), REDIS_OK);
  ASSERT_EQ(redisAppendCommand(w.get(), "LLEN q"), REDIS_OK);
  ASSERT_EQ(redisAppendCommand(w.get(), "RPUSH after x"), REDIS_OK);
  ASSERT_EQ(redisAppendCommand(w.get(), "ECHO done"), REDIS_OK);
  int done = 0;
  while (!done) ASSERT_EQ(redisBufferWrite(w.get(), &done), REDIS_OK);
  wait_for_blocked(1);
  // Nothing behind the BRPOP has run.
  EXPECT_EQ(run(admin_.get(), "EXISTS after"), ":0");
  EXPECT_EQ(run(admin_.get(), "LPUSH q v1 v2"), ":2");
  EXPECT_EQ(receive(w.get()), "[q, v1]");
  EXPECT_EQ(receive(w.get()), ":1");  // LLEN ran after the pop
  EXPECT_EQ(receive(w.get()), ":1");
  EXPECT_EQ(receive(w.get()), "done");
  EXPECT_EQ(run(admin_.get(), "LRANGE after 0 -1"), "[x]");
}

TEST_F(BlockingTest, BrpopWithATenthOfASecondAnswersAfterItsTimeout) {
  // CI asserts only the bounds; the distribution goes to stdout (timing tables live in bench/).
  Conn w = connect();
  std::vector<double> elapsed_ms;
  for (int i = 0; i < 10; ++i) {
    const auto t0 = Clock::now();
    EXPECT_EQ(run(w.get(), "BRPOP timer:k 0.1"), "nil");
    elapsed_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(elapsed_ms.begin(), elapsed_ms.end());
  // The lower bound is exact; the upper one only catches a timer that never fires on its own
  // (generous, and scaled for the sanitizer pass).
  for (double ms : elapsed_ms) {
    EXPECT_GE(ms, 100.0);
    EXPECT_LT(ms, 2000.0 * test_slowdown());
  }
  std::printf("BRPOP k 0.1 round trip (ms): min %.2f median %.2f max %.2f\n", elapsed_ms.front(),
              elapsed_ms[elapsed_ms.size() / 2], elapsed_ms.back());
}

}  // namespace
}  // namespace listd::testing
