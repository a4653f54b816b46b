"""MEMORY STATS against redis-server 7.0.15 (the oracle, started here): with the same keys on
both (two databases, one key with a TTL), the replies' shapes are equal in RESP2 and RESP3: the
field names in order, each value's type (integer, double, nested map) and the db.N sub-maps.
The values are each server's own measures; their sums and consistency are checked in
tests/unit/server/memory_stats_test.cpp. python.against_redis runs it with Redis on both sides.
"""

import pytest
import redis

from listd_testing import ListdServer
from listd_testing.resp import RawConn


class RedisOracle(ListdServer):
    """Debian's redis-server 7.0, whatever the tests' target is."""

    def __init__(self):
        super().__init__(["--save", "", "--appendonly", "no"], binary="/usr/bin/redis-server")

    def _check_kind(self, fields):
        assert fields.get("redis_version", "").startswith("7.0."), fields


@pytest.fixture(scope="module")
def servers():
    oracle = RedisOracle().start()
    tested = ListdServer().start()
    yield oracle, tested
    for srv in (tested, oracle):
        srv.stop()
        srv.close()


def shape(data, pos=0, key=False):
    """(shape, next position) of the RESP reply at `pos`: a map key (every even element of a
    map, or of RESP2's flat array) as its text, any other leaf as its type."""
    end = data.index(b"\r\n", pos)
    kind, head, after = data[pos:pos + 1], data[pos + 1:end], end + 2
    if kind == b"$":
        n = int(head)
        text = data[after:after + n].decode()
        return (text if key else "bulk"), after + n + 2
    if kind in (b":", b","):
        return {b":": "int", b",": "double"}[kind], after
    if kind in (b"*", b"%"):
        count = int(head) * (2 if kind == b"%" else 1)
        items = []
        for i in range(count):
            item, after = shape(data, after, key=i % 2 == 0)
            items.append(item)
        return (kind.decode(), items), after
    raise AssertionError(f"unexpected reply type {kind!r} at {pos}")


def memory_stats_shape(srv, resp3):
    with RawConn(srv.port) as c:
        assert c.call("FLUSHALL") == b"+OK\r\n"
        c.call("RPUSH", "queue", "a", "b", "c")
        c.call("SET", "lease", "x", "EX", "100")
        c.call("SELECT", "3")
        c.call("SET", "other", "y")
        if resp3:
            c.call("HELLO", "3")
        reply = c.call("MEMORY", "STATS")
    result, end = shape(reply)
    assert end == len(reply)
    return result


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_memory_stats_has_redis_fields_order_and_types(servers, resp3):
    oracle, tested = servers
    want = memory_stats_shape(oracle, resp3)
    names = want[1][::2]
    assert names[:3] == ["peak.allocated", "total.allocated", "startup.allocated"]
    assert "db.0" in names and "db.3" in names and names[-1] == "fragmentation.bytes"
    assert memory_stats_shape(tested, resp3) == want


def dataset_bytes(conn):
    return conn.memory_stats()["dataset.bytes"]


def test_dataset_bytes_grow_with_keys(servers):
    """The unit test of this (memory_stats_test.cpp) cannot see it under ASan, whose operator new
    listd does not count: here it runs on the optimized listd, and on the oracle."""
    for srv in servers:
        conn = redis.Redis(port=srv.port)
        conn.flushall()
        before = dataset_bytes(conn)
        pipe = conn.pipeline(transaction=False)
        for i in range(200):
            pipe.set("k" * 100 + str(i), "v", ex=1000)
        pipe.execute()
        assert dataset_bytes(conn) > before + 200 * 100, srv
        conn.flushall()
        conn.close()
