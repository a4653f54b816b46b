"""Replication, master side: a real redis-server 7.0 replicates from the server under test.

The master is the server under test (listd; redis-server itself under python.against_redis, so
every expectation here is Redis' own). Its replica is always Debian's redis-server 7.0.15,
started with --replicaof, no persistence, in its own temporary directory. Convergence is
awaited by bounded polling (link up and equal offsets), never by sleeping; the data is then
compared key by key in every db (TYPE and the type's range reads, plus whether a TTL is set).
A raw-socket "replica" checks the handshake bytes: +FULLRESYNC, the `$<len>` RDB, the stream
starting with SELECT, REPLCONF ACK getting no reply, and PSYNC continuing from the backlog.
"""

import contextlib
import re
import threading

import pytest
import redis

from listd_testing import ListdServer, RawConn, RedisServer, encode, parse_info, wait_until

# Disk-based sync on both kinds of master (`$<len>`): Redis 7.0's default (diskless, 5 s delay)
# would only make the runs slower; the diskless form is test_diskless_sync.py's. No stream ping
# during a test, so that the raw replica below sees exactly the bytes of the writes.
MASTER_ARGS = ["--repl-diskless-sync", "no", "--repl-ping-replica-period", "3600"]


def redis_replica(master_port):
    """redis-server 7.0 as a replica of `master_port` (whatever the tests' target is)."""
    return RedisServer(["--replicaof", "127.0.0.1", str(master_port)])


@pytest.fixture(scope="module")
def master():
    srv = ListdServer(MASTER_ARGS).start()
    yield srv
    srv.stop()
    srv.close()


@pytest.fixture
def m(master):
    client = redis.Redis(port=master.port, decode_responses=True, socket_timeout=30)
    client.flushall()
    yield client
    client.connection_pool.disconnect()


@contextlib.contextmanager
def redis_replica_of(master):
    srv = redis_replica(master.port).start()
    client = redis.Redis(port=srv.port, decode_responses=True, socket_timeout=30)
    try:
        yield client
    finally:
        client.connection_pool.disconnect()
        srv.stop()
        srv.close()


@pytest.fixture
def replica(master, m):
    with redis_replica_of(master) as client:
        yield client


def in_sync(m, rep):
    """True when the replica's link is up and it has applied every byte the master streamed."""
    r_info = rep.info("replication")
    m_info = m.info("replication")
    return (r_info.get("master_link_status") == "up"
            and r_info.get("slave_repl_offset") == m_info.get("master_repl_offset"))


def snapshot(client):
    """Every key of every db: (db, key) → (type, contents, has_ttl)."""
    data = {}
    for db in range(16):
        client.execute_command("SELECT", db)
        for key in client.keys("*"):
            kind = client.type(key)
            if kind == "string":
                value = client.get(key)
            elif kind == "list":
                value = client.lrange(key, 0, -1)
            elif kind == "hash":
                value = sorted(client.hgetall(key).items())
            elif kind == "set":
                value = sorted(client.smembers(key))
            elif kind == "zset":
                value = client.zrange(key, 0, -1, withscores=True)
            else:
                value = None
            data[(db, key)] = (kind, value, client.pttl(key) > 0)
    client.execute_command("SELECT", 0)
    return data


def write_every_type(m, tag):
    m.rpush(f"list:{tag}", "a", "b", "c")
    m.set(f"str:{tag}", "v")
    m.set(f"ttl:{tag}", "t", ex=1000)
    m.hset(f"hash:{tag}", mapping={"f1": "1", "f2": "2"})
    m.sadd(f"set:{tag}", "x", "y")
    m.zadd(f"zset:{tag}", {"m1": 1.5, "m2": -2})
    m.incrbyfloat(f"float:{tag}", 1.5)
    m.execute_command("SELECT", 3)
    m.lpush(f"db3:{tag}", "z")
    m.execute_command("SELECT", 0)


def test_full_sync_then_stream_reaches_a_redis_replica(master, m):
    write_every_type(m, "before")  # goes in the RDB
    with redis_replica_of(master) as rep:
        full_sync_then_stream(master, m, rep)


def full_sync_then_stream(master, m, rep):
    assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
    info = m.info("replication")
    assert info["connected_slaves"] == 1
    assert info["slave0"]["state"] == "online"
    assert info["repl_backlog_active"] == 1

    write_every_type(m, "after")  # goes in the stream
    # A blocking pop served by a push, a served BLMOVE, a transaction, a script, an expiry.
    blocked = redis.Redis(port=master.port, decode_responses=True, socket_timeout=30)
    result = {}
    waiter = threading.Thread(target=lambda: result.update(pop=blocked.brpop("jobs", 10)))
    waiter.start()
    assert wait_until(lambda: m.info("clients")["blocked_clients"] == 1)
    m.lpush("jobs", "j1", "j2")
    waiter.join(timeout=20)
    assert result["pop"] == ("jobs", "j1")
    m.rpush("src", "s1", "s2")
    assert m.blmove("src", "dst", 1, "RIGHT", "LEFT") == "s2"
    with m.pipeline(transaction=True) as p:
        p.lpush("tx", "1").rpop("tx").incr("counter").execute()
    m.eval("redis.call('lpush', KEYS[1], 'e1', 'e2'); return redis.call('rpop', KEYS[1])", 1,
           "ev")
    m.set("short", "gone", px=50)
    assert wait_until(lambda: m.exists("short") == 0 and m.info("stats")["expired_keys"] >= 1)
    assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
    assert snapshot(rep) == snapshot(m)
    assert ("short" not in rep.keys("*")) and rep.lrange("jobs", 0, -1) == ["j2"]
    blocked.connection_pool.disconnect()


def test_partial_resync_after_the_link_is_killed(master, m, replica):
    rep = replica
    m.rpush("q", "1")
    assert wait_until(lambda: in_sync(m, rep), timeout=20)
    before = m.info("stats")["sync_partial_ok"]
    assert m.execute_command("CLIENT", "KILL", "TYPE", "replica") == 1
    m.rpush("q", "2", "3")  # written while the replica reconnects
    assert wait_until(lambda: m.info("stats")["sync_partial_ok"] == before + 1, timeout=20)
    assert wait_until(lambda: in_sync(m, rep), timeout=20)
    assert rep.lrange("q", 0, -1) == ["1", "2", "3"]


def test_replication_bytes_are_counted_apart(master, m, replica):
    """INFO's total_net_repl_*: what goes to replicas counts there, and in total_net_* too."""
    rep = replica
    assert wait_until(lambda: in_sync(m, rep), timeout=20)
    before = m.info("stats")
    m.set("big", "x" * 200_000)
    assert wait_until(lambda: in_sync(m, rep), timeout=20)
    after = m.info("stats")
    sent = after["total_net_repl_output_bytes"] - before["total_net_repl_output_bytes"]
    assert sent >= 200_000, after
    assert after["total_net_output_bytes"] - before["total_net_output_bytes"] >= sent
    assert after["total_net_repl_input_bytes"] == 0  # it has no master
    # The replica (redis-server) counts the same bytes as replication input.
    assert rep.info("stats")["total_net_repl_input_bytes"] >= 200_000


def read_until(conn, n):
    while len(conn.buf) < n:
        conn._fill()


def read_line(conn):
    """One line of the master's (skipping the keep-alive newlines before it)."""
    while True:
        end = conn.buf.find(b"\r\n")
        if end >= 0:
            line, conn.buf = conn.buf[:end], conn.buf[end + 2:]
            line = line.lstrip(b"\n")
            if line:
                return line
            continue
        conn._fill()


def test_handshake_bytes_ack_without_reply_and_continue(master, m):
    m.rpush("k", "v")
    with RawConn(master.port) as c:
        assert c.call("PING") == b"+PONG\r\n"
        assert c.call("REPLCONF", "listening-port", "4242") == b"+OK\r\n"
        assert c.call("REPLCONF", "capa", "eof", "capa", "psync2", "capa", "unknown") == b"+OK\r\n"
        assert c.call("REPLCONF", "listening-port") == b"-ERR syntax error\r\n"
        c.send(encode("PSYNC", "?", "-1"))
        full = re.fullmatch(rb"\+FULLRESYNC ([0-9a-f]{40}) (\d+)", read_line(c))
        assert full, c.buf
        replid, offset = full.group(1).decode(), int(full.group(2))
        bulk = read_line(c)
        assert bulk.startswith(b"$")
        size = int(bulk[1:])
        read_until(c, size)
        rdb, c.buf = c.buf[:size], c.buf[size:]
        assert rdb.startswith(b"REDIS") and b"repl-id" in rdb and replid.encode() in rdb
        role = m.execute_command("ROLE")
        assert role[0] == "master" and role[2] == [["127.0.0.1", "4242", "0"]]
        c.send(encode("REPLCONF", "ACK", offset))  # never answered
        m.set("after", "1")
        stream = encode("SELECT", 0) + encode("SET", "after", "1")
        read_until(c, len(stream))
        assert c.buf[:len(stream)] == stream  # the ACK got no reply before the stream
        assert wait_until(lambda: m.info("replication")["slave0"]["offset"] == offset)
        assert m.info("replication")["master_repl_offset"] == offset + len(stream)
    # A second connection continues from the offset after the RDB: the backlog's bytes.
    with RawConn(master.port) as c:
        assert c.call("REPLCONF", "capa", "psync2") == b"+OK\r\n"
        c.send(encode("PSYNC", replid, offset + 1))
        assert read_line(c) == b"+CONTINUE " + replid.encode()
        read_until(c, len(stream))
        assert c.buf[:len(stream)] == stream
    assert wait_until(lambda: m.info("replication")["connected_slaves"] == 0)
