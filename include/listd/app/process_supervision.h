// How listd runs under an init system, as Redis 7.0's main does: `daemonize yes` (fork, the
// parent exits, a new session, stdio on /dev/null), the pidfile (written once listening,
// removed at exit), and `supervised` (upstart: SIGSTOP when ready to be continued; systemd:
// sd_notify datagrams to $NOTIFY_SOCKET, sent by hand with no libsystemd; auto: whichever of
// UPSTART_JOB / NOTIFY_SOCKET is set). A supervised listd never forks: the supervisor owns it.
#pragma once

#include <string>
#include <string_view>

#include "listd/config/config.h"

namespace listd::app {

/// Redis' CONFIG_DEFAULT_PID_FILE: the pidfile of a daemon that names none.
inline constexpr std::string_view kDefaultPidFile = "/var/run/redis.pid";

/// The pidfile to write and remove: the configured one, else the default when daemonized, else
/// none ("").
std::string pidfile_path(const config::ServerSettings& settings);

/// Redis redisIsSupervised: the mode in effect (kNo when not supervised). auto looks at
/// UPSTART_JOB, then NOTIFY_SOCKET; upstart stops the process (SIGSTOP) until its supervisor
/// continues it; systemd announces "STATUS=Redis is loading..." and counts only if delivered.
config::SupervisedMode start_supervision(config::SupervisedMode requested);

/// Redis daemonize(): fork (the parent exits 0), setsid, stdin/stdout/stderr on /dev/null.
void daemonize();

/// Redis' start: supervision first (a supervised listd never forks), then daemonize if asked;
/// before any thread, reactor or socket exists. Returns the supervision in effect.
config::SupervisedMode start_process(const config::ServerSettings& settings);

/// Writes "<pid>\n" to `path`, best effort as Redis does (false if it could not).
bool write_pidfile(const std::string& path);
/// Writes the pidfile_path() of `settings`, if any (a failure is logged); returns that path.
std::string create_pidfile(const config::ServerSettings& settings);
/// At a clean exit: removes `path` (none if empty), as Redis' prepareForShutdown.
void remove_pidfile(const std::string& path);

/// Under systemd: Redis' "STATUS=Ready to accept connections" (its read-only form on a
/// replica) and "READY=1", once listening.
void notify_ready(config::SupervisedMode supervised, bool replica);
/// Under systemd: "STOPPING=1" as the shutdown begins.
void notify_stopping(config::SupervisedMode supervised);

/// sd_notify(0, message): one datagram to $NOTIFY_SOCKET (a path, or "@name" in the abstract
/// namespace). Returns 1 when sent, 0 when NOTIFY_SOCKET is unset, -errno on failure.
int notify_systemd(std::string_view message);

/// Redis redisCommunicateSystemd: notify_systemd, with Redis' warnings when it fails.
int communicate_systemd(std::string_view message);

}  // namespace listd::app
