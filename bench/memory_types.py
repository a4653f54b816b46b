#!/usr/bin/python3
"""Resident memory of listd vs redis-server for the companion types (issue 5).

Scenarios, each on a fresh server process (RSS never shrinks, so no reuse):
  hashes  100,000 hashes "hash:NNNNNN" of 5 fields (field:1..5 -> "value-N", ~10 bytes)
  zset    one sorted set of 1,000,000 members "member:NNNNNNN" with random scores (seed 5)
  sets    100,000 sets "set:NNNNNN" of 5 string members          (extra, --scenarios sets)
  zsets   100,000 sorted sets "zset:NNNNNN" of 5 members           (extra, --scenarios zsets)
  stream  one stream of 1,000,000 entries "job <12 bytes> state queued", ids by XADD *
          (issue 15; extra, --scenarios stream)
  geo     one geo set of 1,000,000 members "place:NNNNNNN" at random longitudes and latitudes
          (seed 7; issue 20; extra, --scenarios geo)
  bitmap  one 100 MB bitmap: SETBIT at offset 799,999,999 (the string grows zero-filled), then a
          bit every 1,000,000 (issue 20; extra, --scenarios bitmap)
  jobs    one list of 1,000,000 JSON-like job strings of ~120 bytes (Celery-like: the same keys
          in every job), RPUSH by 1,000 (issue 20, list-compress-depth; extra, --scenarios jobs)

For each server it prints VmRSS after start, after loading, and the difference, read from
/proc/<pid>/status (Linux), and INFO memory's used_memory after loading. Usage:

  bench/memory_types.py --listd build-types/listd [--redis /usr/bin/redis-server]
                        [--scenarios hashes,zset] [--only listd|redis]
                        [--server-args "--list-compress-depth 1"]

--server-args are added to both servers' command lines (so both run with the same setting).

Needs /usr/bin/python3 with redis-py. Ports are chosen free on 127.0.0.1.
"""
import argparse
import os
import random
import shlex
import socket
import subprocess
import sys
import time

import redis

from warm_receive import warm_receive_path  # bench/ is the script's directory


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def start(kind, binary, extra=(), tries=3):
    """Starts a fresh server on a free port; returns (proc, client).

    free_port() closes its socket before the server binds, so another process can take the port
    in between and answer our PING while our server fails to bind: after PING the INFO server
    process_id must be our child's pid, else the server is started again on a new port."""
    for _ in range(tries):
        port = free_port()
        if kind == "redis":
            args = [binary, "--port", str(port), "--save", "", "--appendonly", "no",
                    "--bind", "127.0.0.1"]
        else:
            args = [binary, "--port", str(port), "--bind", "127.0.0.1"]
        args += list(extra)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r = redis.Redis(host="127.0.0.1", port=port)
        for _ in range(200):   # bounded: 10 s
            try:
                r.ping()
                break
            except redis.exceptions.ConnectionError:
                if proc.poll() is not None:
                    break
                time.sleep(0.05)   # polling: the server is still starting
        else:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"{kind} did not start: {' '.join(args)}")
        if proc.poll() is None and r.info("server").get("process_id") == proc.pid:
            return proc, r
        proc.kill()
        proc.wait()
        print(f"{kind}: port {port} was not answered by our server; trying another",
              file=sys.stderr)
    raise RuntimeError(f"{kind} did not start on its own port in {tries} tries: {' '.join(args)}")


def load_hashes(r):
    p = r.pipeline(transaction=False)
    for i in range(100_000):
        p.execute_command("HSET", f"hash:{i:06d}",
                          *[x for f in range(1, 6) for x in (f"field:{f}", f"value-{i % 1000 + f}")])
        if i % 1000 == 999:
            p.execute()
    p.execute()
    assert r.dbsize() == 100_000
    assert r.hlen("hash:000042") == 5


def load_zset(r):
    rng = random.Random(5)
    p = r.pipeline(transaction=False)
    args = []
    for i in range(1_000_000):
        args += [repr(rng.random() * 1e6), f"member:{i:07d}"]
        if len(args) == 200:
            p.execute_command("ZADD", "big", *args)
            args = []
            if i % 20_000 == 19_999:
                p.execute()
    if args:
        p.execute_command("ZADD", "big", *args)
    p.execute()
    assert r.zcard("big") == 1_000_000


def load_sets(r):
    p = r.pipeline(transaction=False)
    for i in range(100_000):
        p.execute_command("SADD", f"set:{i:06d}", *[f"member-{i % 1000 + m}" for m in range(5)])
        if i % 1000 == 999:
            p.execute()
    p.execute()


def load_zsets(r):
    p = r.pipeline(transaction=False)
    for i in range(100_000):
        p.execute_command("ZADD", f"zset:{i:06d}",
                          *[x for m in range(5) for x in (str(m * 1.5), f"member-{m}")])
        if i % 1000 == 999:
            p.execute()
    p.execute()


def load_stream(r):
    p = r.pipeline(transaction=False)
    for i in range(1_000_000):
        p.execute_command("XADD", "jobs", "*", "job", f"{i:012d}", "state", "queued")
        if i % 1000 == 999:
            p.execute()
    p.execute()
    assert r.xlen("jobs") == 1_000_000


def load_geo(r):
    rng = random.Random(7)
    p = r.pipeline(transaction=False)
    args = []
    for i in range(1_000_000):
        # GEOADD's valid range: latitudes within +-85.05112878
        args += [f"{rng.uniform(-180, 180):.6f}", f"{rng.uniform(-85, 85):.6f}", f"place:{i:07d}"]
        if len(args) == 300:
            p.execute_command("GEOADD", "places", *args)
            args = []
            if i % 20_000 == 19_999:
                p.execute()
    if args:
        p.execute_command("GEOADD", "places", *args)
    p.execute()
    assert r.zcard("places") == 1_000_000


def load_bitmap(r):
    r.setbit("bitmap", 799_999_999, 1)
    p = r.pipeline(transaction=False)
    for offset in range(0, 800_000_000, 1_000_000):
        p.setbit("bitmap", offset, 1)
    p.execute()
    assert r.strlen("bitmap") == 100_000_000
    assert r.bitcount("bitmap") == 801


def job(i):
    """A Celery-like job string of ~120 bytes."""
    return (f'{{"id":"{100000000 + i * 7919}","task":"tasks.send_email","queue":"default",'
            f'"args":["user{i % 1000}@example.com"],"kwargs":{{}},"retries":0}}')


def load_jobs(r):
    p = r.pipeline(transaction=False)
    for start_at in range(0, 1_000_000, 1000):
        p.execute_command("RPUSH", "jobs", *[job(i) for i in range(start_at, start_at + 1000)])
        if start_at % 20_000 == 19_000:
            p.execute()
    p.execute()
    assert r.llen("jobs") == 1_000_000
    assert r.lindex("jobs", 500_000).decode() == job(500_000)


SCENARIOS = {"hashes": load_hashes, "zset": load_zset, "sets": load_sets, "zsets": load_zsets,
             "stream": load_stream, "geo": load_geo, "bitmap": load_bitmap,
             "jobs": load_jobs}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listd", default="build-types/listd")
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--scenarios", default="hashes,zset")
    ap.add_argument("--only", default="listd,redis")
    ap.add_argument("--server-args", default="", help="added to both servers' command lines")
    a = ap.parse_args()
    extra = shlex.split(a.server_args)
    servers = [(k, a.listd if k == "listd" else a.redis) for k in a.only.split(",")]
    rows = []
    for scen in a.scenarios.split(","):
        for kind, binary in servers:
            proc, r = start(kind, binary, extra)
            try:
                warm_receive_path(r.connection_pool.connection_kwargs["port"])
                time.sleep(0.2)
                before = rss_kb(proc.pid)
                t0 = time.time()
                SCENARIOS[scen](r)
                secs = time.time() - t0
                time.sleep(0.2)
                after = rss_kb(proc.pid)
                used = int(r.info("memory")["used_memory"])
                rows.append((scen, kind, before, after, after - before, secs))
                print(f"{scen:7s} {kind:6s} rss start {before / 1024:8.1f} MiB  loaded "
                      f"{after / 1024:8.1f} MiB  delta {(after - before) / 1024:8.1f} MiB  "
                      f"used_memory {used / 1048576:8.1f} MiB  ({secs:.1f} s to load)", flush=True)
            finally:
                proc.terminate()
                proc.wait(10)
    by = {(s, k): d for s, k, _, _, d, _ in rows}
    for scen in a.scenarios.split(","):
        if (scen, "listd") in by and (scen, "redis") in by and by[(scen, "redis")] > 0:
            print(f"{scen:7s} listd/redis delta ratio {by[(scen, 'listd')] / by[(scen, 'redis')]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
