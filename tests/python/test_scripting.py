"""Lua scripts through redis-py 4.3.4 (Debian python3-redis): its Lock, whose acquire is SET NX
PX and whose release / extend / reacquire are EVALSHA of registered scripts, and
register_script's NOSCRIPT fallback (EVALSHA, then SCRIPT LOAD and EVALSHA again)."""

import threading

import pytest
import redis
from redis.exceptions import LockNotOwnedError, NoScriptError


def test_lock_acquire_extend_release(r):
    lock = r.lock("res", timeout=30)
    assert lock.acquire(blocking=False)
    assert r.get("res") == lock.local.token.decode()
    assert lock.owned()
    assert lock.extend(100)  # EVALSHA of the extend script
    assert r.pttl("res") > 30000
    assert lock.reacquire()
    assert r.pttl("res") <= 30000
    lock.release()  # EVALSHA of the release script
    assert r.exists("res") == 0


def test_lock_release_by_another_owner_fails(r):
    lock = r.lock("res", timeout=30)
    assert lock.acquire(blocking=False)
    other = r.lock("res", timeout=30)
    assert not other.acquire(blocking=False)
    r.set("res", "somebody-else")
    with pytest.raises(LockNotOwnedError):
        lock.extend(10)
    with pytest.raises(LockNotOwnedError):
        lock.release()
    assert r.get("res") == "somebody-else"


def test_lock_four_threads_contending(listd, r):
    errors = []
    rounds = 25

    def worker():
        client = redis.Redis(host="127.0.0.1", port=listd.port, decode_responses=True,
                             socket_timeout=30)
        try:
            for _ in range(rounds):
                with client.lock("counter-lock", timeout=30, blocking_timeout=60, sleep=0.001):
                    value = int(client.get("counter") or 0)  # read-modify-write under the lock
                    client.set("counter", value + 1)
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            client.connection_pool.disconnect()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert r.get("counter") == str(4 * rounds)
    assert r.exists("counter-lock") == 0


def test_register_script_loads_on_noscript(r):
    incr_by = r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
    r.script_flush()
    assert r.script_exists(incr_by.sha) == [False]
    assert incr_by(keys=["n"], args=[5]) == 5  # NOSCRIPT, SCRIPT LOAD, EVALSHA
    assert r.script_exists(incr_by.sha) == [True]
    assert incr_by(keys=["n"], args=[2]) == 7
    with pytest.raises(NoScriptError):
        r.evalsha("f" * 40, 0)


def test_register_script_in_a_pipeline(r):
    push = r.register_script("redis.call('rpush', KEYS[1], ARGV[1]) return redis.call('llen', KEYS[1])")
    r.script_flush()
    p = r.pipeline()
    push(keys=["q"], args=["a"], client=p)  # SCRIPT EXISTS + SCRIPT LOAD before the MULTI
    push(keys=["q"], args=["b"], client=p)
    p.lrange("q", 0, -1)
    assert p.execute() == [1, 2, ["a", "b"]]


def test_script_errors_reach_redis_py(r):
    r.set("s", "text")
    with pytest.raises(redis.exceptions.ResponseError, match="^value is not an integer"):
        r.eval("return redis.call('incr', KEYS[1])", 1, "s")
    # A returned error table is an error reply too, without the "script:" suffix.
    with pytest.raises(redis.exceptions.ResponseError) as returned:
        r.eval("return redis.pcall('incr', KEYS[1])", 1, "s")
    assert str(returned.value) == "value is not an integer or out of range"
    assert r.eval("return {1, 'two', {3}}", 0) == [1, "two", [3]]


# Sidekiq 6.4.1's scheduled-job poller (lib/sidekiq/scheduled.rb): SCRIPT LOAD once, then
# EVALSHA of this script until it answers nil; a script with no `return` answers nil.
ZPOPBYSCORE = """
local key, now = KEYS[1], ARGV[1]
local jobs = redis.call("zrangebyscore", key, "-inf", now, "limit", 0, 1)
if jobs[1] then
  redis.call("zrem", key, jobs[1])
  return jobs[1]
end
"""


def test_sidekiq_style_zpopbyscore(r):
    sha = r.script_load(ZPOPBYSCORE)
    r.zadd("schedule", {"job-late": 300, "job-a": 100, "job-b": 200})
    popped = []
    for _ in range(5):
        job = r.evalsha(sha, 1, "schedule", "250")
        if job is None:
            break
        r.lpush("queue:default", job)
        popped.append(job)
    assert popped == ["job-a", "job-b"]
    assert r.zrange("schedule", 0, -1) == ["job-late"]
    assert r.lrange("queue:default", 0, -1) == ["job-b", "job-a"]
