#include "listd/server/latency_monitor.h"

namespace listd::server {

void LatencyMonitor::add(std::string_view event, std::uint64_t latency_ms, std::int64_t now_s) {
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), Series{}).first;
  Series& ts = it->second;
  if (latency_ms > ts.max_ms) ts.max_ms = latency_ms;
  Sample& prev = ts.samples[(ts.next + kSamples - 1) % kSamples];
  if (prev.time_s == now_s) {
    if (latency_ms > prev.latency_ms) prev.latency_ms = latency_ms;
    return;
  }
  ts.samples[ts.next] = {now_s, latency_ms};
  ts.next = (ts.next + 1) % kSamples;
}

int LatencyMonitor::reset(std::string_view event) {
  auto it = events_.find(event);
  if (it == events_.end()) return 0;
  events_.erase(it);
  return 1;
}

int LatencyMonitor::reset_all() {
  const int n = static_cast<int>(events_.size());
  events_.clear();
  return n;
}

const LatencyMonitor::Series* LatencyMonitor::find(std::string_view event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

}  // namespace listd::server
