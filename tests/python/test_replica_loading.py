"""A replica loading its master's full-sync payload, as Redis 7.0 with repl-diskless-load
disabled (readSyncBulkPayload): while the payload transfers the replica serves its old data
(replica-serve-stale-data yes); while it loads, commands without the `loading` flag get
-LOADING and INFO shows loading:1 with master_sync_in_progress:1; the replica sends its master
a newline keep-alive from the loading loop (replicationSendNewlineToMaster: the first at once,
then one a second) before its first REPLCONF ACK.

The first test plays the master on a raw socket, so the transfer's halves, the stale reads and
the newline are all deterministic. The others sync from a real listd and a real redis-server
master; what a poller saw during the load is checked only when it saw it (the payload, 300,000
keys, normally loads for longer than a few polls), the final state always.
"""

import socket
import threading
import time

import pytest
import redis

from listd_testing import ListdServer, RedisServer, scaled, wait_until
from listd_testing.resp import RawConn, parse_info
from test_loading import KEYS, LOADING, write_dump

REPLID = b"0123456789abcdef0123456789abcdef01234567"
SMALL_RDB = b"REDIS0009\xfe\x00\x00\x03old\x011" + b"\xff" + b"\x00" * 8  # old = "1"
REPLICA_ARGS = ["--loading-process-events-interval-bytes", "65536", "--repl-timeout", "60"]


def info_of(c):
    return parse_info(c.call("INFO"))


def read_command(f):
    """One multibulk request from the replica, as a list of bytes."""
    header = f.readline()
    assert header.startswith(b"*"), header
    argv = []
    for _ in range(int(header[1:])):
        size = int(f.readline()[1:])
        argv.append(f.read(size + 2)[:-2])
    return argv


def serve_handshake(conn):
    """Answers PING, AUTH and REPLCONF until the PSYNC, then starts a full resync."""
    f = conn.makefile("rb")
    for _ in range(10):
        argv = read_command(f)
        name = argv[0].upper()
        if name == b"PSYNC":
            conn.sendall(b"+FULLRESYNC " + REPLID + b" 0\r\n")
            return f
        conn.sendall(b"+PONG\r\n" if name == b"PING" else b"+OK\r\n")
    raise AssertionError("no PSYNC in the handshake")


def read_until_ack(f, sink):
    """What the replica sends after the payload, up to its first REPLCONF ACK."""
    while b"REPLCONF" not in sink[0]:
        chunk = f.read1(4096)
        if not chunk:
            return
        sink[0] += chunk


def poll_stale_then_loading(rep_port):
    """GET old on the replica until its link is up: every reply, in order, and the INFO seen
    at the first -LOADING (None if the poller saw none)."""
    gets, during = [], None
    with RawConn(rep_port, timeout=scaled(30)) as c:
        for _ in range(100_000):  # while loading, each round waits for a progress point
            gets.append(c.call("GET", "old"))
            if gets[-1] == LOADING and during is None:
                during = info_of(c)
            elif gets[-1] != LOADING and info_of(c)["master_link_status"] == "up":
                return gets, during
    raise AssertionError("the link did not come up after 100,000 polls")


def check_stale_then_loading(gets, during):
    """Old data while it transfers, -LOADING while it loads, the master's data after."""
    print(f"GET replies: {len(gets)}, -LOADING among them: {gets.count(LOADING)}")
    order = {b"$1\r\n1\r\n": 0, LOADING: 1, b"$-1\r\n": 2}
    ranks = [order[g] for g in gets]
    assert ranks == sorted(ranks) and ranks[-1] == 2, gets[:5]
    if during is not None:
        assert during["loading"] == "1" and during["master_sync_in_progress"] == "1", during
        assert during["master_link_status"] == "down"
        assert "loading_loaded_bytes" in during


def test_raw_master_stale_reads_then_loading_then_newline(tmp_path):
    write_dump(tmp_path / "big.rdb")
    big = (tmp_path / "big.rdb").read_bytes()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(scaled(30))
    master_port = listener.getsockname()[1]
    rep = ListdServer(REPLICA_ARGS + ["--replicaof", "127.0.0.1", str(master_port)]).start()
    try:
        conn, _ = listener.accept()
        conn.settimeout(scaled(30))
        serve_handshake(conn)
        conn.sendall(b"$%d\r\n%s" % (len(SMALL_RDB), SMALL_RDB))
        c = redis.Redis(port=rep.port, socket_timeout=scaled(30))
        assert wait_until(lambda: c.get("old") == b"1", timeout=20)
        conn.close()  # the replica reconnects and gets the big payload
        conn, _ = listener.accept()
        conn.settimeout(scaled(30))
        f = serve_handshake(conn)
        half = len(big) // 2
        conn.sendall(b"$%d\r\n%s" % (len(big), big[:half]))
        # Transferring: the old data is served, no -LOADING yet.
        with RawConn(rep.port) as probe:
            assert wait_until(lambda: info_of(probe)["master_sync_in_progress"] == "1",
                              timeout=20)
            assert info_of(probe)["loading"] == "0"
        assert c.get("old") == b"1"
        after = [b""]
        reader = threading.Thread(target=read_until_ack, args=(f, after))
        reader.start()
        conn.sendall(big[half:])
        check_stale_then_loading(*poll_stale_then_loading(rep.port))
        reader.join(timeout=scaled(30))
        # The keep-alive came from the load (before the cron's first ACK), and only newlines.
        head = after[0][:after[0].index(b"*")]
        assert head and head == b"\n" * len(head), after[0][:80]
        assert c.dbsize() == KEYS and c.get("old") is None
        assert c.get("k:123") == b"value:123"
        info = c.info()
        assert info["loading"] == 0 and info["master_link_status"] == "up"
        assert info["master_sync_in_progress"] == 0
        conn.close()
    finally:
        listener.close()
        rep.close()


def fill(client, n):
    pipe = client.pipeline(transaction=False)
    for start in range(0, n, 1000):
        pipe.mset({f"k:{i}": f"value:{i}" for i in range(start, min(start + 1000, n))})
    pipe.execute()


@pytest.mark.parametrize("kind", ["listd", "redis"])
def test_replica_of_a_real_master_answers_loading(kind):
    args = ["--repl-diskless-sync", "no", "--repl-ping-replica-period", "3600"]
    master = (RedisServer(args) if kind == "redis" else ListdServer(args)).start()
    rep = ListdServer(REPLICA_ARGS).start()
    try:
        m = redis.Redis(port=master.port, socket_timeout=scaled(60))
        fill(m, KEYS)
        r = redis.Redis(port=rep.port, socket_timeout=scaled(30))
        r.set("old", "1")
        r.replicaof("127.0.0.1", master.port)
        check_stale_then_loading(*poll_stale_then_loading(rep.port))
        assert r.dbsize() == KEYS and r.get("k:7") == b"value:7"
    finally:
        rep.close()
        master.close()


def test_master_keeps_a_replica_sending_newlines():
    """The master side of the keep-alive: a replica's empty lines count as signs of life for
    repl-timeout (Redis processInlineBuffer), before its first REPLCONF ACK. The raw replica
    reads each reply before its next command, as a real one does (Redis refuses a PSYNC sent
    while the +OK to REPLCONF is still in its output buffer)."""
    master = ListdServer(["--repl-diskless-sync", "no", "--repl-timeout", "2",
                          "--repl-ping-replica-period", "3600"]).start()
    try:
        m = redis.Redis(port=master.port, socket_timeout=scaled(30))
        m.set("k", "v")
        with socket.create_connection(("127.0.0.1", master.port), timeout=scaled(30)) as s:
            f = s.makefile("rb")
            s.sendall(b"REPLCONF listening-port 1\r\n")
            assert f.readline() == b"+OK\r\n"
            s.sendall(b"PSYNC ? -1\r\n")
            line = f.readline()
            while line == b"\n":  # the master's own keep-alive while its BGSAVE runs
                line = f.readline()
            assert line.startswith(b"+FULLRESYNC "), line
            line = f.readline().lstrip(b"\n")
            f.read(int(line[1:]))
            for _ in range(30):  # 6 s of newlines, 0.2 s apart: three times the timeout
                s.sendall(b"\n")
                time.sleep(0.2)  # the replica's pace, not a wait for the server
            assert m.info("replication")["connected_slaves"] == 1
            # Silent now: the same master drops it (the timeout is in force).
            assert wait_until(lambda: m.info("replication")["connected_slaves"] == 0,
                              timeout=30)
    finally:
        master.close()
