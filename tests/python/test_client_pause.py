"""CLIENT PAUSE / UNPAUSE on a real listd, as Redis 7.0 behaves (python.against_redis runs the
same tests against redis-server 7.0.15).

A postponed command gets no reply until the pause ends: the tests see it waiting in CLIENT LIST
(flags=b, cmd=<its name>) and INFO blocked_clients, polled with a bound, then end the pause with
CLIENT UNPAUSE and read the replies. One test ends an ALL pause by its (short) timeout.
"""

import time

from listd_testing import RawConn, encode, parse_info, wait_until


def client_id(conn):
    return int(conn.call("CLIENT", "ID")[1:-2])


def waiting_in(r, conn_id, command):
    """True once the client shows as postponed or blocked running `command`."""
    rows = r.client_list(client_id=[str(conn_id)])
    return bool(rows) and rows[0]["flags"] == "b" and rows[0]["cmd"] == command


def test_pause_argument_errors_are_redis_texts(port):
    with RawConn(port) as c:
        assert c.call("CLIENT", "PAUSE") == \
            b"-ERR wrong number of arguments for 'client|pause' command\r\n"
        assert c.call("CLIENT", "PAUSE", "abc") == \
            b"-ERR timeout is not an integer or out of range\r\n"
        assert c.call("CLIENT", "PAUSE", "-1") == b"-ERR timeout is negative\r\n"
        assert c.call("CLIENT", "PAUSE", "abc", "foo") == \
            b"-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n"
        assert c.call("CLIENT", "PAUSE", "10", "write", "x") == (
            b"-ERR unknown subcommand or wrong number of arguments for 'PAUSE'. "
            b"Try CLIENT HELP.\r\n")
        assert c.call("CLIENT", "UNPAUSE", "x") == \
            b"-ERR wrong number of arguments for 'client|unpause' command\r\n"
        assert c.call("CLIENT", "PAUSE", "0") == b"+OK\r\n"  # no pause at all
        assert c.call("SET", "k", "v") == b"+OK\r\n"


def test_write_pause_postpones_writes_in_arrival_order_until_unpause(r, port):
    with RawConn(port) as a, RawConn(port) as b, RawConn(port) as reader:
        a_id, b_id = client_id(a), client_id(b)
        assert r.execute_command("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
        try:
            a.send(encode("RPUSH", "q", "a"))
            assert wait_until(lambda: waiting_in(r, a_id, "rpush")), "RPUSH was not postponed"
            b.send(encode("RPUSH", "q", "b"))
            assert wait_until(lambda: waiting_in(r, b_id, "rpush")), "RPUSH was not postponed"
            # Reads and read-only scripts go on.
            assert reader.call("LLEN", "q") == b":0\r\n"
            assert reader.call("EVAL_RO", "return 1", "0") == b":1\r\n"
            assert reader.call("EVAL", "#!lua flags=no-writes\nreturn 2", "0") == b":2\r\n"
            assert parse_info(reader.call("INFO", "clients"))["blocked_clients"] == "2"
        finally:
            assert r.execute_command("CLIENT", "UNPAUSE") == "OK"
        assert a.read_reply() == b":1\r\n"
        assert b.read_reply() == b":2\r\n"
    assert r.lrange("q", 0, -1) == ["a", "b"]


def test_waiter_is_served_after_unpause_not_during(r, port):
    with RawConn(port) as worker, RawConn(port) as producer:
        worker_id, producer_id = client_id(worker), client_id(producer)
        worker.send(encode("BRPOP", "jobs", "0"))
        assert wait_until(lambda: waiting_in(r, worker_id, "brpop")), "BRPOP did not block"
        assert r.execute_command("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
        try:
            producer.send(encode("LPUSH", "jobs", "j1"))
            assert wait_until(lambda: waiting_in(r, producer_id, "lpush")), \
                "LPUSH was not postponed"
            assert r.llen("jobs") == 0
            assert waiting_in(r, worker_id, "brpop"), "the worker was served during the pause"
        finally:
            assert r.execute_command("CLIENT", "UNPAUSE") == "OK"
        assert producer.read_reply() == b":1\r\n"
        assert worker.read_reply() == b"*2\r\n$4\r\njobs\r\n$2\r\nj1\r\n"


def test_keys_do_not_expire_during_a_pause(r, port):
    with RawConn(port) as c:
        # One transaction sets the TTL and pauses, so the key cannot expire before the pause.
        assert c.call("MULTI") == b"+OK\r\n"
        assert c.call("SET", "k", "v", "PX", "50") == b"+QUEUED\r\n"
        assert c.call("CLIENT", "PAUSE", "100000", "WRITE") == b"+QUEUED\r\n"
        try:
            assert c.call("EXEC") == b"*2\r\n+OK\r\n+OK\r\n"
            assert wait_until(lambda: r.get("k") is None), "k never expired"
            assert r.dbsize() == 1  # hidden from reads, deleted by nothing
        finally:
            assert r.execute_command("CLIENT", "UNPAUSE") == "OK"
    assert wait_until(lambda: r.dbsize() == 0), "k was not expired after the pause"


def test_all_pause_postpones_everything_until_its_timeout(port):
    with RawConn(port) as admin, RawConn(port) as other:
        started = time.monotonic()
        assert admin.call("CLIENT", "PAUSE", "300") == b"+OK\r\n"  # ALL by default
        other.send(encode("PING"))
        admin.send(encode("CLIENT", "UNPAUSE"))  # postponed too: only the timeout ends it
        assert other.read_reply() == b"+PONG\r\n"  # bounded by the socket's 10 s timeout
        # A lower bound only: the pause cannot have ended before its timeout, less the 1 ms the
        # server's whole-millisecond clock may round its start down by (seen: 0.29988 s).
        assert time.monotonic() - started >= 0.3 - 0.002
        assert admin.read_reply() == b"+OK\r\n"
