#!/usr/bin/python3
"""SAVE's time and dump.rdb's size, listd and redis-server 7.0.15, rdbcompression yes and no.

Each server is started fresh (no persistence rules, --dir in --tmp: /dev/shm by default, so
the time is the writer's CPU, not the disk's), gets the data set, then SAVEs --rounds times
under each rdbcompression setting; the figure is the median SAVE time (the client's round
trip: the whole RDB is written and fsynced before the reply) and the file's size. Data sets:

  short  full_sync.py's default: --lists lists of --elements "job-<i>-<j>" + --strings
         "value-<j>" strings (every string 20 bytes or less: nothing for LZF to take)
  json   the same counts, each element and string a ~110-byte JSON job (one job alone gives
         LZF little to take; a node of many, as Redis compresses a list, a lot)
  docs   --strings / 2 strings, each a JSON array of 8 jobs (~900 bytes, repetitive)

  bench/rdb_save.py --listd build/release/listd [--listd old=/path/to/old/listd]
                    [--redis /usr/bin/redis-server] [--data short json docs] [--rounds 3]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import redis

from memory_types import free_port  # the same helper, in this folder


def start(binary, workdir):
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, socket_timeout=300)
    end = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return proc, client
        except redis.exceptions.ConnectionError:
            if time.monotonic() > end or proc.poll() is not None:
                proc.kill()
                raise RuntimeError(f"{binary} did not start on {port}")
            time.sleep(0.05)


def job(i, j):
    return (f'{{"id":{j},"queue":"list-{i}","task":"send-email","payload":{{"to":'
            f'"user{j}@example.com","template":"welcome","attempt":1}}}}')


def doc(j):
    return "[" + ",".join(job(k, j * 8 + k) for k in range(8)) + "]"


def load(client, kind, a):
    if kind == "docs":
        pipe = client.pipeline(transaction=False)
        for at in range(0, a.strings // 2, 5000):
            for j in range(at, min(a.strings // 2, at + 5000)):
                pipe.set(f"doc:{j}", doc(j))
            pipe.execute()
        return
    element = (lambda i, j: f"job-{i}-{j}") if kind == "short" else job
    value = (lambda j: f"value-{j}") if kind == "short" else (lambda j: job(-1, j))
    pipe = client.pipeline(transaction=False)
    for i in range(a.lists):
        for at in range(0, a.elements, 1000):
            pipe.rpush(f"list:{i}", *(element(i, j) for j in range(at, min(a.elements, at + 1000))))
        pipe.execute()
    for at in range(0, a.strings, 10000):
        for j in range(at, min(a.strings, at + 10000)):
            pipe.set(f"str:{j}", value(j))
        pipe.execute()


def measure(binary, kind, a):
    workdir = tempfile.mkdtemp(prefix="rdb-save-", dir=a.tmp)
    proc, client = start(binary, workdir)
    try:
        load(client, kind, a)
        out = {}
        for mode in ("no", "yes"):
            client.config_set("rdbcompression", mode)
            times = []
            for _ in range(a.rounds):
                t0 = time.monotonic()
                client.execute_command("SAVE")
                times.append(time.monotonic() - t0)
            out[mode] = (statistics.median(times), os.path.getsize(os.path.join(workdir,
                                                                               "dump.rdb")))
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listd", action="append", required=True,
                    help="a listd binary, or name=binary (repeatable)")
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--data", nargs="+", default=["short", "json", "docs"],
                    choices=["short", "json", "docs"])
    ap.add_argument("--tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                    help="where the servers' dump.rdb goes")
    ap.add_argument("--lists", type=int, default=200)
    ap.add_argument("--elements", type=int, default=5000)
    ap.add_argument("--strings", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    servers = []
    for spec in a.listd:
        name, _, path = spec.rpartition("=")
        servers.append((name or "listd", path))
    servers.append(("redis", a.redis))
    print(f"data: {a.lists} lists x {a.elements} elements + {a.strings} strings; "
          f"{a.rounds} SAVEs each; load average {os.getloadavg()[0]:.1f}")
    for kind in a.data:
        for name, binary in servers:
            r = measure(binary, kind, a)
            print(f"{kind:5} {name:10} " + "  ".join(
                f"rdbcompression {m}: SAVE {r[m][0]:.3f} s, {r[m][1]:,} bytes" for m in r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
