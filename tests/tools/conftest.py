"""pytest fixtures for the redis-cli / redis-benchmark tests (Debian redis-tools 7.0).

Run:  LISTD_BINARY=build/listd /usr/bin/python3 -m pytest tests/tools
The launcher and the RESP helpers live in tests/pylib/listd_testing, shared with tests/python
and the soak test. A skip fails the run (listd_testing.pytest_hooks).
"""

import os
import re
import resource
import select
import shutil
import subprocess
import sys
import time

import pytest

try:
    import listd_testing  # noqa: F401  (PYTHONPATH=tests/pylib under ctest)
except ImportError:  # run by hand: find tests/pylib next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "pylib"))
from listd_testing import ListdServer, RawConn  # noqa: E402,F401
from listd_testing.pytest_hooks import pytest_sessionfinish  # noqa: E402,F401

PASSWORD = "tools-pw"

# redis-benchmark -c 1000 needs about 1000 descriptors on each side, plus some to spare.
NOFILE_NEEDED = 2200
NOFILE_WANTED = 4096


def raise_nofile_limit(wanted=NOFILE_WANTED):
    """Raises this process' RLIMIT_NOFILE soft limit towards `wanted` (at most the hard limit);
    children started afterwards (listd, redis-benchmark) inherit it. Returns the soft limit
    now in force: the test that needs NOFILE_NEEDED checks it and fails if it is lower."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if new > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return float("inf") if soft == resource.RLIM_INFINITY else soft


# before any listd starts, so that the module fixtures' servers inherit it
raise_nofile_limit()

for tool in ("redis-cli", "redis-benchmark"):
    if shutil.which(tool) is None:
        raise RuntimeError(f"{tool} is not installed (Debian package redis-tools)")


@pytest.fixture(scope="module")
def listd():
    srv = ListdServer().start()
    yield srv
    status = srv.stop()
    srv.close()
    assert status == 0, f"listd exited with status {status} on SIGTERM"


@pytest.fixture(scope="module")
def listd_auth():
    srv = ListdServer(["--requirepass", PASSWORD]).start()
    yield srv
    status = srv.stop()
    srv.close()
    assert status == 0, f"listd exited with status {status} on SIGTERM"


@pytest.fixture
def flushed(listd):
    with RawConn(listd.port) as c:
        assert c.call("FLUSHALL") == b"+OK\r\n"
    return listd


def cli(port, *args, input=None, timeout=60, check=True):
    """Runs redis-cli once (stdout not a tty: raw output unless --no-raw)."""
    proc = subprocess.run(["redis-cli", "-p", str(port), *args], input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    if check:
        assert proc.returncode == 0, f"redis-cli {args} exited {proc.returncode}: {out}{err}"
    return out, err


class LineReader:
    """Reads the output of a long-running tool line by line with a deadline."""

    def __init__(self, args):
        # stdbuf: redis-cli writes through stdio, fully buffered on a pipe
        self.proc = subprocess.Popen(["stdbuf", "-oL", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.buf = b""
        self.lines = []

    def readline(self, timeout=10):
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no complete line within {timeout} s; got {self.lines}"
                                   f" + {self.buf!r}")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise EOFError(f"process ended; output so far: {self.lines} + {self.buf!r}")
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        text = line.decode(errors="replace")
        self.lines.append(text)
        return text

    def wait_for(self, pattern, timeout=10):
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            line = self.readline(max(0.01, end - time.monotonic()))
            if rx.search(line):
                return line

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
