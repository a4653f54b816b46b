"""maxmemory-clients (issue 18): when the normal and pub/sub clients together hold at least the
limit, the largest are closed until they hold less, as Redis 7.0's evictClients. Each eviction
counts in INFO evicted_clients (CONFIG RESETSTAT zeroes it) and the other clients go on;
CLIENT NO-EVICT on exempts a client. python.against_redis runs the same tests on redis-server.

A client grows by sending most of one large argument and holding back the rest: the server
keeps it in the client's query buffer. Waits are bounded polls of INFO (wait_until).
"""

import socket

import pytest

from listd_testing import ListdServer, RawConn, parse_info, wait_until

LIMIT = "1mb"


@pytest.fixture
def server():
    srv = ListdServer().start()
    yield srv
    srv.close()


def evicted_clients(conn):
    return int(parse_info(conn.call("INFO", "stats"))["evicted_clients"])


def grow(port, nbytes, no_evict=False):
    """A raw socket whose query buffer holds about `nbytes` of an unfinished SET."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if no_evict:
        s.sendall(b"*3\r\n$6\r\nCLIENT\r\n$8\r\nNO-EVICT\r\n$2\r\non\r\n")
        assert s.recv(64) == b"+OK\r\n"
    try:
        s.sendall(b"*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n" % (nbytes * 2))
        s.sendall(b"x" * nbytes)
    except (BrokenPipeError, ConnectionResetError):
        pass  # evicted while it was still sending (closed_by_server() then says so)
    return s


def closed_by_server(s):
    """True once the server closed `s` (EOF or a reset); False while it stays open."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def test_the_largest_client_is_evicted_and_the_others_go_on(server):
    with RawConn(server.port) as admin:
        assert admin.call("CONFIG", "SET", "maxmemory-clients", LIMIT) == b"+OK\r\n"
        small = grow(server.port, 200 * 1024)
        big = grow(server.port, 3 * 1024 * 1024)
        try:
            assert wait_until(lambda: closed_by_server(big)), "the big client was not evicted"
            assert evicted_clients(admin) == 1
            # The rest holds less than the limit now: the smaller client stays.
            assert not closed_by_server(small)
            assert admin.call("PING") == b"+PONG\r\n"
            with RawConn(server.port) as other:
                assert other.call("SET", "k", "v") == b"+OK\r\n"
            assert admin.call("CONFIG", "RESETSTAT") == b"+OK\r\n"
            assert evicted_clients(admin) == 0
        finally:
            small.close()
            big.close()


def test_a_no_evict_client_is_never_evicted(server):
    with RawConn(server.port) as admin:
        assert admin.call("CONFIG", "SET", "maxmemory-clients", LIMIT) == b"+OK\r\n"
        kept = grow(server.port, 3 * 1024 * 1024, no_evict=True)
        try:
            assert wait_until(lambda: b"qbuf=0 " not in admin.call("CLIENT", "LIST"))
            big = grow(server.port, 2 * 1024 * 1024)
            try:
                assert wait_until(lambda: closed_by_server(big))
                assert not closed_by_server(kept)
                assert evicted_clients(admin) == 1
            finally:
                big.close()
        finally:
            kept.close()


def test_zero_is_no_limit(server):
    with RawConn(server.port) as admin:
        big = grow(server.port, 3 * 1024 * 1024)
        try:
            assert wait_until(lambda: b"qbuf=0 " not in admin.call("CLIENT", "LIST"))
            assert admin.call("PING") == b"+PONG\r\n"  # a cron tick or two went by
            assert not closed_by_server(big)
            assert evicted_clients(admin) == 0
        finally:
            big.close()


def test_a_client_whose_replies_pile_up_is_evicted(server):
    with RawConn(server.port) as writer:  # its query buffer grew to the value's size: gone
        assert writer.call("SET", "value", "v" * (512 * 1024)) == b"+OK\r\n"
    with RawConn(server.port) as admin:
        assert admin.call("CONFIG", "SET", "maxmemory-clients", LIMIT) == b"+OK\r\n"
        reader = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        try:
            # 16 MB of replies it never reads: more than the socket buffers take.
            try:
                reader.sendall(b"*2\r\n$3\r\nGET\r\n$5\r\nvalue\r\n" * 32)
            except (BrokenPipeError, ConnectionResetError):
                pass
            assert wait_until(lambda: evicted_clients(admin) == 1)
            assert admin.call("PING") == b"+PONG\r\n"
        finally:
            reader.close()
