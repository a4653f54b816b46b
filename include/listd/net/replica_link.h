// The replica's outgoing connection to its master (server::MasterLinkTransport over asio):
// resolves and connects, feeds every byte read to ReplicationReplica::on_bytes, and writes
// what the protocol sends. One session per connection attempt; a closed session's handlers
// find it closed and do nothing, so close() never waits for pending operations.
// With tls-replication the session is a TLS client (TlsSession over the asio socket, so it
// works whatever the I/O backend): the protocol hears of the link only once the handshake is
// done, and a failed handshake is reported with OpenSSL's text.
#pragma once

#include <array>
#include <asio.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "listd/net/tls_context.h"
#include "listd/net/tls_session.h"
#include "listd/server/master_link.h"

namespace listd::net {

class Server;

class ReplicaLink final : public server::MasterLinkTransport {
 public:
  explicit ReplicaLink(Server& server);
  ~ReplicaLink() override;
  ReplicaLink(const ReplicaLink&) = delete;
  ReplicaLink& operator=(const ReplicaLink&) = delete;

  void connect(const std::string& host, int port) override;
  void send(std::string_view bytes) override;
  void close() override;
  /// A connection attempt or session is open: its socket is asio's, so the loop waits in asio.
  bool active() const noexcept { return session_ != nullptr; }

 private:
  struct Session {
    explicit Session(asio::io_context& io) : socket(io), resolver(io) {}
    asio::ip::tcp::socket socket;
    asio::ip::tcp::resolver resolver;
    std::array<char, 16 * 1024> buf{};
    std::string out;                          // queued while a write is in flight
    std::string writing;                      // the bytes of the write in flight
    std::unique_ptr<TlsContext> tls_context;  // tls-replication: made for this attempt
    std::unique_ptr<TlsSession> tls;          // from the TCP connection on
    std::array<char, 16 * 1024> plain{};      // decrypted bytes for the protocol
    bool connected = false;  // the protocol was told (after the TLS handshake, if any)
    bool closed = false;
    // A write failed (the master is gone): nothing more is written, but what the master sent
    // before it went is still read and applied; the read's end reports the loss.
    bool write_failed = false;
  };

  void on_connected(const std::shared_ptr<Session>& s, const asio::error_code& ec);
  void read_more(const std::shared_ptr<Session>& s);
  /// Decrypts what was read, tells the protocol when the handshake is done, sends the rest.
  void on_tls_bytes(const std::shared_ptr<Session>& s, std::size_t n);
  void link_up(const std::shared_ptr<Session>& s);
  /// Queues the TLS session's ciphertext and starts a write if none is in flight.
  void flush_tls(const std::shared_ptr<Session>& s);
  void write_more(const std::shared_ptr<Session>& s);
  /// The connection failed or ended: tell the protocol once.
  void lost(const std::shared_ptr<Session>& s, const std::string& why);

  Server& server_;
  std::shared_ptr<Session> session_;
};

}  // namespace listd::net
