// The network front: listening sockets, the set of connections, end-of-turn flushing, the waiter
// deadline, the once-a-second cron and shutdown.
//
// The loop turn (run()): one wait of the I/O backend chosen at start-up (io_backend.h: io_uring or
// epoll), every event's handler, then one finish_turn() - Redis' beforeSleep: the turn's AOF
// bytes (fsynced under appendfsync always) and then one send per client (on io_uring queued,
// and submitted with the next wait's one io_uring_enter).
// Everything read in a turn is executed before any reply is written, and under `always` one
// fsync covers every client that was ready in the turn. The waiter deadline and the cron are
// the wait's timeout (no timer system call). asio keeps what it does well here and costs nothing
// per request: the signal set (a signal interrupts the wait, then asio is polled) and the
// replica's link to its master; while that link is open the loop blocks in asio instead, with
// the backend's descriptor as one of asio's (see docs/ARCHITECTURE.md, "The I/O layer").
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/config/config.h"
#include "listd/net/io_loop.h"
#include "listd/protocol/request_parser.h"
#include "listd/server/event_loop_yield.h"
#include "listd/server/executor.h"

namespace listd::net {

class Connection;
class ReplicaLink;
class TlsContext;

struct NetOptions {
  std::vector<std::string> bind{"127.0.0.1"};
  std::uint16_t port = 6379;
  std::size_t max_clients = 10000;
  int tcp_backlog = 511;
  std::uint16_t tls_port = 0;  // 0: no TLS listener; with port 0, the TLS port alone
};

/// Redis 7.0's protected mode: with protected-mode yes and no password on the default user, a
/// client whose address is not 127.0.0.1 or ::1 gets -DENIED and is closed at accept.
bool protected_mode_refuses(bool protected_mode, bool default_user_nopass, std::string_view peer);

class Server final : public server::EventLoopYield {
 public:
  Server(asio::io_context& io, server::Executor& exec, NetOptions options);
  ~Server() override;

  /// Binds every address; returns false and fills `error` if one fails. From then on CONFIG SET
  /// port / tls-port re-listens (see apply_config).
  bool listen(std::string& error);
  /// Graceful stop: stop accepting, write what is buffered, close every connection.
  void shutdown();
  bool stopping() const noexcept { return stopping_; }

  server::Executor& executor() noexcept { return exec_; }
  asio::io_context& io() noexcept { return io_; }
  /// Limits applied to every connection's parser, read from the config each turn.
  const protocol::ParserLimits& parser_limits() const noexcept { return limits_; }
  std::size_t query_buffer_limit() const noexcept { return query_buffer_limit_; }

  /// Runs the event loop until shutdown() (see the comment at the top).
  void run();
  /// Asks for a finish_turn() at the end of this loop turn.
  void schedule_flush() noexcept { flush_wanted_ = true; }
  void connection_closed(Connection& conn);
  /// The I/O backend, chosen by listen().
  IoLoop& loop() noexcept { return *loop_; }
  std::uint16_t bound_port() const noexcept { return bound_port_; }
  std::uint16_t bound_tls_port() const noexcept { return bound_tls_port_; }

  /// server::EventLoopYield, called from a busy script's hook inside one of this loop's
  /// handlers: one non-blocking wait of the loop and one asio poll, then the part of finish_turn
  /// that is safe there (the AOF bytes of earlier commands, the other clients' replies and
  /// closes). No resumes, no timer, no cron, no shutdown, no connection freed (the outer wait
  /// still holds its events): those wait for the script's end.
  void run_events_while_busy() override;

 private:
  // A listening socket on the loop: readiness means connections to accept (server_listeners.cpp).
  class Listener final : public IoHandler {
   public:
    Listener(Server& server, int fd, bool tls) : server_(server), fd_(fd), tls_(tls) {}
    ~Listener() override { close(); }
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    int fd() const noexcept { return fd_; }
    bool tls() const noexcept { return tls_; }  // the TLS port: each connection a TlsSession
    /// Unregisters and closes the socket (the port is free at once); idempotent.
    void close();
    void on_io(bool, bool, bool) override;

   private:
    Server& server_;
    int fd_;
    bool tls_;
  };
  /// The listening sockets of one port (plain or TLS) on every bind address.
  struct PortListeners {
    std::vector<std::unique_ptr<Listener>> sockets;
    std::uint16_t bound = 0;  // the port they are bound to (port 0 picks one); 0: none
  };
  /// Binds every address word of `bind` on `port` into `into`; false when a required address
  /// fails (what was bound is then closed by `into`'s owner).
  bool listen_all(const std::vector<std::string>& bind, std::uint16_t port, bool tls,
                  PortListeners& into, std::string& error);
  /// CONFIG SET bind: every listener moves to `bind` (and the ports given); false, with the
  /// old addresses listening again, when one cannot be bound.
  bool rebind(const std::vector<std::string>& bind, std::uint16_t port, std::uint16_t tls_port);
  /// Binds one address word of `bind` on `port`; false when a required address fails.
  bool listen_on(const std::string& word, std::uint16_t port, bool tls, PortListeners& into,
                 std::string& error);
  /// The TLS context at start-up (Redis tlsConfigure).
  bool configure_tls(std::string& error);
  /// Redis' apply functions of port, tls-port (updatePort, applyTLSPort) and of the TLS
  /// context options (applyTlsCfg), run by Config::set_many on the settings it is about to
  /// make current: everything that can fail (the new context, the new sockets) is done first,
  /// then the old listeners are closed and the new ones take their place; a failure changes
  /// nothing (see docs/COMPATIBILITY.md, TLS).
  std::optional<config::ApplyFailure> apply_config(const config::ServerSettings& next,
                                                   std::span<const std::string_view> changed);
  /// Puts `fresh` in the place of the listeners of its kind, which are closed.
  void replace_listeners(bool tls, PortListeners fresh);
  /// Closes a listener; it is freed once no wait of the loop can still name it.
  void retire_listener(std::unique_ptr<Listener> listener);
  /// Accepts what the listening socket `fd` holds (bounded per report).
  void accept_ready(int fd, bool tls);
  void on_accept(int fd, bool tls);
  /// One wait for socket events, bounded by the next deadline; through asio while it has a
  /// socket of its own (the replica link).
  void wait_for_events();
  int wait_timeout_ms() const;
  void run_due_timers();
  // finish_turn() and its steps, in the order it runs them.
  void finish_turn();
  void resume_unblocked_clients();
  void close_over_limit_clients();
  void close_killed_clients();
  void write_replies();
  void free_closed_connections();
  void arm_timer();
  void on_timer();
  void refresh_limits();
  void run_cron();
  void flush_while_busy();
  /// Waits for the next SIGCHLD: a BGSAVE or rewrite child that ended is finished in the loop
  /// turn it wakes, not at the next cron.
  void watch_children();

  asio::io_context& io_;
  server::Executor& exec_;
  NetOptions options_;
  std::unique_ptr<IoLoop> loop_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  asio::posix::stream_descriptor loop_in_asio_;  // a dup of loop_'s descriptor, while asio blocks
  // asio is polled, not run: without work of its own it would count as stopped.
  asio::executor_work_guard<asio::io_context::executor_type> keep_asio_running_;
  asio::signal_set child_signals_;  // SIGCHLD
  bool loop_wait_armed_ = false;
  // The TLS port's context (built at start-up or when a TLS port opens; rebuilt on CONFIG SET
  // of its options); connected clients keep the SSL_CTX they were accepted with.
  std::unique_ptr<TlsContext> tls_context_;
  // The Config's apply hook outlives the Server: it reaches the Server through this.
  std::shared_ptr<Server*> self_ = std::make_shared<Server*>(this);
  std::unique_ptr<ReplicaLink> replica_link_;  // our master, when we are a replica
  std::unordered_map<Connection*, std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> closed_;
  std::uint64_t timer_due_ms_ = 0;  // the next waiter deadline; 0: none
  std::uint64_t cron_due_ms_ = 0;
  std::uint64_t asio_polled_ms_ = 0;
  protocol::ParserLimits limits_;
  std::size_t query_buffer_limit_ = 1ull << 30;
  std::uint16_t bound_port_ = 0;
  std::uint16_t bound_tls_port_ = 0;
  bool flush_wanted_ = false;
  bool stopping_ = false;
};

}  // namespace listd::net
