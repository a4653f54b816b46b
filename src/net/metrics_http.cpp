#include "listd/net/metrics_http.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>

#include "listd/net/queue_page.h"
#include "listd/protocol/http_request.h"
#include "listd/server/queue_view.h"

namespace listd::net {
namespace {

std::string metrics_http_message(std::string_view status, std::string_view content_type,
                                 std::string_view body, bool keep_alive, bool head_only) {
  std::string out = fmt::format(
      "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n"
      "Connection: {}\r\n\r\n",
      status, content_type, body.size(), keep_alive ? "keep-alive" : "close");
  if (!head_only) out.append(body);
  return out;
}

}  // namespace

std::string metrics_http_response(server::Executor& exec, const std::string& method,
                                  const std::string& path, bool keep_alive) {
  const bool head = method == "HEAD";
  if (method != "GET" && !head)
    return metrics_http_message("405 Method Not Allowed", "text/plain; charset=utf-8",
                                "405 method not allowed\n", keep_alive, false);
  if (path == "/")
    return metrics_http_message("200 OK", "text/html; charset=utf-8", queue_page_html(), keep_alive,
                                head);
  if (path != "/metrics" && path != "/queues.json")
    return metrics_http_message("404 Not Found", "text/plain; charset=utf-8", "404 not found\n",
                                keep_alive, head);
  const server::ClockReading now = exec.clock().read();
  const auto queues = server::queue_snapshot(exec, now.mono_ms(), now.unix_ms);
  if (path == "/metrics")
    return metrics_http_message("200 OK", "text/plain; version=0.0.4; charset=utf-8",
                                server::prometheus_queue_metrics(queues), keep_alive, head);
  return metrics_http_message("200 OK", "application/json", server::json_queue_metrics(queues),
                              keep_alive, head);
}

// One connection: read until a whole head, answer, then read the next request or close.
class MetricsHttpServer::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(asio::ip::tcp::socket socket, server::Executor& exec,
          std::shared_ptr<std::size_t> open_sessions)
      : socket_(std::move(socket)), exec_(exec), open_sessions_(std::move(open_sessions)) {
    ++*open_sessions_;
  }
  ~Session() { --*open_sessions_; }

  void start() { serve_buffered(); }

 private:
  void serve_buffered() {
    protocol::HttpRequest request;
    switch (protocol::parse_http_request(buffer_, kMaxHeadBytes, request)) {
      case protocol::HttpParse::kIncomplete: return read_more();
      case protocol::HttpParse::kBad:
        return reply_and_close("400 Bad Request", "400 bad request\n");
      case protocol::HttpParse::kTooLarge:
        return reply_and_close("431 Request Header Fields Too Large", "431 head too large\n");
      case protocol::HttpParse::kComplete: break;
    }
    buffer_.erase(0, request.consumed);
    write(metrics_http_response(exec_, request.method, request.path, request.keep_alive),
          request.keep_alive);
  }

  void read_more() {
    socket_.async_read_some(asio::buffer(chunk_), [self = shared_from_this()](
                                                      const asio::error_code& ec, std::size_t n) {
      if (ec) return;  // closed by the peer (or the server): the session ends with its last ref
      self->buffer_.append(self->chunk_.data(), n);
      self->serve_buffered();
    });
  }

  void reply_and_close(std::string_view status, std::string_view body) {
    write(fmt::format("HTTP/1.1 {}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                      "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
                      status, body.size(), body),
          false);
  }

  void write(std::string response, bool keep_alive) {
    out_ = std::move(response);
    asio::async_write(
        socket_, asio::buffer(out_),
        [self = shared_from_this(), keep_alive](const asio::error_code& ec, std::size_t) {
          if (ec) return;
          if (keep_alive) return self->serve_buffered();
          asio::error_code ignored;
          self->socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
        });
  }

  asio::ip::tcp::socket socket_;
  server::Executor& exec_;
  std::shared_ptr<std::size_t> open_sessions_;
  std::string buffer_;
  std::string out_;
  std::array<char, 4096> chunk_{};
};

MetricsHttpServer::~MetricsHttpServer() { close(); }

bool MetricsHttpServer::listen(const std::vector<std::string>& bind, std::uint16_t port,
                               std::string& error) {
  for (const std::string& word : bind) {
    const bool optional = !word.empty() && word[0] == '-';
    const std::string addr = optional ? word.substr(1) : word;
    asio::error_code ec;
    const auto address = asio::ip::make_address(addr, ec);
    auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(io_);
    const asio::ip::tcp::endpoint ep(address, port);
    if (!ec) acceptor->open(ep.protocol(), ec);
    if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(ep, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      error = fmt::format("Could not create the metrics-port listening socket {}:{}: {}", addr,
                          port, ec.message());
      if (optional) {
        spdlog::warn("Warning: {}", error);
        continue;
      }
      return false;
    }
    bound_port_ = acceptor->local_endpoint().port();
    acceptors_.push_back(std::move(acceptor));
  }
  for (auto& a : acceptors_) accept_next(*a);
  spdlog::info("Queue view on metrics-port {} (GET /metrics, /queues.json, /)", bound_port_);
  return true;
}

void MetricsHttpServer::accept_next(asio::ip::tcp::acceptor& acceptor) {
  acceptor.async_accept([this, &acceptor](const asio::error_code& ec, asio::ip::tcp::socket s) {
    if (ec == asio::error::operation_aborted) return;  // closed
    if (!ec && *open_sessions_ < kMaxSessions)
      std::make_shared<Session>(std::move(s), exec_, open_sessions_)->start();
    accept_next(acceptor);  // an unserved socket `s` is closed as it goes out of scope
  });
}

void MetricsHttpServer::close() {
  asio::error_code ec;
  for (auto& a : acceptors_) a->close(ec);
}

}  // namespace listd::net
