#include "listd/net/replica_link.h"

#include <netinet/tcp.h>

#include "listd/net/server.h"
#include "listd/server/executor.h"
#include "listd/server/replication_replica.h"

namespace listd::net {

ReplicaLink::ReplicaLink(Server& server) : server_(server) {}

ReplicaLink::~ReplicaLink() { close(); }

void ReplicaLink::connect(const std::string& host, int port) {
  close();
  auto s = std::make_shared<Session>(server_.io());
  session_ = s;
  const config::ServerSettings& settings = server_.executor().config().settings();
  if (settings.tls_replication) {
    std::string why;
    s->tls_context = TlsContext::create_client(settings, why);
    if (!s->tls_context) {
      // Reported after connect() returns, as a failed connection would be.
      asio::post(server_.io(), [this, s, why] {
        if (!s->closed) lost(s, why);
      });
      return;
    }
  }
  s->resolver.async_resolve(
      host, std::to_string(port),
      [this, s](const asio::error_code& ec, const asio::ip::tcp::resolver::results_type& found) {
        if (s->closed) return;
        if (ec) {
          lost(s, ec.message());
          return;
        }
        asio::async_connect(s->socket, found,
                            [this, s](const asio::error_code& cec, const asio::ip::tcp::endpoint&) {
                              on_connected(s, cec);
                            });
      });
}

void ReplicaLink::on_connected(const std::shared_ptr<Session>& s, const asio::error_code& ec) {
  if (s->closed) return;
  if (ec) {
    lost(s, ec.message());
    return;
  }
  asio::error_code ignored;
  s->socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  if (s->tls_context) {
    s->tls = std::make_unique<TlsSession>(s->tls_context->native(), TlsSession::Role::kClient);
    flush_tls(s);  // the ClientHello
  } else {
    link_up(s);
  }
  if (!s->closed) read_more(s);
  server_.schedule_flush();
}

void ReplicaLink::link_up(const std::shared_ptr<Session>& s) {
  s->connected = true;
  server_.executor().replica_side().on_connected();
}

void ReplicaLink::on_tls_bytes(const std::shared_ptr<Session>& s, std::size_t n) {
  TlsSession& tls = *s->tls;
  tls.feed(s->buf.data(), n);
  for (;;) {
    const std::size_t got = tls.read(s->plain.data(), s->plain.size());
    if (!s->connected && tls.handshake_done()) link_up(s);
    if (s->closed) return;
    if (got == 0) break;
    server_.executor().replica_side().on_bytes(std::string_view(s->plain.data(), got));
    if (s->closed) return;
  }
  if (tls.failed()) {
    lost(s, tls.error());
  } else if (tls.peer_closed()) {
    lost(s, "EOF");
  } else {
    flush_tls(s);
  }
}

void ReplicaLink::flush_tls(const std::shared_ptr<Session>& s) {
  if (s->tls->take_output(s->out) && s->writing.empty() && !s->write_failed) write_more(s);
}

void ReplicaLink::read_more(const std::shared_ptr<Session>& s) {
  s->socket.async_read_some(
      asio::buffer(s->buf), [this, s](const asio::error_code& ec, std::size_t n) {
        if (s->closed) return;
        ++server_.executor().stats().total_reads_processed;  // our master is a client too
        if (ec) {
          lost(s, ec == asio::error::eof ? "EOF" : ec.message());
          return;
        }
        if (s->tls)
          on_tls_bytes(s, n);
        else
          server_.executor().replica_side().on_bytes(std::string_view(s->buf.data(), n));
        // The stream's effects: the AOF bytes and sub-replicas' output.
        server_.schedule_flush();
        if (!s->closed) read_more(s);
      });
}

void ReplicaLink::send(std::string_view bytes) {
  const std::shared_ptr<Session> s = session_;
  if (!s || !s->connected) return;
  if (s->tls) {
    s->tls->write(bytes);
    flush_tls(s);
    return;
  }
  if (s->write_failed) return;
  s->out.append(bytes);
  if (s->writing.empty()) write_more(s);
}

void ReplicaLink::write_more(const std::shared_ptr<Session>& s) {
  s->writing.swap(s->out);
  asio::async_write(s->socket, asio::buffer(s->writing),
                    [this, s](const asio::error_code& ec, std::size_t) {
                      if (s->closed) return;
                      ++server_.executor().stats().total_writes_processed;
                      s->writing.clear();
                      if (ec) {
                        // A dead master's socket: its last bytes may still wait in ours (a
                        // replica resumed after a stall whose ACK met the closed socket). The
                        // loss is reported when the read ends; closing now would drop them.
                        s->write_failed = true;
                        s->out.clear();
                        return;
                      }
                      if (!s->out.empty()) write_more(s);
                    });
}

void ReplicaLink::lost(const std::shared_ptr<Session>& s, const std::string& why) {
  s->closed = true;
  asio::error_code ignored;
  s->socket.close(ignored);
  if (session_ == s) session_.reset();
  server_.executor().replica_side().on_link_closed(why);
  server_.schedule_flush();
}

void ReplicaLink::close() {
  if (!session_) return;
  session_->closed = true;
  session_->resolver.cancel();
  asio::error_code ignored;
  session_->socket.close(ignored);
  session_.reset();
}

}  // namespace listd::net
