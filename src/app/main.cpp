// listd entry point: `listd [path/to/listd.conf] [--name value ...]`, like redis-server.
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <asio.hpp>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <functional>

#include "listd/app/config_loader.h"
#include "listd/app/logging.h"
#include "listd/app/process_supervision.h"
#include "listd/config/config.h"
#include "listd/net/metrics_http.h"
#include "listd/net/server.h"
#include "listd/server/acl_file.h"
#include "listd/server/clock.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"
#include "listd/server/replication_replica.h"
#include "listd/server/version.h"

namespace {

using namespace listd;

// What the command line asked for besides running: an error, --version or --help. Returns the
// exit status, or -1 to start the server.
int handle_startup_action(const app::ConfigLoadOutcome& outcome, const char* program) {
  if (outcome.error) {
    std::fputs(outcome.error->c_str(), stderr);
    std::fputc('\n', stderr);
    return 1;
  }
  if (outcome.action == app::StartupAction::kPrintVersion) {
    std::fputs(app::version_text().c_str(), stdout);
    return 0;
  }
  if (outcome.action == app::StartupAction::kPrintHelp) {
    std::fputs(app::usage_text(program).c_str(), stdout);
    return 0;
  }
  return -1;
}

void log_persistence(config::LogLevel level, std::string_view msg) {
  if (level == config::LogLevel::kWarning)
    spdlog::warn("{}", msg);
  else if (level == config::LogLevel::kNotice)
    spdlog::info("{}", msg);
  else
    spdlog::debug("{}", msg);
}

// Exiting now: a SIGTERM during the final fsync or the teardown of the data must not turn a
// clean exit into death by signal. Clearing the set restores the default action, so the
// signals are blocked while it is replaced by "ignore" (the fsync thread blocks them always).
void ignore_stop_signals(asio::signal_set& signals) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  asio::error_code ignored;
  signals.clear(ignored);
  std::signal(SIGTERM, SIG_IGN);  // also discards one that arrived while blocked
  std::signal(SIGINT, SIG_IGN);
  ::pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
}

// Loggers and ACL users, before the port opens. The data is loaded once it is open, as Redis
// does: clients then get -LOADING instead of "connection refused".
bool prepare_executor(server::Executor& executor, const config::ServerSettings& settings,
                      std::string& error) {
  executor.persistence().set_logger(&log_persistence);
  executor.output_buffer_guard().set_logger(&log_persistence);
  executor.client_evictor().set_logger(&log_persistence);
  executor.replication().set_logger(&log_persistence);
  executor.replica_side().set_logger(&log_persistence);
  return server::load_users_at_startup(executor.acl(), settings, error);
}

// The client ports, then the queue view's HTTP endpoint (listd's own metrics-port, off by
// default) on the same loop, which exists only once the server listens: listen() picks the
// I/O backend.
bool open_listeners(net::Server& server, server::Executor& executor,
                    const config::ServerSettings& settings,
                    std::unique_ptr<net::MetricsHttpServer>& metrics, std::string& error) {
  if (!server.listen(error)) return false;
  if (settings.metrics_port == 0) return true;
  metrics = std::make_unique<net::MetricsHttpServer>(server.loop(), executor);
  return metrics->listen(settings.bind, static_cast<std::uint16_t>(settings.metrics_port), error);
}

// The start-up line: versions, the bound ports (0 picks a free one), pid and config file.
void log_start(const net::Server& server, const config::Config& config) {
  spdlog::info("listd version={} (redis_version={}), port={}, tls-port={}, pid={}, config file={}",
               server::kListdVersion, server::kRedisCompatVersion, server.bound_port(),
               server.bound_tls_port(), ::getpid(),
               config.config_file().empty() ? "(none)" : config.config_file());
}

// A stop signal while loading: no snapshot of half the data set; the load stops and listd
// exits, as Redis does. False when nothing is loading.
bool stop_if_loading(server::Executor& executor, int signo) {
  if (!executor.persistence().loading()) return false;
  spdlog::warn("Received {} while loading: shutting down without saving",
               signo == SIGINT ? "SIGINT" : "SIGTERM");
  executor.request_shutdown();
  return true;
}

// The data (the AOF in manifest order with appendonly yes, else dump.rdb), loaded once the port
// is open so that clients get -LOADING meanwhile, then the loop until shutdown. False when the
// load failed; a shutdown asked for during the load is a clean exit.
bool load_and_serve(server::Executor& executor, net::Server& server,
                    config::SupervisedMode supervised, const config::ServerSettings& settings) {
  std::string error;
  if (executor.persistence().load_at_startup(error)) {
    spdlog::info("Ready to accept connections tcp");
    app::notify_ready(supervised, !settings.replicaof_host.empty());
    server.run();
    return true;
  }
  spdlog::warn("{}", error);
  if (!executor.shutdown_requested()) return false;
  server.shutdown();
  return true;
}

// A shutdown tells systemd STOPPING=1 (and the final save's STATUS) as it starts, as Redis'
// prepareForShutdown; an exit that did not go through it says STOPPING=1 at the end.
void route_shutdown_notices(server::Executor& executor, config::SupervisedMode supervised) {
  if (supervised != config::SupervisedMode::kSystemd) return;
  executor.persistence().set_supervisor_notify(
      [](std::string_view message) { app::communicate_systemd(message); });
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  std::setlocale(LC_COLLATE, "");  // SORT ALPHA collates with strcoll, in the locale, as Redis

  config::Config config;
  if (const int status = handle_startup_action(app::load_config(argc, argv, config), argv[0]);
      status >= 0) {
    return status;
  }

  const config::ServerSettings& settings = config.settings();
  std::string error;
  if (!app::setup_logging(settings, error)) {
    std::fprintf(stderr, "Can't open the log file: %s\n", error.c_str());
    return 1;
  }
  app::log_inert_options(settings);
  const config::SupervisedMode supervised = app::start_process(settings);  // may fork

  server::SystemClock clock;
  server::Executor executor(config, clock);
  if (!prepare_executor(executor, settings, error)) {
    spdlog::warn("{}", error);
    return 1;
  }
  asio::io_context io(1);
  net::Server server(
      io, executor,
      net::NetOptions{settings.bind, static_cast<std::uint16_t>(settings.port), settings.maxclients,
                      settings.tcp_backlog, static_cast<std::uint16_t>(settings.tls_port)});
  std::unique_ptr<net::MetricsHttpServer> metrics;  // after `server`: freed before its loop
  if (!open_listeners(server, executor, settings, metrics, error)) {
    spdlog::warn("{}", error);
    return 1;
  }
  const std::string pidfile = app::create_pidfile(settings);
  log_start(server, config);
  route_shutdown_notices(executor, supervised);

  // SIGTERM/SIGINT: as Redis, a final snapshot when save points are configured; if it fails,
  // listd keeps running (the next signal tries again). A busy script is waited for, as Redis'
  // shutdown_asap (a snapshot now would hold half of it); SCRIPT KILL or SHUTDOWN NOSAVE end it.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::steady_timer after_busy_script(io);
  bool shutdown_deferred = false;
  std::function<void(const asio::error_code&, int)> on_signal = [&](const asio::error_code& ec,
                                                                    int signo) {
    if (ec) return;
    if (stop_if_loading(executor, signo)) return;
    if (executor.busy_script()) {
      if (!shutdown_deferred) {
        spdlog::warn(
            "Received a stop signal while a script is busy: shutting down when it ends "
            "(SCRIPT KILL or SHUTDOWN NOSAVE end it now)");
      }
      shutdown_deferred = true;
      after_busy_script.expires_after(std::chrono::milliseconds(100));
      after_busy_script.async_wait([&, signo](const asio::error_code& e) { on_signal(e, signo); });
      return;
    }
    shutdown_deferred = false;
    spdlog::info("Received {}, scheduling shutdown...", signo == SIGINT ? "SIGINT" : "SIGTERM");
    if (!executor.persistence().save_before_exit(false, false)) {
      signals.async_wait(on_signal);
      return;
    }
    server.shutdown();
  };
  signals.async_wait(on_signal);
  if (!load_and_serve(executor, server, supervised, settings)) {
    app::remove_pidfile(pidfile);
    return 1;
  }
  ignore_stop_signals(signals);
  if (!executor.persistence().stopping_announced()) app::notify_stopping(supervised);
  executor.persistence().shutdown();  // write + fsync what is pending, stop children
  app::remove_pidfile(pidfile);
  spdlog::info("listd is now ready to exit, bye bye...");
  return 0;
}
