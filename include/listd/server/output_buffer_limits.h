// Output-buffer limits (Redis 7.0 networking.c: getClientType, getClientOutputBufferMemoryUsage,
// checkClientOutputBufferLimits, closeClientOnOutputBufferLimitReached): a client's class, the
// output it holds, and when config client-output-buffer-limit says it must go.
//
// API: client_class() and output_memory() (CLIENT LIST, CLIENT KILL TYPE, INFO);
// output_limit_reached() is the policy alone (a pure function of the limit, the bytes, the time
// and the client's soft-limit timer); OutputBufferGuard applies it to a client whenever output
// is added (ClientRegistry::queue_flush, "scheduled to be closed ASAP") and once per cron
// ("closed"), logs as Redis logs, counts disconnections and the recent peaks for INFO.
//
// Invariants: a client over its limit is marked Client::close_asap exactly once; from then on
// it gets no more output and runs no more commands, and the transport closes it at the end of
// the loop turn without writing what it holds (ClientRegistry::take_close_asap_list). The
// soft-limit timer counts whole seconds of the monotonic clock, as Redis counts server.unixtime.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "listd/config/config.h"
#include "listd/server/client.h"
#include "listd/server/clock.h"
#include "listd/server/persistence_log.h"

namespace listd::server {

struct Client;

/// Redis getClientType for the limits: pubsub while the client has a subscription (RESP2 or
/// RESP3), replica for a replica of ours, normal otherwise (MONITOR clients included).
config::ClientClass client_class(const Client& c) noexcept;

/// A client's pending output as Redis 7.0 reports it. listd holds Client::out plus what the
/// transport took and has not written; Redis keeps the first bytes in the client's static
/// reply buffer (`obl`, up to 16 KB) and the rest in a list of 16 KB blocks (`oll`), and only
/// that list counts (`omem`, the bytes the limits compare). listd counts the bytes it holds
/// where Redis counts its allocator's block sizes.
struct OutputMemory {
  std::size_t buffer_bytes = 0;  ///< obl
  std::size_t blocks = 0;        ///< oll
  std::size_t list_bytes = 0;    ///< omem
};
OutputMemory output_memory(const Client& c) noexcept;

/// Redis' static reply buffer and reply block size (PROTO_REPLY_CHUNK_BYTES).
inline constexpr std::size_t kReplyChunkBytes = 16 * 1024;

/// Redis checkClientOutputBufferLimits: true when `used` reaches the hard limit, or has stayed
/// at or over the soft limit for more than `soft_seconds` (at whole second `now_s`). Updates
/// `soft_since_s`: set when the soft limit is first reached, cleared once under it. A limit of
/// 0 bytes is off.
bool output_limit_reached(const config::OutputBufferLimit& limit, std::size_t used,
                          std::uint64_t now_s, std::optional<std::uint64_t>& soft_since_s) noexcept;

class OutputBufferGuard {
 public:
  OutputBufferGuard(const config::Config& config, const Clock& clock)
      : config_(config), clock_(clock) {}
  OutputBufferGuard(const OutputBufferGuard&) = delete;
  OutputBufferGuard& operator=(const OutputBufferGuard&) = delete;

  /// Where the warnings go (main installs spdlog); stderr without a sink.
  void set_logger(PersistenceLog::Sink sink) { log_.set_sink(std::move(sink)); }

  /// Output was added to `c`: true when it just went over its limit (it is then marked
  /// close_asap, logged "scheduled to be closed ASAP" and counted).
  /// Inline: it runs after every reply, and a client whose class has no limit (normal's
  /// default) must cost a load and two compares, not a call into the transport.
  bool check_after_output(Client& c) {
    const auto& limits = config_.settings().client_obuf_limits;
    const config::OutputBufferLimit& limit =
        limits[static_cast<int>(c.replica               ? config::ClientClass::kReplica
                                : c.pubsub.subscribed() ? config::ClientClass::kPubsub
                                                        : config::ClientClass::kNormal)];
    if (limit.hard_bytes == 0 && limit.soft_bytes == 0) return false;
    return check_limited_after_output(c);
  }
  /// Starts the once-a-second pass (Redis clientsCron): the peak slots of the seconds that
  /// passed since the last pass are cleared, so an old peak is forgotten after 8 s.
  void begin_cron();
  /// The pass over one client: records its input and output in this second's peak slot and
  /// returns true when `c` is over its limit (marked, logged "closed" and counted).
  bool check_in_cron(Client& c);

  /// INFO client_recent_max_input_buffer / _output_buffer: the largest seen in the last 8 s.
  std::size_t recent_max_input() const noexcept;
  std::size_t recent_max_output() const noexcept;
  /// INFO client_output_buffer_limit_disconnections (Redis 7.2's field).
  std::uint64_t disconnections() const noexcept { return disconnections_; }
  void reset_stats() noexcept { disconnections_ = 0; }

 private:
  static constexpr std::size_t kPeakSlots = 8;  // Redis CLIENTS_PEAK_MEM_USAGE_SLOTS
  bool check_limited_after_output(Client& c);
  bool reached(Client& c);
  void close_asap(Client& c, bool from_cron);

  const config::Config& config_;
  const Clock& clock_;
  PersistenceLog log_;
  std::uint64_t disconnections_ = 0;
  std::array<std::size_t, kPeakSlots> peak_input_{};
  std::array<std::size_t, kPeakSlots> peak_output_{};
  std::uint64_t peak_second_ = 0;  // the second the peak slots were last advanced to
};

}  // namespace listd::server
