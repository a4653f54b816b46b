// Connection on a completion backend (ByteStreams, the io_uring one): the bytes the kernel
// received are handed over here and copied into in_, or decrypted into it on the TLS port (the
// backend's buffer goes back to its ring right after), and the replies (their TLS records) leave
// by ByteStreams::send, one send in flight per socket. The parse/execute/flush logic is
// connection.cpp's.
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>

#include "listd/net/connection.h"
#include "listd/net/server.h"
#include "listd/server/executor.h"

namespace listd::net {

void Connection::on_received(const char* data, std::size_t n) {
  if (closed_) return;
  ++server_.executor().stats().total_reads_processed;  // one completed receive
  if (client_->script_running || read_paused_) {
    // Inside this client's own busy script (growing in_ would move its argv): kept aside, and
    // receiving pauses until the script has ended (finish_protected_batch).
    held_input_.append(data, n);
    read_paused_ = true;
    set_interest(false);
    return;
  }
  take_received(data, n);
}

void Connection::take_received(const char* data, std::size_t n) {
  make_room();
  if (tls_) {
    if (!decrypt_input(data, n)) return;  // counts the plaintext, as Redis
  } else {
    server_.executor().stats().net_input_bytes += n;
    if (in_.size() - in_end_ < n) in_.resize(in_end_ + n);
    std::memcpy(in_.data() + in_end_, data, n);
    in_end_ += n;
  }
  if (!run_input()) return;
  server_.schedule_flush();
  if (client_->closing()) set_interest(false);  // a closing client reads nothing more
}

void Connection::resume_stream_input() {
  if (held_input_.empty()) return;
  std::string held;
  held.swap(held_input_);
  take_received(held.data(), held.size());
}

void Connection::on_receive_end(int error) {
  if (closed_) return;
  ++server_.executor().stats().total_reads_processed;  // the receive that found the end
  eof_ = true;                                         // peer_gone: a waiter is not served
  if (error != 0) {
    spdlog::debug("Error reading from client: {} (id={} addr={})", std::strerror(-error),
                  client_->id, client_->addr);
  }
  // A half-closed client still gets the replies to what it sent before its FIN, as on the
  // readiness path (which sees the end of file only on the read after the turn's flush).
  const bool replies_pending = !client_->out.empty() || !tls_out_.empty() || streams_->sending(fd_);
  if (error != 0 || client_->blocked() || !replies_pending) {
    close();
    return;
  }
  client_->close_after_reply = true;
  server_.executor().clients().queue_flush(*client_);
  server_.schedule_flush();
}

void Connection::on_sent(long result, bool done) {
  if (closed_) return;
  ++server_.executor().stats().total_writes_processed;  // one completed send
  if (result < 0) {
    close();  // reset or gone: as a failed send on the readiness path
    return;
  }
  if (!tls_) count_output(static_cast<std::size_t>(result));  // TLS counts the plaintext
  if (done) flush();  // what the executor queued while the send was in flight
}

void Connection::flush_stream() {
  if (tls_) encrypt_output();  // while a send is in flight the records wait in tls_out_
  std::string& pending = tls_ ? tls_out_ : client_->out;
  if (!tls_ && !streams_->sending(fd_)) release_output();
  if (!streams_->sending(fd_) && !pending.empty()) streams_->send(fd_, pending);
  if (client_->close_after_reply && !streams_->sending(fd_) && pending.empty() &&
      client_->out.empty() && !client_->held)
    close();
}

}  // namespace listd::net
