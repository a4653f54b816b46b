#include "listd/net/connection.h"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <string_view>

#include "listd/net/server.h"
#include "listd/net/tls_session.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"

namespace listd::net {
namespace {

constexpr std::size_t kReadChunk = 16 * 1024;

std::string endpoint_string(const asio::ip::tcp::endpoint& ep) {
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

}  // namespace

Connection::Connection(Server& server, asio::ip::tcp::socket socket,
                       std::unique_ptr<TlsSession> tls)
    : server_(server),
      socket_(std::move(socket)),
      parser_(server.parser_limits()),
      tls_(std::move(tls)) {
  asio::error_code ec;
  const auto remote = socket_.remote_endpoint(ec);
  const auto local = socket_.local_endpoint(ec);
  client_ = &server_.executor().create_client(this, endpoint_string(remote), endpoint_string(local),
                                              socket_.native_handle());
}

Connection::~Connection() {
  if (client_) server_.executor().destroy_client(*client_);
}

void Connection::start() {
  asio::error_code ec;
  socket_.non_blocking(true, ec);
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  in_.resize(kReadChunk);
  read_more();
}

void Connection::read_more() {
  if (closed_ || read_pending_) return;
  if (client_->script_running) {  // compacting or growing in_ would move the script's argv
    read_paused_ = true;
    return;
  }
  // Compact, then make room: a big bulk argument gets its whole remaining size at once.
  if (in_begin_ == in_end_) {
    in_begin_ = in_end_ = 0;
  } else if (in_begin_ > 0 && in_begin_ >= in_.size() / 2) {
    std::copy(in_.begin() + static_cast<std::ptrdiff_t>(in_begin_),
              in_.begin() + static_cast<std::ptrdiff_t>(in_end_), in_.begin());
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  const std::size_t want = std::max(kReadChunk, parser_.bytes_needed_hint());
  if (in_.size() - in_end_ < want) in_.resize(in_end_ + want);
  read_pending_ = true;
  if (tls_) {
    start_tls_read();
    return;
  }
  socket_.async_read_some(asio::buffer(in_.data() + in_end_, in_.size() - in_end_),
                          [this](const asio::error_code& ec, std::size_t n) { on_read(ec, n); });
}

void Connection::on_read(const asio::error_code& ec, std::size_t n) {
  read_pending_ = false;
  if (closed_) {
    server_.connection_closed(*this);
    return;
  }
  if (ec) {
    // EOF or reset: the client is gone. A blocked client leaves its waiting lists now.
    eof_ = true;
    close();
    return;
  }
  // A short read drained the socket (see the end of this function).
  const bool drained = tls_ ? n < tls_in_.size() : in_end_ + n < in_.size();
  if (tls_) {
    if (!decrypt_input(n)) return;  // failed or closed by the peer
  } else {
    in_end_ += n;
    server_.executor().stats().net_input_bytes += n;
  }
  if (client_->script_running) {
    // Called from this client's own busy script: keep the bytes, run them after the script.
    read_paused_ = true;
    return;
  }
  if (!client_->blocked()) process_input();
  if (!closed_ && in_end_ - in_begin_ > server_.query_buffer_limit()) {
    spdlog::warn("Closing client that reached max query buffer length: id={} addr={} qbuf={}",
                 client_->id, client_->addr, in_end_ - in_begin_);
    close();
    return;
  }
  server_.schedule_flush();
  if (closed_ || client_->closing()) return;
  // If a short read produced a reply, the client is waiting for it before it sends more
  // (request/response): read again after the reply is out, not before.
  if (drained && !client_->out.empty() && !client_->blocked())
    server_.defer_read(*this);
  else
    read_more();
}

void Connection::process_input() {
  server::Executor& exec = server_.executor();
  parser_.set_limits(server_.parser_limits());
  exec.begin_batch();
  while (!closed_ && !client_->blocked() && !client_->closing() && in_begin_ < in_end_ &&
         !exec.shutdown_requested()) {
    const std::string_view buf(in_.data() + in_begin_, in_end_ - in_begin_);
    parser_.set_auth_required(!client_->authenticated);  // Redis authRequired(), per request
    const protocol::ParseStatus status = parser_.parse(buf);
    if (status == protocol::ParseStatus::kIncomplete) break;
    if (status == protocol::ParseStatus::kError) {
      protocol_error(parser_.error_message());
      break;
    }
    if (!parser_.argv().empty()) exec.execute(*client_, parser_.argv());
    in_begin_ += parser_.consumed();
  }
  exec.end_batch();
  finish_protected_batch();
  if (closed_) return;
  // Not while a read is pending: it writes at the old in_end_, and on_read adds n to in_end_
  // (a resumed blocked client would re-run its old pipelined requests). read_more compacts.
  if (in_begin_ == in_end_ && !read_pending_) in_begin_ = in_end_ = 0;
}

void Connection::finish_protected_batch() {
  if (close_deferred_) {
    close_deferred_ = false;
    close();
  } else if (read_paused_) {
    read_paused_ = false;
    server_.defer_read(*this);  // after this turn's replies, as any read that produced one
  }
}

void Connection::protocol_error(std::string_view message) {
  spdlog::debug("Protocol error ({}) from client: id={} addr={}", message, client_->id,
                client_->addr);
  client_->reply().error(std::string("ERR ") + std::string(message));
  client_->close_after_reply = true;
  in_begin_ = in_end_ = 0;
  server_.executor().clients().queue_flush(*client_);
}

std::size_t Connection::pending_output_bytes() const { return writing_.size() + tls_out_.size(); }

void Connection::flush() {
  // Over its output-buffer limit: closed at the end of the turn, its output never written.
  // A client whose script is busy is written after it (Redis skips protected clients); the
  // executor queues it again when the script's reply is in.
  if (closed_ || client_->close_asap || client_->script_running) return;
  // Never a reply before its AOF bytes (a completed async write may flush output produced
  // after the last finish_turn); a no-op when nothing is pending.
  server_.executor().persistence().flush_turn();
  if (tls_) encrypt_output();
  std::string& pending = tls_ ? tls_out_ : client_->out;
  if (!write_pending_ && !pending.empty() && !write_out(pending)) return;
  if (client_->close_after_reply && !write_pending_ && pending.empty() && client_->out.empty())
    close();
}

bool Connection::write_out(std::string& pending) {
  asio::error_code ec;
  const std::size_t n = socket_.write_some(asio::buffer(pending), ec);
  if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
    close();
    return false;
  }
  if (!tls_) server_.executor().stats().net_output_bytes += n;  // TLS counts the plaintext
  if (n == pending.size()) {
    pending.clear();
    return true;
  }
  // The socket is full: hand the rest to an async write and keep serving everyone else.
  writing_.assign(pending, n, std::string::npos);
  pending.clear();
  write_pending_ = true;
  asio::async_write(socket_, asio::buffer(writing_),
                    [this](const asio::error_code& wec, std::size_t) { on_write(wec); });
  return true;
}

void Connection::on_write(const asio::error_code& ec) {
  write_pending_ = false;
  if (closed_) {
    server_.connection_closed(*this);
    return;
  }
  if (ec) {
    close();
    return;
  }
  if (!tls_) server_.executor().stats().net_output_bytes += writing_.size();
  writing_.clear();
  flush();
}

void Connection::flush_for_shutdown() {
  if (closed_ || !client_ || client_->close_asap) return;  // over its limit: never written
  server_.executor().persistence().flush_turn();
  asio::error_code ec;
  socket_.non_blocking(false, ec);
  if (!writing_.empty()) asio::write(socket_, asio::buffer(writing_), ec);
  if (tls_) encrypt_output();
  std::string& pending = tls_ ? tls_out_ : client_->out;
  if (!ec && !pending.empty()) asio::write(socket_, asio::buffer(pending), ec);
}

void Connection::close() {
  if (closed_) return;
  if (client_ && client_->script_running) {  // its script is on the stack: close after it
    close_deferred_ = true;
    return;
  }
  closed_ = true;
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  // Leave the executor now: a blocked client must not be served after its socket is gone.
  if (client_) {
    server_.executor().destroy_client(*client_);
    client_ = nullptr;
  }
  server_.connection_closed(*this);
}

bool Connection::peer_gone() {
  if (eof_ || closed_) return true;
  // One poll, no read: a FIN (even a half-close) or an error shows as RDHUP/HUP/ERR.
  pollfd p{socket_.native_handle(), POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace listd::net
