#!/usr/bin/python3
"""EVALSHA, listd vs redis-server in one run: the server's CPU time per script call.

    bench/evalsha_bench.py                      # builds listd (Release, build-bench/), then measures
    bench/evalsha_bench.py --quick --no-build --listd-bin build/dev/listd   # smoke: numbers mean nothing

Two scripts (issue 14): redis-py's Lock release on a lock that is not held (one redis.call: the
GET, then `return 0`), and a 5-call script (INCR, RPUSH, LPOP, HSET, EXISTS, then `return 1`).
For each script and round the servers alternate (listd first in odd rounds); each measurement
gets a fresh server pinned to core 0 (side_by_side.py's starter) with this process on core 1.
The script is SCRIPT LOADed, then one connection sends --calls EVALSHA in pipelined batches
(--batch) and reads every 4-byte reply. The figure is the server's on-CPU time (schedstat, ns)
over the calls divided by the calls. Report: the median ns per call per server and the median of
the per-round ratios listd / redis (issue 14's target: <= 0.8), on stdout and in
bench/results/evalsha.md. Standard library only; run with /usr/bin/python3.
"""
from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import side_by_side as sbs  # noqa: E402  (the harness' server starter and helpers)
import pubsub_fanout as fanout  # noqa: E402  (its Release build of listd)

SCRIPTS = {
    "one call (redis-py Lock release)": (
        "local token = redis.call('get', KEYS[1])\n"
        "if not token or token ~= ARGV[1] then return 0 end\n"
        "redis.call('del', KEYS[1]) return 1",
        [b"lock", b"token"], b":0\r\n"),
    "five calls": (
        "redis.call('incr', KEYS[1]) redis.call('rpush', KEYS[2], ARGV[1])\n"
        "redis.call('lpop', KEYS[2]) redis.call('hset', KEYS[3], 'f', ARGV[1])\n"
        "redis.call('exists', KEYS[1]) return 1",
        [b"counter", b"queue", b"hash", b"value"], b":1\r\n"),
}


def resp(*args: bytes) -> bytes:
    out = b"*%d\r\n" % len(args)
    for a in args:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("server closed the connection")
        data += chunk
    return data


def load_script(sock: socket.socket, body: str) -> bytes:
    sock.sendall(resp(b"SCRIPT", b"LOAD", body.encode()))
    reply = read_exactly(sock, 47)   # $40\r\n<sha>\r\n
    if not reply.startswith(b"$40\r\n"):
        raise RuntimeError(f"SCRIPT LOAD answered {reply!r}")
    return reply[5:45]


def measure(spec, script: tuple, args, logdir: Path, notes: list):
    body, keys_and_args, expected = script
    srv, why = sbs.start_server(spec, logdir, tag="-evalsha")
    if srv is None:
        notes.append(f"{spec.name} did not start: {why}")
        return None
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=args.timeout) as sock:
            sha = load_script(sock, body)
            numkeys = str(len(keys_and_args) - 1).encode()
            one = resp(b"EVALSHA", sha, numkeys, *keys_and_args)
            batch = one * args.batch
            sent = 0
            cpu0 = sbs.cpu_ns(srv.pid)
            while sent < args.calls:
                sock.sendall(batch)
                replies = read_exactly(sock, len(expected) * args.batch)
                if replies != expected * args.batch:
                    notes.append(f"{spec.name}: unexpected reply {replies[:60]!r}: not measured")
                    return None
                sent += args.batch
            cpu = sbs.cpu_ns(srv.pid) - cpu0
        return cpu / sent
    finally:
        sbs.stop_server(srv)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--batch", type=int, default=100, help="EVALSHA per pipelined batch")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="1 round, 2,000 calls")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--quiet-wait", type=float, default=60.0)
    ap.add_argument("--listd-bin", default=None)
    ap.add_argument("--redis-bin", default="/usr/bin/redis-server")
    ap.add_argument("--build-dir", default=str(sbs.REPO / "build-bench"))
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--results", default=str(sbs.BENCH / "results"))
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.calls, args.quiet_wait = 1, 2_000, 0
    os.sched_setaffinity(0, {int(sbs.CLIENT_CORE)})
    results_dir = Path(args.results)
    logdir = results_dir / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    specs = {
        "listd": sbs.ServerSpec("listd", fanout.build_listd(args),
                                [["--port", "{port}", "--bind", "127.0.0.1"]]),
        "redis": sbs.ServerSpec("redis", args.redis_bin, [sbs.redis_style_args([])]),
    }
    notes: list = []
    results = {name: {"listd": [], "redis": []} for name in SCRIPTS}
    try:
        for name, script in SCRIPTS.items():
            for rnd in range(args.rounds):
                sbs.wait_quiet(args.quiet_wait, notes, f"{name} round {rnd + 1}")
                for server in (["listd", "redis"] if rnd % 2 == 0 else ["redis", "listd"]):
                    ns = measure(specs[server], script, args, logdir, notes)
                    results[name][server].append(ns)
                    sbs.log(f"{name} round {rnd + 1}/{args.rounds} {server}: "
                            f"{fanout.fmt(ns)} ns/call")
    finally:
        sbs.stop_all()
    lines = ["## EVALSHA: server CPU ns per script call", "",
             f"{args.calls:,} calls per measurement, pipelined in batches of {args.batch}, "
             f"{args.rounds} round(s), server on core {sbs.SERVER_CORE}, client on core "
             f"{sbs.CLIENT_CORE}; median over rounds; ratio = median of per-round listd / redis",
             "", "| script | listd ns/call | redis ns/call | listd / redis |", "|---|---|---|---|"]
    for name, r in results.items():
        ratios = [a / b for a, b in zip(r["listd"], r["redis"]) if a and b]
        lines.append(f"| {name} | {fanout.fmt(sbs.median(r['listd']))} | "
                     f"{fanout.fmt(sbs.median(r['redis']))} | {fanout.fmt(sbs.median(ratios), 2)} |")
    text = "\n".join(lines) + "\n" + "".join(f"\n- {n}" for n in notes) + ("\n" if notes else "")
    print(text)
    (results_dir / "evalsha.md").write_text(text)
    return 0 if not any("did not start" in n or "not measured" in n for n in notes) else 1


if __name__ == "__main__":
    sys.exit(main())
