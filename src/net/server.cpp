#include "listd/net/server.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include "listd/net/connection.h"
#include "listd/net/io_backend.h"
#include "listd/net/replica_link.h"
#include "listd/net/tls_context.h"
#include "listd/net/tls_session.h"
#include "listd/net/uring_loop.h"
#include "listd/server/acl.h"
#include "listd/server/acl_user.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_replica.h"

namespace listd::net {

namespace {

// Accepts per readiness report: a connection storm cannot hold the turn's replies back.
constexpr int kMaxAcceptsPerReport = 1000;
// The longest wait: as Redis' hz 10, so a signal that lands just before the wait, or a timer of
// asio's (the deferred stop signal), is seen within this time.
constexpr int kMaxWaitMs = 100;
// Under load the wait never times out: asio (signals) is polled at least this often.
constexpr std::uint64_t kAsioPollIntervalMs = 1;
// At shutdown, how long the replies handed to a completion backend may take to go out.
constexpr int kShutdownSendMs = 1000;
// Idle buffers freed in one cron before their pages are handed back (malloc_trim walks the heap).
constexpr std::size_t kTrimAfterFreedBytes = 256 * 1024;

// "ip:port" as the client list shows it (asio's endpoint text before: no brackets for IPv6).
std::string address_string(const sockaddr_storage& ss) {
  char text[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(ss);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(ss);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  }
  return std::string(text) + ":" + std::to_string(port);
}

std::string socket_address(int fd, bool peer) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                      : ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (rc != 0) return "?:0";
  return address_string(ss);
}

// Redis islocalClient: exactly 127.0.0.1 or ::1 (a peer from 127.0.0.2 is not local). Redis
// binds IPv6 sockets v6-only; a dual-stack listener of listd's shows an IPv4 loopback peer as
// ::ffff:127.0.0.1, the same client.
bool is_local_peer(std::string_view addr) {
  return addr.starts_with("127.0.0.1:") || addr.starts_with("::1:") ||
         addr.starts_with("::ffff:127.0.0.1:");
}

// Redis clientAcceptHandler's text for a protected-mode refusal, word for word.
constexpr std::string_view kProtectedModeDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from the "
    "outside.\r\n";

void set_keepalive(int fd, int keepalive) {
  int on = 1, idle = keepalive, intvl = std::max(1, keepalive / 3), cnt = 3;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

}  // namespace

bool protected_mode_refuses(bool protected_mode, bool default_user_nopass, std::string_view peer) {
  return protected_mode && default_user_nopass && !is_local_peer(peer);
}

Server::Server(asio::io_context& io, server::Executor& exec, NetOptions options)
    : io_(io),
      exec_(exec),
      options_(std::move(options)),
      loop_in_asio_(io),
      keep_asio_running_(io.get_executor()),
      child_signals_(io, SIGCHLD) {
  refresh_limits();
  exec_.set_event_loop_yield(this);
  watch_children();
}

void Server::watch_children() {
  // The signal interrupts the loop's wait, which polls asio then (wait_for_events).
  child_signals_.async_wait([this](const asio::error_code& ec, int) {
    if (ec || stopping_) return;
    watch_children();
    // Inside a busy script (or a load) nothing of the cron runs: the cron's check reaps later.
    if (exec_.busy_script() || exec_.persistence().loading()) return;
    if (!exec_.persistence().reap_child()) return;
    // The end of a BGSAVE may have sent replicas their RDB: written this turn.
    if (exec_.clients().has_flush()) schedule_flush();
    arm_timer();
  });
}

Server::~Server() {
  exec_.replica_side().set_transport(nullptr);
  exec_.set_event_loop_yield(nullptr);
  connections_.clear();  // before the loop they are registered with
}

void Server::refresh_limits() {
  const config::Config& cfg = exec_.config();
  limits_.max_bulk_len = static_cast<std::size_t>(cfg.settings().proto_max_bulk_len);
  query_buffer_limit_ = cfg.settings().client_query_buffer_limit;
}

bool Server::listen(std::string& error) {
  ChosenBackend backend = choose_io_backend(exec_.config().settings().io_backend, &UringLoop::open);
  if (!backend.loop) {
    error = backend.reason;
    return false;
  }
  loop_ = std::move(backend.loop);
  exec_.stats().multiplexing_api = loop_->name();
  if (options_.tls_port != 0 && !configure_tls(error)) return false;
  // Redis: port 0 with a TLS port is the TLS port alone (listd's port 0 alone is any port).
  const bool plain = options_.port != 0 || options_.tls_port == 0;
  PortListeners plain_sockets, tls_sockets;
  if (plain && !listen_all(options_.bind, options_.port, false, plain_sockets, error)) return false;
  if (options_.tls_port != 0 &&
      !listen_all(options_.bind, options_.tls_port, true, tls_sockets, error)) {
    return false;
  }
  replace_listeners(false, std::move(plain_sockets));
  replace_listeners(true, std::move(tls_sockets));
  // CONFIG SET port / tls-port and the TLS context options (apply_config).
  std::weak_ptr<Server*> self = self_;
  exec_.config().on_apply(
      [self](const config::ServerSettings& next,
             std::span<const std::string_view> changed) -> std::optional<config::ApplyFailure> {
        const auto live = self.lock();
        if (!live) return std::nullopt;
        return (*live)->apply_config(next, changed);
      });
  // The link to our master (replicaof), once we can be reached on our port.
  replica_link_ = std::make_unique<ReplicaLink>(*this);
  exec_.replica_side().set_transport(replica_link_.get());
  cron_due_ms_ = exec_.clock().monotonic_ms() + 1000;
  spdlog::info("I/O backend: {} ({})", loop_->name(), backend.reason);
  return true;
}

void Server::accept_ready(int listen_fd, bool tls) {
  for (int i = 0; i < kMaxAcceptsPerReport && !stopping_; ++i) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      on_accept(fd, tls);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      spdlog::warn("Accept error: {}", std::strerror(errno));
    return;
  }
}

void Server::on_accept(int fd, bool tls) {
  const config::Config& cfg = exec_.config();
  if (connections_.size() >= static_cast<std::size_t>(cfg.settings().maxclients)) {
    static constexpr std::string_view kMsg = "-ERR max number of clients reached\r\n";
    if (!tls) {  // a TLS client could not read it before its handshake
      [[maybe_unused]] const ssize_t n = ::send(fd, kMsg.data(), kMsg.size(), MSG_NOSIGNAL);
    }
    ::close(fd);
    ++exec_.stats().rejected_connections;
    spdlog::debug("Rejected connection: max number of clients reached");
    return;
  }
  const std::string peer = socket_address(fd, true);
  if (protected_mode_refuses(cfg.settings().protected_mode, exec_.acl().default_user().nopass(),
                             peer)) {
    // Redis writes its text to a TLS client after the handshake; listd closes it without one.
    if (!tls) {
      [[maybe_unused]] const ssize_t n =
          ::send(fd, kProtectedModeDenied.data(), kProtectedModeDenied.size(), MSG_NOSIGNAL);
    }
    ::close(fd);
    ++exec_.stats().rejected_connections;
    spdlog::debug("Rejected connection from {}: protected mode", peer);
    return;
  }
  const int keepalive = cfg.settings().tcp_keepalive;
  if (keepalive > 0) set_keepalive(fd, keepalive);
  std::unique_ptr<TlsSession> session;
  if (tls) {
    session = std::make_unique<TlsSession>(tls_context_->native(), TlsSession::Role::kServer,
                                           cfg.settings().tls_auth_clients);
  }
  auto conn =
      std::make_unique<Connection>(*this, fd, peer, socket_address(fd, false), std::move(session));
  Connection* raw = conn.get();
  connections_.emplace(raw, std::move(conn));
  if (!raw->start()) raw->close();
}

void Server::run() {
  while (!stopping_) {
    wait_for_events();
    run_due_timers();
    if (flush_wanted_ && !stopping_) finish_turn();
  }
}

int Server::wait_timeout_ms() const {
  if (flush_wanted_) return 0;
  const std::uint64_t now = exec_.clock().monotonic_ms();
  std::uint64_t due = cron_due_ms_;
  if (timer_due_ms_ != 0) due = std::min(due, timer_due_ms_);
  if (due <= now) return 0;
  return static_cast<int>(std::min<std::uint64_t>(due - now, kMaxWaitMs));
}

void Server::wait_for_events() {
  const int timeout = wait_timeout_ms();
  if (replica_link_ && replica_link_->active()) {
    // The link's socket is asio's: block in asio, with the loop's descriptor as one of its own.
    if (!loop_in_asio_.is_open()) loop_in_asio_.assign(::dup(loop_->fd()));
    loop_->submit_queued();  // asio's wait would not hand the backend's queued work over
    if (!loop_wait_armed_) {
      loop_wait_armed_ = true;
      loop_in_asio_.async_wait(asio::posix::stream_descriptor::wait_read,
                               [this](const asio::error_code&) { loop_wait_armed_ = false; });
    }
    io_.run_one_for(std::chrono::milliseconds(timeout));
    io_.poll();
    loop_->wait_and_dispatch(0);
    asio_polled_ms_ = exec_.clock().monotonic_ms();
    return;
  }
  const int ready = loop_->wait_and_dispatch(timeout);
  // Signals (asio's signal set) interrupt the wait; under load it never ends empty, so asio is
  // also polled once per interval: one non-blocking epoll_wait of its own.
  const std::uint64_t now = exec_.clock().monotonic_ms();
  if (ready == 0 || now - asio_polled_ms_ >= kAsioPollIntervalMs) {
    asio_polled_ms_ = now;
    io_.poll();
  }
}

void Server::run_due_timers() {
  if (stopping_) return;  // a stop signal was handled in this wait's asio poll
  const std::uint64_t now = exec_.clock().monotonic_ms();
  if (timer_due_ms_ != 0 && now >= timer_due_ms_) {
    timer_due_ms_ = 0;
    on_timer();
  }
  if (!stopping_ && now >= cron_due_ms_) run_cron();
}

void Server::run_events_while_busy() {
  // Called inside one of the loop's handlers (the script's caller): the loop and asio both
  // allow a nested non-blocking wait. The handlers that run here see the executor busy:
  // commands get -BUSY but for the allow-busy ones, and the caller's connection stops reading
  // (Client::script_running).
  loop_->wait_and_dispatch(0);
  io_.poll();
  flush_while_busy();
}

void Server::flush_while_busy() {
  // The script's effects are still inside its execution unit, so this writes none of them.
  exec_.persistence().flush_turn();
  close_over_limit_clients();
  close_killed_clients();
  write_replies();
}

void Server::finish_turn() {
  flush_wanted_ = false;
  refresh_limits();
  exec_.broadcast_invalidations();  // CLIENT TRACKING BCAST: the turn's keys, before its sends
  exec_.update_failover();
  resume_unblocked_clients();
  // The acknowledgement point: this turn's AOF bytes are written (and fsynced for
  // appendfsync always) before any reply of the turn reaches a socket (Persistence).
  exec_.persistence().flush_turn();
  exec_.sync_replication().end_turn();  // sync-replicas: an ACK for the turn's writes
  exec_.replication().end_turn();       // one GETACK for everything that asked (WAIT too)
  close_over_limit_clients();
  close_killed_clients();
  write_replies();
  if (exec_.clients().has_resume()) schedule_flush();
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
  // while it is (run_events_while_busy).
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

void Server::free_closed_connections() {
  // Only here, outside every wait: a wait's events may still name a connection closed in it.
  for (Connection* conn : closed_) connections_.erase(conn);
  closed_.clear();
}

void Server::connection_closed(Connection& conn) {
  if (std::find(closed_.begin(), closed_.end(), &conn) == closed_.end()) closed_.push_back(&conn);
  schedule_flush();
}

void Server::arm_timer() {
  // The next waiter deadline becomes the wait's timeout (wait_timeout_ms).
  if (stopping_) return;
  const auto next = exec_.next_wakeup_ms();
  timer_due_ms_ = next ? std::max<std::uint64_t>(*next, 1) : 0;
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
  const std::uint64_t now = exec_.clock().monotonic_ms();
  cron_due_ms_ = now + 1000;
  if (exec_.busy_script()) return;  // Redis' whileBlockedCron runs none of serverCron's work
  for (server::Client* c : exec_.cron(now)) {
    if (!c->close_asap) spdlog::debug("Closing idle client");  // the executor logged the other
    c->transport->close();
  }
  std::size_t freed = 0;
  for (auto& [raw, conn] : connections_) freed += conn->release_idle_buffers(now);
  // glibc keeps freed 16 KB buffers in its heap: hand their pages back to the system, once per
  // cron and only when enough was freed to matter (as jemalloc's purge does for Redis).
  if (freed >= kTrimAfterFreedBytes) ::malloc_trim(0);
  // Cron may have produced output (a replica's RDB, the stream's ping): write it this turn.
  if (exec_.clients().has_flush()) schedule_flush();
  // A wakeup that moved earlier gets re-armed here too.
  arm_timer();
}

void Server::shutdown() {
  if (stopping_) return;
  stopping_ = true;
  listeners_.clear();  // closes the listening sockets
  if (replica_link_) replica_link_->close();
  for (auto& [raw, conn] : connections_) conn->flush_for_shutdown();
  if (ByteStreams* streams = loop_->streams()) streams->finish_sends(kShutdownSendMs);
  for (auto& [raw, conn] : connections_) conn->close();
  io_.stop();
}

}  // namespace listd::net
