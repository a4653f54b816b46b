// rehash_latency: the worst command latency while the keyspace grows (issue 18, section 3).
//
// A loader connection grows the keyspace with pipelined `SET key:<n> v` (batches of --batch, all
// written, then all replies read) from 0 to --from keys (not measured), then from --from to --to
// keys (measured). Meanwhile a probe connection, on its own thread, sends one `GET probe` at a
// time and times each round trip. The server is single-threaded, so a table resize that relinks
// every key stalls the probe for as long as it takes: the probe's worst round trip is the worst
// wait any command saw. The loader's worst batch time is printed too (a batch waits for the
// stall as well, plus its own --batch commands).
//
// Usage: rehash_latency --port N [--host H] [--from 1000000] [--to 10000000] [--batch 1000]
// Prints one line:
//   from=.. to=.. probes=.. probe_p50_us=.. probe_p999_us=.. probe_max_us=.. batch_max_us=..
//   load_s=.. keys=..
// keys is DBSIZE at the end, which must equal --to (the tool exits 1 otherwise).
#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

long long micros(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

redisContext* connect_or_die(const char* host, int port) {
  redisContext* c = redisConnect(host, port);
  if (!c || c->err) {
    std::fprintf(stderr, "connect %s:%d: %s\n", host, port, c ? c->errstr : "out of memory");
    std::exit(2);
  }
  return c;
}

void reply_or_die(redisContext* c) {
  void* r = nullptr;
  if (redisGetReply(c, &r) != REDIS_OK || !r) {
    std::fprintf(stderr, "reply: %s\n", c->errstr);
    std::exit(2);
  }
  const bool error = static_cast<redisReply*>(r)->type == REDIS_REPLY_ERROR;
  if (error) std::fprintf(stderr, "error reply: %s\n", static_cast<redisReply*>(r)->str);
  freeReplyObject(r);
  if (error) std::exit(2);
}

// Returns the worst batch round trip (microseconds).
long long load(redisContext* c, long long from, long long to, long long batch) {
  long long worst = 0;
  char key[32];
  for (long long n = from; n < to;) {
    const long long end = std::min(to, n + batch);
    const auto t0 = Clock::now();
    for (long long i = n; i < end; ++i) {
      const int len = std::snprintf(key, sizeof key, "key:%lld", i);
      redisAppendCommand(c, "SET %b v", key, static_cast<size_t>(len));
    }
    for (long long i = n; i < end; ++i) reply_or_die(c);
    worst = std::max(worst, micros(Clock::now() - t0));
    n = end;
  }
  return worst;
}

long long percentile(std::vector<long long>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * (v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + i, v.end());
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  const char* host = "127.0.0.1";
  int port = 0;
  long long from = 1000000, to = 10000000, batch = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--host")
      host = argv[i + 1];
    else if (a == "--port")
      port = std::atoi(argv[i + 1]);
    else if (a == "--from")
      from = std::atoll(argv[i + 1]);
    else if (a == "--to")
      to = std::atoll(argv[i + 1]);
    else if (a == "--batch")
      batch = std::atoll(argv[i + 1]);
  }
  if (port <= 0 || from < 0 || to <= from || batch <= 0) {
    std::fprintf(stderr, "usage: rehash_latency --port N [--from F] [--to T] [--batch B]\n");
    return 2;
  }
  redisContext* loader = connect_or_die(host, port);
  redisContext* probe = connect_or_die(host, port);
  freeReplyObject(redisCommand(loader, "FLUSHALL"));
  load(loader, 0, from, batch);

  std::atomic<bool> done{false};
  std::vector<long long> rtts;
  rtts.reserve(1 << 22);
  std::thread prober([&] {
    while (!done.load(std::memory_order_relaxed)) {
      const auto t0 = Clock::now();
      redisAppendCommand(probe, "GET probe");
      reply_or_die(probe);
      rtts.push_back(micros(Clock::now() - t0));
    }
  });
  const auto start = Clock::now();
  const long long batch_max = load(loader, from, to, batch);
  const double load_s = micros(Clock::now() - start) / 1e6;
  done = true;
  prober.join();

  auto* r = static_cast<redisReply*>(redisCommand(loader, "DBSIZE"));
  const long long keys = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
  if (r) freeReplyObject(r);
  const long long max = rtts.empty() ? 0 : *std::max_element(rtts.begin(), rtts.end());
  const std::size_t probes = rtts.size();
  const long long p50 = percentile(rtts, 0.5), p999 = percentile(rtts, 0.999);
  std::printf(
      "from=%lld to=%lld probes=%zu probe_p50_us=%lld probe_p999_us=%lld probe_max_us=%lld "
      "batch_max_us=%lld load_s=%.1f keys=%lld\n",
      from, to, probes, p50, p999, max, batch_max, load_s, keys);
  redisFree(probe);
  redisFree(loader);
  return keys == to ? 0 : 1;
}
