// The queue view: per key with waiters or traffic in the last minute, how deep it is, who
// waits on it and how fast it moves. One snapshot feeds the QUEUES command and the metrics
// endpoint (the Prometheus text and the JSON the HTML page polls), so they never disagree.
//
// API: queue_snapshot (read from the executor), prometheus_queue_metrics / json_queue_metrics
// (pure renderings of a snapshot, testable alone).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "listd/server/queue_stats.h"

namespace listd::server {

class Executor;

struct QueueSnapshot {
  int db = 0;
  std::string key;
  std::uint64_t length = 0;  ///< elements of the list (entries of a stream, members of a zset)
  std::uint64_t waiters = 0;
  std::uint64_t oldest_wait_ms = 0;  ///< how long the oldest waiter has waited; 0 with none
  QueueRates rates;                  ///< per second over the last minute
};

/// Every key with waiters or traffic in the last minute, sorted by (db, key), as seen at
/// monotonic `now_ms` and Unix `now_unix_ms` (an expired key reads as length 0).
std::vector<QueueSnapshot> queue_snapshot(Executor& exec, std::uint64_t now_ms,
                                          std::int64_t now_unix_ms);

/// The snapshot in the Prometheus text exposition format (version 0.0.4): one family per
/// figure, a sample per key labelled db and key (label values escaped as the format says).
std::string prometheus_queue_metrics(const std::vector<QueueSnapshot>& queues);

/// The snapshot as a JSON object {"queues":[{db,key,length,waiters,oldest_wait_seconds,
/// pushes_per_second,pops_per_second,handoffs_per_second}...]}; keys as UTF-8 strings, with
/// bytes that are not valid UTF-8 written as \u00XX of their byte value.
std::string json_queue_metrics(const std::vector<QueueSnapshot>& queues);

}  // namespace listd::server
