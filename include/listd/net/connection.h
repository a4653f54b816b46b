// One client connection: socket, read buffer, request parser and write path.
//
// Reads with async_read_some, parses and executes every complete request in the buffer (stopping
// while the client is blocked), and writes replies with a direct non-blocking write_some when
// the Server flushes at the end of the loop turn; only what the socket does not take goes to an
// async_write. After a short read that produced a reply, the next read starts only once that
// reply is written (Server::defer_read): earlier, asio's speculative read could only fail.
// The object outlives its async operations: the Server frees it once it is closed and no
// operation is pending.
//
// On the TLS port a TlsSession filters the bytes (the seam for any I/O backend): what the
// socket gives goes through TlsSession::feed/read into the read buffer, replies through
// TlsSession::write into tls_out_, which takes the place of Client::out on the write path.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "listd/protocol/request_parser.h"
#include "listd/server/client.h"

namespace listd::server {
class Executor;
}

namespace listd::net {

class Server;
class TlsSession;

class Connection final : public server::ClientTransport {
 public:
  /// `tls`: a server session for a connection accepted on the TLS port, else nullptr.
  Connection(Server& server, asio::ip::tcp::socket socket, std::unique_ptr<TlsSession> tls);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  /// Starts the read that on_read deferred until this turn's replies were written.
  void read_after_flush() { read_more(); }
  bool closed() const noexcept { return closed_; }
  bool idle_freeable() const noexcept { return closed_ && !read_pending_ && !write_pending_; }
  bool tls() const noexcept { return tls_ != nullptr; }
  /// Best-effort synchronous flush used at shutdown.
  void flush_for_shutdown();

  // server::ClientTransport
  bool peer_gone() override;
  std::size_t query_buffer_bytes() const override { return in_end_ - in_begin_; }
  std::size_t pending_output_bytes() const override;
  /// Writes the client's pending output; closes afterwards if the client asked for it.
  void flush() override;
  /// Runs the requests already buffered (after the client was unblocked).
  void resume() override {
    if (!closed_) process_input();
  }
  /// Closes the socket; the Server frees the object once no operation is pending.
  void close() override;

 private:
  void process_input();
  void read_more();
  void on_read(const asio::error_code& ec, std::size_t n);
  void on_write(const asio::error_code& ec);
  /// Writes `pending` (Client::out, or tls_out_) at once, the rest through an async write.
  bool write_out(std::string& pending);
  // TLS (src/net/connection_tls.cpp): ciphertext in, plaintext into in_, and replies out.
  void start_tls_read();
  bool decrypt_input(std::size_t n);
  void encrypt_output();
  void protocol_error(std::string_view message);
  /// After a batch whose script went busy: the close or read it put off (Client::script_running).
  void finish_protected_batch();

  Server& server_;
  asio::ip::tcp::socket socket_;
  server::Client* client_ = nullptr;
  protocol::RequestParser parser_;
  std::vector<char> in_;
  std::size_t in_begin_ = 0;
  std::size_t in_end_ = 0;
  std::string writing_;  // bytes handed to an async_write in flight
  std::unique_ptr<TlsSession> tls_;
  std::vector<char> tls_in_;  // ciphertext read from the socket
  std::string tls_out_;       // ciphertext to send (handshake, replies, alerts)
  bool read_pending_ = false;
  bool write_pending_ = false;
  bool closed_ = false;
  bool eof_ = false;
  // While this client's script is busy: a read that completed was kept but not processed, a
  // close was asked for; both are done once the script has ended.
  bool read_paused_ = false;
  bool close_deferred_ = false;
};

}  // namespace listd::net
