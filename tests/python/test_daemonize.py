"""daemonize, pidfile and supervised, as Redis 7.0 runs under an init system.

- `daemonize yes`: the started process exits 0 at once, the daemon (another pid, its own
  session) writes the pidfile once listening, answers PING, and SHUTDOWN removes the pidfile.
- `supervised systemd` (and `auto` with NOTIFY_SOCKET set): a fake NOTIFY_SOCKET (a datagram
  socket here) receives Redis' sd_notify messages in order, READY=1 once the port answers and
  STOPPING=1 at shutdown; a supervised server does not fork even with `daemonize yes`.
python.against_redis runs this module against redis-server itself (Debian's is built with
libsystemd): the messages expected are Redis' own.
"""

import os
import socket
import subprocess

import redis

from listd_testing import free_port, scaled, wait_until
from listd_testing.server import listd_binary

BIND_FAILED = "Could not create server TCP listening socket"


def launch(tmp_path, args, env=None):
    """Starts the server under test on a free port (3 tries if someone takes the port)."""
    log = tmp_path / "server.log"
    for _ in range(3):
        port = free_port()
        proc = subprocess.Popen(
            [listd_binary(), "--port", str(port), "--bind", "127.0.0.1", "--logfile", str(log),
             "--dir", str(tmp_path), *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=tmp_path, env=env)
        if wait_until(lambda: answers(port) or bind_failed(log) or proc.poll() not in (None, 0)):
            if answers(port):
                return proc, port
        proc.wait(timeout=scaled(10))  # the daemon's parent exits at once anyway
        log.write_text("")
    raise AssertionError(f"the server did not start: {log.read_text()}")


def answers(port):
    try:
        return redis.Redis(port=port, socket_timeout=5).ping()
    except redis.exceptions.ConnectionError:
        return False


def bind_failed(log):
    return log.exists() and BIND_FAILED in log.read_text()


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def shutdown(port, nosave=True):
    try:
        redis.Redis(port=port, socket_timeout=10).shutdown(nosave=nosave)
    except redis.exceptions.ConnectionError:
        pass  # the server closed the connection as it exited


def test_a_daemon_writes_its_pidfile_and_removes_it_at_shutdown(tmp_path):
    pidfile = tmp_path / "server.pid"
    proc, port = launch(tmp_path, ["--daemonize", "yes", "--pidfile", str(pidfile)])
    assert proc.wait(timeout=scaled(10)) == 0  # the parent exits, the daemon goes on
    assert wait_until(pidfile.exists), "no pidfile"
    text = pidfile.read_text()
    assert text.endswith("\n") and text.strip().isdigit(), text
    pid = int(text)
    assert pid != proc.pid and pid_alive(pid)
    conn = redis.Redis(port=port, socket_timeout=10, decode_responses=True)
    assert conn.info("server")["process_id"] == pid
    assert os.getsid(pid) == pid  # setsid(): the daemon leads its own session
    assert conn.config_get("daemonize") == {"daemonize": "yes"}
    assert conn.config_get("pidfile") == {"pidfile": str(pidfile)}
    shutdown(port)
    assert wait_until(lambda: not pidfile.exists()), "the pidfile was not removed"
    assert wait_until(lambda: not pid_alive(pid)), "the daemon did not exit"


def test_a_pidfile_without_daemonize_is_written_too(tmp_path):
    pidfile = tmp_path / "fg.pid"
    proc, port = launch(tmp_path, ["--pidfile", str(pidfile)])
    try:
        assert wait_until(pidfile.exists), "no pidfile"
        assert pidfile.read_text() == f"{proc.pid}\n"
        shutdown(port)
        assert proc.wait(timeout=scaled(10)) == 0
        assert not pidfile.exists()
    finally:
        if proc.poll() is None:
            proc.kill()


class FakeNotifySocket:
    """What systemd listens on: an AF_UNIX datagram socket at a path."""

    def __init__(self, path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(scaled(10))  # a bound on each wait, not a synchronisation

    def next_message(self):
        return self.sock.recv(4096).decode()

    def close(self):
        self.sock.close()


def supervised_run(tmp_path, args, final_save=False):
    """The messages of one supervised run, start to shutdown (with `final_save`, a SHUTDOWN
    that saves: two messages after it); the process never forks."""
    notify = FakeNotifySocket(tmp_path / "notify.sock")
    env = dict(os.environ, NOTIFY_SOCKET=notify.path)
    env.pop("UPSTART_JOB", None)
    pidfile = tmp_path / "sup.pid"
    proc = None
    try:
        proc, port = launch(tmp_path, [*args, "--pidfile", str(pidfile)], env=env)
        started = [notify.next_message() for _ in range(3)]
        assert proc.poll() is None  # not daemonized: the supervisor owns this process
        assert wait_until(pidfile.exists) and pidfile.read_text() == f"{proc.pid}\n"
        shutdown(port, nosave=not final_save)
        stopping = [notify.next_message() for _ in range(2 if final_save else 1)]
        assert proc.wait(timeout=scaled(10)) == 0
        return started + stopping
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        notify.close()


EXPECTED_MESSAGES = ["STATUS=Redis is loading...\n", "STATUS=Ready to accept connections\n",
                     "READY=1\n", "STOPPING=1\n"]


def test_supervised_systemd_notifies_readiness_and_stopping(tmp_path):
    assert supervised_run(tmp_path, ["--supervised", "systemd", "--daemonize", "yes"]) == \
        EXPECTED_MESSAGES


def test_supervised_auto_detects_notify_socket(tmp_path):
    assert supervised_run(tmp_path, ["--supervised", "auto"]) == EXPECTED_MESSAGES


def test_a_final_save_is_the_supervisors_status(tmp_path):
    """Redis prepareForShutdown: STOPPING=1 first, then the final snapshot's STATUS."""
    messages = supervised_run(tmp_path, ["--supervised", "systemd", "--save", "3600 1"], True)
    assert messages == EXPECTED_MESSAGES + ["STATUS=Saving the final RDB snapshot\n"]
    assert (tmp_path / "dump.rdb").exists()
