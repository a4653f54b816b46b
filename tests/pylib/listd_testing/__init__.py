"""Support shared by every Python test tree (tests/python, tests/tools, tests/integration).

    from listd_testing import ListdServer, RawConn, wait_until

- server: ListdServer, the one launcher (free port, checked to be our child by its pid), and
  RedisServer, the same launcher for the redis-server oracle.
- resp: RawConn, a raw-socket RESP client for byte-for-byte checks, and parse_info.
- wait: wait_until (poll a condition, never sleep as synchronisation) and scaled().
- pytest_hooks: fail the session on a skip that is not allowed (see LISTD_ALLOWED_SKIPS).

Import it with PYTHONPATH=tests/pylib (ctest sets it); the conftest files and the soak add the
directory to sys.path themselves when run by hand.
"""

from .resp import RawConn, encode, parse_info
from .server import REDIS_SERVER_BINARY, ListdServer, RedisServer, free_port, running, target
from .wait import scaled, time_factor, wait_until

__all__ = ["REDIS_SERVER_BINARY", "ListdServer", "RawConn", "RedisServer", "encode", "free_port", "parse_info", "running", "scaled", "target",
           "time_factor", "wait_until"]
