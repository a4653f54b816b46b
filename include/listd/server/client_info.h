// The one-line description of a client that CLIENT LIST, CLIENT INFO and the output-buffer-limit
// log message print (Redis catClientInfoString), with Redis 7.0's fields in its order (plus
// 7.2's lib-name / lib-ver).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace listd::server {

struct Client;

/// Redis' flags letters (O P x b d c A e T, or N for none).
std::string client_flags(const Client& c);
/// What the client holds in bytes: its query buffer (used and free), the output past the static
/// reply buffer, its MULTI queue and the static buffer itself (tot-mem; Redis
/// getClientMemoryUsage, what maxmemory-clients counts).
std::size_t client_memory_usage(const Client& c);
/// "id=... resp=... lib-ver=..." without a line end; `now_ms` is the monotonic time.
std::string client_info_string(const Client& c, std::uint64_t now_ms);

}  // namespace listd::server
