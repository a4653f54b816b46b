#!/usr/bin/python3
"""Pushes numbered task ids onto task:queue, the producer side of the seed documents.

    LISTD_PORT=6379 /usr/bin/python3 producer.py --tasks 2000 [--first 0] [--batch 100]

Each id is one `LPUSH task:queue <id>`; --batch N sends N of them per round trip through a
non-transactional redis-py pipeline (--batch 1: one round trip per task). Settings come from
the environment: LISTD_HOST, LISTD_PORT, LISTD_DB, LISTD_PASSWORD.
"""

import argparse
import os
import sys
import time

import redis

QUEUE = "task:queue"

redis_client = redis.Redis(
    host=os.environ.get("LISTD_HOST", "127.0.0.1"),
    port=int(os.environ.get("LISTD_PORT", "6379")),
    db=int(os.environ.get("LISTD_DB", "0")),
    password=os.environ.get("LISTD_PASSWORD") or None,
    decode_responses=True,
    socket_timeout=30,
    socket_connect_timeout=5,
)


def produce(tasks, first=0, batch=100):
    """LPUSH ids first..first+tasks-1; returns the seconds it took."""
    t0 = time.monotonic()
    ids = range(first, first + tasks)
    if batch <= 1:
        for task_id in ids:
            redis_client.lpush(QUEUE, task_id)
    else:
        for start in range(0, tasks, batch):
            pipe = redis_client.pipeline(transaction=False)
            for task_id in ids[start:start + batch]:
                pipe.lpush(QUEUE, task_id)
            pipe.execute()
    return time.monotonic() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0, help="first task id")
    ap.add_argument("--batch", type=int, default=100, help="LPUSH commands per round trip")
    args = ap.parse_args(argv)
    elapsed = produce(args.tasks, args.first, args.batch)
    print(f"producer: pushed {args.tasks} tasks in {elapsed:.3f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
