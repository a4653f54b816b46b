"""Replication, replica side: the server under test replicates from a real redis-server 7.0
master, and from another instance of itself in a chain.

The replicas are the server under test (listd; redis-server itself under python.against_redis,
so every expectation here is Redis' own). The Redis master uses the diskless form with no delay
(`$EOF:<mark>`, Redis 7.0's default form); listd masters send `$<len>`. Convergence is awaited
by bounded polling (link up and equal offsets), never by sleeping; the data is then compared
key by key in every db with test_replication's snapshot.
"""

import threading

import pytest
import redis

from listd_testing import ListdServer, RedisServer, running, wait_until
from test_replication import in_sync, snapshot, write_every_type

READONLY = "You can't write against a read only replica."


def redis_master_server(extra=()):
    """redis-server 7.0 as the master, diskless with no delay."""
    return RedisServer(["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", *extra])


# A master under test sends `$<len>` (its diskless form is test_diskless_sync.py's); no stream
# pings meanwhile.
TARGET_ARGS = ["--repl-diskless-sync", "no", "--repl-ping-replica-period", "3600"]



def replica_args(master_port):
    return TARGET_ARGS + ["--replicaof", "127.0.0.1", str(master_port)]


@pytest.fixture
def redis_master():
    with running(redis_master_server()) as pair:
        yield pair


def test_replica_of_redis_master(redis_master):
    master, m = redis_master
    write_every_type(m, "before")  # reaches the replica in the RDB
    with running(ListdServer(replica_args(master.port))) as (_, rep):
        assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
        write_every_type(m, "after")  # reaches it in the stream
        blocked = redis.Redis(port=master.port, decode_responses=True, socket_timeout=30)
        result = {}
        waiter = threading.Thread(target=lambda: result.update(pop=blocked.brpop("jobs", 10)))
        waiter.start()
        assert wait_until(lambda: m.info("clients")["blocked_clients"] == 1)
        m.lpush("jobs", "j1", "j2")
        waiter.join(timeout=20)
        assert result["pop"] == ("jobs", "j1")
        with m.pipeline(transaction=True) as p:
            p.lpush("tx", "1").rpop("tx").incr("counter").execute()
        m.set("short", "gone", px=50)
        assert wait_until(lambda: m.exists("short") == 0)
        assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
        assert snapshot(rep) == snapshot(m)
        assert rep.lrange("jobs", 0, -1) == ["j2"]
        # What came from the master counts as replication input (and in the total).
        stats = rep.info("stats")
        master_sent = m.info("stats")["total_net_repl_output_bytes"]
        assert 0 < stats["total_net_repl_input_bytes"] <= stats["total_net_input_bytes"]
        assert stats["total_net_repl_input_bytes"] >= master_sent // 2, (stats, master_sent)
        info = rep.info("replication")
        assert info["role"] == "slave" and info["master_port"] == master.port
        assert info["master_replid"] == m.info("replication")["master_replid"]
        for write in (lambda: rep.lpush("jobs", "x"), lambda: rep.brpop("jobs", 1),
                      lambda: rep.rpop("jobs")):
            with pytest.raises(redis.exceptions.ReadOnlyError, match=READONLY):
                write()
        assert rep.execute_command("ROLE")[:4] == ["slave", "127.0.0.1", master.port,
                                                   "connected"]
        with pytest.raises(redis.exceptions.ResponseError,
                           match="WAIT cannot be used with replica instances"):
            rep.execute_command("WAIT", 1, 100)
        blocked.connection_pool.disconnect()


def test_priority_and_announced_are_in_info_for_sentinel(redis_master):
    """Sentinel reads slave_priority and replica_announced from the replica's INFO (7.0: an
    unannounced replica is left out of SENTINEL REPLICAS)."""
    master, _ = redis_master
    args = replica_args(master.port) + ["--replica-priority", "7", "--replica-announced", "no"]
    with running(ListdServer(args)) as (_, rep):
        info = rep.info("replication")
        assert (info["slave_priority"], info["replica_announced"]) == (7, 0)
        assert rep.config_set("replica-announced", "yes")
        assert rep.info("replication")["replica_announced"] == 1
        assert rep.config_get("replica-announced") == {"replica-announced": "yes"}


def test_masterauth_opens_a_password_protected_master():
    protected = redis_master_server(["--requirepass", "s3cret"])
    with running(protected, password="s3cret") as (master, m):
        m.rpush("q", "a")
        args = replica_args(master.port) + ["--masterauth", "s3cret"]
        with running(ListdServer(args)) as (_, rep):
            assert wait_until(lambda: in_sync(m, rep), timeout=20), rep.info("replication")
            assert rep.lrange("q", 0, -1) == ["a"]


def next_message(sub, timeout=10.0):
    """The next pub/sub frame, polled with a bounded wait."""
    found = []
    assert wait_until(lambda: found.append(sub.get_message(timeout=0.1)) or found[-1],
                      timeout=timeout)
    return found[-1]


def partial_ok(client):
    return client.info("stats")["sync_partial_ok"]


def test_chain_partial_resync_and_promotion():
    with running(ListdServer(TARGET_ARGS)) as (a_srv, a), \
            running(ListdServer(replica_args(a_srv.port))) as (b_srv, b), \
            running(ListdServer(replica_args(b_srv.port))) as (_, c):
        a.rpush("q", "1")
        a.execute_command("SELECT", 3)
        a.set("in3", "x")
        a.execute_command("SELECT", 0)
        # One history and one offset space along the chain.
        assert wait_until(lambda: in_sync(a, b) and in_sync(a, c), timeout=20), \
            (b.info("replication"), c.info("replication"))
        assert c.info("replication")["master_replid"] == a.info("replication")["master_replid"]
        links = b.client_list(_type="master")
        assert len(links) == 1 and links[0]["flags"] == "M"
        # PUBLISH goes down the stream: a subscriber at the chain's end gets the message.
        sub = c.pubsub()
        sub.subscribe("news")
        assert next_message(sub)["type"] == "subscribe"
        assert a.publish("news", "hello") == 0
        assert next_message(sub) == {"type": "message", "pattern": None, "channel": "news",
                                     "data": "hello"}
        sub.close()
        assert wait_until(lambda: in_sync(a, b) and in_sync(a, c), timeout=20)
        # WAIT: the GETACK it sends brings B's ACK of the write; with 2 replicas asked for,
        # the timeout answers with the count; inside MULTI it never blocks.
        a.rpush("w", "1")
        assert a.execute_command("WAIT", 2, 1000) == 1
        a.rpush("w", "2")
        assert a.execute_command("WAIT", 1, 0) == 1
        with a.pipeline(transaction=True) as p:
            replies = p.rpush("w", "3").execute_command("WAIT", 5, 0).execute()
        assert replies[0] == 3 and replies[1] in (0, 1)

        # The link A-B is cut: B continues from its offset, and C never notices.
        before = partial_ok(a)
        assert a.execute_command("CLIENT", "KILL", "TYPE", "replica") == 1
        a.rpush("q", "2")
        assert wait_until(lambda: partial_ok(a) == before + 1, timeout=20)
        assert wait_until(lambda: in_sync(a, b) and in_sync(a, c), timeout=20)

        # B is promoted; A follows it and C comes back: both continue through replid2.
        old_id = b.info("replication")["master_replid"]
        full_before = (a.info("stats")["sync_full"], b.info("stats")["sync_full"])
        assert b.execute_command("REPLICAOF", "NO", "ONE") == "OK"
        info = b.info("replication")
        assert info["role"] == "master" and info["master_replid2"] == old_id
        assert info["second_repl_offset"] == info["master_repl_offset"] + 1
        b.rpush("q", "3")
        assert a.execute_command("REPLICAOF", "127.0.0.1", b_srv.port) == "OK"
        assert wait_until(lambda: partial_ok(b) == 2, timeout=20), b.info("stats")
        assert wait_until(lambda: in_sync(b, a) and in_sync(b, c), timeout=20)
        assert (a.info("stats")["sync_full"], b.info("stats")["sync_full"]) == full_before
        for node in (a, c):
            assert node.lrange("q", 0, -1) == ["1", "2", "3"]
            with pytest.raises(redis.exceptions.ReadOnlyError, match=READONLY):
                node.rpush("q", "4")
        c.execute_command("SELECT", 3)
        assert c.get("in3") == "x"


def test_a_diverged_old_master_resyncs_in_full_and_loses_its_own_writes():
    """After a promotion, the old master wrote on alone (a split brain). Made a replica of the
    new master, it asks PSYNC with its own history, which the new master only knows up to the
    promotion (replid2 / second_repl_offset): a full resync, and what it wrote alone is gone,
    so both hold the new master's data exactly."""
    with running(ListdServer(TARGET_ARGS)) as (a_srv, a), \
            running(ListdServer(replica_args(a_srv.port))) as (b_srv, b):
        write_every_type(a, "shared")
        assert wait_until(lambda: in_sync(a, b), timeout=20), b.info("replication")
        old_replid = a.info("replication")["master_replid"]
        assert b.execute_command("REPLICAOF", "NO", "ONE") == "OK"
        promoted = b.info("replication")
        assert promoted["master_replid2"] == old_replid
        a.rpush("only-on-a", "lost")  # the old master's own history from here
        a.set("str:shared", "a-alone")
        b.rpush("only-on-b", "kept")  # and the new master's
        full_before = b.info("stats")["sync_full"]
        assert a.execute_command("REPLICAOF", "127.0.0.1", b_srv.port) == "OK"
        assert wait_until(lambda: in_sync(b, a), timeout=20), a.info("replication")
        assert b.info("stats")["sync_full"] == full_before + 1
        assert a.info("replication")["master_replid"] == b.info("replication")["master_replid"]
        assert snapshot(a) == snapshot(b)
        assert a.exists("only-on-a") == 0 and a.lrange("only-on-b", 0, -1) == ["kept"]
        assert a.get("str:shared") == "v"


def test_the_replica_holds_no_copy_of_the_payload_after_a_full_sync():
    """The payload (here about 3 MB) is freed once loaded: the replica's used_memory is about
    the master's (both keep a 1 MB backlog), not the master's plus the payload."""
    with running(ListdServer(TARGET_ARGS)) as (a_srv, a):
        pipe = a.pipeline(transaction=False)
        for i in range(100):
            pipe.rpush(f"jobs:{i}", *(f"job-{i}-{j:06d}" for j in range(2000)))
        pipe.execute()
        with running(ListdServer(replica_args(a_srv.port))) as (_, b):
            assert wait_until(lambda: in_sync(a, b), timeout=20), b.info("replication")
            master_used = a.info("memory")["used_memory"]
            replica_used = b.info("memory")["used_memory"]
            assert replica_used < master_used + 1024 * 1024, (replica_used, master_used)
