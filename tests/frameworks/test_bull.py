"""Bull 4.16.5 + ioredis 5.11 (npm, pinned in node/package-lock.json) against a real server: one
real worker process (node/bull_app.js worker: Queue#process, default settings) serves every
check of this file, in order; jobs are added and Bull's own state read through its client API
(one node run per action). Runs against listd and, as frameworks.against_redis, against
redis-server 7.0.15.

Bull runs nearly everything as Lua (EVALSHA; `addBulk` sends EVAL inside MULTI), publishes from
its scripts, and its Queue subscribes to `bull:<queue>:delayed`. (Before listd had pub/sub that
SUBSCRIBE failed, and Bull's `Queue#on` does not catch the rejection: Node ended the process.)
"""

import os
import signal

import pytest
from listd_testing import wait_until
from node_app import NODE_DIR, NodeApp, ran_records

JOBS = 300
RAN = "bull-test:ran"



@pytest.fixture(scope="module")
def bull(url):
    return NodeApp(os.path.join(NODE_DIR, "bull_app.js"), url, "fw-bull")



@pytest.fixture(scope="module")
def worker(bull, module_processes):
    proc = bull.start_worker(module_processes, "bull-worker")
    # Bull counts a worker by its named connection (CLIENT SETNAME, found in CLIENT LIST).
    assert wait_until(lambda: bull("workers") == ["fw-bull"], 60, interval=0.2), \
        module_processes.logs()
    return proc


def finished(conn, kind, count):
    """Bull's own sets of finished jobs (bull:<queue>:completed / failed) hold `count` jobs:
    polled through redis, since each Bull client run starts a Node process."""
    return wait_until(lambda: conn.zcard(f"bull:fw-bull:{kind}") >= count, 60, interval=0.05)


def test_add_bulk_every_job_runs_once_with_its_result(worker, bull, conn, module_processes):
    ids = bull("bulk", JOBS)
    assert len(set(ids)) == JOBS
    assert finished(conn, "completed", JOBS), module_processes.logs()
    state = bull("state")
    assert ran_records(conn, RAN) == {job_id: i for i, job_id in enumerate(ids)}
    assert state["returned"] == {job_id: 2 * i for i, job_id in enumerate(ids)}


def test_a_failing_job_lands_in_the_failed_set(worker, bull, conn, module_processes):
    job_id = bull("fail", 7)
    assert finished(conn, "failed", 1), module_processes.logs()
    assert bull("state")["failed"] == {job_id: "job failed on purpose: 7"}


def test_a_delayed_job_runs_once_it_is_due(worker, bull, conn, module_processes):
    job = bull("delay", 500, 9)
    assert finished(conn, "completed", JOBS + 1), module_processes.logs()
    state = bull("state")
    assert state["returned"][job["id"]] == 18 and ran_records(conn, RAN)[job["id"]] == 9
    assert state["delayed_ran"][job["id"]] >= job["due"]  # never before it was due


def test_job_counts_agree_with_what_ran(worker, bull):
    counts = bull("state")["counts"]
    assert counts == {"waiting": 0, "active": 0, "completed": JOBS + 1, "failed": 1,
                      "delayed": 0, "paused": 0}


def test_sigterm_closes_the_worker_cleanly(worker, bull, module_processes):
    os.kill(worker.pid, signal.SIGTERM)  # bull_app.js: Queue#close(), then exit 0
    assert wait_until(lambda: worker.poll() is not None, 60), module_processes.logs()
    assert worker.returncode == 0, module_processes.logs()
    assert wait_until(lambda: bull("workers") == [], 30), "its connections are still open"
