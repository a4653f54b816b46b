#include "listd/net/connection.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "listd/net/server.h"
#include "listd/net/tls_session.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"

namespace listd::net {
namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
// Reads per readiness report while each fills the buffer: a big pipeline or bulk argument is
// taken in a few steps per turn, and whatever remains is reported again (level-triggered).
constexpr int kMaxReadsPerReport = 16;
// Redis' thresholds: a buffer is given back once it wastes more than 4 KB and its client has
// been idle for more than 2 s.
constexpr std::size_t kReleaseWaste = 4 * 1024;
constexpr std::uint64_t kReleaseIdleMs = 2000;

}  // namespace

Connection::Connection(Server& server, int fd, const std::string& remote, const std::string& local,
                       std::unique_ptr<TlsSession> tls)
    : server_(server),
      fd_(fd),
      streams_(server.loop().streams()),  // TLS filters the bytes on either backend
      parser_(server.parser_limits()),
      tls_(std::move(tls)) {
  client_ = &server_.executor().create_client(this, remote, local, fd_);
}

Connection::~Connection() {
  if (client_) server_.executor().destroy_client(*client_);
  if (!closed_) ::close(fd_);
}

bool Connection::start() {
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // The read buffer is allocated by the first read (make_room), not for a client that never
  // sends anything.
  return streams_ ? streams_->open(fd_, this) : server_.loop().add(fd_, this, true, false);
}

void Connection::on_io(bool readable, bool writable, bool hangup) {
  if (closed_) return;  // closed earlier in this turn; freed at its end
  if (writable) continue_write();
  if (!closed_ && (readable || hangup)) read_ready();
}

void Connection::set_interest(bool read) {
  if (closed_ || read == reading_) return;
  reading_ = read;
  if (streams_) {
    streams_->set_receiving(fd_, read);
    return;
  }
  server_.loop().modify(fd_, this, reading_, written_ < writing_.size());
}

void Connection::make_room() {
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
}

bool Connection::read_from_socket(bool& filled) {
  make_room();
  // On the TLS port the socket's bytes are ciphertext: read into tls_in_, decrypted into in_.
  if (tls_ && tls_in_.size() != kReadChunk) tls_in_.resize(kReadChunk);
  char* const into = tls_ ? tls_in_.data() : in_.data() + in_end_;
  const std::size_t room = tls_ ? tls_in_.size() : in_.size() - in_end_;
  ++server_.executor().stats().total_reads_processed;  // one per read, as Redis' per call
  ssize_t n;
  do {
    n = ::recv(fd_, into, room, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    filled = false;
    return true;
  }
  if (n <= 0) {
    // EOF or reset: the client is gone. A blocked client leaves its waiting lists now.
    eof_ = true;
    close();
    return false;
  }
  filled = static_cast<std::size_t>(n) == room;
  if (tls_) return decrypt_input(tls_in_.data(), static_cast<std::size_t>(n));
  in_end_ += static_cast<std::size_t>(n);
  server_.executor().stats().net_input_bytes += static_cast<std::size_t>(n);
  return true;
}

void Connection::read_ready() {
  if (client_->script_running) {
    // Reported inside this client's own busy script (growing in_ would move its argv): stop
    // listening until the script has ended (finish_protected_batch).
    read_paused_ = true;
    set_interest(false);
    return;
  }
  bool filled = true;
  for (int i = 0; i < kMaxReadsPerReport && filled; ++i) {
    if (!read_from_socket(filled) || !run_input()) return;
    if (client_->script_running || client_->closing()) break;
  }
  server_.schedule_flush();
  // A closing client reads nothing more (level-triggered: unread bytes would be reported again).
  if (client_->closing()) set_interest(false);
}

bool Connection::run_input() {
  if (!client_->waiting()) process_input();
  if (closed_) return false;
  if (in_end_ - in_begin_ > server_.query_buffer_limit()) {
    spdlog::warn("Closing client that reached max query buffer length: id={} addr={} qbuf={}",
                 client_->id, client_->addr, in_end_ - in_begin_);
    close();
    return false;
  }
  return true;
}

void Connection::process_input() {
  server::Executor& exec = server_.executor();
  parser_.set_limits(server_.parser_limits());
  exec.begin_batch();
  while (!closed_ && !client_->waiting() && !client_->closing() && in_begin_ < in_end_ &&
         !exec.shutdown_requested()) {
    const std::string_view buf(in_.data() + in_begin_, in_end_ - in_begin_);
    parser_.set_auth_required(!client_->authenticated);  // Redis authRequired(), per request
    const protocol::ParseStatus status = parser_.parse(buf);
    if (status == protocol::ParseStatus::kIncomplete) break;
    if (status == protocol::ParseStatus::kError) {
      protocol_error(parser_.error_message());
      break;
    }
    if (!parser_.argv().empty())
      exec.execute(*client_, parser_.argv());
    else if (client_->replica)  // Redis processInlineBuffer: its keep-alive while it loads
      exec.replication().refresh_ack_time(*client_);
    if (client_->postponed) break;  // CLIENT PAUSE: the request stays, parsed again on resume
    in_begin_ += parser_.consumed();
  }
  exec.end_batch();
  finish_protected_batch();
  if (closed_) return;
  if (in_begin_ == in_end_) in_begin_ = in_end_ = 0;
}

void Connection::finish_protected_batch() {
  if (close_deferred_) {
    close_deferred_ = false;
    close();
  } else if (read_paused_) {
    read_paused_ = false;
    set_interest(true);  // what arrived meanwhile is reported on the next wait
    if (streams_) resume_stream_input();
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

long Connection::send_bytes(std::string_view bytes) {
  ++server_.executor().stats().total_writes_processed;
  ssize_t n;
  do {
    n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    close();
    return -1;
  }
  if (!tls_) count_output(static_cast<std::size_t>(n));  // TLS counts the plaintext
  return n;
}

void Connection::count_output(std::size_t n) noexcept {
  server::ServerStats& stats = server_.executor().stats();
  (client_->replica ? stats.net_repl_output_bytes : stats.net_output_bytes) += n;
}

void Connection::flush() {
  // Over its output-buffer limit: closed at the end of the turn, its output never written.
  // A client whose script is busy is written after it (Redis skips protected clients); the
  // executor queues it again when the script's reply is in.
  if (closed_ || client_->close_asap || client_->script_running) return;
  // Never a reply before its AOF bytes (output produced after the last finish_turn, written
  // when the socket had room again); a no-op when nothing is pending.
  server_.executor().persistence().flush_turn();
  if (streams_) {
    flush_stream();
    return;
  }
  if (tls_) encrypt_output();
  std::string& pending = tls_ ? tls_out_ : client_->out;
  if (!tls_ && written_ == writing_.size()) release_output();
  if (written_ == writing_.size() && !pending.empty()) {
    const long n = send_bytes(pending);
    if (n < 0) return;
    if (static_cast<std::size_t>(n) == pending.size()) {
      pending.clear();
    } else {
      // The socket is full: keep the rest and ask the loop for room; everyone else goes on.
      writing_.assign(pending, static_cast<std::size_t>(n), std::string::npos);
      written_ = 0;
      pending.clear();
      server_.loop().modify(fd_, this, reading_, true);
    }
  }
  if (client_->close_after_reply && written_ == writing_.size() && pending.empty() &&
      client_->out.empty() && !client_->held)
    close();
}

void Connection::release_output() {
  // Only here, where Client::out is consumed whole: output sync-replicas holds stays behind.
  server_.executor().sync_replication().before_send(*client_);
}

void Connection::continue_write() {
  if (written_ == writing_.size()) return;
  const long n = send_bytes(std::string_view(writing_).substr(written_));
  if (n < 0) return;
  written_ += static_cast<std::size_t>(n);
  if (written_ < writing_.size()) return;
  writing_.clear();
  written_ = 0;
  server_.loop().modify(fd_, this, reading_, false);
  flush();  // what the executor queued meanwhile
}

void Connection::flush_for_shutdown() {
  if (closed_ || !client_ || client_->close_asap) return;  // over its limit: never written
  server_.executor().persistence().flush_turn();
  if (streams_) {  // handed to the backend; the Server waits for the sends (finish_sends)
    flush_stream();
    return;
  }
  if (tls_) encrypt_output();
  release_output();  // unacknowledged replies are not sent, even at shutdown
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  for (std::string_view rest : {std::string_view(writing_).substr(written_),
                                std::string_view(tls_ ? tls_out_ : client_->out)}) {
    while (!rest.empty()) {
      const ssize_t n = ::send(fd_, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  }
}

void Connection::close() {
  if (closed_) return;
  if (client_ && client_->script_running) {  // its script is on the stack: close after it
    close_deferred_ = true;
    return;
  }
  closed_ = true;
  if (streams_) {
    streams_->close(fd_);
  } else {
    server_.loop().remove(fd_);
  }
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  // Leave the executor now: a blocked client must not be served after its socket is gone.
  if (client_) {
    server_.executor().destroy_client(*client_);
    client_ = nullptr;
  }
  server_.connection_closed(*this);
}

std::size_t Connection::release_idle_buffers(std::uint64_t now_ms) {
  // Never under a busy script (the cron does not run then): a parsed argv may point into in_.
  if (closed_ || client_->script_running || now_ms - client_->last_interaction_ms <= kReleaseIdleMs)
    return 0;
  std::size_t freed = 0;
  if (in_.size() - (in_end_ - in_begin_) > kReleaseWaste) {
    // Keep only what is buffered (a partial request), at the front.
    ReadBuffer kept(in_.begin() + static_cast<std::ptrdiff_t>(in_begin_),
                    in_.begin() + static_cast<std::ptrdiff_t>(in_end_));
    freed += in_.capacity() - kept.capacity();
    in_.swap(kept);
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  if (written_ == writing_.size() && writing_.capacity() > kReleaseWaste) {
    freed += writing_.capacity();
    std::string().swap(writing_);
    written_ = 0;
  }
  if (tls_in_.capacity() > kReleaseWaste) {  // ciphertext is decrypted as it arrives
    freed += tls_in_.capacity();
    ReadBuffer().swap(tls_in_);
  }
  if (client_->out.empty() && client_->out.capacity() > kReleaseWaste) {
    freed += client_->out.capacity();
    std::string().swap(client_->out);
  }
  return freed;
}

bool Connection::peer_gone() {
  if (eof_ || closed_) return true;
  // One poll, no read: a FIN (even a half-close) or an error shows as RDHUP/HUP/ERR.
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace listd::net
