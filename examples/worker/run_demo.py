#!/usr/bin/python3
"""End-to-end demo of the worker app: listd + N worker processes + a producer of M tasks.

    /usr/bin/python3 examples/worker/run_demo.py --workers 8 --tasks 2000
    /usr/bin/python3 examples/worker/run_demo.py --reliable --crash     # crash + recovery

It starts listd on a free port (or uses a running server with --port), starts N worker.py
processes and producer.py, waits until review:queue holds M ids, stops the workers with
SIGTERM and prints the throughput (tasks/s) and the checks:
  - exactly once: review:queue holds every id 0..M-1 once, none missing, none duplicated;
  - every task:{id}:progress hash was written (stage DONE) and has an expiry;
  - task:queue and every task:processing:* list are empty.
With --crash (implies --reliable) worker-0 dies while holding its 3rd task; like a service
manager, the demo restarts it, and its start-up recovery scan puts the task back.
Exit status 0 if every check passes, 1 otherwise.

listd is found through --listd, $LISTD_BINARY, or build/{release,test}/listd in the repository.
"""

import argparse
import collections
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CRASH_STATUS = 17


def find_listd(explicit):
    if explicit:
        if not os.access(explicit, os.X_OK):
            sys.exit(f"run_demo: --listd {explicit} is not an executable file")
        return os.path.abspath(explicit)
    candidates = [os.environ.get("LISTD_BINARY")]
    candidates += [os.path.join(REPO, "build", d, "listd") for d in ("release", "test", "")]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return os.path.abspath(c)  # listd runs in a scratch directory
    sys.exit("run_demo: listd not found; build it (make build) or pass --listd PATH")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_listd(binary, password):
    """One attempt on a probed port: (process, port), or (None, port) if it is not ours."""
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1"]
    if password:
        args += ["--requirepass", password]
    # its own scratch directory: whatever it persists does not land in the current one
    workdir = tempfile.mkdtemp(prefix="listd-demo-")
    try:
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                cwd=workdir)
    except OSError as e:
        shutil.rmtree(workdir, ignore_errors=True)
        sys.exit(f"run_demo: cannot start {binary}: {e}")
    proc.workdir = workdir
    client = redis.Redis(port=port, password=password or None)
    for _ in range(500):
        if proc.poll() is not None:
            shutil.rmtree(workdir, ignore_errors=True)
            return None, port  # most likely the port was taken meanwhile: the caller retries
        try:
            # The port was free when probed, but another server may have taken it since: it is
            # ours only if the server answering reports our child's pid.
            if int(client.info("server")["process_id"]) != proc.pid:
                break
            return proc, port
        except redis.exceptions.ConnectionError:
            time.sleep(0.02)
    proc.kill()
    proc.wait()
    shutil.rmtree(workdir, ignore_errors=True)
    return None, port


def start_listd_on_a_free_port(binary, password, attempts=5):
    for _ in range(attempts):
        proc, port = start_listd(binary, password)
        if proc is not None:
            return proc, port
    sys.exit(f"run_demo: {binary} did not come up on a free port in {attempts} attempts")


def clear_demo_keys(r):
    """Deletes only the demo's keys, so --port can point at a server in use."""
    doomed = ["task:queue", "review:queue"]
    for pattern in ("task:processing:*", "task:*:progress", "worker:*:alive"):
        doomed += list(r.scan_iter(match=pattern, count=1000))
    for i in range(0, len(doomed), 500):
        r.delete(*doomed[i:i + 500])


def check(r, tasks):
    """Returns (report lines, problems)."""
    report, problems = [], []
    review = r.lrange("review:queue", 0, -1)
    counts = collections.Counter(int(x) for x in review)
    expected = set(range(tasks))
    missing = sorted(expected - set(counts))
    dups = sorted(i for i, n in counts.items() if n > 1)
    extra = sorted(set(counts) - expected)
    line = (f"exactly once: {len(counts)} distinct ids in review:queue, "
            f"{len(missing)} missing, {len(dups)} duplicated, {len(extra)} unexpected")
    if missing or dups or extra or len(review) != tasks:
        problems.append(line + f" (missing {missing[:10]}, duplicated {dups[:10]})")
    report.append(("OK  " if not problems else "FAIL ") + line)

    pipe = r.pipeline(transaction=False)
    for i in range(tasks):
        pipe.hget(f"task:{i}:progress", "stage")
        pipe.ttl(f"task:{i}:progress")
    replies = pipe.execute()
    stages, ttls = replies[0::2], replies[1::2]
    not_done = [i for i, s in enumerate(stages) if s != "DONE"]
    no_ttl = [i for i, t in enumerate(ttls) if not (t is not None and t > 0)]
    line = (f"progress hashes: {tasks - len(not_done)} of {tasks} with stage=DONE, "
            f"{tasks - len(no_ttl)} with an expiry")
    bad = bool(not_done or no_ttl)
    if bad:
        problems.append(line + f" (not done {not_done[:10]}, no expiry {no_ttl[:10]})")
    report.append(("FAIL " if bad else "OK  ") + line)

    left = {"task:queue": r.llen("task:queue")}
    for key in r.scan_iter(match="task:processing:*"):
        left[key] = r.llen(key)
    busy = {k: n for k, n in left.items() if n}
    line = "queues: task:queue and task:processing:* " + ("empty" if not busy else f"hold {busy}")
    if busy:
        problems.append(line)
    report.append(("FAIL " if busy else "OK  ") + line)
    return report, problems


def wait_blocked(r, n, deadline_s):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if r.info("clients")["blocked_clients"] >= n:
            return True
        time.sleep(0.02)
    return False


def stop_workers(workers):
    """SIGTERM every worker and waits for it; empties `workers`. False if one misbehaved."""
    ok = True
    for w in workers.values():
        if w.poll() is None:
            w.send_signal(signal.SIGTERM)
    for i, w in workers.items():
        try:
            code = w.wait(timeout=15)
            if code != 0:
                print(f"FAIL worker-{i} exited with status {code} on SIGTERM")
                ok = False
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()
            print(f"FAIL worker-{i} did not stop on SIGTERM")
            ok = False
    workers.clear()
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=8, help="worker processes (default 8)")
    ap.add_argument("--tasks", type=int, default=2000, help="tasks to produce (default 2000)")
    ap.add_argument("--reliable", action="store_true", help="workers use the reliable queue")
    ap.add_argument("--crash", action="store_true",
                    help="worker-0 crashes on its 3rd task and is restarted (implies --reliable)")
    ap.add_argument("--work-ms", type=float, default=0.0, help="simulated work per stage (ms)")
    ap.add_argument("--batch", type=int, default=100, help="producer LPUSHes per round trip")
    ap.add_argument("--listd", help="listd binary (default: $LISTD_BINARY or build/*/listd)")
    ap.add_argument("--port", type=int, help="use the server already on this port")
    ap.add_argument("--password", default="", help="requirepass for the started listd / AUTH")
    ap.add_argument("--deadline", type=float, default=120.0, help="give up after this many s")
    args = ap.parse_args(argv)
    if args.crash:
        args.reliable = True

    listd = None
    if args.port:
        port = args.port
        print(f"listd: using the server on 127.0.0.1:{port}")
    else:
        binary = find_listd(args.listd)
        listd, port = start_listd_on_a_free_port(binary, args.password)
        print(f"listd: {binary} started on 127.0.0.1:{port} (pid {listd.pid})")

    env = dict(os.environ, LISTD_HOST="127.0.0.1", LISTD_PORT=str(port), LISTD_DB="0",
               LISTD_PASSWORD=args.password)
    r = redis.Redis(port=port, password=args.password or None, decode_responses=True)
    worker_py = os.path.join(HERE, "worker.py")

    def spawn(i, crash):
        cmd = [sys.executable, worker_py, "--work-ms", str(args.work_ms)]
        if args.reliable:
            cmd.append("--reliable")
        if crash:
            cmd += ["--crash-after", "3"]
        return subprocess.Popen(cmd, env=dict(env, WORKER_NAME=f"worker-{i}"))

    workers = {}
    status = 1
    restarts = 0
    try:
        clear_demo_keys(r)
        for i in range(args.workers):
            workers[i] = spawn(i, args.crash and i == 0)
        mode = "reliable (BLMOVE + LREM + recovery scan)" if args.reliable else "seed (BRPOP)"
        print(f"workers: {args.workers} processes, {mode}"
              + (", worker-0 crashes on its 3rd task" if args.crash else ""), flush=True)
        if not wait_blocked(r, args.workers, 30):
            print("warning: not every worker was waiting after 30 s; starting anyway")
        t0 = time.monotonic()
        producer = subprocess.Popen([sys.executable, os.path.join(HERE, "producer.py"),
                                     "--tasks", str(args.tasks), "--batch", str(args.batch)],
                                    env=env)
        deadline = t0 + args.deadline
        done = 0
        while time.monotonic() < deadline:
            done = r.llen("review:queue")
            if done >= args.tasks and producer.poll() is not None:
                break
            for i, w in list(workers.items()):
                if w.poll() is not None:
                    if w.returncode == CRASH_STATUS:
                        print(f"run_demo: worker-{i} crashed; restarting it", flush=True)
                        restarts += 1
                        workers[i] = spawn(i, False)
                    else:
                        print(f"run_demo: worker-{i} exited with status {w.returncode}")
                        del workers[i]
            time.sleep(0.01)
        elapsed = time.monotonic() - t0
        if producer.wait(timeout=30) != 0:
            print(f"FAIL producer exited with status {producer.returncode}")
        print(f"processed {done} of {args.tasks} tasks in {elapsed:.2f} s: "
              f"{done / elapsed:.0f} tasks/s")
        # Stop the workers before counting: a straggler's late push then shows up as a duplicate.
        workers_ok = stop_workers(workers)
        report, problems = check(r, args.tasks)
        if args.crash:
            line = f"crash recovery: worker-0 restarted {restarts} time(s)"
            report.append(("OK  " if restarts == 1 else "FAIL ") + line)
            if restarts != 1:
                problems.append(line)
        for line in report:
            print(line)
        status = 0 if workers_ok and not problems and done >= args.tasks else 1
    finally:
        if not stop_workers(workers):
            status = 1
        if listd is not None:
            listd.send_signal(signal.SIGTERM)
            try:
                if listd.wait(timeout=15) != 0:
                    print(f"FAIL listd exited with status {listd.returncode}")
                    status = 1
            except subprocess.TimeoutExpired:
                listd.kill()
                print("FAIL listd did not stop on SIGTERM")
                status = 1
            shutil.rmtree(listd.workdir, ignore_errors=True)
    print("RESULT:", "PASS" if status == 0 else "FAIL")
    return status


if __name__ == "__main__":
    sys.exit(main())
