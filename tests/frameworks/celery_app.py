"""The Celery application the framework tests run: redis broker and redis result backend, both
at $FRAMEWORK_REDIS_URL, with Celery's and kombu's default settings otherwise.

Each task records its own id in the list `celery-test:ran` (one RPUSH per run), so a test can tell
that every task ran exactly once.
"""

import os

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
