"""redis-cli 7.0 interactive mode against listd, driven through a tmux pseudo-terminal.

On start redis-cli sends COMMAND DOCS; listd answers Redis 7.0.15's docs, from which redis-cli
builds its hints, HELP and completion (CLIENTS.md section 1.3).
"""

import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import ListdServer
from listd_testing import scaled, wait_until

PONG = re.compile(r"^PONG$", re.M)
RECONNECT_ERROR = re.compile(r"Error: Server closed the connection|not connected>")


def count(rx, text):
    return len(rx.findall(text))


class Tmux:
    """A private tmux server (own socket, no user config) running one command."""

    def __init__(self, command):
        self.sock = f"listd-test-{os.getpid()}-{time.monotonic_ns()}"
        self.run("new-session", "-d", "-s", "cli", "-x", "160", "-y", "50", command)

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10,
                              check=check)

    def keys(self, text, enter=True):
        self.run("send-keys", "-t", "cli", "-l", text)
        if enter:
            self.run("send-keys", "-t", "cli", "Enter")

    def ctrl(self, key):
        self.run("send-keys", "-t", "cli", key)

    def pane(self):
        return self.run("capture-pane", "-p", "-t", "cli", "-S", "-200").stdout.decode()

    def wait_for(self, predicate, what, timeout=10):
        """Waits until predicate(pane text) holds; returns the pane. Fails after `timeout`."""
        shown = []

        def check():
            shown.append(self.pane())
            return predicate(shown[-1])

        if not wait_until(check, timeout, interval=0.05):
            pytest.fail(f"{what} not shown within {scaled(timeout)} s; pane:\n{shown[-1]}")
        return shown[-1]

    def wait(self, pattern, timeout=10, count=1):
        """Waits until `pattern` occurs at least `count` times in the pane; returns the pane."""
        rx = re.compile(pattern, re.M)
        return self.wait_for(lambda text: len(rx.findall(text)) >= count,
                             f"{pattern!r} x{count}", timeout)

    def alive(self):
        return self.run("has-session", "-t", "cli", check=False).returncode == 0

    def close(self):
        self.run("kill-server", check=False)


@pytest.fixture
def session():
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (scripts/install-deps.sh installs it)")
    srv = ListdServer().start()
    tmux = Tmux(f"redis-cli -p {srv.port}")
    yield srv, tmux
    tmux.close()
    srv.close()


def test_interactive_session(session):
    srv, t = session
    prompt = f"127.0.0.1:{srv.port}>"
    pane = t.wait(re.escape(prompt))
    assert "ERR" not in pane and "Error" not in pane, pane

    # hints from the server's COMMAND DOCS
    t.keys("LPUSH ", enter=False)
    t.wait(re.escape("LPUSH key element [element ...]"))
    t.ctrl("C-u")
    t.keys("BRPOP ", enter=False)
    t.wait(re.escape("BRPOP key [key ...] timeout"))
    t.ctrl("C-u")

    t.keys("HELP LPUSH")
    pane = t.wait(r"summary: Prepend one or multiple elements to a list")
    assert "group: list" in pane

    t.keys("RPUSH q a b")
    t.wait(r"^\(integer\) 2$")
    t.keys("LRANGE q 0 -1")
    t.wait(r'^1\) "a"\n2\) "b"$')
    t.keys("LPOP nokey")
    t.wait(r"^\(nil\)$")

    t.keys("SELECT 2")
    t.wait(re.escape(f"127.0.0.1:{srv.port}[2]>"))
    t.keys("LLEN q")
    t.wait(r"^\(integer\) 0$")

    # listd restarts on the same port: the next command notices the closed connection,
    # and redis-cli reconnects (7.0.15 prints an error for the first command after it)
    assert srv.restart() == 0, "listd did not exit cleanly on SIGTERM"
    pane = t.pane()
    pongs, errors = count(PONG, pane), count(RECONNECT_ERROR, pane)
    t.keys("PING")
    # Either PING is answered at once, or redis-cli prints its error and reconnects: wait
    # for one of the two to show, then send PING again in the second case.
    pane = t.wait_for(lambda text: count(PONG, text) > pongs or count(RECONNECT_ERROR, text)
                      > errors, "a PONG or redis-cli's reconnect error")
    if count(PONG, pane) == pongs:
        t.keys("PING")
    t.wait(r"^PONG$", count=pongs + 1)
    t.keys("RPUSH after restart")
    t.wait(r"^\(integer\) 1$")

    pane = t.pane()
    assert "Assertion" not in pane and "ERR" not in pane, pane

    t.keys("quit")
    assert wait_until(lambda: not t.alive(), 5, interval=0.05), "redis-cli did not exit on quit"


def test_piped_stdin_interactive_mode(listd):
    """7.0.15 also sends COMMAND DOCS when stdin is a pipe; nothing may show on stderr."""
    proc = subprocess.run(["redis-cli", "-p", str(listd.port)],
                          input=b"RPUSH piped a\nLLEN piped\nDEL piped\n",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    assert proc.returncode == 0
    assert proc.stdout.decode().split() == ["1", "1", "1"]
    assert proc.stderr == b""
