#include "listd/server/memory_doctor.h"

#include "listd/server/command_context.h"
#include "listd/server/executor.h"
#include "listd/server/info.h"
#include "listd/server/scripting.h"

namespace listd::server {

std::string memory_doctor_report(const MemoryDoctorFigures& f) {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  const bool empty = f.used < 5 * kMiB;
  const bool big_peak = !empty && static_cast<double>(f.peak) / static_cast<double>(f.used) > 1.5;
  const bool high_frag = !empty && static_cast<double>(f.rss) / static_cast<double>(f.used) > 1.4 &&
                         f.rss > f.used + 10 * kMiB;
  const bool big_replica_buf = !empty && f.replicas > 0 && f.replica_bytes > 10 * kMiB;
  const bool big_client_buf =
      !empty && f.normal_clients > 0 && f.normal_client_bytes / f.normal_clients > 1024 * 200;
  const bool many_scripts = !empty && f.cached_scripts > 1000;
  if (empty)
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  if (!big_peak && !high_frag && !big_replica_buf && !big_client_buf && !many_scripts)
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
           "occurs on this base.\n";
  std::string s = "Sam, I detected a few issues in this Redis instance memory implants:\n\n";
  if (big_peak)
    s += " * Peak memory: In the past this instance used more than 150% the memory that is "
         "currently using. The allocator is normally not able to release memory after a peak, "
         "so you can expect to see a big fragmentation ratio, however this is actually harmless "
         "and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) "
         "is currently bigger than expected, the memory will be used as soon as you fill the "
         "Redis instance with more data. If the memory peak was only occasional and you want to "
         "try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other "
         "option is to shutdown and restart the instance.\n\n";
  if (high_frag)
    s += " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
         "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
         "than the sum of the logical allocations Redis performed). This problem is usually due "
         "either to a large peak memory (check if there is a peak memory entry above in the "
         "report) or may result from a workload that causes the allocator to fragment memory a "
         "lot. If the problem is a large peak memory, then there is no issue. Otherwise, make "
         "sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
         "currently used allocator is \"libc\".\n\n";
  if (big_replica_buf)
    s += " * Big replica buffers: The replica output buffers in this instance are greater than "
         "10MB for each replica (on average). This likely means that there is some replica "
         "instance that is struggling receiving data, either because it is too slow or because "
         "of networking issues. As a result, data piles on the master output buffers. Please "
         "try to identify what replica is not receiving data correctly and why. You can use the "
         "INFO output in order to check the replicas delays and the CLIENT LIST command to check "
         "the output buffers of each replica.\n\n";
  if (big_client_buf)
    s += " * Big client buffers: The clients output buffers in this instance are greater than "
         "200K per client (on average). This may result from different causes, like Pub/Sub "
         "clients subscribed to channels bot not receiving data fast enough, so that data piles "
         "on the Redis instance output buffer, or clients sending commands with large replies or "
         "very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
         "command in order to investigate the issue if it causes problems in your instance, or "
         "to understand better why certain clients are using a big amount of memory.\n\n";
  if (many_scripts)
    s += " * Many scripts: There seem to be many cached scripts in this instance (more than "
         "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
         "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT "
         "FLUSH` is called periodically, the scripts' caches may end up consuming most of your "
         "memory.\n\n";
  s += "I'm here to keep you safe, Sam. I want to help you.\n";
  return s;
}

// MEMORY DOCTOR
void cmd_memory_doctor(CommandContext& ctx) {
  Executor& exec = ctx.exec();
  MemoryDoctorFigures f;
  f.used = exec.memory().used();
  f.peak = exec.memory().peak();
  f.rss = resident_memory_bytes();
  exec.clients().for_each([&](Client& c) {
    std::uint64_t bytes = c.out.size() + c.held_bytes();
    if (c.transport) bytes += c.transport->pending_output_bytes();
    if (c.replica) {
      ++f.replicas;
      f.replica_bytes += bytes;
    } else {
      ++f.normal_clients;
      f.normal_client_bytes += bytes + (c.transport ? c.transport->query_buffer_bytes() : 0);
    }
  });
  f.cached_scripts = exec.scripting().script_count();
  ctx.reply().verbatim(memory_doctor_report(f));
}

// MEMORY MALLOC-STATS: Redis built without jemalloc has no report to give.
void cmd_memory_malloc_stats(CommandContext& ctx) {
  ctx.reply().bulk("Stats not supported for the current allocator");
}

// MEMORY PURGE: a no-op success outside jemalloc (zmalloc.c's jemalloc_purge returns 0).
void cmd_memory_purge(CommandContext& ctx) { ctx.reply().ok(); }

}  // namespace listd::server
