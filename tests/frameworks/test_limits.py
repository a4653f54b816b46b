"""limits 2.8 (Debian python3-limits), the rate limiter behind Flask-Limiter and slowapi, with its
redis storage against a real server. Its fixed window is a Lua INCRBY + EXPIRE, its moving window
a Lua-managed list of hit timestamps (LINDEX, LPUSH, LTRIM, EXPIRE; LRANGE to read it), and
`reset()` a Lua KEYS + DEL. Runs against listd and, as frameworks.against_redis, against
redis-server 7.0.15.
"""

import threading
import time

import pytest
from limits import RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter
from listd_testing import wait_until

THREADS = 8
HITS_PER_THREAD = 25


@pytest.fixture
def storage(server):
    store = storage_from_string(f"redis://127.0.0.1:{server.port}/0")
    assert store.check()  # limits' own health check: PING
    yield store
    store.storage.connection_pool.disconnect()


def hammer(limiter, item):
    """THREADS threads hit the same limit at once; returns how many hits were allowed."""
    allowed = []
    start = threading.Barrier(THREADS)

    def run():
        start.wait()
        allowed.append(sum(limiter.hit(item, "shared") for _ in range(HITS_PER_THREAD)))

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(allowed) == THREADS
    return sum(allowed)


@pytest.mark.parametrize("strategy", [FixedWindowRateLimiter, MovingWindowRateLimiter])
def test_a_limit_allows_exactly_its_amount_per_identifier(storage, strategy):
    limiter = strategy(storage)
    item = RateLimitItemPerMinute(5)
    assert [limiter.hit(item, "alice") for _ in range(7)] == [True] * 5 + [False] * 2
    assert not limiter.test(item, "alice")
    assert limiter.hit(item, "bob")  # another identifier has its own window
    reset_at, remaining = limiter.get_window_stats(item, "alice")
    assert remaining == 0
    assert time.time() < reset_at <= time.time() + 61
    assert limiter.get_window_stats(item, "bob")[1] == 4


def test_the_fixed_window_is_one_counter_with_the_window_as_its_expiry(storage, r):
    limiter = FixedWindowRateLimiter(storage)
    item = RateLimitItemPerMinute(3)
    for _ in range(2):
        limiter.hit(item, "carol")
    (key,) = r.keys("LIMITER*carol*")
    assert r.get(key) == "2"
    assert 0 < r.ttl(key) <= 60
    limiter.clear(item, "carol")
    assert r.exists(key) == 0 and limiter.hit(item, "carol")


def test_the_moving_window_frees_a_hit_once_it_is_a_window_old(storage):
    limiter = MovingWindowRateLimiter(storage)
    item = RateLimitItemPerSecond(2)
    first_hit_not_before = time.time()
    assert [limiter.hit(item, "dave") for _ in range(3)] == [True, True, False]
    assert wait_until(lambda: limiter.test(item, "dave"), 10, interval=0.05)
    assert time.time() - first_hit_not_before >= 1.0  # not before the oldest hit is 1 s old
    assert limiter.hit(item, "dave")


@pytest.mark.parametrize("strategy,amount", [(FixedWindowRateLimiter, 50),
                                             (MovingWindowRateLimiter, 30)])
def test_concurrent_hits_never_exceed_the_limit(storage, strategy, amount):
    # 200 hits from 8 threads: each hit is one script run, atomic, so exactly `amount` pass.
    assert hammer(strategy(storage), RateLimitItemPerMinute(amount)) == amount


def test_reset_clears_every_limit(storage, r):
    fixed, moving = FixedWindowRateLimiter(storage), MovingWindowRateLimiter(storage)
    item = RateLimitItemPerMinute(1)
    for who in ("erin", "frank"):
        assert fixed.hit(item, who) and moving.hit(item, f"{who}-m")
    r.set("not-a-limit", "kept")
    assert storage.reset() == 4  # its Lua script: KEYS LIMITER* then DEL
    assert fixed.hit(item, "erin") and moving.hit(item, "erin-m")
    assert r.get("not-a-limit") == "kept"
