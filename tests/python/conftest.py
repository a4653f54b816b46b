"""pytest fixtures: a real listd (from $LISTD_BINARY) on a free port, and redis-py clients.

Run:  LISTD_BINARY=build/listd /usr/bin/python3 -m pytest tests/python
(/usr/bin/python3 is Debian's, with python3-redis 4.3.4, the seed workers' client.)
"""

import os
import sys

import pytest
import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from listd_server import ListdServer  # noqa: E402
from resp import has_command  # noqa: E402

PASSWORD = "s3cret-pw"


@pytest.fixture(scope="session")
def listd():
    """One listd for the whole session (no password)."""
    srv = ListdServer().start()
    yield srv
    status = srv.stop()
    srv.close()
    assert status == 0, f"listd exited with status {status} on SIGTERM"


@pytest.fixture(scope="session")
def listd_auth():
    """A second listd with requirepass."""
    srv = ListdServer(["--requirepass", PASSWORD]).start()
    yield srv
    status = srv.stop()
    srv.close()
    assert status == 0, f"listd (requirepass) exited with status {status} on SIGTERM"


@pytest.fixture
def port(listd):
    return listd.port


@pytest.fixture
def r(listd):
    """A decode_responses client on a flushed server; closed after the test."""
    client = redis.Redis(host="127.0.0.1", port=listd.port, decode_responses=True,
                         socket_timeout=30, socket_connect_timeout=5)
    client.flushall()
    yield client
    client.connection_pool.disconnect()


@pytest.fixture
def rb(listd):
    """A bytes client (decode_responses=False) on a flushed server."""
    client = redis.Redis(host="127.0.0.1", port=listd.port, socket_timeout=30)
    client.flushall()
    yield client
    client.connection_pool.disconnect()


def require_commands(client, *names):
    """Skips the test, with the reason printed, if listd lacks one of `names`.

    Used only for companion-type commands that are written in parallel with these tests; the
    skip reason shows up in pytest's summary (-rs), never silently.
    """
    port = client.connection_pool.connection_kwargs["port"]
    missing = [name for name in names if not has_command(port, name)]
    if missing:
        msg = f"listd does not implement {', '.join(missing)} yet"
        print(f"SKIP: {msg}", file=sys.stderr)
        pytest.skip(msg)


@pytest.fixture
def listd_factory():
    """Starts extra listd servers (args as on the command line); all stopped after the test."""
    servers = []

    def start(*args):
        srv = ListdServer(list(args)).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        status = srv.stop()
        srv.close()
        assert status in (0, None), f"listd exited with status {status}"


def pytest_sessionfinish(session, exitstatus):
    """With LISTD_ALL_SKIPPED_STATUS=N set (ctest does), a run where every collected test was
    skipped exits N, so ctest's SKIP_RETURN_CODE shows it as Skipped rather than Passed."""
    code = os.environ.get("LISTD_ALL_SKIPPED_STATUS")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if code and exitstatus == 0 and reporter is not None:
        if reporter.stats.get("skipped") and not reporter.stats.get("passed"):
            session.exitstatus = int(code)
