"""The conversations of redis-py 5.x-8.x (and 4.3.4's transactions) replayed byte for byte.

redis-py 5-8 are not installable here (Debian ships 4.3.4), so these tests send, over a raw
socket, exactly what ../shared/CLIENTS.md (sections 3.4, 4 and 6) recorded those versions
sending to Redis 7.0.15, and compare listd's replies with the recorded bytes. Where a reply
carries a value that differs per run (the client id) the comparison is a regex anchored on
both ends.
"""

import re
import time

import pytest

from conftest import PASSWORD
from listd_testing import RawConn, encode, target


def hello_map(proto, rx=True):
    body = (b"$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n"
            b"$5\r\nproto\r\n:%d\r\n$2\r\nid\r\n:ID\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n"
            b"$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n" % proto)
    head = b"%7\r\n" if proto == 3 else b"*14\r\n"
    return re.compile(re.escape(head + body).replace(b"ID", rb"\d+") + rb"\Z")


HELLO3 = hello_map(3)
HELLO2 = hello_map(2)

# CLIENT SETINFO is a Redis 7.2 command that listd implements (docs/COMPATIBILITY.md,
# "Deliberate differences"). redis-py 5-8 send it on connect and ignore the answer, so the
# redis-py 8 sessions below expect Redis 7.0's own error when they run against redis-server
# (LISTD_TEST_TARGET=redis); the tests about SETINFO itself are deselected there.
SETINFO_REPLY = (b"+OK\r\n" if target() == "listd"
                 else b"-ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.\r\n")


@pytest.fixture
def conn(listd):
    with RawConn(listd.port) as c:
        assert c.call("FLUSHALL") == b"+OK\r\n"
        yield c


def connect_like_redis_py_8(c, name=None, db=None):
    """redis-py 8.0.1's on-connect sequence (CLIENTS.md section 4)."""
    assert HELLO3.match(c.call("HELLO", "3"))
    maint = c.call("CLIENT", "MAINT_NOTIFICATIONS", "ON", "moving-endpoint-type", "internal-ip")
    # redis-py 8 ignores an error here in its default "auto" mode; Redis 7.0 has no such
    # subcommand, so an error is the faithful answer.
    assert maint.startswith(b"-ERR "), maint
    assert c.call("CLIENT", "SETINFO", "LIB-NAME", "redis-py") == SETINFO_REPLY
    assert c.call("CLIENT", "SETINFO", "LIB-VER", "8.0.1") == SETINFO_REPLY
    if name is not None:
        assert c.call("CLIENT", "SETNAME", name) == b"+OK\r\n"
    if db is not None:
        assert c.call("SELECT", db) == b"+OK\r\n"


def test_redis_py_5_setinfo_on_connect(conn):
    """redis-py 5.0-7.4 with protocol 2: two SETINFO round trips, then RESP2 as usual."""
    assert conn.call("CLIENT", "SETINFO", "LIB-NAME", "redis-py") == b"+OK\r\n"
    assert conn.call("CLIENT", "SETINFO", "LIB-VER", "5.0.1") == b"+OK\r\n"
    assert conn.call("LPUSH", "task:queue", "t1", "t2", "t3") == b":3\r\n"
    assert conn.call("BRPOP", "task:queue", "5") == b"*2\r\n$10\r\ntask:queue\r\n$2\r\nt1\r\n"
    assert conn.call("LPOP", "nokey") == b"$-1\r\n"
    assert conn.call("LPOP", "nokey", "2") == b"*-1\r\n"
    assert conn.call("BRPOP", "nokey", "0.1") == b"*-1\r\n"
    # what CLIENT LIST shows for the library (Redis 7.2 semantics, harmless on 7.0 clients)
    listing = conn.call("CLIENT", "INFO")
    assert b"lib-name=redis-py" in listing and b"lib-ver=5.0.1" in listing


def test_redis_py_7_setinfo_with_driver_suffix(conn):
    assert conn.call("CLIENT", "SETINFO", "LIB-NAME", "redis-py(celery_v5)") == b"+OK\r\n"
    assert conn.call("CLIENT", "SETINFO", "LIB-VER", "7.4.1") == b"+OK\r\n"
    assert conn.call("PING") == b"+PONG\r\n"


def test_redis_py_8_resp3_session(conn):
    connect_like_redis_py_8(conn)
    # the null replies redis-py 8's pure-Python RESP3 parser needs: `_`, never $-1 / *-1
    nulls = [
        ("LPOP", "nokey"), ("RPOP", "nokey"), ("LPOP", "nokey", "2"),
        ("RPOPLPUSH", "nokey", "d"), ("LMOVE", "nokey", "d", "LEFT", "RIGHT"),
        ("LMPOP", "1", "nokey", "LEFT"), ("CLIENT", "GETNAME"),
        ("BRPOP", "nokey", "0.05"), ("BLPOP", "nokey", "0.05"),
        ("BRPOPLPUSH", "nokey", "d", "0.05"), ("BLMOVE", "nokey", "d", "LEFT", "LEFT", "0.05"),
        ("BLMPOP", "0.05", "1", "nokey", "LEFT"),
    ]
    for cmd in nulls:
        assert conn.call(*cmd) == b"_\r\n", cmd
    assert conn.call("RPUSH", "L", "a", "b") == b":2\r\n"
    assert conn.call("LINDEX", "L", "5") == b"_\r\n"
    assert conn.call("LPOS", "L", "zz") == b"_\r\n"
    assert conn.call("LPOP", "L", "0") == b"*0\r\n"
    assert conn.call("LRANGE", "nokey", "0", "-1") == b"*0\r\n"
    assert conn.call("LPOS", "L", "zz", "COUNT", "0") == b"*0\r\n"
    assert conn.call("BRPOP", "L", "1") == b"*2\r\n$1\r\nL\r\n$1\r\nb\r\n"
    assert conn.call("MGET", "nokey", "L") == b"*2\r\n_\r\n_\r\n"
    assert conn.call("TYPE", "L") == b"+list\r\n"
    assert re.fullmatch(rb"%1\r\n\$4\r\nsave\r\n\$\d+\r\n[\d ]*\r\n",
                        conn.call("CONFIG", "GET", "save"))
    assert re.fullmatch(rb"%1\r\n\$10\r\nappendonly\r\n(\$2\r\nno|\$3\r\nyes)\r\n",
                        conn.call("CONFIG", "GET", "appendonly"))
    assert conn.call("CONFIG", "GET", "no-such-thing") == b"%0\r\n"
    info = conn.call("INFO", "keyspace")
    assert re.fullmatch(rb"=(\d+)\r\ntxt:# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n\r\n",
                        info), info
    n = int(info[1:info.index(b"\r\n")])
    assert n == len(info) - len(b"=%d\r\n" % n) - 2  # the verbatim length counts "txt:"
    assert HELLO3.match(conn.call("HELLO"))  # no argument: same info, current protocol


def test_redis_py_8_watch_conflict_is_resp3_null(conn, listd):
    connect_like_redis_py_8(conn)
    assert conn.call("RPUSH", "w", "a") == b":1\r\n"
    assert conn.call("WATCH", "w") == b"+OK\r\n"
    with RawConn(listd.port) as other:
        assert other.call("RPUSH", "w", "b") == b":2\r\n"
    conn.send(encode("MULTI") + encode("RPUSH", "w", "c") + encode("EXEC"))
    assert conn.read_reply() == b"+OK\r\n"
    assert conn.read_reply() == b"+QUEUED\r\n"
    assert conn.read_reply() == b"_\r\n"


def test_redis_py_8_client_name_and_db(conn):
    connect_like_redis_py_8(conn, name="worker-8", db="2")
    assert conn.call("CLIENT", "GETNAME") == b"$8\r\nworker-8\r\n"
    assert conn.call("RPUSH", "in-db-2", "x") == b":1\r\n"
    assert conn.call("SELECT", "0") == b"+OK\r\n"
    assert conn.call("EXISTS", "in-db-2") == b":0\r\n"


def test_redis_py_8_with_password(listd_auth):
    """Under RESP3 with a password redis-py sends HELLO 3 AUTH default <pw> (no AUTH)."""
    with RawConn(listd_auth.port) as c:
        noauth = c.call("HELLO", "3")
        assert noauth.startswith(b"-NOAUTH HELLO must be called with the client already "
                                 b"authenticated"), noauth
        assert c.call("HELLO", "3", "AUTH", "default", "wrong") == \
            b"-WRONGPASS invalid username-password pair or user is disabled.\r\n"
        assert HELLO3.match(c.call("HELLO", "3", "AUTH", "default", PASSWORD))
        assert c.call("CLIENT", "SETINFO", "LIB-NAME", "redis-py") == SETINFO_REPLY
        assert c.call("LPOP", "nokey") == b"_\r\n"
    with RawConn(listd_auth.port) as c:
        assert c.call("LPOP", "nokey").startswith(b"-NOAUTH")
        assert HELLO3.match(c.call("HELLO", "3", "AUTH", "default", PASSWORD, "SETNAME", "w"))
        assert c.call("CLIENT", "GETNAME") == b"$1\r\nw\r\n"


def test_hello_2_and_errors(conn):
    assert HELLO2.match(conn.call("HELLO", "2"))
    assert HELLO2.match(conn.call("HELLO"))
    assert conn.call("LPOP", "nokey") == b"$-1\r\n"
    assert conn.call("HELLO", "4") == b"-NOPROTO unsupported protocol version\r\n"
    assert conn.call("HELLO", "x") == \
        b"-ERR Protocol version is not an integer or out of range\r\n"


def test_reset_goes_back_to_resp2(conn):
    assert HELLO3.match(conn.call("HELLO", "3"))
    assert conn.call("LPOP", "nokey") == b"_\r\n"
    assert conn.call("RESET") == b"+RESET\r\n"
    assert conn.call("LPOP", "nokey") == b"$-1\r\n"


def test_resp3_maps_for_hashes(conn):
    assert HELLO3.match(conn.call("HELLO", "3"))
    assert conn.call("HSET", "h", "f", "v") == b":1\r\n"
    assert conn.call("HGETALL", "h") == b"%1\r\n$1\r\nf\r\n$1\r\nv\r\n"
    assert conn.call("HGETALL", "nokey") == b"%0\r\n"
    assert conn.call("HGET", "h", "zz") == b"_\r\n"
    assert conn.call("HELLO", "2")
    assert conn.call("HGETALL", "h") == b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
    assert conn.call("HGET", "h", "zz") == b"$-1\r\n"


def test_redis_py_4_transaction_in_one_write(conn):
    """CLIENTS.md 3.4: r.pipeline() sends MULTI + commands + EXEC in a single write."""
    conn.send(encode("MULTI") + encode("LPUSH", "q", "a", "b") + encode("RPOP", "q")
              + encode("LLEN", "q") + encode("LRANGE", "q", "0", "-1") + encode("EXEC"))
    expected = (b"+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n"
                b"*4\r\n:2\r\n$1\r\na\r\n:1\r\n*1\r\n$1\r\nb\r\n")
    got = b"".join(conn.read_reply() for _ in range(6))
    assert got == expected


def test_redis_py_4_blocking_inside_exec(conn):
    conn.send(encode("MULTI") + encode("BRPOP", "k", "0") + encode("BRPOPLPUSH", "k", "d", "0")
              + encode("BLMOVE", "k", "d", "LEFT", "LEFT", "0") + encode("EXEC"))
    replies = [conn.read_reply() for _ in range(5)]
    # Redis 7.0 (t_list.c): BRPOP under MULTI answers a null array, BRPOPLPUSH/BLMOVE a null
    # bulk, as CLIENTS.md 3.4 states per command.
    assert replies[-1] == b"*3\r\n*-1\r\n$-1\r\n$-1\r\n"


def test_redis_py_4_health_check_name_db_sequence(conn):
    """CLIENTS.md 3.1: PING, CLIENT SETNAME, SELECT, then the worker's commands."""
    assert conn.call("PING") == b"+PONG\r\n"
    assert conn.call("CLIENT", "SETNAME", "worker-1") == b"+OK\r\n"
    assert conn.call("SELECT", "2") == b"+OK\r\n"
    assert conn.call("LPUSH", "task:queue", "j1") == b":1\r\n"
    assert conn.call("BRPOP", "task:queue", "1") == b"*2\r\n$10\r\ntask:queue\r\n$2\r\nj1\r\n"
    assert conn.call("PING") == b"+PONG\r\n"
    assert conn.call("LLEN", "task:queue") == b":0\r\n"
    assert conn.call("CLIENT", "GETNAME") == b"$8\r\nworker-1\r\n"


def test_timeouts_as_redis_py_sends_them(conn):
    """repr(float) timeouts: 0.5, 1e-05; the tiny one must not block forever."""
    t0 = time.monotonic()
    assert conn.call("BRPOP", "nokey", "1e-05") == b"*-1\r\n"
    assert conn.call("BRPOP", "nokey", "0.5") == b"*-1\r\n"
    assert time.monotonic() - t0 < 2
    assert conn.call("BRPOP", "nokey", "-1") == b"-ERR timeout is negative\r\n"
    assert conn.call("BRPOP", "nokey", "abc") == \
        b"-ERR timeout is not a float or out of range\r\n"
