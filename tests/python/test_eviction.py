"""Eviction past maxmemory with real sockets: the evicting policies delete keys before a command
runs, each eviction counted in INFO evicted_keys, published as an `evicted` notification and
written to the AOF as a DEL; volatile policies without volatile keys answer -OOM; OBJECT FREQ
and OBJECT IDLETIME answer as Redis 7.0 does under each kind of policy.

python.against_redis runs this module against redis-server 7.0.15: every expectation is Redis'.
No timing assertion: every wait is a bounded poll. The in-process tests of which keys each
policy keeps are in tests/unit/server/eviction_test.cpp.
"""

import os

import pytest
import redis

from listd_testing import RawConn, parse_info, scaled, wait_until

OOM = b"-OOM command not allowed when used memory > 'maxmemory'.\r\n"
VALUE = b"v" * 10_000


def used_memory(client):
    return int(client.info("memory")["used_memory"])


def fill_past_the_limit(client, new_keys=300):
    """maxmemory 1 MB above the count now, then `new_keys` 10 KB values: about 2 MB to evict."""
    client.config_set("maxmemory", str(used_memory(client) + 1024 * 1024))
    for i in range(new_keys):
        client.set(f"n:{i}", VALUE)


@pytest.fixture
def evicting(listd_factory):
    """A server of its own with the AOF on (fsync always), and a client."""
    srv = listd_factory("--save", "", "--appendonly", "yes", "--appendfsync", "always")
    client = redis.Redis(port=srv.port, socket_timeout=scaled(30))
    # No time limit on a cycle: no eviction is left to the timer, so the counts read are final.
    client.config_set("maxmemory-eviction-tenacity", "100")
    yield srv, client
    client.close()


def test_allkeys_random_evicts_counts_notifies_and_logs_del(evicting):
    srv, client = evicting
    client.config_set("maxmemory-policy", "allkeys-random")
    client.config_set("notify-keyspace-events", "Ee")
    pubsub = client.pubsub()
    pubsub.subscribe("__keyevent@0__:evicted")
    assert wait_until(lambda: pubsub.get_message(timeout=0.1) is not None), "no subscribe reply"
    for i in range(100):
        client.set(f"k:{i}", VALUE)
    fill_past_the_limit(client)
    limit = int(client.config_get("maxmemory")["maxmemory"])
    assert used_memory(client) <= limit + 256 * 1024  # the last value and the buffers' slack
    client.config_set("maxmemory", "0")  # every later command would evict first
    evicted = int(client.info("stats")["evicted_keys"])
    assert evicted >= 150, evicted
    assert client.dbsize() == 400 - evicted
    names = []

    def all_notified():
        message = pubsub.get_message(timeout=0.1)
        if message is not None:
            names.append(message["data"])
        return len(names) == evicted

    assert wait_until(all_notified), f"{len(names)} evicted notifications for {evicted} keys"
    assert all(client.exists(name) == 0 for name in names)
    pubsub.close()
    # Each eviction is a DEL in the AOF (appendfsync always: written before the next reply).
    incr = [f for f in os.listdir(os.path.join(srv.workdir, "appendonlydir")) if "incr" in f]
    with open(os.path.join(srv.workdir, "appendonlydir", incr[0]), "rb") as f:
        aof = f.read()
    assert aof.count(b"*2\r\n$3\r\nDEL\r\n") == evicted, aof.count(b"DEL")


def test_volatile_policies_without_volatile_keys_answer_oom(evicting):
    _, client = evicting
    raw = RawConn(client.connection_pool.connection_kwargs["port"], timeout=scaled(30))
    client.set("persistent", "x")
    for policy in ("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"):
        client.config_set("maxmemory-policy", policy)
        client.config_set("maxmemory", "1")
        assert raw.call("SET", "other", "y") == OOM, policy
        assert raw.call("GET", "persistent") == b"$1\r\nx\r\n"
        client.config_set("maxmemory", "0")
    assert int(client.info("stats")["evicted_keys"]) == 0
    raw.close()


def test_volatile_lru_evicts_only_keys_with_an_expiry(evicting):
    _, client = evicting
    client.config_set("maxmemory-policy", "volatile-lru")
    for i in range(100):
        client.set(f"p:{i}", VALUE)
        client.set(f"t:{i}", VALUE, ex=3600)
    fill_past_the_limit(client, new_keys=150)
    assert int(client.info("stats")["evicted_keys"]) > 0
    assert all(client.exists(f"p:{i}") for i in range(100))
    assert all(client.exists(f"n:{i}") for i in range(150))


def test_object_freq_and_idletime_under_each_kind_of_policy(r):
    conn = RawConn(r.connection_pool.connection_kwargs["port"], timeout=scaled(30))
    try:
        r.set("k", "v")
        assert conn.call("OBJECT", "FREQ", "k") == (
            b"-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
            b"note that when switching between policies at runtime LRU and LFU data will take "
            b"some time to adjust.\r\n")
        assert conn.call("OBJECT", "IDLETIME", "k") in (b":0\r\n", b":1\r\n", b":2\r\n")
        r.config_set("maxmemory-policy", "allkeys-lfu")
        r.config_set("lfu-log-factor", "0")  # every access counts
        r.config_set("lfu-decay-time", "0")  # no decay at a minute's turn
        r.set("f", "v")
        assert conn.call("OBJECT", "FREQ", "f") == b":5\r\n"
        for _ in range(10):
            r.get("f")
        assert conn.call("OBJECT", "FREQ", "f") == b":15\r\n"
        assert conn.call("OBJECT", "FREQ", "missing") == b"$-1\r\n"
        assert conn.call("OBJECT", "IDLETIME", "f") == (
            b"-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that "
            b"when switching between policies at runtime LRU and LFU data will take some time to "
            b"adjust.\r\n")
    finally:
        r.config_set("maxmemory-policy", "noeviction")
        r.config_set("lfu-log-factor", "10")
        r.config_set("lfu-decay-time", "1")
        conn.close()


def test_eviction_options_validate_as_redis(r):
    conn = RawConn(r.connection_pool.connection_kwargs["port"], timeout=scaled(30))
    try:
        assert conn.call("CONFIG", "SET", "maxmemory-samples", "0") == (
            b"-ERR CONFIG SET failed (possibly related to argument 'maxmemory-samples') - "
            b"argument must be between 1 and 2147483647 inclusive\r\n")
        assert conn.call("CONFIG", "SET", "maxmemory-eviction-tenacity", "101") == (
            b"-ERR CONFIG SET failed (possibly related to argument 'maxmemory-eviction-tenacity')"
            b" - argument must be between 0 and 100 inclusive\r\n")
        assert r.config_get("maxmemory-samples") == {"maxmemory-samples": "5"}
        assert r.config_get("maxmemory-eviction-tenacity") == {
            "maxmemory-eviction-tenacity": "10"}
        assert r.config_get("lfu-*") == {"lfu-log-factor": "10", "lfu-decay-time": "1"}
    finally:
        conn.close()


def test_eviction_exceeded_time_spans_the_time_over_the_limit(listd_factory):
    """INFO stats' eviction-exceeded time (7.0): a spell opens when a cycle cannot get under
    maxmemory (noeviction here), ends when one can; RESETSTAT clears it. Only orderings and
    zeros are asserted: the length of a spell is whatever time passed."""
    srv = listd_factory("--save", "")
    client = redis.Redis(port=srv.port, socket_timeout=scaled(30))
    try:
        client.set("a", "b")
        stats = client.info("stats")
        assert stats["evicted_clients"] == 0
        assert stats["total_eviction_exceeded_time"] == 0
        assert stats["current_eviction_exceeded_time"] == 0
        client.config_set("maxmemory", "1")
        with pytest.raises(redis.exceptions.ResponseError, match="^OOM command not allowed"):
            client.set("x", "y")
        # Each INFO is a command, so a cycle runs before it and the spell goes on.
        assert wait_until(lambda: client.info("stats")["current_eviction_exceeded_time"] > 0,
                          timeout=30)
        during = client.info("stats")
        assert during["total_eviction_exceeded_time"] >= during["current_eviction_exceeded_time"]
        client.config_set("maxmemory", "1gb")
        client.get("a")
        after = client.info("stats")
        assert after["current_eviction_exceeded_time"] == 0
        assert after["total_eviction_exceeded_time"] >= during["current_eviction_exceeded_time"]
        client.config_resetstat()
        stats = client.info("stats")
        assert stats["total_eviction_exceeded_time"] == 0
        assert stats["current_eviction_exceeded_time"] == 0
    finally:
        client.close()
