#!/usr/bin/python3
"""PUBLISH fan-out, listd vs redis-server in one run: the server's CPU time per delivered message.

    bench/pubsub_fanout.py                      # builds listd (Release, build-bench/), then measures
    bench/pubsub_fanout.py --quick              # smoke run: 1 round, tiny counts; numbers mean nothing
    bench/pubsub_fanout.py --no-build --listd-bin build/release/listd --subscribers 100,1000

For each subscriber count S (default 1, 100, 1000) and each round, the servers alternate (listd
first in odd rounds, redis first in even ones); each measurement gets a fresh server pinned to
core 0 (`taskset -c 0`), with `client-output-buffer-limit pubsub 0 0 0` so that no subscriber is
ever disconnected, and this process (publisher and subscribers) pinned to core 1. S raw sockets
SUBSCRIBE to one channel; one publisher sends PUBLISH pipelined in batches (--batch) of a fixed
payload (--payload bytes) until M messages are published, while a reader thread drains every
subscriber. The figure is the server's CPU time, utime + stime from /proc/<pid>/stat, from the
first PUBLISH until every subscriber has received every frame (counted in bytes: each frame has
a known size), divided by the messages delivered (M x S, checked against the PUBLISH replies).
The report gives the median over rounds per server and the median of the per-round ratios
listd / redis (issue 13's target: <= 0.7 at 100 and 1,000 subscribers).

It reuses side_by_side.py's server starter (free port, pid check, core pinning), its quiet-wait
and its build directory. Standard library only; run with /usr/bin/python3. Results: stdout and
bench/results/pubsub_fanout.md (+ pubsub_fanout.json). Method: docs/BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import side_by_side as sbs  # noqa: E402  (the harness' server starter and helpers)

CHANNEL = b"fanout"


def resp(*args: bytes) -> bytes:
    out = b"*%d\r\n" % len(args)
    for a in args:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def frame_size(payload: int) -> int:
    """Bytes of one RESP2 `message` frame on CHANNEL with a `payload`-byte message."""
    return len(b"*3\r\n$7\r\nmessage\r\n") + len(b"$%d\r\n%s\r\n" % (len(CHANNEL), CHANNEL)) + \
        len(b"$%d\r\n" % payload) + payload + 2


def server_cpu_ns(pid: int) -> int:
    """utime + stime of `pid` (all its threads), from /proc/<pid>/stat, in ns."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int((int(fields[11]) + int(fields[12])) * sbs.TICK_NS)   # fields 14 and 15 of stat


def subscribe_all(port: int, count: int, timeout: float) -> list:
    """`count` sockets subscribed to CHANNEL, each past its `subscribe` reply."""
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(resp(b"SUBSCRIBE", CHANNEL))
        socks.append(s)
    want = len(b"*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n" % (len(CHANNEL), CHANNEL))
    for s in socks:
        got = b""
        while len(got) < want:
            chunk = s.recv(want - len(got))
            if not chunk:
                raise RuntimeError("a subscriber was closed while subscribing")
            got += chunk
        s.setblocking(False)
    return socks


def drain(socks: list, expected_each: int, deadline: float, done: dict) -> None:
    """Reads every socket until each has received `expected_each` bytes (or the deadline)."""
    sel = selectors.DefaultSelector()
    left = {}
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
        left[s] = expected_each
    buf = bytearray(1 << 20)
    while left and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            try:
                n = s.recv_into(buf)
            except BlockingIOError:
                continue
            if n == 0:
                done["error"] = "a subscriber was closed by the server"
                return
            left[s] -= n
            if left[s] <= 0:
                sel.unregister(s)
                del left[s]
    done["short"] = len(left)


def publish_all(port: int, messages: int, payload: bytes, batch: int, timeout: float) -> int:
    """Publishes `messages` PUBLISHes in pipelined batches; returns the sum of the replies."""
    pub = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    one = resp(b"PUBLISH", CHANNEL, payload)
    receivers = 0
    sent = 0
    pending = b""
    while sent < messages:
        n = min(batch, messages - sent)
        pub.sendall(one * n)
        sent += n
        replies = 0
        while replies < n:
            chunk = pub.recv(65536)
            if not chunk:
                raise RuntimeError("the publisher was closed by the server")
            pending += chunk
            *lines, pending = pending.split(b"\r\n")
            for line in lines:
                receivers += int(line[1:])   # ":<receivers>"
                replies += 1
    pub.close()
    return receivers


def measure(spec, subscribers: int, messages: int, args, logdir: Path, notes: list):
    """One fresh server: CPU ns per delivered message, or None (with a note)."""
    srv, why = sbs.start_server(spec, logdir, tag=f"-fanout{subscribers}")
    if srv is None:
        notes.append(f"{spec.name} did not start: {why}")
        return None
    try:
        socks = subscribe_all(srv.port, subscribers, args.timeout)
        payload = b"m" * args.payload
        expected_each = messages * frame_size(args.payload)
        done: dict = {}
        deadline = time.monotonic() + args.timeout
        reader = threading.Thread(target=drain, args=(socks, expected_each, deadline, done))
        cpu0 = server_cpu_ns(srv.pid)
        reader.start()
        receivers = publish_all(srv.port, messages, payload, args.batch, args.timeout)
        reader.join()
        cpu = server_cpu_ns(srv.pid) - cpu0
        for s in socks:
            s.close()
        delivered = messages * subscribers
        if done.get("error") or done.get("short") or receivers != delivered:
            notes.append(f"{spec.name} S={subscribers}: {done.get('error') or ''} "
                         f"{done.get('short', 0)} subscribers short, PUBLISH counted {receivers} "
                         f"of {delivered} deliveries: not measured")
            return None
        return cpu / delivered
    finally:
        sbs.stop_server(srv)


def fmt(x, digits=1):
    return "n/a" if x is None else f"{x:.{digits}f}"


def report(results: dict, args) -> str:
    lines = ["## PUBLISH fan-out: server CPU ns per delivered message", "",
             f"payload {args.payload} B, PUBLISH pipelined in batches of {args.batch}, "
             f"{args.rounds} round(s), server on core {sbs.SERVER_CORE}, clients on core "
             f"{sbs.CLIENT_CORE}; median over rounds; ratio = median of per-round listd / redis",
             "", "| subscribers | messages | listd ns/msg | redis ns/msg | listd / redis |",
             "|---|---|---|---|---|"]
    for s, r in results.items():
        ratios = [a / b for a, b in zip(r["listd"], r["redis"]) if a and b]
        lines.append(f"| {s:,} | {r['messages']:,} | {fmt(sbs.median(r['listd']))} | "
                     f"{fmt(sbs.median(r['redis']))} | {fmt(sbs.median(ratios), 2)} |")
    return "\n".join(lines) + "\n"


def build_listd(args) -> str:
    if args.listd_bin:
        return str(Path(args.listd_bin).resolve())   # servers run in their own directory
    build_dir = Path(args.build_dir).resolve()
    if not args.no_build:
        sbs.log(f"building listd in {build_dir} (Release)")
        for cmd in (["cmake", "-S", str(sbs.REPO), "-B", str(build_dir),
                     "-DCMAKE_BUILD_TYPE=Release", "-DLISTD_BUILD_TESTS=OFF"],
                    ["cmake", "--build", str(build_dir), "-j2", "--target", "listd"]):
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return str(build_dir / "listd")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--subscribers", default="1,100,1000", help="comma-separated counts")
    ap.add_argument("--deliveries", type=int, default=2_000_000,
                    help="messages x subscribers per measurement (at least --min-messages)")
    ap.add_argument("--min-messages", type=int, default=20_000)
    ap.add_argument("--payload", type=int, default=64)
    ap.add_argument("--batch", type=int, default=100, help="PUBLISHes per pipelined batch")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="1 round, 20,000 deliveries")
    ap.add_argument("--timeout", type=float, default=300.0, help="per measurement, seconds")
    ap.add_argument("--quiet-wait", type=float, default=60.0)
    ap.add_argument("--listd-bin", default=None)
    ap.add_argument("--redis-bin", default="/usr/bin/redis-server")
    ap.add_argument("--build-dir", default=str(sbs.REPO / "build-bench"))
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--results", default=str(sbs.BENCH / "results"))
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.deliveries, args.min_messages, args.quiet_wait = 1, 20_000, 200, 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))   # 1,000 subscribers + the servers'
    os.sched_setaffinity(0, {int(sbs.CLIENT_CORE)})
    results_dir = Path(args.results)
    logdir = results_dir / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    extra = ["--client-output-buffer-limit", "pubsub 0 0 0", "--maxclients", "10000"]
    specs = {
        "listd": sbs.ServerSpec("listd", build_listd(args),
                                [["--port", "{port}", "--bind", "127.0.0.1", *extra]]),
        "redis": sbs.ServerSpec("redis", args.redis_bin, [sbs.redis_style_args(extra)]),
    }
    notes: list = []
    results = {}
    try:
        for s in (int(x) for x in args.subscribers.split(",")):
            messages = max(args.min_messages, args.deliveries // s)
            results[s] = {"messages": messages, "listd": [], "redis": []}
            for rnd in range(args.rounds):
                sbs.wait_quiet(args.quiet_wait, notes, f"S={s} round {rnd + 1}")
                order = ["listd", "redis"] if rnd % 2 == 0 else ["redis", "listd"]
                for name in order:
                    ns = measure(specs[name], s, messages, args, logdir, notes)
                    results[s][name].append(ns)
                    sbs.log(f"S={s} round {rnd + 1}/{args.rounds} {name}: {fmt(ns)} ns/msg")
    finally:
        sbs.stop_all()
    text = report(results, args) + "".join(f"\n- {n}" for n in notes) + ("\n" if notes else "")
    print(text)
    (results_dir / "pubsub_fanout.md").write_text(text)
    (results_dir / "pubsub_fanout.json").write_text(json.dumps(
        {"args": vars(args), "results": results, "notes": notes}, indent=1))
    return 0 if not any("did not start" in n for n in notes) else 1


if __name__ == "__main__":
    sys.exit(main())
