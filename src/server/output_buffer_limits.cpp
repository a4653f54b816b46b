#include "listd/server/output_buffer_limits.h"

#include <algorithm>

#include "listd/server/client.h"
#include "listd/server/client_info.h"

namespace listd::server {

config::ClientClass client_class(const Client& c) noexcept {
  if (c.replica) return config::ClientClass::kReplica;
  return c.pubsub.subscribed() ? config::ClientClass::kPubsub : config::ClientClass::kNormal;
}

OutputMemory output_memory(const Client& c) noexcept {
  const std::size_t pending =
      c.out.size() + c.held_bytes() + (c.transport ? c.transport->pending_output_bytes() : 0);
  OutputMemory m;
  m.buffer_bytes = std::min(pending, kReplyChunkBytes);
  m.list_bytes = pending - m.buffer_bytes;
  m.blocks = (m.list_bytes + kReplyChunkBytes - 1) / kReplyChunkBytes;
  return m;
}

bool output_limit_reached(const config::OutputBufferLimit& limit, std::size_t used,
                          std::uint64_t now_s,
                          std::optional<std::uint64_t>& soft_since_s) noexcept {
  const bool hard = limit.hard_bytes != 0 && used >= limit.hard_bytes;
  bool soft = limit.soft_bytes != 0 && used >= limit.soft_bytes;
  if (!soft) {
    soft_since_s.reset();
  } else if (!soft_since_s) {
    soft_since_s = now_s;  // first seen over: the seconds start now
    soft = false;
  } else {
    // Over for more than soft_seconds whole seconds (Redis: elapsed > soft_limit_seconds).
    soft = now_s - *soft_since_s > static_cast<std::uint64_t>(limit.soft_seconds);
  }
  return soft || hard;
}

bool OutputBufferGuard::reached(Client& c) {
  // Redis skips a client whose output still fits its static buffer, timer untouched, and one
  // already on its way out. A client without a transport (the AOF loader) is never closed.
  if (c.close_asap || !c.transport) return false;
  const std::size_t used = output_memory(c).list_bytes;
  if (used == 0) return false;
  const auto& limit = config_.settings().client_obuf_limits[static_cast<int>(client_class(c))];
  return output_limit_reached(limit, used, clock_.monotonic_ms() / 1000, c.obuf_soft_limit_since_s);
}

void OutputBufferGuard::close_asap(Client& c, bool from_cron) {
  // Described before it is marked, as Redis logs after catClientInfoString.
  const std::string info = client_info_string(c, clock_.monotonic_ms());
  c.close_asap = true;
  ++disconnections_;
  log_.warning(from_cron ? "Client " + info + " closed for overcoming of output buffer limits."
                         : "Client " + info +
                               " scheduled to be closed ASAP for overcoming of output buffer "
                               "limits.");
}

bool OutputBufferGuard::check_limited_after_output(Client& c) {
  if (!reached(c)) return false;
  close_asap(c, false);
  return true;
}

void OutputBufferGuard::begin_cron() {
  // Redis clientsCronTrackExpansiveClients: per-second slots, the oldest cleared as time moves.
  const std::uint64_t now_s = clock_.monotonic_ms() / 1000;
  for (std::uint64_t s = peak_second_ + 1; s <= now_s && s <= peak_second_ + kPeakSlots; ++s) {
    peak_input_[s % kPeakSlots] = 0;
    peak_output_[s % kPeakSlots] = 0;
  }
  peak_second_ = std::max(peak_second_, now_s);
}

bool OutputBufferGuard::check_in_cron(Client& c) {
  const std::size_t slot = (clock_.monotonic_ms() / 1000) % kPeakSlots;
  const std::size_t in = c.transport ? c.transport->query_buffer_bytes() : 0;
  peak_input_[slot] = std::max(peak_input_[slot], in);
  peak_output_[slot] = std::max(peak_output_[slot], output_memory(c).list_bytes);
  if (!reached(c)) return false;
  close_asap(c, true);
  return true;
}

std::size_t OutputBufferGuard::recent_max_input() const noexcept {
  return *std::max_element(peak_input_.begin(), peak_input_.end());
}

std::size_t OutputBufferGuard::recent_max_output() const noexcept {
  return *std::max_element(peak_output_.begin(), peak_output_.end());
}

}  // namespace listd::server
