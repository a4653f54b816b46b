"""The Celery application the framework tests run: redis broker and redis result backend, both
at $FRAMEWORK_REDIS_URL, with Celery's and kombu's default settings otherwise.

Each task records its own id in the list `celery-test:ran` (one RPUSH per run), so a test can tell
that every task ran exactly once.
"""

import os
import time

import redis
from celery import Celery

URL = os.environ["FRAMEWORK_REDIS_URL"]
app = Celery("listd_frameworks", broker=URL, backend=URL)
_redis = redis.Redis.from_url(URL)


@app.task(bind=True)
def add(self, x, y):
    _redis.rpush("celery-test:ran", self.request.id)
    return x + y


@app.task
def fail(x):
    raise ValueError(f"task failed on purpose: {x}")


@app.task
def tsum(values):
    return sum(values)


@app.task(bind=True)
def stamp(self):
    """Returns when it ran (the worker's clock), for a task sent with a countdown."""
    _redis.rpush("celery-test:ran", self.request.id)
    return time.time()


@app.task(bind=True)
def hold(self, release_key):
    """Tells which worker runs it (list celery-test:holding), then waits until the test pushes to
    `release_key` (at most 60 s): a task in flight for as long as the test needs."""
    _redis.rpush("celery-test:holding", self.request.hostname)
    released = _redis.blpop(release_key, timeout=60)
    return "released" if released else "never released"
