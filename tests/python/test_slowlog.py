"""SLOWLOG as the monitoring tools read it (prometheus-redis-exporter sends SLOWLOG GET / LEN).

Each test starts its own server with `slowlog-log-slower-than 0`, so every command is filed;
entries are compared without their time fields (id order, argv, peer, name), which is all a
second run can reproduce. python.against_redis runs this module against redis-server 7.0.15:
every expectation is Redis'. The served BLPOP is waited for with a bounded poll.
"""

import pytest
import redis

from listd_testing import RawConn, wait_until


@pytest.fixture
def server(listd_factory):
    return listd_factory("--slowlog-log-slower-than", "0")


def client(srv, **kw):
    return redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30, **kw)


def entries(conn, count="-1"):
    """SLOWLOG GET as raw lists: [(argv, peer, name)], newest first, ids checked consecutive."""
    raw = conn.execute_command("SLOWLOG", "GET", count)
    ids = [e[0] for e in raw]
    assert ids == list(range(ids[0], ids[0] - len(ids), -1)) if ids else True
    for e in raw:
        assert isinstance(e[1], int) and e[1] > 1_600_000_000 and isinstance(e[2], int)
    return [(list(e[3]), e[4], e[5]) for e in raw]


def addr(conn):
    return conn.client_info()["addr"].encode()


def test_entries_as_redis_files_them(server):
    a = client(server)
    a.client_setname("worker")
    a.rpush("big", *range(40))
    a.set("k", "y" * 200)
    with pytest.raises(redis.ResponseError):
        a.execute_command("AUTH", "secret")
    pipe = a.pipeline(transaction=True)
    pipe.incr("n")
    pipe.execute()
    a.eval("redis.call('set','a','b') return 1", 0)
    me = addr(a)
    got = [e for e in entries(a) if e[1] in (me, b"?:0")]  # not the launcher's probes
    a.execute_command("SLOWLOG", "RESET")
    w = b"worker"
    assert got == [
        ([b"CLIENT", b"INFO"], me, w),
        ([b"EVAL", b"redis.call('set','a','b') return 1", b"0"], me, w),
        ([b"set", b"a", b"b"], b"?:0", b""),
        ([b"INCRBY", b"n", b"1"], me, w),  # EXEC itself is never filed
        ([b"MULTI"], me, w),
        ([b"AUTH", b"(redacted)"], me, w),
        ([b"SET", b"k", b"y" * 128 + b"... (72 more bytes)"], me, w),
        ([b"RPUSH", b"big"] + [str(i).encode() for i in range(29)]
         + [b"... (11 more arguments)"], me, w),
        ([b"CLIENT", b"SETNAME", b"worker"], me, w),
    ]
    assert entries(a) == [([b"SLOWLOG", b"RESET"], me, w)]


def test_blocked_command_is_filed_when_served_not_when_timed_out(server):
    pusher, poller = client(server), client(server)
    with RawConn(server.port) as waiter:
        assert waiter.call("BLPOP", "q", "0.01") == b"*-1\r\n"
        waiter.send(b"*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n")
        assert wait_until(lambda: poller.info("clients")["blocked_clients"] == 1)
        pusher.execute_command("SLOWLOG", "RESET")
        pusher.lpush("q", "x")
        assert waiter.read_reply() == b"*2\r\n$1\r\nq\r\n$1\r\nx\r\n"
        mine = [e[0] for e in entries(pusher) if e[1] != addr(poller)]
    assert mine == [[b"BLPOP", b"q", b"0"], [b"LPUSH", b"q", b"x"], [b"SLOWLOG", b"RESET"]]


def test_threshold_max_len_and_replies(server):
    with RawConn(server.port) as c:
        assert c.call("CONFIG", "SET", "slowlog-max-len", "2") == b"+OK\r\n"
        c.call("ECHO", "a")
        assert c.call("SLOWLOG", "LEN") == b":2\r\n"
        assert c.call("CONFIG", "SET", "slowlog-log-slower-than", "-1") == b"+OK\r\n"
        assert c.call("SLOWLOG", "RESET") == b"+OK\r\n"
        c.call("ECHO", "b")
        assert c.call("SLOWLOG", "LEN") == b":0\r\n"
        assert c.call("SLOWLOG", "GET", "-2") == (
            b"-ERR count should be greater than or equal to -1\r\n")
        assert c.call("SLOWLOG", "GET", "1", "2") == (
            b"-ERR unknown subcommand or wrong number of arguments for 'GET'. "
            b"Try SLOWLOG HELP.\r\n")
        assert c.call("SLOWLOG", "LEN", "x") == (
            b"-ERR wrong number of arguments for 'slowlog|len' command\r\n")
        assert c.call("SLOWLOG", "nope") == b"-ERR unknown subcommand 'nope'. Try SLOWLOG HELP.\r\n"
        help_lines = c.call("SLOWLOG", "HELP").split(b"\r\n")
        assert help_lines[0] == b"*12"
        assert help_lines[1] == (
            b"+SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
        assert help_lines[3] == (
            b"+    Return top <count> entries from the slowlog (default: 10, -1 mean all).")


def test_a_lowered_max_len_trims_without_a_new_entry(server):
    # Redis trims after every command: the CONFIG SET that lowers slowlog-max-len trims the log
    # even though nothing is slow enough to be filed.
    with RawConn(server.port) as c:
        assert c.call("CONFIG", "SET", "slowlog-log-slower-than", "0") == b"+OK\r\n"
        for word in ("a", "b", "c", "d"):
            c.call("ECHO", word)
        assert c.call("CONFIG", "SET", "slowlog-log-slower-than", "100000000") == b"+OK\r\n"
        assert int(c.call("SLOWLOG", "LEN")[1:]) >= 6  # the 4 ECHOs, the 2 CONFIG SETs, ...
        assert c.call("CONFIG", "SET", "slowlog-max-len", "1") == b"+OK\r\n"
        assert c.call("SLOWLOG", "LEN") == b":1\r\n"
