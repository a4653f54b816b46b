#include "listd/net/metrics_http.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// Accepts per readiness report; the rest wait for the next wait (level-triggered).
constexpr int kMetricsAcceptsPerReport = 16;
constexpr std::size_t kMetricsReadChunk = 4096;
// Reads per readiness report: a head is at most kMaxHeadBytes, so this takes any whole head.
constexpr int kMetricsReadsPerReport = 4;

// A listening socket for an IPv4 or IPv6 literal (what the bind words hold), non-blocking;
// -1 with errno set when it cannot be made.
int open_metrics_listener(const std::string& addr, std::uint16_t port) {
  sockaddr_storage storage{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, addr.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    len = sizeof *v4;
  } else if (::inet_pton(AF_INET6, addr.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    len = sizeof *v6;
  } else {
    errno = EINVAL;
    return -1;
  }
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&storage), len) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_storage storage{};
  socklen_t len = sizeof storage;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &len) != 0) return 0;
  return ntohs(storage.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
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

// A listening socket on the loop: readiness means connections to accept.
class MetricsHttpServer::Listener final : public IoHandler {
 public:
  Listener(MetricsHttpServer& owner, int fd) : owner_(owner), fd_(fd) {}
  ~Listener() override { ::close(fd_); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  int fd() const noexcept { return fd_; }
  void on_io(bool, bool, bool) override { owner_.accept_ready(fd_); }

 private:
  MetricsHttpServer& owner_;
  int fd_;
};

// One connection: read until a whole head, answer, then parse the next request or close. While
// a response is only partly written the socket is watched for room instead of for requests.
class MetricsHttpServer::Session final : public IoHandler {
 public:
  Session(MetricsHttpServer& owner, int fd) : owner_(owner), fd_(fd) {}
  ~Session() override { shut(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  bool start() { return owner_.loop_.add(fd_, this, true, false); }

  void on_io(bool readable, bool writable, bool hangup) override {
    if (writable) {
      if (flush()) serve_buffered();
      return;
    }
    if (readable) return read_ready();
    if (hangup) owner_.end_session(*this);
  }

  /// Leaves the loop and closes the socket (the object is freed by its owner).
  void shut() {
    if (fd_ < 0) return;
    owner_.loop_.remove(fd_);
    ::close(fd_);
    fd_ = -1;
  }

 private:
  void read_ready() {
    for (int i = 0; i < kMetricsReadsPerReport; ++i) {
      char chunk[kMetricsReadChunk];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n > 0) {
        buffer_.append(chunk, static_cast<std::size_t>(n));
        if (static_cast<std::size_t>(n) < sizeof chunk) break;
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
      return owner_.end_session(*this);  // closed by the peer, or an error
    }
    serve_buffered();
  }

  // Answers the buffered requests in order, each once the one before it is written.
  void serve_buffered() {
    while (fd_ >= 0 && out_.empty()) {
      protocol::HttpRequest request;
      switch (protocol::parse_http_request(buffer_, kMaxHeadBytes, request)) {
        case protocol::HttpParse::kIncomplete: return;
        case protocol::HttpParse::kBad:
          respond_and_close("400 Bad Request", "400 bad request\n");
          return;
        case protocol::HttpParse::kTooLarge:
          respond_and_close("431 Request Header Fields Too Large", "431 head too large\n");
          return;
        case protocol::HttpParse::kComplete: break;
      }
      buffer_.erase(0, request.consumed);
      out_ = metrics_http_response(owner_.exec_, request.method, request.path, request.keep_alive);
      keep_alive_ = request.keep_alive;
      if (!flush()) return;
    }
  }

  void respond_and_close(std::string_view status, std::string_view body) {
    out_ = fmt::format(
        "HTTP/1.1 {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n"
        "Connection: close\r\n\r\n{}",
        status, body.size(), body);
    keep_alive_ = false;
    flush();
  }

  // Writes what the socket takes of the response. True when it is all written and the session
  // goes on (keep-alive); false while waiting for room, or when the session has ended.
  bool flush() {
    while (sent_ < out_.size()) {
      const ssize_t n = ::send(fd_, out_.data() + sent_, out_.size() - sent_, MSG_NOSIGNAL);
      if (n > 0) {
        sent_ += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!waiting_for_room_) waiting_for_room_ = owner_.loop_.modify(fd_, this, false, true);
        return false;
      } else {
        owner_.end_session(*this);
        return false;
      }
    }
    out_.clear();
    sent_ = 0;
    if (!keep_alive_) {
      ::shutdown(fd_, SHUT_WR);  // the response first, then the end of the stream
      owner_.end_session(*this);
      return false;
    }
    if (waiting_for_room_) waiting_for_room_ = !owner_.loop_.modify(fd_, this, true, false);
    return true;
  }

  MetricsHttpServer& owner_;
  int fd_;
  std::string buffer_;  // bytes read and not yet parsed
  std::string out_;     // the response being written
  std::size_t sent_ = 0;
  bool keep_alive_ = true;
  bool waiting_for_room_ = false;
};

MetricsHttpServer::MetricsHttpServer(IoLoop& loop, server::Executor& exec)
    : loop_(loop), exec_(exec) {}

MetricsHttpServer::~MetricsHttpServer() { close(); }

bool MetricsHttpServer::listen(const std::vector<std::string>& bind, std::uint16_t port,
                               std::string& error) {
  for (const std::string& word : bind) {
    const bool optional = !word.empty() && word[0] == '-';
    const std::string addr = optional ? word.substr(1) : word;
    const int fd = open_metrics_listener(addr, port);
    auto listener = fd >= 0 ? std::make_unique<Listener>(*this, fd) : nullptr;
    if (!listener || !loop_.add(fd, listener.get(), true, false)) {
      error = fmt::format("Could not create the metrics-port listening socket {}:{}: {}", addr,
                          port, std::strerror(errno));
      if (optional) {
        spdlog::warn("Warning: {}", error);
        continue;
      }
      return false;
    }
    bound_port_ = local_port(fd);
    listeners_.push_back(std::move(listener));
  }
  spdlog::info("Queue view on metrics-port {} (GET /metrics, /queues.json, /)", bound_port_);
  return true;
}

void MetricsHttpServer::accept_ready(int listen_fd) {
  for (int i = 0; i < kMetricsAcceptsPerReport; ++i) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: none left; other errors: the next report tries again
    }
    if (sessions_.size() >= kMaxSessions) {
      ::close(fd);
      continue;
    }
    auto session = std::make_unique<Session>(*this, fd);
    Session* raw = session.get();
    sessions_.emplace(raw, std::move(session));
    if (!raw->start()) end_session(*raw);
  }
}

void MetricsHttpServer::end_session(Session& session) {
  auto it = sessions_.find(&session);
  if (it == sessions_.end()) return;  // already ended
  session.shut();
  loop_.retire(std::move(it->second));
  sessions_.erase(it);
}

void MetricsHttpServer::close() {
  while (!sessions_.empty()) end_session(*sessions_.begin()->first);
  for (auto& l : listeners_) loop_.remove(l->fd());
  listeners_.clear();
}

}  // namespace listd::net
