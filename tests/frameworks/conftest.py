"""pytest fixtures for the framework tests: a real listd (from $LISTD_BINARY) on a free port, and
the framework processes run against it with their default settings.

Run:  LISTD_BINARY=build/listd /usr/bin/python3 -m pytest tests/frameworks
(test_bull.py, test_bullmq.py and test_bee_queue.py also need FRAMEWORKS_NODE_MODULES: see node_app.py).
Each framework's own worker processes are started with /usr/bin/python3 (Debian's, which has
python3-celery and python3-rq), `sidekiq` (Debian's ruby-sidekiq) or `node`; their output goes
to a log file shown when a test fails.
"""

import os
import signal
import subprocess
import sys

import pytest
import redis

try:
    import listd_testing  # noqa: F401  (PYTHONPATH=tests/pylib under ctest)
except ImportError:  # run by hand: find tests/pylib next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "pylib"))
from listd_testing import ListdServer, scaled  # noqa: E402
from listd_testing.pytest_hooks import pytest_sessionfinish  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))


def _serve():
    srv = ListdServer().start()
    yield srv
    status = srv.stop()
    srv.close()
    assert status == 0, f"listd exited with status {status} on SIGTERM"


@pytest.fixture
def server():
    """A fresh listd per test: framework state (registries, queues) never leaks between tests."""
    yield from _serve()


@pytest.fixture(scope="module")
def module_server():
    """One listd for a whole test file, for frameworks whose worker processes the file's checks
    share (started once: their start-up is the slow part)."""
    yield from _serve()


@pytest.fixture(scope="module")
def url(module_server):
    """The redis:// URL of the file's listd, for frameworks configured by URL (a test file may
    override it, e.g. with a per-test server)."""
    return f"redis://127.0.0.1:{module_server.port}/0"


@pytest.fixture(scope="module")
def conn(url):
    """A redis-py client on `url`, to read the framework's own state and the jobs' records."""
    c = redis.Redis.from_url(url, decode_responses=True, socket_timeout=30)
    yield c
    c.connection_pool.disconnect()


@pytest.fixture
def r(server):
    client = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True,
                         socket_timeout=30, socket_connect_timeout=5)
    yield client
    client.connection_pool.disconnect()


class Processes:
    """Framework processes started for one test; each logs to its own file under tmp_path."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.procs = []  # (name, Popen, log path)

    def start(self, name, argv, env=None, cwd=HERE):
        log_path = self.tmp_path / f"{name}.log"
        full_env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
                        PYTHONDONTWRITEBYTECODE="1")
        full_env.update(env or {})
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=cwd, env=full_env,
                                    start_new_session=True)
        self.procs.append((name, proc, log_path))
        return proc

    def logs(self):
        parts = []
        for name, _, path in self.procs:
            text = path.read_text(errors="replace") if path.exists() else ""
            parts.append(f"----- {name} -----\n{text[-6000:]}")
        return "\n".join(parts)

    def stop_all(self):
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for _, proc, _ in self.procs:
            try:
                proc.wait(timeout=scaled(20))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(scope="module")
def module_processes(tmp_path_factory):
    """Processes shared by a whole test file (see module_server)."""
    procs = Processes(tmp_path_factory.mktemp("processes"))
    yield procs
    procs.stop_all()


@pytest.fixture
def processes(tmp_path):
    """Starts framework processes; all are stopped (SIGTERM, then SIGKILL) after the test.
    Assertions add `processes.logs()` to their message, so a failure shows what the workers said."""
    procs = Processes(tmp_path)
    yield procs
    procs.stop_all()
