// The queue view's HTTP/1.1 endpoint (metrics-port, off by default): its own acceptor on the
// server's event loop, answering from the executor's queue snapshot (server/queue_view.h):
//   GET /metrics      the Prometheus text format (listd_queue_* families)
//   GET /queues.json  the same figures as JSON, polled by the page
//   GET /             the HTML page (queue_page.h)
// anything else 404, a method other than GET/HEAD 405. Keep-alive as HTTP/1.1 says; a head
// over kMaxHeadBytes gets 431 and the connection is closed, so is a malformed one (400); at
// most kMaxSessions connections are open (more are closed at once).
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

  MetricsHttpServer(asio::io_context& io, server::Executor& exec) : io_(io), exec_(exec) {}
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  /// Listens on `port` of each address of `bind` (Redis' bind words: a leading '-' makes an
  /// address optional); false with `error` when one cannot be bound.
  bool listen(const std::vector<std::string>& bind, std::uint16_t port, std::string& error);
  std::uint16_t bound_port() const noexcept { return bound_port_; }
  /// Stops accepting; open sessions end with the io_context.
  void close();

 private:
  class Session;
  void accept_next(asio::ip::tcp::acceptor& acceptor);

  asio::io_context& io_;
  server::Executor& exec_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;
  // Shared with the sessions, which may outlive this object until the io_context goes.
  std::shared_ptr<std::size_t> open_sessions_ = std::make_shared<std::size_t>(0);
  std::uint16_t bound_port_ = 0;
};

}  // namespace listd::net
