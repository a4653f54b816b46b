#!/usr/bin/python3
"""Exactly-once soak: a pool of redis-py worker processes on one listd task queue.

Usage: /usr/bin/python3 worker_soak_test.py path/to/listd [--workers N] [--tasks N]

Starts listd on a free loopback port. 50 worker processes loop on
`brpop("task:queue", timeout=1)`, as the seed documents' workers do (one redis.Redis per
process, decode_responses=True), recording every task they get. Producer processes push
100,000 numbered tasks through non-transactional pipelines. Once the producers are done, a
worker that times out on an empty queue exits. Then the test checks that every task was
received exactly once (none lost, none duplicated), that the queue is empty, that every worker
exited cleanly, and that listd stops cleanly on SIGTERM.

Written for Debian's python3-redis 4.3.4 (/usr/bin/python3); exits non-zero on any failure.
"""

import argparse
import collections
import multiprocessing
import os
import signal
import sys
import tempfile
import time

import redis

try:
    import listd_testing  # noqa: F401  (PYTHONPATH=tests/pylib under ctest)
except ImportError:  # run by hand: tests/pylib is next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "pylib"))
from listd_testing import ListdServer, wait_until  # noqa: E402

QUEUE = "task:queue"
PRODUCERS = 4
BATCH = 1000            # LPUSH commands per pipeline round trip
DEADLINE_S = 120        # hard cap for the whole run; CI expects far less


def client(port):
    # The seed workers' settings (document 004, section 6).
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True,
                       socket_timeout=30, socket_connect_timeout=5,
                       health_check_interval=30)


def worker(index, port, producers_done, out_dir):
    r = client(port)
    got = []
    while True:
        item = r.brpop(QUEUE, timeout=1)
        if item is None:
            # Empty for a whole second: done once nothing more can arrive.
            if producers_done.is_set():
                break
            continue
        key, task = item
        if key != QUEUE:
            raise SystemExit(f"worker {index}: reply from unexpected key {key!r}")
        got.append(task)
    with open(os.path.join(out_dir, f"worker-{index}.txt"), "w") as f:
        f.write("\n".join(got))
    r.close()


def producer(index, port, tasks):
    r = client(port)
    pipe = r.pipeline(transaction=False)
    for n, task in enumerate(tasks, 1):
        pipe.lpush(QUEUE, task)
        if n % BATCH == 0:
            pipe.execute()
    pipe.execute()
    r.close()


def blocked_clients(r):
    return int(r.info("clients").get("blocked_clients", -1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("listd")
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=100_000)
    args = parser.parse_args()

    started = time.monotonic()
    signal.alarm(DEADLINE_S)  # never hang CI
    # the shared launcher: a free port, checked to be ours by INFO server's process_id
    server = ListdServer(binary=args.listd).start()
    port = server.port
    failures = []
    try:
        admin = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
        admin.delete(QUEUE)

        ctx = multiprocessing.get_context("fork")
        producers_done = ctx.Event()
        with tempfile.TemporaryDirectory() as out_dir:
            workers = [ctx.Process(target=worker, args=(i, port, producers_done, out_dir))
                       for i in range(args.workers)]
            for p in workers:
                p.start()
            # Start producing once the workers are parked, so wake-ups are exercised, not
            # only immediate pops (bounded poll, not a sleep).
            wait_until(lambda: blocked_clients(admin) >= args.workers, 20)
            parked = blocked_clients(admin)
            if parked != args.workers:
                failures.append(f"{parked} of {args.workers} workers blocked in BRPOP within 20 s")

            tasks = [str(n) for n in range(args.tasks)]
            producers = [ctx.Process(target=producer, args=(i, port, tasks[i::PRODUCERS]))
                         for i in range(PRODUCERS)]
            t0 = time.monotonic()
            for p in producers:
                p.start()
            for p in producers:
                p.join()
                if p.exitcode != 0:
                    failures.append(f"producer exited with {p.exitcode}")
            produced_s = time.monotonic() - t0
            producers_done.set()

            for i, p in enumerate(workers):
                p.join(timeout=max(1, DEADLINE_S - (time.monotonic() - started) - 5))
                if p.is_alive():
                    p.kill()
                    p.join()
                    failures.append(f"worker {i} did not exit")
                elif p.exitcode != 0:
                    failures.append(f"worker {i} exited with {p.exitcode}")
            consumed_s = time.monotonic() - t0

            received = []
            per_worker = []
            for i in range(args.workers):
                path = os.path.join(out_dir, f"worker-{i}.txt")
                if not os.path.exists(path):
                    failures.append(f"worker {i} wrote no result")
                    continue
                with open(path) as f:
                    text = f.read()
                got = text.split("\n") if text else []
                per_worker.append(len(got))
                received.extend(got)

        counts = collections.Counter(received)
        duplicated = [t for t, c in counts.items() if c > 1]
        expected = set(tasks)
        lost = expected - counts.keys()
        unknown = counts.keys() - expected
        if duplicated:
            failures.append(f"{len(duplicated)} tasks received more than once, e.g. {duplicated[:5]}")
        if lost:
            failures.append(f"{len(lost)} tasks lost, e.g. {sorted(lost, key=int)[:5]}")
        if unknown:
            failures.append(f"{len(unknown)} unknown tasks, e.g. {sorted(unknown)[:5]}")
        left = admin.llen(QUEUE)
        if left != 0:
            failures.append(f"queue still holds {left} tasks")
        still_blocked = blocked_clients(admin)
        if still_blocked != 0:
            failures.append(f"{still_blocked} clients still blocked")
        admin.close()

        print(f"{args.workers} workers ({parked} parked before producing), {PRODUCERS} producers, "
              f"{args.tasks} tasks: produced in {produced_s:.2f} s, all consumed and workers "
              f"exited in {consumed_s:.2f} s; per worker min {min(per_worker, default=0)} "
              f"max {max(per_worker, default=0)}; {len(received)} received, "
              f"{len(counts)} distinct")
    finally:
        status = server.stop()  # SIGTERM, at most 10 s (then SIGKILL and None)
        if status is None:
            failures.append("listd did not stop within 10 s of SIGTERM")
        elif status != 0:
            failures.append(f"listd exited with status {status}")
        server.close()

    print(f"total {time.monotonic() - started:.2f} s")
    if failures:
        for f in failures:
            print("FAIL:", f, file=sys.stderr)
        return 1
    print("PASS: every task received exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
