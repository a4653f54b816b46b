#!/usr/bin/python3
"""A task worker in the shape of the seed documents (document 004, section 6).

Each worker is its own process with one module-level redis-py client. It waits for task ids
with `brpop("task:queue", timeout=5)`, records its progress in `task:{id}:progress` (a hash
with an expiry) and hands the finished id on with `lpush("review:queue", id)`.

    LISTD_PORT=6379 /usr/bin/python3 worker.py              # the seed documents' loop
    LISTD_PORT=6379 /usr/bin/python3 worker.py --reliable   # survives a worker crash

--reliable is the reliable-queue variant: the task is moved atomically into the worker's own
processing list (`LMOVE task:queue task:processing:<name> RIGHT LEFT`, blocking form BLMOVE),
and removed from it with `LREM` in the same MULTI/EXEC that hands it to review:queue. At
start-up a recovery scan (`SCAN MATCH task:processing:*`) moves back to task:queue every task
held by a worker that is no longer alive: its own list (a restart under the same WORKER_NAME) and
any list whose owner's heartbeat key `worker:<name>:alive` has expired. Each worker has its own
processing list so that the scan can tell a dead worker's task from a live one's. The heartbeat
lives for three pop timeouts and is renewed before every pop, so a task must finish well within
that time (a longer task should renew it while it runs).

Settings come from the environment, like an app's settings module: LISTD_HOST (127.0.0.1),
LISTD_PORT (6379), LISTD_DB (0), LISTD_PASSWORD (none), WORKER_NAME (<hostname>-<pid>; the
client name, processing list and heartbeat key of this worker).
SIGTERM stops the worker between tasks; a task in progress is finished first.
"""

import argparse
import os
import signal
import socket
import sys
import time

import redis

QUEUE = "task:queue"
REVIEW = "review:queue"
PROCESSING_PREFIX = "task:processing:"
PROGRESS_TTL_S = 3600      # progress hashes expire an hour after the task started
POP_TIMEOUT_S = 5          # the seed workers' brpop timeout (--pop-timeout)
WORKER_NAME = os.environ.get("WORKER_NAME") or f"{socket.gethostname()}-{os.getpid()}"

# The module-level client of the seed documents (app/redis_client.py): one per process,
# created at import; its pool lends one connection to the blocking pop and another one to
# the hset/lpush calls made while a task runs.
redis_client = redis.Redis(
    host=os.environ.get("LISTD_HOST", "127.0.0.1"),
    port=int(os.environ.get("LISTD_PORT", "6379")),
    db=int(os.environ.get("LISTD_DB", "0")),
    password=os.environ.get("LISTD_PASSWORD") or None,
    decode_responses=True,
    max_connections=10,
    socket_timeout=30,            # must exceed POP_TIMEOUT_S (CLIENTS.md 3.5)
    socket_connect_timeout=5,
    health_check_interval=30,
    client_name=WORKER_NAME,      # shows up in CLIENT LIST for each pooled connection
)

_busy = False
_stopping = False


def _on_sigterm(signum, frame):
    global _stopping
    _stopping = True
    if not _busy:
        raise SystemExit(0)       # idle in the blocking pop: leave now


def run_task(task_id, name, work_s=0.0, crash=False):
    """The seed documents' run_task: progress stages, then the hand-off."""
    key = f"task:{task_id}:progress"
    redis_client.hset(key, mapping={"stage": "SCRIPT", "worker": name})
    redis_client.expire(key, PROGRESS_TTL_S)
    if crash:
        print(f"{name}: simulated crash while holding task {task_id}", flush=True)
        os._exit(17)
    if work_s:
        time.sleep(work_s)
    redis_client.hset(key, "stage", "IMAGE")
    if work_s:
        time.sleep(work_s)
    redis_client.hset(key, "stage", "DONE")


def process_queue(name, work_s, exit_when_idle, pop_timeout=POP_TIMEOUT_S):
    """The seed loop: BRPOP, run the task, LPUSH the id to review:queue."""
    global _busy
    while not _stopping:
        result = redis_client.brpop(QUEUE, timeout=pop_timeout)
        if not result:
            if exit_when_idle:
                return
            continue
        _busy = True
        task_id = int(result[1])
        run_task(task_id, name, work_s)
        redis_client.lpush(REVIEW, task_id)
        _busy = False


def heartbeat(name, pop_timeout):
    # alive for three pop timeouts: refreshed before every pop
    redis_client.set(f"worker:{name}:alive", os.getpid(), ex=max(1, round(3 * pop_timeout)))


def recover(name):
    """Start-up recovery scan: requeue the tasks of dead workers. Returns how many."""
    recovered = 0
    for key in redis_client.scan_iter(match=PROCESSING_PREFIX + "*", count=100):
        owner = key[len(PROCESSING_PREFIX):]
        if owner != name and redis_client.exists(f"worker:{owner}:alive"):
            continue  # a live worker's task in progress
        # newest first to the right end, so the oldest orphan is popped first
        while redis_client.lmove(key, QUEUE, "LEFT", "RIGHT") is not None:
            recovered += 1
    if recovered:
        print(f"{name}: recovered {recovered} task(s) from dead workers", flush=True)
    return recovered


def process_queue_reliable(name, work_s, exit_when_idle, crash_after,
                           pop_timeout=POP_TIMEOUT_S):
    global _busy
    processing = PROCESSING_PREFIX + name
    heartbeat(name, pop_timeout)
    recover(name)
    done = 0
    while not _stopping:
        heartbeat(name, pop_timeout)
        task_id = redis_client.blmove(QUEUE, processing, pop_timeout, "RIGHT", "LEFT")
        if task_id is None:
            if exit_when_idle:
                break
            continue
        _busy = True
        done += 1
        run_task(int(task_id), name, work_s, crash=(crash_after and done >= crash_after))
        # hand-off and acknowledgement in one transaction: exactly once even on a crash
        pipe = redis_client.pipeline(transaction=True)
        pipe.lpush(REVIEW, task_id)
        pipe.lrem(processing, 1, task_id)
        pipe.execute()
        _busy = False
    redis_client.delete(f"worker:{name}:alive")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reliable", action="store_true",
                    help="LMOVE/BLMOVE into a processing list + LREM + start-up recovery")
    ap.add_argument("--work-ms", type=float, default=0.0,
                    help="simulated work per stage in milliseconds (default 0)")
    ap.add_argument("--pop-timeout", type=float, default=POP_TIMEOUT_S,
                    help=f"seconds a pop waits for a task (default {POP_TIMEOUT_S})")
    ap.add_argument("--exit-when-idle", action="store_true",
                    help="exit when a pop times out on an empty queue")
    ap.add_argument("--crash-after", type=int, default=0, metavar="N",
                    help="(reliable demo) die with exit status 17 while holding the N-th task")
    args = ap.parse_args(argv)

    name = WORKER_NAME
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if args.reliable:
            process_queue_reliable(name, args.work_ms / 1000.0, args.exit_when_idle,
                                   args.crash_after, args.pop_timeout)
        else:
            process_queue(name, args.work_ms / 1000.0, args.exit_when_idle, args.pop_timeout)
    except SystemExit:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
