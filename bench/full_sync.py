#!/usr/bin/python3
"""A replica's full sync from listd and from redis-server 7.0.15, side by side (issue 17).

Each round loads the same data set into a fresh master (--lists lists of --elements elements,
plus --strings string keys), then starts a fresh replica with `replicaof` and times, from the
replica's start to the moment its link is up and its offset equals the master's, the whole full
sync: the master's fork and RDB, the transfer and the replica's load. Pairs, each a fresh
process pair, interleaved round by round (the machine is shared: compare within a round):

  listd -> listd, redis -> redis, listd -> redis (listd's master side against a Redis replica)

once with a disk RDB (repl-diskless-sync no) and once diskless (repl-diskless-sync yes,
delay 0). Also reported: the master's latest_fork_usec and the replica's RSS after the load.

  bench/full_sync.py --listd build/release/listd [--redis /usr/bin/redis-server]
                     [--lists 200] [--elements 5000] [--strings 200000] [--rounds 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import redis

from memory_types import free_port, rss_kb  # the same helpers, in this folder

LOAD_TIMEOUT_S = 300  # bounded waits: a sync that takes longer is a failure, not a figure


def start(binary, args):
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="full-sync-")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir, *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, socket_timeout=60)
    end = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return proc, port, client
        except redis.exceptions.ConnectionError:
            if time.monotonic() > end or proc.poll() is not None:
                proc.kill()
                raise RuntimeError(f"{binary} did not start on {port}")
            time.sleep(0.05)


def load(client, lists, elements, strings):
    pipe = client.pipeline(transaction=False)
    for i in range(lists):
        for at in range(0, elements, 1000):
            pipe.rpush(f"list:{i}", *(f"job-{i}-{j}" for j in range(at, min(elements, at + 1000))))
        pipe.execute()
    for at in range(0, strings, 10000):
        for j in range(at, min(strings, at + 10000)):
            pipe.set(f"str:{j}", f"value-{j}")
        pipe.execute()


def synced(master, replica):
    r = replica.info("replication")
    return (r.get("master_link_status") == "up"
            and r.get("slave_repl_offset") == master.info("replication")["master_repl_offset"])


def one_sync(master_bin, replica_bin, diskless, a):
    flags = ["--repl-diskless-sync", "yes" if diskless else "no", "--repl-diskless-sync-delay",
             "0"]
    mproc, mport, m = start(master_bin, flags)
    try:
        load(m, a.lists, a.elements, a.strings)
        t0 = time.monotonic()
        rproc, _, r = start(replica_bin, ["--replicaof", "127.0.0.1", str(mport)])
        try:
            end = t0 + LOAD_TIMEOUT_S
            while not synced(m, r):
                if time.monotonic() > end:
                    raise RuntimeError("the full sync did not finish")
                time.sleep(0.01)
            seconds = time.monotonic() - t0
            return seconds, m.info("stats")["latest_fork_usec"], rss_kb(rproc.pid)
        finally:
            rproc.terminate()
            rproc.wait(timeout=30)
    finally:
        mproc.terminate()
        mproc.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listd", required=True)
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--lists", type=int, default=200)
    ap.add_argument("--elements", type=int, default=5000)
    ap.add_argument("--strings", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    pairs = [("listd->listd", a.listd, a.listd), ("redis->redis", a.redis, a.redis),
             ("listd->redis", a.listd, a.redis)]
    print(f"data: {a.lists} lists x {a.elements} elements + {a.strings} strings; "
          f"{a.rounds} rounds; load average {os.getloadavg()[0]:.1f}")
    for diskless in (False, True):
        results = {name: [] for name, _, _ in pairs}
        for _ in range(a.rounds):
            for name, mbin, rbin in pairs:
                results[name].append(one_sync(mbin, rbin, diskless, a))
        mode = "diskless" if diskless else "disk"
        for name, _, _ in pairs:
            runs = results[name]
            secs = statistics.median(x[0] for x in runs)
            fork = statistics.median(x[1] for x in runs)
            rss = statistics.median(x[2] for x in runs)
            print(f"{mode:8} {name:13} sync s median {secs:.3f} (all "
                  f"{', '.join(f'{x[0]:.3f}' for x in runs)})  fork us {fork:.0f}  "
                  f"replica RSS {rss / 1024:.1f} MiB")
        ratio = [x[0] / y[0] for x, y in zip(results["listd->listd"], results["redis->redis"])]
        print(f"{mode:8} listd->listd / redis->redis per round: "
              f"{', '.join(f'{x:.2f}' for x in ratio)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
