"""Pipelines and transactions of redis-py 4.3.4 (CLIENTS.md section 3.4)."""

import threading

import pytest
import redis


def test_pipeline_transaction_true(r):
    p = r.pipeline()  # transaction=True is the default: MULTI ... EXEC in one write
    p.lpush("q", "a", "b")
    p.rpop("q")
    p.llen("q")
    p.lrange("q", 0, -1)
    assert p.execute() == [2, "a", 1, ["b"]]


def test_pipeline_transaction_false(r):
    p = r.pipeline(transaction=False)
    for i in range(500):
        p.rpush("q", i)
    p.llen("q")
    p.lindex("q", -1)
    result = p.execute()
    assert result[:500] == list(range(1, 501))
    assert result[500:] == [500, "499"]


def test_pipeline_as_context_manager(r):
    with r.pipeline() as p:
        p.rpush("q", "x").rpush("q", "y").lrange("q", 0, -1)
        assert p.execute() == [1, 2, ["x", "y"]]


def test_queueing_error_aborts_transaction(r):
    p = r.pipeline()
    p.rpush("q", "x")
    p.execute_command("LPUSH", "onlykey")  # wrong arity: -ERR instead of +QUEUED
    with pytest.raises(redis.exceptions.ResponseError, match="wrong number of arguments"):
        p.execute()
    assert r.exists("q") == 0  # EXECABORT: nothing ran


def test_runtime_error_inside_exec(r):
    r.set("str", "v")
    p = r.pipeline()
    p.rpush("q", "x")
    p.rpush("str", "y")
    p.rpush("q", "z")
    with pytest.raises(redis.exceptions.ResponseError,
                       match=r"Command # 2 \(RPUSH str y\) of pipeline caused error: WRONGTYPE"):
        p.execute()
    assert r.lrange("q", 0, -1) == ["x", "z"]  # the others ran
    p = r.pipeline()
    p.rpush("q", "w")
    p.rpush("str", "y")
    res = p.execute(raise_on_error=False)
    assert res[0] == 3 and isinstance(res[1], redis.exceptions.ResponseError)


def test_watch_conflict_raises_watch_error(r, listd):
    other = redis.Redis(port=listd.port, decode_responses=True)
    r.rpush("counter:list", "a")
    with r.pipeline() as p:
        p.watch("counter:list")
        n = p.llen("counter:list")  # immediate mode after WATCH
        assert n == 1
        other.rpush("counter:list", "conflict")  # another client changes the key
        p.multi()
        p.rpush("counter:list", f"seen-{n}")
        with pytest.raises(redis.exceptions.WatchError):
            p.execute()
    assert r.lrange("counter:list", 0, -1) == ["a", "conflict"]
    other.connection_pool.disconnect()


def test_watch_without_conflict_commits(r):
    r.rpush("wl", "a")
    with r.pipeline() as p:
        p.watch("wl")
        items = p.lrange("wl", 0, -1)
        p.multi()
        p.rpush("wl", f"after-{len(items)}")
        assert p.execute() == [2]
    assert r.lrange("wl", 0, -1) == ["a", "after-1"]


def test_transaction_helper_retries_on_conflict(r, listd):
    """r.transaction(fn, key) retries fn after a WatchError until it commits."""
    other = redis.Redis(port=listd.port, decode_responses=True)
    r.rpush("tx", "0")
    calls = []

    def move_last(pipe):
        calls.append(1)
        last = pipe.lindex("tx", -1)
        if len(calls) == 1:
            other.rpush("tx", "interloper")  # forces one retry
        pipe.multi()
        pipe.rpush("tx", f"next-after-{last}")

    r.transaction(move_last, "tx")
    assert len(calls) == 2
    assert r.lrange("tx", 0, -1) == ["0", "interloper", "next-after-interloper"]
    other.connection_pool.disconnect()


def test_unwatch_on_reset(r):
    p = r.pipeline()
    p.watch("k")
    p.reset()  # sends UNWATCH
    p.multi()
    p.rpush("k", "v")
    assert p.execute() == [1]


def test_concurrent_watch_increments_are_exact(listd):
    """Optimistic locking under contention: 4 threads x 25 increments of a list-held counter."""
    def worker():
        c = redis.Redis(port=listd.port, decode_responses=True)

        def incr(pipe):
            cur = int(pipe.lindex("ctr", 0) or 0)
            pipe.multi()
            pipe.lset("ctr", 0, cur + 1)

        for _ in range(25):
            c.transaction(incr, "ctr")
        c.connection_pool.disconnect()

    setup = redis.Redis(port=listd.port, decode_responses=True)
    setup.delete("ctr")
    setup.rpush("ctr", 0)
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert setup.lindex("ctr", 0) == "100"
    setup.connection_pool.disconnect()


def test_flushall_fails_exec_only_for_watched_keys_that_existed(r, listd):
    other = redis.Redis(port=listd.port, decode_responses=True)
    with r.pipeline() as pipe:
        pipe.watch("x")
        other.set("y", "1")
        other.flushall()
        pipe.multi()
        pipe.ping()
        assert pipe.execute() == [True]  # x did not exist: nothing of it changed
    other.set("x", "1")
    with r.pipeline() as pipe:
        pipe.watch("x")
        other.flushall()
        pipe.multi()
        pipe.ping()
        with pytest.raises(redis.WatchError):
            pipe.execute()
    other.close()
