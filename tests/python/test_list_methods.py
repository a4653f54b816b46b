"""Every list method of redis-py 4.3.4 against listd, with the results real Redis 7.0 gives."""

import threading
import time

import pytest
import redis

from listd_testing import scaled, wait_until


def wait_blocked(client, n, timeout=5):
    assert wait_until(lambda: client.info("clients")["blocked_clients"] >= n, timeout), \
        f"never saw {n} blocked clients"


def test_push_family(r):
    assert r.lpush("task:queue", "t1", "t2", "t3") == 3
    assert r.rpush("l1", "a", "b", "a", "c") == 4
    assert r.lpushx("nokey", "a") == 0
    assert r.rpushx("nokey", "a") == 0
    assert r.exists("nokey") == 0
    assert r.lpushx("l1", "z") == 5
    assert r.rpushx("l1", "y") == 6
    assert r.lrange("l1", 0, -1) == ["z", "a", "b", "a", "c", "y"]
    assert r.lrange("task:queue", 0, -1) == ["t3", "t2", "t1"]


def test_pop_family(r):
    r.rpush("l", "a", "b", "c", "d", "e")
    assert r.lpop("l") == "a"
    assert r.rpop("l") == "e"
    assert r.lpop("l", 2) == ["b", "c"]
    assert r.rpop("l", 5) == ["d"]
    assert r.exists("l") == 0  # an emptied list is deleted
    assert r.lpop("nokey") is None
    assert r.rpop("nokey") is None
    assert r.lpop("nokey", 2) is None
    r.rpush("l", "x")
    assert r.lpop("l", 0) == []


def test_read_family(r):
    r.rpush("l", "a", "b", "c", "b")
    assert r.llen("l") == 4
    assert r.llen("nokey") == 0
    assert r.lrange("l", 0, -1) == ["a", "b", "c", "b"]
    assert r.lrange("l", -2, 99) == ["c", "b"]
    assert r.lrange("nokey", 0, -1) == []
    assert r.lindex("l", 0) == "a"
    assert r.lindex("l", -1) == "b"
    assert r.lindex("l", 9) is None
    assert r.lpos("l", "b") == 1
    assert r.lpos("l", "b", rank=-1) == 3
    assert r.lpos("l", "b", count=0) == [1, 3]
    assert r.lpos("l", "b", rank=2, count=1) == [3]
    assert r.lpos("l", "b", maxlen=1) is None
    assert r.lpos("l", "zz") is None
    assert r.lpos("l", "zz", count=0) == []


def test_write_family(r):
    r.rpush("l", "a", "b", "c")
    assert r.lset("l", 0, "A") is True
    with pytest.raises(redis.exceptions.ResponseError, match="index out of range"):
        r.lset("l", 9, "x")
    with pytest.raises(redis.exceptions.ResponseError, match="no such key"):
        r.lset("nokey", 0, "x")
    assert r.linsert("l", "BEFORE", "b", "x") == 4
    assert r.linsert("l", "AFTER", "c", "y") == 5
    assert r.linsert("l", "BEFORE", "missing", "q") == -1
    assert r.linsert("nokey", "BEFORE", "a", "q") == 0
    assert r.lrange("l", 0, -1) == ["A", "x", "b", "c", "y"]
    assert r.ltrim("l", 1, -2) is True
    assert r.lrange("l", 0, -1) == ["x", "b", "c"]
    assert r.ltrim("l", 5, 10) is True
    assert r.exists("l") == 0


def test_lrem(r):
    r.rpush("l", "a", "b", "a", "c", "a")
    assert r.lrem("l", 1, "a") == 1
    assert r.lrange("l", 0, -1) == ["b", "a", "c", "a"]
    assert r.lrem("l", -1, "a") == 1
    assert r.lrange("l", 0, -1) == ["b", "a", "c"]
    assert r.lrem("l", 0, "a") == 1
    assert r.lrem("l", 0, "zz") == 0
    assert r.lrem("nokey", 0, "a") == 0
    r.rpush("m", "x", "x", "x")
    assert r.lrem("m", 0, "x") == 3
    assert r.exists("m") == 0


def test_rpoplpush_and_lmove(r):
    r.rpush("l1", "a", "b", "c")
    assert r.rpoplpush("l1", "l2") == "c"
    assert r.rpoplpush("nokey", "l2") is None
    assert r.lmove("l1", "l2", "LEFT", "RIGHT") == "a"
    assert r.lrange("l2", 0, -1) == ["c", "a"]
    assert r.lmove("l2", "l2", "RIGHT", "LEFT") == "a"  # rotate
    assert r.lrange("l2", 0, -1) == ["a", "c"]
    assert r.lmove("nokey", "l2") is None
    with pytest.raises(redis.exceptions.ResponseError, match="syntax error"):
        r.lmove("l1", "l2", "UP", "RIGHT")


def test_lmpop_and_blmpop(r):
    r.rpush("b", "1", "2", "3")
    assert r.lmpop(2, "a", "b", direction="LEFT") == ["b", ["1"]]
    assert r.lmpop(2, "a", "b", direction="RIGHT", count=5) == ["b", ["3", "2"]]
    assert r.lmpop(1, "a", direction="LEFT") is None
    assert r.blmpop(0.1, 1, "a", direction="LEFT") is None
    r.rpush("a", "x")
    assert r.blmpop(1, 2, "a", "b", direction="LEFT", count=2) == ["a", ["x"]]


def test_wrongtype(r):
    r.set("s", "v")
    with pytest.raises(redis.exceptions.ResponseError, match="^WRONGTYPE"):
        r.lpush("s", "x")
    with pytest.raises(redis.exceptions.ResponseError, match="^WRONGTYPE"):
        r.brpop("s", timeout=1)


def test_brpop_timeout_returns_none(r):
    t0 = time.monotonic()
    assert r.brpop("nokey", timeout=1) is None
    elapsed = time.monotonic() - t0
    # not early; the upper bound only tells "timed out" from "blocked until the socket timeout"
    assert 0.9 <= elapsed < 1 + scaled(9)
    assert r.brpop("nokey", timeout=0.2) is None
    assert r.blpop("nokey", timeout=0.2) is None


def test_brpop_seed_call_shape(r):
    # The seed worker's exact call: brpop("task:queue", timeout=5) -> (key, value)
    r.lpush("task:queue", "6")
    assert r.brpop("task:queue", timeout=5) == ("task:queue", "6")


def test_blpop_two_keys(r, listd):
    r.rpush("k2", "v2")
    assert r.blpop(["k1", "k2"], timeout=1) == ("k2", "v2")  # first non-empty key
    other = redis.Redis(port=listd.port, decode_responses=True)
    got = []
    t = threading.Thread(target=lambda: got.append(r.blpop(["k1", "k2"], timeout=5)))
    t.start()
    wait_blocked(other, 1)
    other.rpush("k2", "late")
    t.join(10)
    assert got == [("k2", "late")]
    assert other.exists("k1", "k2") == 0
    other.connection_pool.disconnect()


def test_brpop_wakes_in_arrival_order(r, listd):
    """Seed scenario: three waiters, LPUSH q 6 7 8 -> W1 gets 6, W2 7, W3 8."""
    results = {}

    def waiter(name):
        c = redis.Redis(port=listd.port, decode_responses=True)
        results[name] = c.brpop("task:queue", timeout=5)
        c.connection_pool.disconnect()

    threads = []
    for i, name in enumerate(["W1", "W2", "W3"]):
        t = threading.Thread(target=waiter, args=(name,))
        t.start()
        wait_blocked(r, i + 1)
        threads.append(t)
    assert r.lpush("task:queue", "6", "7", "8") == 3
    for t in threads:
        t.join(10)
    assert results == {"W1": ("task:queue", "6"), "W2": ("task:queue", "7"),
                       "W3": ("task:queue", "8")}
    assert r.llen("task:queue") == 0


def test_brpoplpush_and_blmove(r, listd):
    r.rpush("src", "a", "b")
    assert r.brpoplpush("src", "dst", timeout=1) == "b"
    assert r.blmove("src", "dst", 1, "LEFT", "LEFT") == "a"
    assert r.lrange("dst", 0, -1) == ["a", "b"]
    assert r.brpoplpush("nokey", "dst", timeout=0.1) is None
    assert r.blmove("nokey", "dst", 0.1, "LEFT", "RIGHT") is None

    other = redis.Redis(port=listd.port, decode_responses=True)
    got = []
    t = threading.Thread(target=lambda: got.append(r.blmove("in", "out", 5, "RIGHT", "LEFT")))
    t.start()
    wait_blocked(other, 1)
    other.lpush("in", "job")
    t.join(10)
    assert got == ["job"]
    assert other.lrange("out", 0, -1) == ["job"]
    other.connection_pool.disconnect()


def test_reliable_queue_pattern(r):
    """lmove to a processing list, lrem when done, recovery of leftovers."""
    r.lpush("task:queue", *[str(i) for i in range(5)])
    taken = r.lmove("task:queue", "task:processing", "RIGHT", "LEFT")
    assert taken == "0"
    assert r.lrange("task:processing", 0, -1) == ["0"]
    assert r.lrem("task:processing", 1, taken) == 1
    # a "crashed" worker leaves an id behind; the recovery scan puts it back
    r.lmove("task:queue", "task:processing", "RIGHT", "LEFT")
    leftovers = [k for k in r.scan_iter(match="task:processing*")]
    assert leftovers == ["task:processing"]
    while r.lmove("task:processing", "task:queue", "RIGHT", "RIGHT") is not None:
        pass
    assert r.lrange("task:queue", 0, -1) == ["4", "3", "2", "1"]


def test_blocking_inside_transaction_does_not_block(listd):
    # timeout 0 blocks forever outside MULTI: a reply at all (before the client's own
    # socket_timeout gives up) proves EXEC did not block, whatever the machine's speed
    c = redis.Redis(port=listd.port, decode_responses=True, socket_timeout=scaled(10))
    try:
        c.delete("nokey", "d")
        p = c.pipeline(transaction=True)
        p.brpop("nokey", timeout=0)
        p.brpoplpush("nokey", "d", timeout=0)
        p.blmove("nokey", "d", 0, "LEFT", "LEFT")
        assert p.execute() == [None, None, None]
        assert c.exists("d") == 0
    finally:
        c.connection_pool.disconnect()


def test_binary_safe_elements(rb):
    blob = bytes(range(256)) + b"\r\n$3\r\n*1\r\n"
    rb.rpush("bin", blob, b"", b"\x00")
    assert rb.lrange("bin", 0, -1) == [blob, b"", b"\x00"]
    assert rb.brpop("bin", timeout=1) == (b"bin", b"\x00")
