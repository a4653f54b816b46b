"""sync-replicas (listd's synchronous replication, issue 17): no reply that may show data leaves
the master before N replicas acknowledged the writes it may show.

Each test runs a listd master with `sync-replicas 1` and one real replica: Debian's
redis-server 7.0.15 (it answers `REPLCONF GETACK` with the offset it applied) or a listd. The
guarantee is checked as a client sees it, without timing: the moment a reply arrives, the
replica must already hold what the reply acknowledged, so the replica is read right after each
reply and must show it (a push's element is there; a served BRPOP's element is gone). A stalled
replica (SIGSTOP) must stop acknowledgements: a write then ends in a closed connection once
sync-replicas-timeout passes, never in a success, while PING and INFO still answer. Without a
replica, writes are refused with Redis' -NOREPLICAS text. Every wait is a bounded poll.

listd only (python.against_redis ignores it): Redis has no such mode.
"""

import contextlib
import os
import signal
import threading

import pytest
import redis

from listd_testing import ListdServer, RedisServer, scaled, wait_until

MASTER_ARGS = ["--save", "", "--appendonly", "no", "--repl-diskless-sync", "no",
               "--sync-replicas", "1"]
NO_REPLICAS = "NOREPLICAS Not enough good replicas to write."


def client(port, **kw):
    return redis.Redis(port=port, decode_responses=True, socket_timeout=scaled(30), **kw)


@contextlib.contextmanager
def master_and_replica(kind, master_args=()):
    """A listd master with sync-replicas 1 and one `kind` ("redis" or "listd") replica, once
    the replica is online (a probe write was acknowledged)."""
    master = ListdServer(MASTER_ARGS + list(master_args)).start()
    replica_cls = RedisServer if kind == "redis" else ListdServer
    replica = replica_cls(["--save", "", "--appendonly", "no",
                           "--replicaof", "127.0.0.1", str(master.port)]).start()
    m, r = client(master.port), client(replica.port)
    try:
        def acknowledged_probe():
            try:
                return m.set("probe", "1")
            except redis.exceptions.ResponseError as e:  # not yet streaming
                assert NO_REPLICAS in str(e), e
                return False
        assert wait_until(acknowledged_probe, timeout=scaled(30), interval=0.05), \
            "the replica never came online"
        m.delete("probe")
        yield master, replica, m, r
    finally:
        for c in (m, r):
            c.connection_pool.disconnect()
        for srv in (replica, master):
            if srv.proc is not None and srv.proc.poll() is None:
                srv.proc.send_signal(signal.SIGCONT)  # a test may have stopped it
            srv.stop()
            srv.close()


@pytest.mark.parametrize("kind", ["redis", "listd"])
def test_an_acknowledged_push_is_on_the_replica(kind):
    with master_and_replica(kind) as (_, _, m, r):
        for i in range(200):
            assert m.rpush("jobs", f"j{i}") == i + 1
            # Acknowledged means applied by the replica: it shows it at once.
            assert r.lindex("jobs", i) == f"j{i}", f"push {i} answered before the replica had it"
        # A pipeline: every reply of the batch is sent after the batch's end offset was acked.
        with m.pipeline(transaction=False) as p:
            for i in range(200, 300):
                p.rpush("jobs", f"j{i}")
            assert p.execute() == list(range(201, 301))
        assert r.llen("jobs") == 300
        info = m.info("replication")
        assert info["sync_replicas"] == 1 and info["sync_replicas_timeouts"] == 0


@pytest.mark.parametrize("kind", ["redis", "listd"])
def test_a_served_pop_reaches_the_worker_after_the_replica_applied_it(kind):
    with master_and_replica(kind) as (master, _, m, r):
        popped = []
        errors = []

        def worker():
            w = client(master.port)
            try:
                for _ in range(50):
                    key, job = w.brpop("jobs", timeout=0)
                    # The pop reached the replica before its reply reached us.
                    popped.append((job, r.lpos("jobs", job)))
            except Exception as e:  # reported below
                errors.append(repr(e))
            finally:
                w.connection_pool.disconnect()

        t = threading.Thread(target=worker)
        t.start()
        for i in range(50):
            # Wait for the worker to block, so the pop is served by this push.
            assert wait_until(lambda: m.info("clients")["blocked_clients"] == 1,
                              timeout=scaled(20), interval=0.005)
            m.lpush("jobs", f"j{i}")
        t.join(timeout=scaled(60))
        assert not t.is_alive() and not errors, errors
        assert [job for job, _ in popped] == [f"j{i}" for i in range(50)]
        assert all(pos is None for _, pos in popped), popped
        assert r.llen("jobs") == 0


def test_a_stalled_replica_stops_acknowledgements_not_the_server():
    with master_and_replica("redis", ["--sync-replicas-timeout", "1000"]) as (master, replica,
                                                                             m, r):
        assert m.rpush("jobs", "before") == 1
        os.kill(replica.pid, signal.SIGSTOP)
        try:
            writer = client(master.port, retry_on_timeout=False)
            # No success without the replica's ACK: the held reply ends in a closed connection
            # once sync-replicas-timeout (1 s) passed; redis-py's own timeout is far longer.
            with pytest.raises(redis.exceptions.ConnectionError):
                writer.rpush("jobs", "during")
            reader = client(master.port)
            with pytest.raises(redis.exceptions.ConnectionError):
                reader.lrange("jobs", 0, -1)  # it may show the unacknowledged push
            # What shows no data is answered meanwhile (Sentinel's PING and INFO).
            admin = client(master.port)
            assert admin.ping()
            info = admin.info("replication")
            assert info["sync_replicas_timeouts"] == 2, info
            assert info["sync_replicas_held_clients"] == 0, info
        finally:
            os.kill(replica.pid, signal.SIGCONT)
        # The replica catches up and acknowledges again: writes and reads are answered.
        assert wait_until(lambda: m.rpush("jobs", "after") >= 3, timeout=scaled(30))
        assert r.lrange("jobs", 0, -1)[-1] == "after"
        assert r.lrange("jobs", 0, -1)[:2] == ["before", "during"]  # indeterminate, applied


def test_without_a_replica_writes_are_refused_and_reads_answered():
    with ListdServer(MASTER_ARGS) as master:
        m = client(master.port)
        with pytest.raises(redis.exceptions.ResponseError, match=NO_REPLICAS):
            m.lpush("jobs", "x")
        with pytest.raises(redis.exceptions.ResponseError, match=NO_REPLICAS):
            m.brpop("jobs", timeout=1)
        assert m.llen("jobs") == 0
        assert m.config_set("sync-replicas", 0)
        assert m.lpush("jobs", "x") == 1
        assert m.config_get("sync-replicas-timeout") == {"sync-replicas-timeout": "2000"}
        m.connection_pool.disconnect()
