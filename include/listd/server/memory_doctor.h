// MEMORY DOCTOR, MALLOC-STATS and PURGE (Redis object.c memoryCommand, as 7.0 answers under
// libc malloc, listd's allocator). The doctor's report is Redis 7.0's text for the problems
// listd can measure: an empty instance, a big peak, a high RSS over the heap count, big client
// or replica buffers, many cached scripts. The allocator's own fragmentation and RSS figures
// (jemalloc's) do not exist under libc, so those two reports never appear.
#pragma once

#include <cstdint>
#include <string>

namespace listd::server {

class CommandContext;

/// What the doctor looks at, in bytes unless said otherwise.
struct MemoryDoctorFigures {
  std::uint64_t used = 0;  ///< the heap count (used_memory)
  std::uint64_t peak = 0;
  std::uint64_t rss = 0;
  std::uint64_t normal_clients = 0;       ///< clients that are not replicas (one at least)
  std::uint64_t normal_client_bytes = 0;  ///< their query and output buffers (an estimate)
  std::uint64_t replicas = 0;
  std::uint64_t replica_bytes = 0;   ///< the replicas' output buffers
  std::uint64_t cached_scripts = 0;  ///< EVAL's script cache
};

/// Redis getMemoryDoctorReport's text for `f`.
std::string memory_doctor_report(const MemoryDoctorFigures& f);

void cmd_memory_doctor(CommandContext& ctx);
void cmd_memory_malloc_stats(CommandContext& ctx);
void cmd_memory_purge(CommandContext& ctx);

}  // namespace listd::server
