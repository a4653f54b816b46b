#include "listd/net/server.h"

#include <netinet/tcp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "listd/net/connection.h"
#include "listd/net/replica_link.h"
#include "listd/net/tls_context.h"
#include "listd/net/tls_session.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_replica.h"

namespace listd::net {
namespace {

std::chrono::steady_clock::time_point to_time_point(std::uint64_t monotonic_ms) {
  return std::chrono::steady_clock::time_point(std::chrono::milliseconds(monotonic_ms));
}

}  // namespace

Server::Server(asio::io_context& io, server::Executor& exec, NetOptions options)
    : io_(io), exec_(exec), options_(std::move(options)), timer_(io), cron_(io), busy_flush_(io) {
  refresh_limits();
  exec_.set_event_loop_yield(this);
}

Server::~Server() {
  exec_.replica_side().set_transport(nullptr);
  exec_.set_event_loop_yield(nullptr);
}

void Server::refresh_limits() {
  const config::Config& cfg = exec_.config();
  limits_.max_bulk_len = static_cast<std::size_t>(cfg.settings().proto_max_bulk_len);
  query_buffer_limit_ = cfg.settings().client_query_buffer_limit;
}

bool Server::listen(std::string& error) {
  if (options_.tls_port != 0 && !configure_tls(error)) return false;
  // Redis: port 0 with a TLS port is the TLS port alone (listd's port 0 alone is any port).
  const bool plain = options_.port != 0 || options_.tls_port == 0;
  for (const std::string& word : options_.bind) {
    if (plain && !listen_on(word, options_.port, false, error)) return false;
    if (options_.tls_port != 0 && !listen_on(word, options_.tls_port, true, error)) return false;
  }
  for (Listener& l : listeners_) accept_next(l);
  // The link to our master (replicaof), once we can be reached on our port.
  replica_link_ = std::make_unique<ReplicaLink>(*this);
  exec_.replica_side().set_transport(replica_link_.get());
  run_cron();
  return true;
}

bool Server::listen_on(const std::string& word, std::uint16_t port, bool tls, std::string& error) {
  // Redis 7: a leading '-' makes the address optional (Debian's redis.conf binds
  // "127.0.0.1 -::1"): an address this host does not have is skipped, as is a family the
  // kernel does not support.
  const bool optional = !word.empty() && word[0] == '-';
  const std::string addr = optional ? word.substr(1) : word;
  asio::error_code ec;
  const auto address = asio::ip::make_address(addr, ec);
  if (ec) {
    error = "Invalid bind address '" + addr + "'";
    return false;
  }
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(io_);
  const asio::ip::tcp::endpoint ep(address, port);
  acceptor->open(ep.protocol(), ec);
  if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(ep, ec);
  if (!ec) acceptor->listen(options_.tcp_backlog, ec);
  if (ec) {
    error = "Could not create server TCP listening socket " + addr + ":" + std::to_string(port) +
            ": " + ec.message();
    const int err = ec.value();
    if ((optional && err == EADDRNOTAVAIL) || err == EAFNOSUPPORT || err == EPROTONOSUPPORT ||
        err == ENOPROTOOPT || err == ESOCKTNOSUPPORT || err == EPFNOSUPPORT) {
      spdlog::warn("Warning: {}", error);
      return true;
    }
    return false;
  }
  (tls ? bound_tls_port_ : bound_port_) = acceptor->local_endpoint().port();
  listeners_.push_back({std::move(acceptor), tls});
  return true;
}

bool Server::configure_tls(std::string& error) {
  std::string why;
  std::unique_ptr<TlsContext> ctx = TlsContext::create(exec_.config().settings(), why);
  if (!ctx) {
    spdlog::warn("{}", why);
    error = "Failed to configure TLS. Check logs for more info.";
    return false;
  }
  tls_context_ = std::make_shared<std::unique_ptr<TlsContext>>(std::move(ctx));
  // CONFIG SET of a context option builds a new context from the values about to be set; if
  // that fails, the change is refused and the current context stays (Redis applyTlsCfg).
  // Connected clients keep the context they were accepted with.
  std::weak_ptr<std::unique_ptr<TlsContext>> slot = tls_context_;
  exec_.config().on_apply(
      [slot](const config::ServerSettings& next,
             std::span<const std::string_view> changed) -> std::optional<config::ApplyFailure> {
        const auto live = slot.lock();
        const auto it = std::find_if(changed.begin(), changed.end(), &is_tls_context_option);
        if (!live || it == changed.end()) return std::nullopt;
        std::string failure;
        std::unique_ptr<TlsContext> rebuilt = TlsContext::create(next, failure);
        if (!rebuilt) {
          spdlog::warn("{}", failure);
          return config::ApplyFailure{std::string(*it),
                                      "Unable to update TLS configuration. Check server logs."};
        }
        *live = std::move(rebuilt);
        return std::nullopt;
      });
  return true;
}

void Server::accept_next(Listener& listener) {
  listener.acceptor->async_accept(
      [this, &listener](const asio::error_code& ec, asio::ip::tcp::socket s) {
        if (ec) {
          if (ec == asio::error::operation_aborted || stopping_) return;
          spdlog::warn("Accept error: {}", ec.message());
        } else {
          on_accept(listener, std::move(s));
        }
        if (!stopping_) accept_next(listener);
      });
}

void Server::on_accept(Listener& listener, asio::ip::tcp::socket socket) {
  const config::Config& cfg = exec_.config();
  if (connections_.size() >= static_cast<std::size_t>(cfg.settings().maxclients)) {
    asio::error_code ec;
    static constexpr std::string_view kMsg = "-ERR max number of clients reached\r\n";
    if (!listener.tls) socket.write_some(asio::buffer(kMsg.data(), kMsg.size()), ec);
    ++exec_.stats().rejected_connections;
    spdlog::debug("Rejected connection: max number of clients reached");
    return;
  }
  asio::error_code ec;
  const int keepalive = cfg.settings().tcp_keepalive;
  if (keepalive > 0) {
    socket.set_option(asio::socket_base::keep_alive(true), ec);
    const int fd = socket.native_handle();
    int idle = keepalive, intvl = std::max(1, keepalive / 3), cnt = 3;
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  }
  std::unique_ptr<TlsSession> tls;
  if (listener.tls) {
    tls = std::make_unique<TlsSession>((*tls_context_)->native(), TlsSession::Role::kServer,
                                       cfg.settings().tls_auth_clients);
  }
  auto conn = std::make_unique<Connection>(*this, std::move(socket), std::move(tls));
  Connection* raw = conn.get();
  connections_.emplace(raw, std::move(conn));
  raw->start();
}

// Enough to drain every ready connection of a large batch, few enough that a client flooding
// the socket cannot hold everyone else's replies back for long.
constexpr int kMaxHandlersPerTurn = 1024;

void Server::run() {
  while (!io_.stopped()) {
    if (!flush_wanted_ && io_.run_one() == 0) break;  // blocks until something happens
    for (int i = 0; i < kMaxHandlersPerTurn && io_.poll_one() > 0; ++i) {
    }
    if (flush_wanted_) finish_turn();
  }
}

void Server::run_events_while_busy() {
  // asio supports poll_one nested in a handler. The handlers that run here see the executor
  // busy: commands get -BUSY but for the allow-busy ones, the timer and cron do nothing, and
  // the caller's connection only stores what it reads (Client::script_running).
  // The flush runs as one of those handlers, never from here: an operation that completes at
  // once (a speculative read or write) is counted in the innermost running handler's work,
  // and the one running here (the script's caller) only ends after the script.
  busy_flush_.expires_at(asio::steady_timer::time_point::min());
  busy_flush_.async_wait([this](const asio::error_code& ec) {
    if (!ec) flush_while_busy();
  });
  for (int i = 0; i < kMaxHandlersPerTurn && io_.poll_one() > 0; ++i) {
  }
}

void Server::flush_while_busy() {
  if (!exec_.busy_script()) {  // fired after the script ended: the normal turn does it all
    schedule_flush();
    return;
  }
  // The script's effects are still inside its execution unit, so this writes none of them.
  exec_.persistence().flush_turn();
  close_over_limit_clients();
  close_killed_clients();
  write_replies();
  start_deferred_reads();
  free_closed_connections();
}

void Server::defer_read(Connection& conn) {
  deferred_reads_.push_back(&conn);
  schedule_flush();
}

void Server::finish_turn() {
  flush_wanted_ = false;
  refresh_limits();
  resume_unblocked_clients();
  // The acknowledgement point: this turn's AOF bytes are written (and fsynced for
  // appendfsync always) before any reply of the turn reaches a socket (Persistence).
  exec_.persistence().flush_turn();
  close_over_limit_clients();
  close_killed_clients();
  write_replies();
  if (exec_.clients().has_resume()) schedule_flush();
  start_deferred_reads();
  free_closed_connections();
  if (exec_.shutdown_requested() && !stopping_) {
    shutdown();
    return;
  }
  arm_timer();
}

void Server::resume_unblocked_clients() {
  // Resumed clients may produce output and wake others, which may resume more clients.
  // By id: a resumed client's script may go busy, and a client later in the list may close
  // and be freed while it is (run_events_while_busy).
  server::ClientRegistry& clients = exec_.clients();
  std::vector<std::uint64_t> ids;
  for (int rounds = 0; clients.has_resume() && rounds < 1000; ++rounds) {
    ids.clear();
    for (server::Client* c : clients.take_resume_list()) ids.push_back(c->id);
    for (std::uint64_t id : ids) {
      server::Client* c = clients.find(id);
      if (c && c->transport) c->transport->resume();
    }
  }
}

void Server::close_over_limit_clients() {
  // Over an output-buffer limit: closed without writing what they hold (Redis freeClientAsync).
  for (server::Client* c : exec_.clients().take_close_asap_list())
    if (c->transport) c->transport->close();
}

void Server::close_killed_clients() {
  // flush() closes after writing (close_after_reply).
  for (server::Client* c : exec_.clients().take_kill_list())
    if (c->transport) c->transport->flush();
}

void Server::write_replies() {
  for (server::Client* c : exec_.clients().take_flush_list())
    if (c->transport) c->transport->flush();
}

void Server::start_deferred_reads() {
  // After the writes: a reply had time to reach its client, whose next request may be waiting.
  for (Connection* conn : deferred_reads_) conn->read_after_flush();
  deferred_reads_.clear();
}

void Server::free_closed_connections() {
  // Only once the socket is closed and every operation on it has completed.
  for (Connection* conn : closed_) {
    if (conn->idle_freeable()) connections_.erase(conn);
  }
  std::erase_if(closed_, [this](Connection* c) { return !connections_.contains(c); });
}

void Server::connection_closed(Connection& conn) {
  if (std::find(closed_.begin(), closed_.end(), &conn) == closed_.end()) closed_.push_back(&conn);
  schedule_flush();
}

void Server::arm_timer() {
  if (stopping_) return;
  const auto next = exec_.next_wakeup_ms();
  if (!next) return;
  if (timer_armed_ms_ != 0 && timer_armed_ms_ <= *next) return;
  timer_armed_ms_ = *next;
  timer_.expires_at(to_time_point(*next));
  timer_.async_wait([this](const asio::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;
    timer_armed_ms_ = 0;
    on_timer();
  });
}

void Server::on_timer() {
  // During a busy script waiters are neither served nor timed out; finish_turn re-arms after.
  if (exec_.busy_script()) return;
  exec_.tick();
  finish_turn();
}

void Server::run_cron() {
  // Once a second, like Redis' serverCron: the executor decides (idle clients, persistence
  // housekeeping); net only closes the sockets it names.
  cron_.expires_after(std::chrono::seconds(1));
  cron_.async_wait([this](const asio::error_code& ec) {
    if (ec || stopping_) return;
    if (exec_.busy_script()) {  // Redis' whileBlockedCron runs none of serverCron's work
      run_cron();
      return;
    }
    for (server::Client* c : exec_.cron(exec_.clock().monotonic_ms())) {
      if (!c->close_asap) spdlog::debug("Closing idle client");  // the executor logged the other
      c->transport->close();
    }
    // Cron may have produced output (a replica's RDB, the stream's ping): write it this turn.
    if (exec_.clients().has_flush()) schedule_flush();
    // A timer that fired late or a wakeup that moved earlier gets re-armed here too.
    arm_timer();
    run_cron();
  });
}

void Server::shutdown() {
  if (stopping_) return;
  stopping_ = true;
  asio::error_code ec;
  for (Listener& l : listeners_) l.acceptor->close(ec);
  timer_.cancel();
  cron_.cancel();
  busy_flush_.cancel();
  if (replica_link_) replica_link_->close();
  for (auto& [raw, conn] : connections_) {
    conn->flush_for_shutdown();
    conn->close();
  }
  io_.stop();
}

}  // namespace listd::net
