#include "listd/net/tls_session.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <climits>

namespace listd::net {

TlsSession::TlsSession(SSL_CTX* ctx, Role role, config::TlsAuthClients auth_clients)
    : ssl_(SSL_new(ctx)), in_(BIO_new(BIO_s_mem())), out_(BIO_new(BIO_s_mem())) {
  // An empty input BIO means "wait for more", never end of file.
  BIO_set_mem_eof_return(in_, -1);
  BIO_set_mem_eof_return(out_, -1);
  SSL_set_bio(ssl_, in_, out_);  // the SSL owns both BIOs from here
  if (role == Role::kClient) {
    SSL_set_connect_state(ssl_);
    advance_handshake();  // the ClientHello
    return;
  }
  switch (auth_clients) {
    case config::TlsAuthClients::kNo: SSL_set_verify(ssl_, SSL_VERIFY_NONE, nullptr); break;
    case config::TlsAuthClients::kOptional: SSL_set_verify(ssl_, SSL_VERIFY_PEER, nullptr); break;
    case config::TlsAuthClients::kYes:
      SSL_set_verify(ssl_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  SSL_set_accept_state(ssl_);
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

void TlsSession::feed(const char* data, std::size_t n) {
  while (n > 0) {
    const int chunk = static_cast<int>(std::min<std::size_t>(n, INT_MAX));
    BIO_write(in_, data, chunk);
    data += chunk;
    n -= static_cast<std::size_t>(chunk);
  }
}

std::size_t TlsSession::read(char* buf, std::size_t cap) {
  if (failed() || peer_closed_ || cap == 0) return 0;
  if (!handshake_done_ && !advance_handshake()) return 0;
  ERR_clear_error();
  const int r = SSL_read(ssl_, buf, static_cast<int>(std::min<std::size_t>(cap, INT_MAX)));
  if (r > 0) return static_cast<std::size_t>(r);
  const int e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_ZERO_RETURN) {
    peer_closed_ = true;
  } else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
    fail(e);
  }
  return 0;
}

void TlsSession::write(std::string_view plaintext) {
  if (failed() || plaintext.empty()) return;
  if (!handshake_done_) {
    held_.append(plaintext);
    return;
  }
  encrypt(plaintext);
}

void TlsSession::encrypt(std::string_view plaintext) {
  // The output BIO grows as needed, so every record is taken (partial writes only split it).
  while (!plaintext.empty() && !failed()) {
    ERR_clear_error();
    const int chunk = static_cast<int>(std::min<std::size_t>(plaintext.size(), INT_MAX));
    const int w = SSL_write(ssl_, plaintext.data(), chunk);
    if (w <= 0) {
      fail(SSL_get_error(ssl_, w));
      return;
    }
    plaintext.remove_prefix(static_cast<std::size_t>(w));
  }
}

bool TlsSession::take_output(std::string& out) {
  const std::size_t pending = BIO_ctrl_pending(out_);
  if (pending == 0) return false;
  const std::size_t old = out.size();
  out.resize(old + pending);
  const int got = BIO_read(out_, out.data() + old, static_cast<int>(pending));
  out.resize(old + static_cast<std::size_t>(got > 0 ? got : 0));
  return got > 0;
}

void TlsSession::close() {
  if (failed() || !handshake_done_) return;
  ERR_clear_error();
  SSL_shutdown(ssl_);
}

bool TlsSession::has_buffered_input() const {
  return BIO_ctrl_pending(in_) > 0 || SSL_pending(ssl_) > 0;
}

bool TlsSession::advance_handshake() {
  ERR_clear_error();
  const int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    handshake_done_ = true;
    if (!held_.empty()) {
      const std::string held = std::move(held_);
      held_.clear();
      encrypt(held);
    }
    return true;
  }
  const int e = SSL_get_error(ssl_, r);
  if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) fail(e);
  return false;
}

void TlsSession::fail(int ssl_error) {
  const unsigned long code = ERR_get_error();
  if (code != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    error_ = buf;
  } else if (ssl_error == SSL_ERROR_SYSCALL) {
    error_ = "unexpected end of TLS stream";
  } else {
    error_ = "TLS error " + std::to_string(ssl_error);
  }
  ERR_clear_error();
}

}  // namespace listd::net
