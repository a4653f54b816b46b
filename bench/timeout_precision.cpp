// timeout_precision: how late a blocking pop's timeout fires.
//
// For each timeout T, runs `BRPOP <key> T` on a key that never gets an element, S times, and
// measures the wall time until the nil reply arrives. Lateness = elapsed - T. Prints one line per
// T:
//   timeout_s=0.01 samples=20 p50_late_ms=.. max_late_ms=.. min_late_ms=..
// Exits 1 if a reply is not nil or arrives early (before T has passed).
//
// Usage: timeout_precision --port N [--host H] [--samples S] [--timeouts 0.01,0.1,0.25]
#include <hiredis/hiredis.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void usage() {
  std::fprintf(stderr,
               "usage: timeout_precision --port N [--host H] [--samples S] "
               "[--timeouts 0.01,0.1,0.25]\n");
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1";
  int port = -1;
  int samples = 20;
  std::string timeouts = "0.01,0.1,0.25";
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) {
      usage();
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--port") {
      port = std::atoi(v);
    } else if (a == "--host") {
      host = v;
    } else if (a == "--samples") {
      samples = std::atoi(v);
    } else if (a == "--timeouts") {
      timeouts = v;
    } else {
      usage();
      return 2;
    }
  }
  if (port <= 0 || samples <= 0) {
    usage();
    return 2;
  }
  redisContext* c = redisConnect(host.c_str(), port);
  if (c == nullptr || c->err) {
    std::fprintf(stderr, "timeout_precision: connect failed: %s\n", c ? c->errstr : "?");
    return 2;
  }
  const char* key = "timeout_precision:never";
  if (auto* r = static_cast<redisReply*>(redisCommand(c, "DEL %s", key))) freeReplyObject(r);

  bool ok = true;
  for (const std::string& t : split_commas(timeouts)) {
    const double timeout_s = std::atof(t.c_str());
    std::vector<double> late_ms;
    for (int s = 0; s < samples; ++s) {
      auto t0 = Clock::now();
      auto* r = static_cast<redisReply*>(redisCommand(c, "BRPOP %s %s", key, t.c_str()));
      auto t1 = Clock::now();
      if (r == nullptr) {
        std::fprintf(stderr, "timeout_precision: connection error: %s\n", c->errstr);
        return 2;
      }
      if (r->type != REDIS_REPLY_NIL) {
        std::fprintf(stderr, "timeout_precision: BRPOP %s answered type %d, not nil%s%s\n",
                     t.c_str(), r->type, r->type == REDIS_REPLY_ERROR ? ": " : "",
                     r->type == REDIS_REPLY_ERROR ? r->str : "");
        ok = false;
      }
      freeReplyObject(r);
      double elapsed_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      double late = elapsed_ms - timeout_s * 1000.0;
      if (late < -0.5) {  // allow for clock granularity only
        std::fprintf(stderr, "timeout_precision: BRPOP %s answered %.3f ms early\n", t.c_str(),
                     -late);
        ok = false;
      }
      late_ms.push_back(late);
    }
    std::sort(late_ms.begin(), late_ms.end());
    double p50 = late_ms[(late_ms.size() - 1) / 2];
    if (late_ms.size() % 2 == 0) p50 = (p50 + late_ms[late_ms.size() / 2]) / 2.0;
    std::printf("timeout_s=%s samples=%d p50_late_ms=%.2f max_late_ms=%.2f min_late_ms=%.2f\n",
                t.c_str(), samples, p50, late_ms.back(), late_ms.front());
    std::fflush(stdout);
  }
  redisFree(c);
  return ok ? 0 : 1;
}
