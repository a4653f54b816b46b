// One TLS connection as a byte filter: OpenSSL over two memory BIOs, with no socket and no
// event loop, so any I/O backend can carry it and two sessions can talk in memory (tests).
//   feed(ciphertext from the peer) -> read(plaintext for the RESP parser)
//   write(plaintext replies)       -> take_output(ciphertext to send)
// The handshake, session tickets and alerts travel through the same calls: after every
// feed() or write(), whatever take_output() gives must be sent. Plaintext written before the
// handshake ends is held and encrypted once it has.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "listd/config/config.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct bio_st BIO;

namespace listd::net {

class TlsSession {
 public:
  enum class Role { kServer, kClient };

  /// A server session verifies its client as tls-auth-clients says (Redis
  /// connCreateAcceptedTLS); a client session starts its handshake at once (take_output).
  TlsSession(SSL_CTX* ctx, Role role,
             config::TlsAuthClients auth_clients = config::TlsAuthClients::kYes);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  /// Ciphertext received from the peer (any split: partial records wait for the rest).
  void feed(const char* data, std::size_t n);
  /// Plaintext decrypted from what was fed, at most `cap` bytes; 0 when no whole record is
  /// there yet, or the session failed or the peer closed (see failed(), peer_closed()).
  std::size_t read(char* buf, std::size_t cap);
  /// Encrypts all of `plaintext` (held until the handshake is done).
  void write(std::string_view plaintext);
  /// Appends the ciphertext waiting to be sent to `out`; false if there was none.
  bool take_output(std::string& out);
  /// Queues a close_notify alert (take_output sends it).
  void close();

  bool handshake_done() const noexcept { return handshake_done_; }
  /// Fed ciphertext not decrypted yet, or plaintext of a record not read yet (read() was not
  /// called since, or ran out of room): when false, another read() can only return 0.
  bool has_buffered_input() const;
  bool failed() const noexcept { return !error_.empty(); }
  /// OpenSSL's text of the failure, e.g. "error:0A00010B:SSL routines::wrong version number".
  const std::string& error() const noexcept { return error_; }
  /// The peer sent close_notify.
  bool peer_closed() const noexcept { return peer_closed_; }

 private:
  bool advance_handshake();
  void encrypt(std::string_view plaintext);
  void fail(int ssl_error);

  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;   // ciphertext from the peer, read by OpenSSL
  BIO* out_ = nullptr;  // ciphertext for the peer, written by OpenSSL
  std::string held_;    // plaintext written before the handshake ended
  std::string error_;
  bool handshake_done_ = false;
  bool peer_closed_ = false;
};

}  // namespace listd::net
