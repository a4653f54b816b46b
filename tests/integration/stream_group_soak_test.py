#!/usr/bin/python3
"""Consumer-group soak: redis-py consumer processes on one listd stream, two killed mid-work.

Usage: /usr/bin/python3 stream_group_soak_test.py path/to/listd [--consumers N] [--messages N]
                                                  [--doomed N] [--deadline S]

Starts listd on a free loopback port and a group `g` on stream `jobs`. Every consumer process
loops on `XREADGROUP GROUP g <name> COUNT 10 BLOCK 200 STREAMS jobs >` and acknowledges each
entry with XACK after "working" on it. The doomed consumers (two by default) park first, so the first
entries go to them; each reads about 20, records what it got, acknowledges none, and is killed
(SIGKILL) holding them. A producer process adds the messages through pipelines. Once the healthy consumers
have drained the stream and exited, a reaper walks the PEL with XAUTOCLAIM (cursor until
0-0) and acknowledges what the dead consumers held. The checks: every message acknowledged
exactly once (each XACK answered 1), none lost, the PEL empty; the only messages handled twice
are those the killed consumers received and never acknowledged (counted); listd stops cleanly.

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

STREAM = "jobs"
GROUP = "g"
BATCH = 500           # XADD commands per pipeline round trip


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True, socket_timeout=30,
                       socket_connect_timeout=5)


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines))


def read_lines(path):
    with open(path) as f:
        text = f.read()
    return text.split("\n") if text else []


def doomed(name, port, holding, out_dir):
    r = client(port)
    received = []
    while len(received) < 20:  # a few reads' worth, then stop acknowledging anything
        reply = r.xreadgroup(GROUP, name, {STREAM: ">"}, count=10, block=0 if not received else 200)
        if not reply:
            break  # the others drained the stream first: hold what it has
        received += [msg_id for _, entries in reply for msg_id, _ in entries]
    write_lines(os.path.join(out_dir, f"{name}.received"), received)
    holding.set()
    signal.pause()  # holding its messages, unacknowledged, until killed


def healthy(name, port, produced, out_dir):
    r = client(port)
    acked = []
    acks = 0
    while True:
        reply = r.xreadgroup(GROUP, name, {STREAM: ">"}, count=10, block=200)
        if not reply:
            if produced.is_set():
                break
            continue
        for _, entries in reply:
            for msg_id, fields in entries:
                acks += r.xack(STREAM, GROUP, msg_id)
                acked.append(f"{msg_id} {fields['n']}")
    write_lines(os.path.join(out_dir, f"{name}.acked"), acked)
    write_lines(os.path.join(out_dir, f"{name}.acks"), [str(acks)])
    r.close()


def producer(port, messages):
    r = client(port)
    pipe = r.pipeline(transaction=False)
    for n in range(messages):
        pipe.xadd(STREAM, {"n": str(n)})
        if (n + 1) % BATCH == 0:
            pipe.execute()
    pipe.execute()
    r.close()


def blocked_clients(r):
    return int(r.info("clients").get("blocked_clients", -1))


def reap(r):
    """XAUTOCLAIM over the whole PEL; returns ([(id, n)], XACK total, calls)."""
    claimed, acks, calls, cursor = [], 0, 0, "0-0"
    while True:
        calls += 1
        cursor, entries, _deleted = _xautoclaim(r, cursor)
        for msg_id, fields in entries:
            acks += r.xack(STREAM, GROUP, msg_id)
            claimed.append((msg_id, fields["n"]))
        if cursor == "0-0" or calls > 10_000:
            return claimed, acks, calls


def _xautoclaim(r, cursor):
    # The 7.0 reply: [cursor, [(id, fields)...], [deleted ids]] (redis-py parses the entries).
    reply = r.execute_command("XAUTOCLAIM", STREAM, GROUP, "reaper", 0, cursor, "COUNT", 10)
    return reply[0], reply[1], reply[2] if len(reply) > 2 else []


def run(args, port, failures):
    admin = client(port)
    admin.xgroup_create(STREAM, GROUP, id="$", mkstream=True)
    ctx = multiprocessing.get_context("fork")
    produced = ctx.Event()
    with tempfile.TemporaryDirectory() as out_dir:
        doomed_n = args.doomed
        holding = [ctx.Event() for _ in range(doomed_n)]
        doomed_procs = [ctx.Process(target=doomed, args=(f"doomed{i}", port, holding[i], out_dir))
                        for i in range(doomed_n)]
        for p in doomed_procs:
            p.start()
        # The doomed park first, so the first entries are theirs (bounded polls, no sleeps).
        if not wait_until(lambda: blocked_clients(admin) == doomed_n, 20):
            failures.append("the doomed consumers did not block")
        names = [f"c{i}" for i in range(args.consumers - doomed_n)]
        workers = [ctx.Process(target=healthy, args=(n, port, produced, out_dir)) for n in names]
        for p in workers:
            p.start()
        if not wait_until(lambda: blocked_clients(admin) == args.consumers, 20):
            failures.append("the consumers did not all block")
        prod = ctx.Process(target=producer, args=(port, args.messages))
        prod.start()
        for i, p in enumerate(doomed_procs):
            if not holding[i].wait(20):
                failures.append(f"doomed{i} got nothing")
            p.kill()
            p.join()
        prod.join()
        if prod.exitcode != 0:
            failures.append(f"producer exited with {prod.exitcode}")
        produced.set()
        for name, p in zip(names, workers):
            p.join(args.deadline)
            if p.exitcode != 0:
                failures.append(f"consumer {name} exited with {p.exitcode}")

        held = [m for i in range(doomed_n)
                for m in read_lines(os.path.join(out_dir, f"doomed{i}.received"))]
        acked = [line.split()[0] for n in names
                 for line in read_lines(os.path.join(out_dir, f"{n}.acked"))]
        acks = sum(int(read_lines(os.path.join(out_dir, f"{n}.acks"))[0]) for n in names)
    claimed, reaper_acks, calls = reap(admin)
    done = acked + [msg_id for msg_id, _ in claimed]
    counts = collections.Counter(done)
    twice = [m for m, c in counts.items() if c > 1]
    if twice:
        failures.append(f"{len(twice)} messages acknowledged twice, e.g. {twice[:5]}")
    if len(counts) != args.messages or admin.xlen(STREAM) != args.messages:
        failures.append(f"{len(counts)} distinct messages handled of {args.messages}")
    if acks + reaper_acks != args.messages:
        failures.append(f"XACK acknowledged {acks + reaper_acks}, not {args.messages}")
    if sorted(m for m, _ in claimed) != sorted(held):
        failures.append(f"the reaper claimed {len(claimed)}, the killed held {len(held)}")
    pending = admin.xpending(STREAM, GROUP)["pending"]
    if pending != 0:
        failures.append(f"{pending} entries still pending")
    print(f"{args.consumers} consumers ({doomed_n} killed holding {len(held)}), "
          f"{args.messages} messages: {len(acked)} acknowledged by the consumers, "
          f"{len(claimed)} reclaimed by the reaper in {calls} XAUTOCLAIM calls, "
          f"handled twice: {len(held)} (the killed consumers' unacknowledged messages)")
    admin.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("listd")
    parser.add_argument("--consumers", type=int, default=5)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--doomed", type=int, default=2)
    parser.add_argument("--deadline", type=int, default=60,
                        help="hard cap in seconds for the whole run (the CI size takes a few)")
    args = parser.parse_args()
    started = time.monotonic()
    signal.alarm(args.deadline)  # never hang CI
    server = ListdServer(binary=args.listd).start()
    failures = []
    try:
        run(args, server.port, failures)
    finally:
        status = server.stop()
        if status != 0:
            failures.append(f"listd exited with status {status}")
        server.close()
    print(f"total {time.monotonic() - started:.2f} s")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    if failures:
        return 1
    print("PASS: every message acknowledged exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
