// MEMORY STATS (Redis object.c getMemoryOverheadData and memoryCommand's "stats"): where the heap
// count goes, from listd's own accounting. The overhead is what is not the dataset: the start-up
// heap, the replication backlog's ring, the replicas' and the other clients' buffers, the AOF
// buffer, the script caches and, per database with keys, the dictionary's bucket array and
// entry headers and the expiry index; the dataset is the rest of the heap count.
// API: memory_overhead (the figures, also INFO memory's used_memory_overhead), cmd_memory_stats.
// Invariants: overhead_total <= total (clamped, so dataset never wraps); dbs lists only the
// databases that hold keys, in db order, as Redis does.
#pragma once

#include <cstddef>
#include <vector>

namespace listd::server {

class CommandContext;
class Executor;

struct DbOverhead {
  int db = 0;
  std::size_t main_table = 0;    ///< bucket array + one Entry header per key
  std::size_t expiry_index = 0;  ///< deadline array + the keys' heap copies
};

struct MemoryOverhead {
  std::size_t peak = 0;
  std::size_t total = 0;  ///< the heap count (used_memory)
  std::size_t startup = 0;
  std::size_t replication_backlog = 0;
  std::size_t clients_replicas = 0;
  std::size_t clients_normal = 0;
  std::size_t aof_buffer = 0;
  std::size_t lua_caches = 0;
  std::size_t functions_caches = 0;
  std::vector<DbOverhead> dbs;
  std::size_t overhead_total = 0;
  std::size_t keys = 0;
  std::size_t bytes_per_key = 0;
  std::size_t dataset = 0;
  float dataset_percentage = 0;  ///< float, as Redis computes it (the reply's digits)
  float peak_percentage = 0;
  std::size_t rss = 0;
};

/// The figures now (samples the peak, reads the RSS).
MemoryOverhead memory_overhead(Executor& exec);

void cmd_memory_stats(CommandContext& ctx);

}  // namespace listd::server
