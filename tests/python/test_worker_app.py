"""The seed documents' worker app (examples/worker) end to end on listd.

Real worker processes (one module-level redis-py client each) on task:queue; the checks are
those of the seed documents: every task processed exactly once, its progress hash written
with an expiry, its id handed on to review:queue; and, for the reliable variant, no task lost
when a worker crashes while holding one.
"""

import collections
import os
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(REPO, "examples", "worker")


def run_demo(*args, timeout=150):
    proc = subprocess.run([sys.executable, os.path.join(DEMO, "run_demo.py"), *args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    out = proc.stdout.decode(errors="replace")
    print(out)
    return proc.returncode, out


def test_idle_workers_are_separate_blocked_connections(r, listd):
    """Seed document 000: CLIENT LIST shows each waiting worker as its own brpop client."""
    env = dict(os.environ, LISTD_PORT=str(listd.port), PYTHONDONTWRITEBYTECODE="1")
    procs = [subprocess.Popen([sys.executable, os.path.join(DEMO, "worker.py")],
                              env=dict(env, WORKER_NAME=f"idle-{i}")) for i in range(3)]
    try:
        deadline = time.monotonic() + 20
        while r.info("clients")["blocked_clients"] < 3:
            assert time.monotonic() < deadline, "3 workers never blocked in BRPOP"
            time.sleep(0.02)
        waiting = [c for c in r.client_list() if c["name"].startswith("idle-")]
        assert sorted(c["name"] for c in waiting) == ["idle-0", "idle-1", "idle-2"]
        assert all(c["cmd"] == "brpop" for c in waiting)
        assert len({c["addr"] for c in waiting}) == 3
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        codes = [p.wait(timeout=15) for p in procs]
    assert codes == [0, 0, 0]  # SIGTERM while idle in BRPOP: a clean exit at once


def test_seed_workers_exactly_once(r, listd):
    code, out = run_demo("--workers", "8", "--tasks", "2000", "--port", str(listd.port))
    assert code == 0, out
    assert "RESULT: PASS" in out
    assert "tasks/s" in out
    # verified again here, independently of run_demo's own checks
    review = [int(x) for x in r.lrange("review:queue", 0, -1)]
    assert sorted(review) == list(range(2000))
    assert r.llen("task:queue") == 0
    for i in (0, 777, 1999):
        progress = r.hgetall(f"task:{i}:progress")
        assert progress["stage"] == "DONE" and progress["worker"].startswith("worker-")
        assert 0 < r.ttl(f"task:{i}:progress") <= 3600
    # every worker took part (8 processes on one queue)
    owners = collections.Counter(r.hget(f"task:{i}:progress", "worker") for i in range(2000))
    assert len(owners) >= 2, owners


def test_reliable_workers_survive_a_crash():
    # run_demo starts its own listd here (LISTD_BINARY), as a user would run it
    code, out = run_demo("--workers", "8", "--tasks", "2000", "--crash")
    assert code == 0, out
    assert "simulated crash while holding task" in out
    assert "worker-0: recovered 1 task(s) from dead workers" in out
    assert "OK  exactly once: 2000 distinct ids in review:queue, 0 missing, 0 duplicated" in out
    assert "OK  progress hashes: 2000 of 2000 with stage=DONE, 2000 with an expiry" in out
    assert "OK  queues: task:queue and task:processing:* empty" in out
    assert "RESULT: PASS" in out


def test_reliable_recovery_scan_skips_live_workers(r, listd):
    """The start-up scan requeues a dead worker's task but not a live worker's."""
    r.lpush("task:processing:dead-1", "41")
    r.lpush("task:processing:alive-1", "42")
    r.set("worker:alive-1:alive", 1, ex=30)
    env = dict(os.environ, LISTD_PORT=str(listd.port), WORKER_NAME="fresh-1",
               PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, os.path.join(DEMO, "worker.py"), "--reliable",
                          "--exit-when-idle", "--pop-timeout", "0.5"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=60).stdout.decode()
    assert "fresh-1: recovered 1 task(s) from dead workers" in out, out
    assert r.lrange("review:queue", 0, -1) == ["41"]
    assert r.lrange("task:processing:alive-1", 0, -1) == ["42"]
    assert r.exists("task:processing:dead-1", "task:processing:fresh-1") == 0
