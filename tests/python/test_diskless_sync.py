"""Diskless full sync from the master under test (repl-diskless-sync yes, Redis 7.0's default).

The master is the server under test (listd; redis-server itself under python.against_redis, so
every expectation here is Redis' own), with repl-diskless-sync-delay 0 unless a test needs the
delay. Replicas: a real redis-server 7.0.15, a server of the kind under test, and raw sockets
that check the bytes: `+FULLRESYNC`, `$EOF:<40 chars>\\r\\n<rdb><the same 40 chars>`, nothing
after the mark until the replica's first REPLCONF ACK; two replicas that join within the delay
share one child (one "target: replicas sockets" line in the master's log, the same bytes for
both); a replica that did not announce `capa eof` gets `$<len>`. Every wait is bounded polling.
"""

import re
import socket

import redis

from listd_testing import ListdServer, RawConn, encode, running, wait_until
from test_replication import in_sync, read_line, redis_replica, snapshot, write_every_type

NO_PINGS = ["--repl-ping-replica-period", "3600"]  # the raw replicas see the writes' bytes only
SOCKETS_LINE = "Starting BGSAVE for SYNC with target: replicas sockets"


def diskless_master(*extra):
    return ListdServer(["--save", "", "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay",
                        "0", *NO_PINGS, *extra])



def raw_replica(port, capa):
    conn = RawConn(port)
    assert conn.call("REPLCONF", "listening-port", "4242") == b"+OK\r\n"
    assert conn.call("REPLCONF", *capa) == b"+OK\r\n"
    conn.send(encode("PSYNC", "?", "-1"))
    return conn


def read_fullresync(conn):
    full = re.fullmatch(rb"\+FULLRESYNC ([0-9a-f]{40}) (\d+)", read_line(conn))
    assert full, conn.buf
    return full.group(1), int(full.group(2))


def read_eof_rdb(conn):
    """The `$EOF:<mark>` header, then bytes until they end with the mark: (mark, rdb)."""
    header = read_line(conn)
    assert re.fullmatch(rb"\$EOF:[0-9a-f]{40}", header), header
    mark = header[5:]
    while not (len(conn.buf) >= 40 and conn.buf.endswith(mark)):
        conn._fill()
    rdb, conn.buf = conn.buf[:-40], b""
    return mark, rdb


def nothing_more(conn):
    """True if the master sent nothing after what was read (checked after a round trip)."""
    conn.sock.setblocking(False)
    try:
        return conn.sock.recv(1) == b""  # only if closed
    except (BlockingIOError, socket.timeout):
        return True
    finally:
        conn.sock.setblocking(True)


def ack_until_streamed(conn, offset, attempts=20):
    """Acks once a second, as a replica does, until the stream starts; its first line.

    Redis takes the ACK as the start only once it has reaped the child, which may come after
    the first ACK; listd remembers an ACK that came first.
    """
    conn.sock.settimeout(1)
    try:
        for _ in range(attempts):
            conn.send(encode("REPLCONF", "ACK", offset))
            try:
                return read_line(conn)
            except (socket.timeout, TimeoutError):
                continue
        return None
    finally:
        conn.sock.settimeout(10)


def test_a_redis_replica_syncs_diskless():
    with running(diskless_master()) as (master, m):
        write_every_type(m, "before")  # reaches the replica in the RDB
        rep_srv = redis_replica(master.port).start()
        rep = redis.Redis(port=rep_srv.port, decode_responses=True, socket_timeout=30)
        try:
            assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
            assert rep.info("replication")["master_link_status"] == "up"
            # Online once the master reaped the child, which may come after the replica loaded.
            assert wait_until(lambda: m.info("replication")["slave0"]["state"] == "online")
            write_every_type(m, "after")  # reaches it in the stream
            m.lpush("late", "x")
            assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
            assert snapshot(rep) == snapshot(m)
            assert rep.lrange("late", 0, -1) == ["x"]
            assert wait_until(lambda: SOCKETS_LINE in master.log_text()), master.log_text()
            assert m.info("stats")["sync_full"] == 1
        finally:
            rep.connection_pool.disconnect()
            rep_srv.close()


def test_a_replica_of_the_same_kind_syncs_diskless():
    with running(diskless_master()) as (master, m):
        m.rpush("q", "a", "b")
        replica = ListdServer([*NO_PINGS, "--replicaof", "127.0.0.1", str(master.port)])
        with running(replica) as (_, rep):
            assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
            m.rpush("q", "c")
            assert wait_until(lambda: rep.lrange("q", 0, -1) == ["a", "b", "c"], timeout=20)
            assert wait_until(lambda: SOCKETS_LINE in master.log_text()), master.log_text()


def test_two_replicas_joining_within_the_delay_share_one_child():
    # A delay no test waits for: the second replica's arrival starts the child (max-replicas).
    srv = diskless_master("--repl-diskless-sync-delay", "60",
                          "--repl-diskless-sync-max-replicas", "2")
    with running(srv) as (master, m):
        m.set("k", "v")
        with raw_replica(master.port, ["capa", "eof", "capa", "psync2"]) as r1, \
                raw_replica(master.port, ["capa", "eof", "capa", "psync2"]) as r2:
            first, second = read_fullresync(r1), read_fullresync(r2)
            assert first == second  # one snapshot: the same history and offset
            mark1, rdb1 = read_eof_rdb(r1)
            mark2, rdb2 = read_eof_rdb(r2)
            assert (mark1, rdb1) == (mark2, rdb2)  # the same child wrote both
            assert rdb1.startswith(b"REDIS") and b"repl-id" in rdb1 and first[0] in rdb1
            assert wait_until(lambda: SOCKETS_LINE in master.log_text()), master.log_text()
            assert master.log_text().count(SOCKETS_LINE) == 1
            assert m.info("stats")["sync_full"] == 2
            # The stream starts once a replica acks; the other one's stays held.
            m.rpush("after", "x")
            assert ack_until_streamed(r1, first[1]) == b"*2"  # SELECT 0 first
            assert m.ping() and nothing_more(r2)


def test_a_replica_without_capa_eof_gets_the_rdb_from_disk():
    with running(diskless_master()) as (master, m):
        m.set("k", "v")
        with raw_replica(master.port, ["capa", "psync2"]) as r:
            replid, _ = read_fullresync(r)
            bulk = read_line(r)
            assert re.fullmatch(rb"\$\d+", bulk), bulk
            size = int(bulk[1:])
            while len(r.buf) < size:
                r._fill()
            assert r.buf[:5] == b"REDIS" and replid in r.buf[:size]
            disk_line = "Starting BGSAVE for SYNC with target: disk"
            assert wait_until(lambda: disk_line in master.log_text()), master.log_text()
