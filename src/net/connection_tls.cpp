// Connection's TLS half: the two places where a TlsSession filters the bytes between the
// socket and the read buffer / Client::out (include/listd/net/connection.h).
#include <spdlog/spdlog.h>

#include "listd/net/connection.h"
#include "listd/net/server.h"
#include "listd/net/tls_session.h"
#include "listd/server/executor.h"

namespace listd::net {
namespace {

constexpr std::size_t kTlsPlainRoom = 16 * 1024;  // free space kept in the read buffer

}  // namespace

bool Connection::decrypt_input(const char* data, std::size_t n) {
  tls_->feed(data, n);
  // Everything the session can decrypt now: neither backend reports the socket again for
  // plaintext left inside OpenSSL. (Never under this client's own busy script: read_ready and
  // on_received hold the bytes back before they get here.)
  for (;;) {
    if (in_.size() - in_end_ < kTlsPlainRoom) in_.resize(in_end_ + kTlsPlainRoom);
    const std::size_t got = tls_->read(in_.data() + in_end_, in_.size() - in_end_);
    in_end_ += got;
    server_.executor().stats().net_input_bytes += got;  // Redis counts the plaintext
    // Stop when nothing is left to decrypt: one SSL_read a record, not a failing one more.
    if (got == 0 || !tls_->has_buffered_input()) break;
  }
  const bool output = tls_->take_output(tls_out_);  // handshake records, tickets, alerts
  if (tls_->failed()) {
    // Redis clientAcceptHandler's line; the alert OpenSSL queued is sent before the close.
    if (!tls_->handshake_done()) {
      spdlog::warn("Error accepting a client connection: {}", tls_->error());
    } else {
      spdlog::debug("Error reading from client: {} (id={} addr={})", tls_->error(), client_->id,
                    client_->addr);
    }
    in_begin_ = in_end_ = 0;
    set_interest(false);  // nothing more is read; the alert goes out, then the close
    client_->close_after_reply = true;
    server_.executor().clients().queue_flush(*client_);
    server_.schedule_flush();
    return false;
  }
  if (tls_->peer_closed()) {
    eof_ = true;
    close();
    return false;
  }
  if (output) {
    server_.executor().clients().queue_flush(*client_);
    server_.schedule_flush();
  }
  return true;
}

void Connection::encrypt_output() {
  release_output();
  if (client_->out.empty()) return;
  count_output(client_->out.size());  // the plaintext, as Redis
  tls_->write(client_->out);
  client_->out.clear();
  tls_->take_output(tls_out_);
}

}  // namespace listd::net
