// net::Server's listening sockets: the plain and the TLS port on every bind address, the TLS
// port's context, and their change at run time (CONFIG SET port / tls-port / tls-*: Redis'
// updatePort, applyTLSPort and applyTlsCfg), on either I/O backend (the sockets are the
// loop's readiness handlers).
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "listd/net/server.h"
#include "listd/net/tls_context.h"

namespace listd::net {
namespace {

constexpr std::string_view kTlsUpdateFailed =
    "Unable to update TLS configuration. Check server logs.";
constexpr std::string_view kListenFailed = "Unable to listen on this port. Check server logs.";
constexpr std::string_view kBindFailed = "Failed to bind to specified addresses.";

}  // namespace

void Server::Listener::close() {
  if (fd_ < 0) return;
  server_.loop().remove(fd_);
  // io_uring's poll holds the socket until the loop's next enter runs the cancel: shut down, it
  // stops listening now, so the port refuses connections and can be bound again at once (a
  // pipelined CONFIG SET moving it back).
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  fd_ = -1;
}

void Server::Listener::on_io(bool, bool, bool) {
  if (fd_ >= 0) server_.accept_ready(fd_, tls_);
}

bool Server::listen_all(const std::vector<std::string>& bind, std::uint16_t port, bool tls,
                        PortListeners& into, std::string& error) {
  for (const std::string& word : bind)
    if (!listen_on(word, port, tls, into, error)) return false;
  return true;
}

bool Server::listen_on(const std::string& word, std::uint16_t port, bool tls, PortListeners& into,
                       std::string& error) {
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
  // asio opens, binds and listens (its error texts); the socket then belongs to the loop.
  asio::ip::tcp::acceptor acceptor(io_);
  const asio::ip::tcp::endpoint ep(address, port);
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(options_.tcp_backlog, ec);
  if (!ec) acceptor.non_blocking(true, ec);
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
  into.bound = acceptor.local_endpoint().port();
  auto listener = std::make_unique<Listener>(*this, acceptor.release(ec), tls);
  if (ec || !loop_->add(listener->fd(), listener.get(), true, false)) {
    error = "Could not watch the listening socket " + addr + ": " + std::strerror(errno);
    return false;
  }
  into.sockets.push_back(std::move(listener));
  return true;
}

bool Server::configure_tls(std::string& error) {
  std::string why;
  tls_context_ = TlsContext::create(exec_.config().settings(), why);
  if (!tls_context_) {
    spdlog::warn("{}", why);
    error = "Failed to configure TLS. Check logs for more info.";
    return false;
  }
  return true;
}

std::optional<config::ApplyFailure> Server::apply_config(
    const config::ServerSettings& next, std::span<const std::string_view> changed) {
  // In the order of the CONFIG SET arguments, as Redis runs its apply functions, so the first
  // failure names the same argument. Nothing below touches the running listeners.
  std::unique_ptr<TlsContext> context;  // built from `next`
  bool drop_context = false;            // TLS options changed while no TLS is in use
  bool context_applied = false;
  std::optional<PortListeners> plain, tls;
  std::string why;
  const bool rebinding = std::find(changed.begin(), changed.end(), "bind") != changed.end();
  // A failure closes what was bound here (the running listeners were never touched).
  auto fail = [&](std::string_view name, std::string_view message) {
    for (std::optional<PortListeners>* staged : {&plain, &tls})
      if (*staged)
        for (auto& l : (*staged)->sockets) retire_listener(std::move(l));
    return config::ApplyFailure{std::string(name), std::string(message)};
  };
  for (std::string_view name : changed) {
    if (is_tls_context_option(name) && !context_applied) {
      context_applied = true;
      if (context) continue;  // a tls-port before it built one from the same options
      // Redis applyTlsCfg rebuilds only while TLS is in use; listd then forgets the context,
      // so a TLS port opened later is built from the options of that time.
      if (next.tls_port == 0 && !next.tls_replication) {
        drop_context = true;
        continue;
      }
      context = TlsContext::create(next, why);
      if (!context) {
        spdlog::warn("{}", why);
        return fail(name, kTlsUpdateFailed);
      }
    } else if (name == "port" || name == "tls-port") {
      const bool is_tls = name == "tls-port";
      const int port = is_tls ? next.tls_port : next.port;
      // Redis applyTLSPort: a TLS port needs a context, built now if there is none.
      if (is_tls && port != 0 && !context && !tls_context_) {
        context = TlsContext::create(next, why);
        if (!context) {
          spdlog::warn("{}", why);
          return fail(name, kTlsUpdateFailed);
        }
      }
      if (rebinding) continue;  // the new addresses listen on the new ports below
      // Port 0 closes the listener (Redis changeListenPort).
      std::optional<PortListeners>& fresh = is_tls ? tls : plain;
      fresh.emplace();
      if (port != 0 &&
          !listen_all(options_.bind, static_cast<std::uint16_t>(port), is_tls, *fresh, why)) {
        spdlog::warn("Warning: {}", why);
        spdlog::warn("CONFIG SET {} {} refused: no listener was changed", name, port);
        return fail(name, kListenFailed);
      }
    }
  }
  // A new bind moves every listener, last since it can only be undone by binding again.
  if (rebinding && !rebind(next.bind, static_cast<std::uint16_t>(next.port),
                           static_cast<std::uint16_t>(next.tls_port)))
    return fail("bind", kBindFailed);
  // Everything that could fail has succeeded: the new context, then the new sockets in place
  // of the old (a TLS connection accepted from here on uses the new context).
  if (context) {
    tls_context_ = std::move(context);
  } else if (drop_context) {
    tls_context_.reset();
  }
  if (plain) {
    replace_listeners(false, std::move(*plain));
    options_.port = static_cast<std::uint16_t>(next.port);
  }
  if (tls) {
    replace_listeners(true, std::move(*tls));
    options_.tls_port = static_cast<std::uint16_t>(next.tls_port);
  }
  return std::nullopt;
}

// Redis changeBindAddr: every listener closes first (the same address and port can be bound
// again only once the old socket is gone), then both ports listen on the new addresses. If one
// fails, what was bound closes and the old addresses listen again (Redis' CONFIG SET rollback
// re-applies the old bind).
bool Server::rebind(const std::vector<std::string>& bind, std::uint16_t port,
                    std::uint16_t tls_port) {
  const std::uint16_t old_port = bound_port_, old_tls_port = bound_tls_port_;
  replace_listeners(false, {});
  replace_listeners(true, {});
  auto listen_both = [this](const std::vector<std::string>& addrs, std::uint16_t plain_port,
                            std::uint16_t secure_port, std::string& why) {
    PortListeners plain, tls;
    if ((plain_port == 0 || listen_all(addrs, plain_port, false, plain, why)) &&
        (secure_port == 0 || listen_all(addrs, secure_port, true, tls, why))) {
      replace_listeners(false, std::move(plain));
      replace_listeners(true, std::move(tls));
      return true;
    }
    for (PortListeners* staged : {&plain, &tls})
      for (auto& l : staged->sockets) retire_listener(std::move(l));
    return false;
  };
  std::string why;
  if (listen_both(bind, port, tls_port, why)) {
    options_.bind = bind;
    options_.port = port;
    options_.tls_port = tls_port;
    return true;
  }
  spdlog::warn("Warning: {}", why);
  spdlog::warn("Failed to bind");
  if (!listen_both(options_.bind, old_port, old_tls_port, why))
    spdlog::warn("Failed to listen on the previous addresses again: {}", why);
  return false;
}

void Server::replace_listeners(bool tls, PortListeners fresh) {
  auto stays = std::stable_partition(listeners_.begin(), listeners_.end(),
                                     [tls](const auto& l) { return l->tls() != tls; });
  for (auto it = stays; it != listeners_.end(); ++it) retire_listener(std::move(*it));
  listeners_.erase(stays, listeners_.end());
  for (auto& l : fresh.sockets) listeners_.push_back(std::move(l));
  (tls ? bound_tls_port_ : bound_port_) = fresh.bound;
}

void Server::retire_listener(std::unique_ptr<Listener> listener) {
  if (!listener) return;
  listener->close();
  loop_->retire(std::move(listener));
}

}  // namespace listd::net
