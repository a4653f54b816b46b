// The network front: acceptors, the set of connections, end-of-turn flushing, the waiter timer
// and shutdown. The only part of listd (with Connection) that includes asio.
//
// The loop turn (run()): wait for one event, then run every handler that is ready (including
// one non-blocking reactor poll once the queue is empty, bounded by kMaxHandlersPerTurn), then
// one finish_turn() - Redis' beforeSleep: the turn's AOF bytes (fsynced under appendfsync always)
// and then one write per client. Everything read in a turn is executed before any reply is
// written, and under `always` one fsync covers every client that was ready in the turn.
//
// A connection whose request produced a reply re-arms its read only after that reply is written
// (defer_read): asio reads speculatively when a read is started, and a read started before the
// reply can only find EAGAIN - one wasted system call per request/response round trip.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

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

class Server final : public server::EventLoopYield {
 public:
  Server(asio::io_context& io, server::Executor& exec, NetOptions options);
  ~Server() override;

  /// Binds every address; returns false and fills `error` if one fails.
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
  /// `conn` starts its next read at the end of this turn's flush, after its reply was written.
  void defer_read(Connection& conn);
  void connection_closed(Connection& conn);
  std::uint16_t bound_port() const noexcept { return bound_port_; }
  std::uint16_t bound_tls_port() const noexcept { return bound_tls_port_; }

  /// server::EventLoopYield, called from a busy script's hook inside one of this loop's
  /// handlers: one bounded non-blocking poll, then the part of finish_turn that is safe there
  /// (the AOF bytes of earlier commands, the other clients' replies, their deferred reads and
  /// closes). No resumes, no timer, no cron, no shutdown: those wait for the script's end.
  void run_events_while_busy() override;

 private:
  struct Listener {
    std::unique_ptr<asio::ip::tcp::acceptor> acceptor;
    bool tls = false;
  };
  /// Binds one address word of `bind` on `port`; false when a required address fails.
  bool listen_on(const std::string& word, std::uint16_t port, bool tls, std::string& error);
  /// The TLS context at start-up and its reload on CONFIG SET (Redis applyTlsCfg).
  bool configure_tls(std::string& error);
  void accept_next(Listener& listener);
  void on_accept(Listener& listener, asio::ip::tcp::socket socket);
  // finish_turn() and its steps, in the order it runs them.
  void finish_turn();
  void resume_unblocked_clients();
  void close_over_limit_clients();
  void close_killed_clients();
  void write_replies();
  void start_deferred_reads();
  void free_closed_connections();
  void arm_timer();
  void on_timer();
  void refresh_limits();
  void run_cron();
  void flush_while_busy();

  asio::io_context& io_;
  server::Executor& exec_;
  NetOptions options_;
  std::vector<Listener> listeners_;
  // The TLS port's context, shared with the CONFIG SET hook, which outlives the Server.
  std::shared_ptr<std::unique_ptr<TlsContext>> tls_context_;
  std::unique_ptr<ReplicaLink> replica_link_;  // our master, when we are a replica
  std::unordered_map<Connection*, std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> closed_;
  std::vector<Connection*> deferred_reads_;  // valid until the end of the next finish_turn()
  asio::steady_timer timer_;
  std::uint64_t timer_armed_ms_ = 0;  // 0: not armed
  asio::steady_timer cron_;
  asio::steady_timer busy_flush_;  // runs flush_while_busy as a handler of the nested poll
  protocol::ParserLimits limits_;
  std::size_t query_buffer_limit_ = 1ull << 30;
  std::uint16_t bound_port_ = 0;
  std::uint16_t bound_tls_port_ = 0;
  bool flush_wanted_ = false;
  bool stopping_ = false;
};

}  // namespace listd::net
