"""Starts and stops a real listd (or, for the Redis check, redis-server) for the Python tests.

The binary comes from LISTD_BINARY (ctest sets it to the listd of the build being tested).
Each server listens on 127.0.0.1 and runs in its own temporary directory, so anything it
persists stays out of the source tree; its log goes to a file that is shown if it does not
come up.

    with ListdServer(["--requirepass", "pw"]) as srv:
        redis.Redis(port=srv.port, password="pw").ping()

The port race: a free port is found by binding port 0 and closing the socket, and under
`ctest -j2` another server may take it before ours binds. Ours then fails to bind and exits,
and until it does, the port is answered by the other server. So a port counts as ours only
once `INFO server` on it reports our child's process_id; otherwise the child is stopped and
another port is tried (a bounded number of times). restart() keeps the port and checks the
pid the same way.

LISTD_TEST_TARGET=redis says that LISTD_BINARY is a redis-server stand-in (see
tests/pylib/redis-server-as-listd); the launcher checks that the server it started is of the
expected kind (listd reports `listd_version` in INFO, Redis does not), so a mix-up fails at once.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import redis

from .resp import RawConn, parse_info
from .wait import scaled

START_ATTEMPTS = 5      # fresh ports tried by start() before giving up
READY_TIMEOUT_S = 20.0  # per attempt: how long a starting server may take to answer


def target():
    """'listd' (default) or 'redis' (LISTD_TEST_TARGET), the kind of server under test."""
    value = os.environ.get("LISTD_TEST_TARGET", "listd")
    if value not in ("listd", "redis"):
        raise RuntimeError(f"LISTD_TEST_TARGET={value!r}: expected 'listd' or 'redis'")
    return value


def listd_binary():
    path = os.environ.get("LISTD_BINARY")
    if not path:
        raise RuntimeError("LISTD_BINARY is not set: point it at the built listd "
                           "(ctest sets it; by hand: LISTD_BINARY=build/listd)")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"LISTD_BINARY={path} is not an executable file")
    return os.path.abspath(path)  # each server runs in its own directory


def free_port():
    """A port nobody listens on right now (it may be taken before we bind it: see above)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _password_in(args):
    for i, arg in enumerate(args[:-1]):
        if arg == "--requirepass":
            return args[i + 1]
    return None


def probe(port, password=None):
    """INFO server fields of whatever answers on `port` after PING, or None if nothing is ready.

    AUTH goes first when we know a password. A server that refuses PING (NOAUTH: not ours, or
    LOADING: not ready) gives {} and None respectively.
    """
    try:
        with RawConn(port, timeout=2) as c:
            if password is not None:
                c.call("AUTH", password)  # a foreign server may refuse it; the pid decides
            pong = c.call("PING")
            if pong.startswith(b"-NOAUTH"):
                return {}  # protected by a password we do not know: not ours
            if pong != b"+PONG\r\n":
                return None  # LOADING and the like: ask again
            return parse_info(c.call("INFO", "server"))
    except (OSError, ConnectionError, ValueError):
        return None  # not listening yet, or closed on us while starting or exiting


class ListdServer:
    """A listd child process on its own 127.0.0.1 port. restart() keeps the port."""

    def __init__(self, args=(), binary=None):
        self.args = list(args)
        self.binary = binary
        self.password = _password_in(self.args)
        self.port = None
        self.proc = None
        self.last_status = None  # exit status of the last stop()
        self.workdir = tempfile.mkdtemp(prefix="listd-test-")
        self.log = open(os.path.join(self.workdir, "listd.log"), "wb")

    @property
    def pid(self):
        return self.proc.pid if self.proc is not None else None

    def command(self, port):
        # LISTD_IO_BACKEND: scripts/run-tests.sh runs the I/O-heavy suites again on epoll. Only
        # for the listd under test: a redis-server oracle (another binary) has no such option.
        backend = os.environ.get("LISTD_IO_BACKEND")
        under_test = self.binary is None and target() == "listd"
        chosen = ["--io-backend", backend] if backend and under_test else []
        return [self.binary or listd_binary(), "--port", str(port), "--bind", "127.0.0.1",
                *chosen, *self.args]

    def _spawn(self, port):
        """Starts the child on `port`; True once the port answers with the child's pid.

        False if the child exited (the port was taken, or it refused its arguments) or the
        port is answered by another process; the child is then stopped.
        """
        self.log.write(f"--- starting on port {port}\n".encode())
        self.log.flush()
        self.proc = subprocess.Popen(self.command(port), stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     cwd=self.workdir)
        end = time.monotonic() + scaled(READY_TIMEOUT_S)
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                self.proc = None
                return False
            fields = probe(port, self.password)
            if fields is not None:
                if fields.get("process_id") != str(self.proc.pid):
                    self.kill()  # someone else's server has this port
                    return False
                self._check_kind(fields)
                self.port = port
                return True
            time.sleep(0.02)  # poll interval while the child starts
        self.kill()
        return False

    def _check_kind(self, fields):
        is_listd = "listd_version" in fields
        # the Redis check is against 7.0 (Debian's 7.0.15), the version listd follows
        is_redis_7_0 = not is_listd and fields.get("redis_version", "").startswith("7.0.")
        if (is_listd, is_redis_7_0) != (target() == "listd", target() == "redis"):
            self.kill()
            raise RuntimeError(
                f"LISTD_TEST_TARGET={target()} but {self.command(0)[0]} started "
                f"{'listd' if is_listd else 'another server'} (INFO server: "
                f"redis_version={fields.get('redis_version')}, "
                f"listd_version={fields.get('listd_version')})")

    def start(self):
        for _ in range(START_ATTEMPTS):
            if self._spawn(free_port()):
                return self
        raise RuntimeError(f"listd did not start in {START_ATTEMPTS} attempts on fresh ports; "
                           f"its log:\n{self.log_text()}")

    def restart(self, timeout=10.0):
        """SIGTERM, then start again on the same port (clients must reconnect).

        Returns the exit status of the stopped server. Retries while the old socket or
        another process holds the port, until `timeout` (scaled).
        """
        port = self.port
        status = self.stop()
        end = time.monotonic() + scaled(timeout)
        while not self._spawn(port):
            if time.monotonic() >= end:
                raise RuntimeError(f"listd did not restart on port {port}; its log:\n"
                                   f"{self.log_text()}")
            time.sleep(0.1)  # the port is busy: try again shortly
        return status

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        """Sends `sig`, waits (bounded); returns the exit status (None if it had to be killed).

        Once stopped, further calls return the same status.
        """
        if self.proc is None:
            return self.last_status
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            status = self.proc.wait(timeout=scaled(timeout))
        except subprocess.TimeoutExpired:
            self.kill()
            status = None
        self.proc = None
        self.last_status = status
        return status

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def log_text(self):
        self.log.flush()
        with open(self.log.name, "rb") as f:
            return f.read().decode(errors="replace")

    def close(self):
        self.stop()
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


REDIS_SERVER_BINARY = "/usr/bin/redis-server"  # Debian's redis-server 7.0.15


class RedisServer(ListdServer):
    """Debian's redis-server 7.0, the oracle beside the server under test (whatever the tests'
    target is): no snapshot rules and no AOF unless `args` sets them (later arguments win)."""

    def __init__(self, args=()):
        super().__init__(["--save", "", "--appendonly", "no", *args], binary=REDIS_SERVER_BINARY)

    def _check_kind(self, fields):
        assert fields.get("redis_version", "").startswith("7.0."), fields


@contextlib.contextmanager
def running(srv, password=None):
    """Starts `srv`; yields (srv, a decode_responses client); disconnects and closes it after."""
    srv.start()
    client = redis.Redis(port=srv.port, decode_responses=True, socket_timeout=30,
                         password=password)
    try:
        yield srv, client
    finally:
        client.connection_pool.disconnect()
        srv.close()
