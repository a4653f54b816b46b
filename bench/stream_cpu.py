#!/usr/bin/python3
"""Server CPU time per stream operation (issue 15), listd next to redis-server, in one run.

The wall-clock companion of bench/stream_callgrind.py (which counts user-space instructions and
leaves the system calls out). Each round starts a fresh server of each kind, the order
alternating from round to round, and reads the server's own on-CPU time (user + system, every
thread, from /proc/PID/task/*/schedstat) around the measured part only:

  xadd   N x `XADD jobs * job <12 digits> state queued`
  group  after a prefill of N entries and `XGROUP CREATE jobs g 0` (not measured): N pairs
         `XREADGROUP GROUP g c COUNT 1 STREAMS jobs >` + `XACK jobs g <id>` (a pair is one op)

Commands go in pipelines of --pipeline. The client is redis-py, the same for both servers; its
own CPU is not counted. Usage:

  bench/stream_cpu.py --listd build/release/listd [--redis /usr/bin/redis-server]
                      [--n 50000] [--rounds 5] [--pipeline 32] [--scenarios xadd,group]

Prints each round's ns per operation and the paired listd/redis ratios (median, min..max).
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from side_by_side import cpu_ns  # noqa: E402
from stream_callgrind import check_pairs, launch, shut_down, xadd_run  # noqa: E402


def prefill_group(r, n):
    p = r.pipeline(transaction=False)
    for i in range(1, n + 1):
        p.execute_command("XADD", "jobs", f"{i}-1", "job", f"{i:012d}", "state", "queued")
        if i % 1000 == 0:
            p.execute()
    p.execute()
    r.execute_command("XGROUP", "CREATE", "jobs", "g", "0")


def group_pairs(r, n, pipeline):
    p = r.pipeline(transaction=False)
    pairs = max(1, pipeline // 2)
    for i in range(1, n + 1):
        p.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "jobs", ">")
        p.execute_command("XACK", "jobs", "g", f"{i}-1")
        if i % pairs == 0:
            check_pairs(p.execute())
    check_pairs(p.execute())
    assert r.xpending("jobs", "g")["pending"] == 0


def ns_per_op(kind, binary, scenario, n, pipeline):
    with tempfile.TemporaryDirectory() as work:
        proc, r = launch(kind, binary, work, start_s=20)
        try:
            if scenario == "group":
                prefill_group(r, n)
            before = cpu_ns(proc.pid)
            if scenario == "xadd":
                xadd_run(r, n, pipeline)
            else:
                group_pairs(r, n, pipeline)
            used = cpu_ns(proc.pid) - before
        finally:
            shut_down(proc, r)
    return used / n


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listd", default="build/release/listd")
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--n", type=int, default=50000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pipeline", type=int, default=32)
    ap.add_argument("--scenarios", default="xadd,group")
    a = ap.parse_args()
    binaries = {"listd": os.path.abspath(a.listd), "redis": a.redis}
    for scenario in a.scenarios.split(","):
        per_round = {"listd": [], "redis": []}
        for rnd in range(a.rounds):
            order = ["listd", "redis"] if rnd % 2 == 0 else ["redis", "listd"]
            for kind in order:
                per_round[kind].append(ns_per_op(kind, binaries[kind], scenario, a.n, a.pipeline))
            print(f"{scenario:6s} -P {a.pipeline} round {rnd + 1}: listd "
                  f"{per_round['listd'][-1]:,.0f} ns/op, redis {per_round['redis'][-1]:,.0f} ns/op",
                  flush=True)
        ratios = [x / y for x, y in zip(per_round["listd"], per_round["redis"])]
        print(f"{scenario:6s} -P {a.pipeline}: listd {statistics.median(per_round['listd']):,.0f} "
              f"ns/op, redis {statistics.median(per_round['redis']):,.0f} ns/op (medians); "
              f"listd/redis {statistics.median(ratios):.2f} ({min(ratios):.2f}..{max(ratios):.2f}, "
              f"{a.rounds} paired rounds)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
