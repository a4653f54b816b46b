// The connected clients and the executor's per-turn lists about them (Redis networking.c's
// client bookkeeping): ids, create/destroy/find, the flush, resume and kill lists the transport
// drains at the end of a loop turn, and the MONITOR clients with their line format.
//
// A client is on each list at most once, and destroy() takes it off every list, so the
// transport never sees a freed client. Blocking and WATCH state are not this class's business:
// Executor::destroy_client ends those before calling destroy().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/server/client.h"

namespace listd::server {

class OutputBufferGuard;

/// One MONITOR line for `argv` run by `client` at `unix_us`, in Redis' format:
/// +<sec>.<usec> [<db> <addr>] "arg" "arg"\r\n (arguments escaped as sdscatrepr does).
std::string format_monitor_line(const Client& client, std::int64_t unix_us,
                                std::span<const std::string_view> argv);

class ClientRegistry {
 public:
  ClientRegistry() = default;
  ClientRegistry(const ClientRegistry&) = delete;
  ClientRegistry& operator=(const ClientRegistry&) = delete;

  /// A new client with the next id; it lives until destroy().
  Client& create();
  /// Takes `client` off every list and frees it.
  void destroy(Client& client);
  Client* find(std::uint64_t id) noexcept;
  std::size_t count() const noexcept { return clients_.size(); }
  /// Every client (CLIENT LIST sorts by id itself).
  template <class F>
  void for_each(F&& f) {
    for (auto& [id, c] : clients_) f(*c);
  }

  /// Output-buffer limits are checked each time output is queued (null: never).
  void set_output_guard(OutputBufferGuard* guard) noexcept { guard_ = guard; }
  /// Marks output for flushing; handlers writing to *another* client must call it. A client
  /// that this output puts over its output-buffer limit goes to the close-ASAP list instead.
  /// `shows_data` false: the output can show no key or value (the reply of PING, INFO, CLIENT
  /// ...), so sync-replicas need not hold it (Client::out_needs_ack).
  void queue_flush(Client& client, bool shows_data = true);
  /// Clients that received output since the last call (each listed once).
  std::vector<Client*> take_flush_list();
  /// `client`'s blocking command completed: the transport runs its buffered commands next.
  void queue_resume(Client& client) { resume_list_.push_back(&client); }
  std::vector<Client*> take_resume_list();
  bool has_resume() const noexcept { return !resume_list_.empty(); }
  /// Output is waiting for the end of the turn (cron's replication bytes, for one).
  bool has_flush() const noexcept { return !flush_list_.empty(); }
  /// CLIENT KILL: the transport closes `client` once its output is written.
  void request_kill(Client& client);
  std::vector<Client*> take_kill_list();
  /// Clients over their output-buffer limit (Client::close_asap): the transport closes them
  /// without writing their output (Redis freeClientAsync).
  void schedule_close_asap(Client& client);
  std::vector<Client*> take_close_asap_list();

  /// MONITOR: `client` receives every command executed from now on.
  void add_monitor(Client& client);
  bool has_monitors() const noexcept { return !monitors_.empty(); }
  /// Sends `argv` (run by `client`) to every monitor but `client` itself.
  void feed_monitors(const Client& client, std::int64_t unix_us,
                     std::span<const std::string_view> argv);

  /// Connected clients idle for more than `limit_ms` at `now_ms` (config `timeout`); a blocked
  /// client is waiting on purpose and never idle (Redis clientsCronHandleTimeout).
  std::vector<Client*> idle_clients(std::uint64_t now_ms, std::uint64_t limit_ms);

 private:
  std::unordered_map<std::uint64_t, std::unique_ptr<Client>> clients_;
  std::uint64_t next_id_ = 1;
  std::vector<Client*> flush_list_;
  std::vector<Client*> resume_list_;
  std::vector<Client*> kill_list_;
  std::vector<Client*> close_asap_list_;
  OutputBufferGuard* guard_ = nullptr;
  std::vector<Client*> monitors_;
};

}  // namespace listd::server
