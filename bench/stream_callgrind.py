#!/usr/bin/python3
"""Instructions per stream command (issue 15), listd next to redis-server, counted by callgrind.

Instruction counts do not depend on what else the machine runs, so they compare two servers on a
loaded machine where CPU times would not (docs/BENCHMARKS.md, "Instruction counts"). Kernel time
is not counted. Each figure is a difference of two runs, each on a fresh server under
`valgrind --tool=callgrind`: the same run with N1 and N2 operations, so start-up, the prefill and
shutdown cancel out:

  xadd   N x `XADD jobs * job <12 digits> state queued`
  group  a prefill of N2 entries (explicit ids) and `XGROUP CREATE jobs g 0`, then N pairs
         `XREADGROUP GROUP g c COUNT 1 STREAMS jobs >` + `XACK jobs g <id>` (a pair is one op)

Commands go in pipelines of --pipeline (32: the -P 32 of the earlier push/pop rows). Usage:

  bench/stream_callgrind.py --listd build/dev/listd [--redis /usr/bin/redis-server]
                            [--n1 2000] [--n2 10000] [--pipeline 32] [--only listd,redis]

Prints one line per server and scenario: instructions per operation, and the ratio.
Needs valgrind and /usr/bin/python3 with redis-py; ports are chosen free on 127.0.0.1.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def args_for(kind, binary, port, work):
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", work]
    return args


def xadd_run(r, n, pipeline):
    p = r.pipeline(transaction=False)
    for i in range(n):
        p.execute_command("XADD", "jobs", "*", "job", f"{i:012d}", "state", "queued")
        if (i + 1) % pipeline == 0:
            p.execute()
    p.execute()
    assert r.xlen("jobs") == n


def group_run(r, n, prefill, pipeline):
    p = r.pipeline(transaction=False)
    for i in range(1, prefill + 1):
        p.execute_command("XADD", "jobs", f"{i}-1", "job", f"{i:012d}", "state", "queued")
        if i % 1000 == 0:
            p.execute()
    p.execute()
    r.execute_command("XGROUP", "CREATE", "jobs", "g", "0")
    pairs = max(1, pipeline // 2)
    for i in range(1, n + 1):
        p.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "jobs", ">")
        p.execute_command("XACK", "jobs", "g", f"{i}-1")
        if i % pairs == 0:
            check_pairs(p.execute())
    check_pairs(p.execute())
    assert r.xpending("jobs", "g")["pending"] == 0


def check_pairs(replies):
    for ack in replies[1::2]:
        assert ack == 1, replies


def launch(kind, binary, work, prefix=(), start_s=60):
    """Starts `kind` on a free port in `work` (under `prefix`, e.g. valgrind) and waits, at most
    `start_s`, until it answers PING as itself. Returns (proc, client)."""
    port = free_port()
    proc = subprocess.Popen([*prefix, *args_for(kind, binary, port, work)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=120)
    for _ in range(start_s * 10):  # bounded
        try:
            r.ping()
            break
        except redis.exceptions.ConnectionError:
            if proc.poll() is not None:
                raise RuntimeError(f"{kind} exited at start")
            time.sleep(0.1)  # polling: the server is still starting
    else:
        proc.kill()
        raise RuntimeError(f"{kind} did not start")
    if r.info("server").get("process_id") != proc.pid:
        proc.kill()
        raise RuntimeError(f"port {port} was not answered by our {kind}")
    return proc, r


def shut_down(proc, r):
    try:
        r.shutdown(nosave=True)
    except redis.exceptions.ConnectionError:
        pass  # the server closes the connection as it exits
    proc.wait(120)


def instructions(kind, binary, scenario, n, n2, pipeline):
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "callgrind.out")
        # valgrind starts slowly: 60 s
        proc, r = launch(kind, binary, work,
                         ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
        if scenario == "xadd":
            xadd_run(r, n, pipeline)
        else:
            group_run(r, n, n2, pipeline)
        shut_down(proc, r)
        with open(out) as f:
            m = re.search(r"^summary: (\d+)", f.read(), re.M)
        if not m:
            raise RuntimeError(f"no callgrind summary for {kind}")
        return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listd", default="build/dev/listd")
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--n1", type=int, default=2000)
    ap.add_argument("--n2", type=int, default=10000)
    ap.add_argument("--pipeline", type=int, default=32)
    ap.add_argument("--scenarios", default="xadd,group")
    ap.add_argument("--only", default="listd,redis")
    a = ap.parse_args()
    per_op = {}
    for scenario in a.scenarios.split(","):
        for kind in a.only.split(","):
            binary = a.listd if kind == "listd" else a.redis
            i1 = instructions(kind, binary, scenario, a.n1, a.n2, a.pipeline)
            i2 = instructions(kind, binary, scenario, a.n2, a.n2, a.pipeline)
            per_op[(scenario, kind)] = (i2 - i1) / (a.n2 - a.n1)
            print(f"{scenario:6s} {kind:6s} -P {a.pipeline}: {i1:,} instructions at {a.n1} ops, "
                  f"{i2:,} at {a.n2}: {per_op[(scenario, kind)]:,.0f} per op", flush=True)
        if (scenario, "listd") in per_op and (scenario, "redis") in per_op:
            print(f"{scenario:6s} listd/redis {per_op[(scenario, 'listd')] / per_op[(scenario, 'redis')]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
