// The queue view's HTTP/1.1 endpoint (metrics-port, off by default): its listening sockets and
// connections registered on listd's own I/O loop (io_loop.h) like the client sockets, so a request
// wakes the loop's wait at once. It answers from the executor's queue snapshot
// (server/queue_view.h):
//   GET /metrics      the Prometheus text format (listd_queue_* families)
//   GET /queues.json  the same figures as JSON, polled by the page
//   GET /             the HTML page (queue_page.h)
// anything else 404, a method other than GET/HEAD 405. Keep-alive as HTTP/1.1 says; a head
// over kMaxHeadBytes gets 431 and the connection is closed, so is a malformed one (400); at
// most kMaxSessions connections are open (more are closed at once).
// Invariants: a session reads nothing while a response is being written (requests are answered
// in order); a closed session leaves the loop at once and is freed by IoLoop::retire, after
// any wait whose events may still name it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "listd/net/io_loop.h"
#include "listd/server/executor.h"

namespace listd::net {

/// The whole response (status line, headers, body) to `method` on `path`, from `exec`'s queue
/// snapshot taken now.
std::string metrics_http_response(server::Executor& exec, const std::string& method,
                                  const std::string& path, bool keep_alive);

class MetricsHttpServer {
 public:
  static constexpr std::size_t kMaxHeadBytes = 8192;
  static constexpr std::size_t kMaxSessions = 64;

  MetricsHttpServer(IoLoop& loop, server::Executor& exec);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  /// Listens on `port` of each address of `bind` (Redis' bind words: a leading '-' makes an
  /// address optional); false with `error` when one cannot be bound.
  bool listen(const std::vector<std::string>& bind, std::uint16_t port, std::string& error);
  std::uint16_t bound_port() const noexcept { return bound_port_; }
  std::size_t open_sessions() const noexcept { return sessions_.size(); }
  /// Stops accepting and closes every session.
  void close();

 private:
  class Listener;
  class Session;
  void accept_ready(int listen_fd);
  void end_session(Session& session);

  IoLoop& loop_;
  server::Executor& exec_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::unordered_map<Session*, std::unique_ptr<Session>> sessions_;
  std::uint16_t bound_port_ = 0;
};

}  // namespace listd::net
