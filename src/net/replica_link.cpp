#include "listd/net/replica_link.h"

#include <netinet/tcp.h>

#include "listd/net/server.h"
#include "listd/server/replication_replica.h"

namespace listd::net {

ReplicaLink::ReplicaLink(Server& server) : server_(server) {}

ReplicaLink::~ReplicaLink() { close(); }

void ReplicaLink::connect(const std::string& host, int port) {
  close();
  auto s = std::make_shared<Session>(server_.io());
  session_ = s;
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
  s->connected = true;
  asio::error_code ignored;
  s->socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  server_.executor().replica_side().on_connected();
  if (!s->closed) read_more(s);
  server_.schedule_flush();
}

void ReplicaLink::read_more(const std::shared_ptr<Session>& s) {
  s->socket.async_read_some(
      asio::buffer(s->buf), [this, s](const asio::error_code& ec, std::size_t n) {
        if (s->closed) return;
        if (ec) {
          lost(s, ec == asio::error::eof ? "EOF" : ec.message());
          return;
        }
        server_.executor().replica_side().on_bytes(std::string_view(s->buf.data(), n));
        // The stream's effects: the AOF bytes and sub-replicas' output.
        server_.schedule_flush();
        if (!s->closed) read_more(s);
      });
}

void ReplicaLink::send(std::string_view bytes) {
  const std::shared_ptr<Session> s = session_;
  if (!s || !s->connected) return;
  s->out.append(bytes);
  if (s->writing.empty()) write_more(s);
}

void ReplicaLink::write_more(const std::shared_ptr<Session>& s) {
  s->writing.swap(s->out);
  asio::async_write(s->socket, asio::buffer(s->writing),
                    [this, s](const asio::error_code& ec, std::size_t) {
                      if (s->closed) return;
                      s->writing.clear();
                      if (ec) {
                        lost(s, ec.message());
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
