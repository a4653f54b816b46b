#!/usr/bin/python3
"""What sync-replicas costs (issue 17): a master with one replica, asynchronous replication
against `sync-replicas 1`, at -P 1 and -P 32, side by side in one run.

Setups, each a fresh master and a fresh replica (both --save '' --appendonly no), interleaved
round by round (the machine is shared and noisy: compare within a round):

  redis-async  redis-server master -> redis-server replica (Redis' only mode)
  listd-async  listd master -> listd replica, sync-replicas 0
  listd-sync   listd master -> listd replica, sync-replicas 1 (every reply after the replica's
               ACK of its turn)

For each: redis-benchmark (50 clients, -r keyspace, --csv) on LPUSH and RPOP at -P 1 and
-P 32; reported: requests/s, p50 and p99 latency (ms), and the master's CPU per request
(on-CPU time of its threads over the run, /proc schedstat), so that the ratio sync/async says what the
acknowledgement costs on the master.

  bench/sync_replicas.py --listd build/release/listd [--redis /usr/bin/redis-server]
                         [--requests 200000] [--rounds 3]
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import time

from full_sync import start  # a fresh server on a free port, as the full-sync bench starts it

TESTS = ("lpush", "rpop")
PIPELINES = (1, 32)
CLIENTS = 50


def cpu_seconds(pid):
    """CPU time of the whole process so far (/proc schedstat: nanoseconds, not clock ticks)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def wait_online(master, replica, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        m = master.info("replication")
        r = replica.info("replication")
        if r.get("master_link_status") == "up" and \
                m.get("slave0", {}).get("state") == "online" and \
                r.get("slave_repl_offset") == m.get("master_repl_offset"):
            return
        time.sleep(0.05)
    raise RuntimeError("the replica never came online")


def benchmark(port, test, pipeline, requests):
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", str(CLIENTS), "-n",
                          str(requests), "-P", str(pipeline), "-r", "1000", "-t", test,
                          "--csv"], check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return rows[-1]


def run_setup(name, master_bin, replica_bin, master_args, requests):
    procs = []
    try:
        mproc, mport, m = start(master_bin, master_args)
        procs.append(mproc)
        rproc, _, r = start(replica_bin, ["--replicaof", "127.0.0.1", str(mport)])
        procs.append(rproc)
        wait_online(m, r)
        results = {}
        for pipeline in PIPELINES:
            for test in TESTS:
                before = cpu_seconds(mproc.pid)
                row = benchmark(mport, test, pipeline, requests)
                cpu = cpu_seconds(mproc.pid) - before
                results[(test, pipeline)] = {
                    "rps": float(row["rps"]),
                    "p50": float(row["p50_latency_ms"]),
                    "p99": float(row["p99_latency_ms"]),
                    "cpu_us": cpu / requests * 1e6,
                }
        return results
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listd", required=True)
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    setups = [
        ("redis-async", args.redis, args.redis, []),
        ("listd-async", args.listd, args.listd, []),
        ("listd-sync", args.listd, args.listd, ["--sync-replicas", "1"]),
    ]
    runs = {name: [] for name, *_ in setups}
    for rnd in range(args.rounds):
        for name, mbin, rbin, margs in setups:
            runs[name].append(run_setup(name, mbin, rbin, margs, args.requests))
            print(f"round {rnd + 1}: {name} done", flush=True)
    print(f"\nmedians of {args.rounds} rounds, {CLIENTS} clients, {args.requests} requests; "
          "cpu = master's CPU microseconds per request")
    print("| setup | test | -P | requests/s | p50 ms | p99 ms | master cpu us/req |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for pipeline in PIPELINES:
        for test in TESTS:
            for name, *_ in setups:
                vals = [r[(test, pipeline)] for r in runs[name]]
                med = {k: statistics.median(v[k] for v in vals) for k in vals[0]}
                print(f"| {name} | {test} | {pipeline} | {med['rps']:,.0f} | {med['p50']:.3f} | "
                      f"{med['p99']:.3f} | {med['cpu_us']:.2f} |")
    print("\nper-round ratios listd-sync / listd-async (rps, master cpu/request):")
    for pipeline in PIPELINES:
        for test in TESTS:
            ratios = [(s[(test, pipeline)]["rps"] / a[(test, pipeline)]["rps"],
                       s[(test, pipeline)]["cpu_us"] / max(a[(test, pipeline)]["cpu_us"], 1e-9))
                      for s, a in zip(runs["listd-sync"], runs["listd-async"])]
            print(f"  {test} -P {pipeline}: " +
                  ", ".join(f"{r:.2f} rps / {c:.2f} cpu" for r, c in ratios))


if __name__ == "__main__":
    main()
