"""Starts and stops a real listd for the Python and tool tests.

The binary comes from the LISTD_BINARY environment variable (ctest sets it to the listd of the
build being tested). Each server listens on a free 127.0.0.1 port and runs in its own temporary
directory (anything it persists stays out of the source tree); its log goes to a temporary file
that is printed if the server does not come up.

    with ListdServer(["--requirepass", "pw"]) as srv:
        redis.Redis(port=srv.port, password="pw").ping()
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


def listd_binary():
    path = os.environ.get("LISTD_BINARY")
    if not path:
        raise RuntimeError("LISTD_BINARY is not set: point it at the built listd "
                           "(ctest sets it; by hand: LISTD_BINARY=build/listd)")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"LISTD_BINARY={path} is not an executable file")
    return os.path.abspath(path)  # each server runs in its own directory


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_ping(port, deadline_s=20.0, password=None, proc=None):
    """True once `port` answers PING (or NOAUTH, which proves it is listening)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"*1\r\n$4\r\nPING\r\n")
                reply = s.recv(64)
                if reply.startswith(b"+PONG") or reply.startswith(b"-NOAUTH"):
                    return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


class ListdServer:
    """A listd child process on its own port. `restart()` keeps the port."""

    def __init__(self, args=(), port=None):
        self.args = list(args)
        self.port = port or free_port()
        self.proc = None
        self.workdir = tempfile.mkdtemp(prefix="listd-test-")
        self.log = open(os.path.join(self.workdir, "listd.log"), "wb")

    def start(self):
        for attempt in range(5):
            cmd = [listd_binary(), "--port", str(self.port), "--bind", "127.0.0.1", *self.args]
            self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=self.workdir)
            if wait_for_ping(self.port, proc=self.proc):
                return self
            self.kill()
            if attempt < 4:
                self.port = free_port()  # somebody else took it: try another one
        with open(self.log.name, "rb") as f:
            raise RuntimeError(f"listd did not start; its log:\n{f.read().decode(errors='replace')}")

    def stop(self):
        """SIGTERM, bounded wait; returns the exit status (None if it had to be killed)."""
        if self.proc is None or self.proc.poll() is not None:
            status = self.proc.returncode if self.proc else None
            self.proc = None
            return status
        self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            status = None
        self.proc = None
        return status

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def restart(self):
        """Stops and starts again on the same port (clients must reconnect)."""
        self.stop()
        end = time.monotonic() + 10
        while True:
            cmd = [listd_binary(), "--port", str(self.port), "--bind", "127.0.0.1", *self.args]
            self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=self.workdir)
            if wait_for_ping(self.port, deadline_s=10, proc=self.proc):
                return self
            self.kill()
            if time.monotonic() > end:
                raise RuntimeError(f"listd did not restart on port {self.port}")
            time.sleep(0.2)

    def log_text(self):
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
