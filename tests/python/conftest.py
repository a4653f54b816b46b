"""pytest fixtures: a real listd (from $LISTD_BINARY) on a free port, and redis-py clients.

Run:  LISTD_BINARY=build/listd /usr/bin/python3 -m pytest tests/python
(/usr/bin/python3 is Debian's, with python3-redis 4.3.4, the seed workers' client.)
The launcher and the RESP helpers live in tests/pylib/listd_testing, shared with tests/tools
and the soak test. A skip fails the run (listd_testing.pytest_hooks).
"""

import os
import sys

import pytest
import redis

try:
    import listd_testing  # noqa: F401  (PYTHONPATH=tests/pylib under ctest)
except ImportError:  # run by hand: find tests/pylib next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "pylib"))
from listd_testing import ListdServer  # noqa: E402
from listd_testing.pytest_hooks import pytest_sessionfinish  # noqa: E402,F401

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
        assert status == 0, f"listd exited with status {status}"
