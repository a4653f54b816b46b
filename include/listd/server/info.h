// INFO: the `field:value` report, in Redis 7.0's sections and field names, with the fields that
// redis-cli (--stat), redis-benchmark, redis-py and monitoring read.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace listd::server {

class Executor;

/// INFO [section ...]: no argument or "default" = the default sections, "all"/"everything" adds
/// commandstats. Unknown sections are skipped, as Redis does.
std::string build_info(Executor& exec, std::span<const std::string_view> sections);

/// Resident set size in bytes (VmRSS), 0 if unknown.
std::size_t resident_memory_bytes();

}  // namespace listd::server
