// handoff: hand-off latency of a blocking pop, and an exactly-once check.
//
// W worker connections each block in `BRPOP <key> 0`. A producer connection pushes one numbered
// element at a time (`LPUSH <key> <seq>`) and waits until some worker has received it (and its own
// LPUSH reply has arrived); the worker that got it re-issues BRPOP at once. Latency is measured
// from just before the LPUSH is written to the moment the worker's reply is read. All connections
// are driven by one epoll loop in this process, so W = 1000 needs no threads.
//
// Every element must arrive exactly once: a duplicate, an unknown element, a missing element (none
// within --timeout-ms) or elements left in the list afterwards make the tool exit 1.
//
// --mode stream measures the consumer-group hand-off the same way (issue 15): the workers are the
// consumers w0..w(W-1) of group `handoff` on the stream <key>, each blocked in `XREADGROUP GROUP
// handoff w<i> COUNT 1 BLOCK 0 STREAMS <key> >`; the producer sends `XADD <key> * n <seq>`; a
// worker that got an entry sends `XACK` for it and its next XREADGROUP in one write. Afterwards
// nothing may be left pending (XPENDING) instead of left in the list.
//
// hiredis (0.14, Debian) is used for connecting, command formatting and reply parsing. Contexts are
// blocking ones, but they are only read after epoll reported the socket readable, so a read never
// waits; writes are a few dozen bytes and never fill a socket buffer.
//
// Usage: handoff --port N --workers W --count M [--host H] [--key K] [--timeout-ms T]
//                [--mode list|stream]
// Prints one line:
//   workers=W count=M p50_us=.. p99_us=.. p999_us=.. max_us=.. handoffs_per_s=.. exactly_once=yes
#include <hiredis/hiredis.h>
#include <sys/epoll.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = -1;
  int workers = 1;
  long count = 10000;
  std::string key = "handoff:q";
  int timeout_ms = 5000;
  int ready_timeout_s = 20;
  bool stream = false;  // --mode stream: XADD to a consumer group blocked in XREADGROUP
};

[[noreturn]] void die(const char* what, const redisContext* c = nullptr) {
  std::fprintf(stderr, "handoff: %s%s%s\n", what, c ? ": " : "", c ? c->errstr : "");
  std::exit(2);
}

void usage() {
  std::fprintf(stderr,
               "usage: handoff --port N --workers W --count M [--host H] [--key K] "
               "[--timeout-ms T] [--mode list|stream]\n");
}

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--port") {
      o.port = std::atoi(v);
    } else if (a == "--workers") {
      o.workers = std::atoi(v);
    } else if (a == "--count") {
      o.count = std::atol(v);
    } else if (a == "--host") {
      o.host = v;
    } else if (a == "--key") {
      o.key = v;
    } else if (a == "--timeout-ms") {
      o.timeout_ms = std::atoi(v);
    } else if (a == "--mode") {
      if (std::string_view(v) != "list" && std::string_view(v) != "stream") return false;
      o.stream = std::string_view(v) == "stream";
    } else {
      return false;
    }
  }
  return o.port > 0 && o.workers > 0 && o.count > 0 && o.timeout_ms > 0;
}

redisContext* connect_or_die(const Options& o) {
  redisContext* c = redisConnect(o.host.c_str(), o.port);
  if (c == nullptr || c->err) die("connect failed", c);
  return c;
}

void send_command(redisContext* c, const char* fmt, const char* key, long arg, bool with_arg) {
  int rc = with_arg ? redisAppendCommand(c, fmt, key, arg) : redisAppendCommand(c, fmt, key);
  if (rc != REDIS_OK) die("append failed", c);
  int done = 0;
  while (!done) {
    if (redisBufferWrite(c, &done) != REDIS_OK) die("write failed", c);
  }
}

// A worker's wait: BRPOP, or its consumer's XREADGROUP (after the XACK of what it got, if any).
void send_wait(redisContext* c, const Options& o, size_t worker, const redisReply* acked_id) {
  if (!o.stream) {
    send_command(c, "BRPOP %s 0", o.key.c_str(), 0, false);
    return;
  }
  if (acked_id != nullptr &&
      redisAppendCommand(c, "XACK %s handoff %b", o.key.c_str(), acked_id->str,
                         static_cast<size_t>(acked_id->len)) != REDIS_OK)
    die("append failed", c);
  if (redisAppendCommand(c, "XREADGROUP GROUP handoff w%ld COUNT 1 BLOCK 0 STREAMS %s >",
                         static_cast<long>(worker), o.key.c_str()) != REDIS_OK)
    die("append failed", c);
  int done = 0;
  while (!done) {
    if (redisBufferWrite(c, &done) != REDIS_OK) die("write failed", c);
  }
}

// The element a worker's reply carries: BRPOP's [key, element]; XREADGROUP's
// [[key, [[id, [n, element]]]]] (RESP2), with the entry's id in `id`. Null when malformed.
const redisReply* element_of(const redisReply* r, bool stream, const redisReply** id) {
  if (r->type != REDIS_REPLY_ARRAY) return nullptr;
  if (!stream) {
    if (r->elements != 2 || r->element[1]->type != REDIS_REPLY_STRING) return nullptr;
    return r->element[1];
  }
  if (r->elements != 1 || r->element[0]->type != REDIS_REPLY_ARRAY) return nullptr;
  const redisReply* kv = r->element[0];
  if (kv->elements != 2 || kv->element[1]->type != REDIS_REPLY_ARRAY) return nullptr;
  const redisReply* entries = kv->element[1];
  if (entries->elements != 1 || entries->element[0]->type != REDIS_REPLY_ARRAY) return nullptr;
  const redisReply* entry = entries->element[0];
  if (entry->elements != 2 || entry->element[1]->type != REDIS_REPLY_ARRAY) return nullptr;
  const redisReply* fields = entry->element[1];
  if (fields->elements != 2 || fields->element[1]->type != REDIS_REPLY_STRING) return nullptr;
  *id = entry->element[0];
  return fields->element[1];
}

// Reads a number from the `blocked_clients:` line of `INFO clients`; -1 when absent.
long blocked_clients(redisContext* c) {
  auto* r = static_cast<redisReply*>(redisCommand(c, "INFO clients"));
  if (r == nullptr) die("INFO failed", c);
  long n = -1;
  if (r->type == REDIS_REPLY_STRING) {
    std::string_view s(r->str, r->len);
    auto pos = s.find("blocked_clients:");
    if (pos != std::string_view::npos) n = std::atol(s.data() + pos + 16);
  }
  freeReplyObject(r);
  return n;
}

double percentile_us(const std::vector<int64_t>& sorted_ns, double q) {
  if (sorted_ns.empty()) return 0.0;
  // Nearest rank.
  size_t rank = static_cast<size_t>(q * static_cast<double>(sorted_ns.size()) + 0.999999);
  if (rank == 0) rank = 1;
  if (rank > sorted_ns.size()) rank = sorted_ns.size();
  return static_cast<double>(sorted_ns[rank - 1]) / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, o)) {
    usage();
    return 2;
  }
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }

  redisContext* producer = connect_or_die(o);
  {
    auto* r = static_cast<redisReply*>(redisCommand(producer, "DEL %s", o.key.c_str()));
    if (r == nullptr) die("DEL failed", producer);
    freeReplyObject(r);
    if (o.stream) {
      r = static_cast<redisReply*>(
          redisCommand(producer, "XGROUP CREATE %s handoff $ MKSTREAM", o.key.c_str()));
      if (r == nullptr || r->type == REDIS_REPLY_ERROR) die("XGROUP CREATE failed", producer);
      freeReplyObject(r);
    }
  }
  long base_blocked = blocked_clients(producer);
  if (base_blocked < 0) die("INFO clients has no blocked_clients field");

  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) die("epoll_create1 failed");
  // epoll data: index into `workers`, or -1 for the producer.
  std::vector<redisContext*> workers;
  workers.reserve(static_cast<size_t>(o.workers));
  for (int i = 0; i < o.workers; ++i) {
    redisContext* c = connect_or_die(o);
    workers.push_back(c);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = static_cast<uint64_t>(i);
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl failed");
    send_wait(c, o, static_cast<size_t>(i), nullptr);
  }
  {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = UINT64_MAX;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, producer->fd, &ev) != 0) die("epoll_ctl failed");
  }

  // Bounded wait until the server reports every worker blocked.
  auto ready_deadline = Clock::now() + std::chrono::seconds(o.ready_timeout_s);
  long blocked = 0;
  while ((blocked = blocked_clients(producer)) < base_blocked + o.workers) {
    if (Clock::now() > ready_deadline) {
      std::fprintf(stderr, "handoff: only %ld of %d workers blocked after %d s\n",
                   blocked - base_blocked, o.workers, o.ready_timeout_s);
      return 2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  const size_t n = static_cast<size_t>(o.count);
  std::vector<uint32_t> seen(n, 0);
  std::vector<int64_t> latency_ns;
  latency_ns.reserve(n);
  long unknown = 0;
  long missing_timeouts = 0;
  std::vector<epoll_event> events(1024);

  // Handles every complete reply on worker `w`; returns true if element `want` arrived.
  auto drain_worker = [&](size_t w, long want, Clock::time_point t0, bool* got) {
    redisContext* c = workers[w];
    if (redisBufferRead(c) != REDIS_OK) die("worker read failed", c);
    void* raw = nullptr;
    for (;;) {
      if (redisGetReplyFromReader(c, &raw) != REDIS_OK) die("worker protocol error", c);
      if (raw == nullptr) break;
      auto* r = static_cast<redisReply*>(raw);
      auto now = Clock::now();
      if (o.stream && r->type == REDIS_REPLY_INTEGER) {  // the XACK of the previous entry
        if (r->integer != 1) ++unknown;
        freeReplyObject(r);
        continue;
      }
      const redisReply* id = nullptr;
      if (const redisReply* elem = element_of(r, o.stream, &id)) {
        char* end = nullptr;
        long s = std::strtol(elem->str, &end, 10);
        if (end != elem->str + elem->len || s < 0 || s >= o.count) {
          ++unknown;
        } else {
          ++seen[static_cast<size_t>(s)];
          if (s == want) {
            *got = true;
            latency_ns.push_back(
                std::chrono::duration_cast<std::chrono::nanoseconds>(now - t0).count());
          }
        }
      } else if (r->type == REDIS_REPLY_ERROR) {
        std::fprintf(stderr, "handoff: worker got error: %s\n", r->str);
        std::exit(2);
      } else {
        ++unknown;  // nil or malformed: a wait with timeout 0 must not answer without an element
      }
      send_wait(c, o, w, id);
      freeReplyObject(r);
    }
  };
  auto drain_producer = [&](long* acks) {
    if (redisBufferRead(producer) != REDIS_OK) die("producer read failed", producer);
    void* raw = nullptr;
    for (;;) {
      if (redisGetReplyFromReader(producer, &raw) != REDIS_OK) die("producer protocol error");
      if (raw == nullptr) break;
      auto* r = static_cast<redisReply*>(raw);
      if (r->type == REDIS_REPLY_ERROR) {
        std::fprintf(stderr, "handoff: LPUSH got error: %s\n", r->str);
        std::exit(2);
      }
      ++*acks;
      freeReplyObject(r);
    }
  };

  const auto start = Clock::now();
  long acks = 0;
  for (long seq = 0; seq < o.count; ++seq) {
    const auto t0 = Clock::now();
    send_command(producer, o.stream ? "XADD %s * n %ld" : "LPUSH %s %ld", o.key.c_str(), seq, true);
    bool got = false;
    const auto deadline = t0 + std::chrono::milliseconds(o.timeout_ms);
    while (!got || acks < seq + 1) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() < 0) break;
      int k = epoll_wait(ep, events.data(), static_cast<int>(events.size()),
                         static_cast<int>(left.count()) + 1);
      if (k < 0) {
        if (errno == EINTR) continue;
        die("epoll_wait failed");
      }
      for (int i = 0; i < k; ++i) {
        uint64_t id = events[static_cast<size_t>(i)].data.u64;
        if (id == UINT64_MAX) {
          drain_producer(&acks);
        } else {
          drain_worker(static_cast<size_t>(id), seq, t0, &got);
        }
      }
    }
    if (!got || acks < seq + 1) {
      ++missing_timeouts;
      std::fprintf(stderr, "handoff: element %ld not handed off within %d ms (acked=%s)\n", seq,
                   o.timeout_ms, acks >= seq + 1 ? "yes" : "no");
      break;
    }
  }
  const auto stop = Clock::now();

  // Grace period: anything arriving now is a duplicate or a stray.
  {
    const auto grace_end = Clock::now() + std::chrono::milliseconds(100);
    bool dummy = false;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(grace_end - Clock::now());
      if (left.count() <= 0) break;
      int k = epoll_wait(ep, events.data(), static_cast<int>(events.size()),
                         static_cast<int>(left.count()));
      for (int i = 0; i < k; ++i) {
        uint64_t id = events[static_cast<size_t>(i)].data.u64;
        if (id == UINT64_MAX) {
          drain_producer(&acks);
        } else {
          drain_worker(static_cast<size_t>(id), -1, stop, &dummy);
        }
      }
    }
  }
  long left_in_list = -1;
  {
    // Stream mode: entries delivered but never acknowledged (XPENDING's count).
    auto* r = static_cast<redisReply*>(
        o.stream ? redisCommand(producer, "XPENDING %s handoff", o.key.c_str())
                 : redisCommand(producer, "LLEN %s", o.key.c_str()));
    if (r != nullptr && r->type == REDIS_REPLY_INTEGER) left_in_list = r->integer;
    if (r != nullptr && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 &&
        r->element[0]->type == REDIS_REPLY_INTEGER)
      left_in_list = r->element[0]->integer;
    if (r != nullptr) freeReplyObject(r);
  }

  long duplicates = 0;
  long missing = 0;
  for (uint32_t s : seen) {
    if (s == 0) ++missing;
    if (s > 1) duplicates += s - 1;
  }
  const bool exactly_once =
      missing == 0 && duplicates == 0 && unknown == 0 && missing_timeouts == 0 && left_in_list == 0;

  std::sort(latency_ns.begin(), latency_ns.end());
  const double secs = std::chrono::duration<double>(stop - start).count();
  std::printf(
      "workers=%d count=%ld p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f "
      "handoffs_per_s=%.0f exactly_once=%s missing=%ld duplicates=%ld unknown=%ld "
      "left_in_list=%ld\n",
      o.workers, o.count, percentile_us(latency_ns, 0.50), percentile_us(latency_ns, 0.99),
      percentile_us(latency_ns, 0.999),
      latency_ns.empty() ? 0.0 : static_cast<double>(latency_ns.back()) / 1000.0,
      secs > 0 ? static_cast<double>(latency_ns.size()) / secs : 0.0, exactly_once ? "yes" : "no",
      missing, duplicates, unknown, left_in_list);
  std::fflush(stdout);

  for (redisContext* c : workers) redisFree(c);
  redisFree(producer);
  return exactly_once ? 0 : 1;
}
