"""BullMQ 6.7.0 + ioredis 5.11 (npm, pinned in node/package-lock.json) against a real server: one
real worker process (node/bullmq_app.js worker: a Worker and a QueueEvents, default settings)
serves every check of this file, in order; jobs are added and BullMQ's own state read through
its Queue API (one node run per action). Runs against listd and, as frameworks.against_redis,
against redis-server 7.0.15.

BullMQ runs every state change as Lua (EVAL, then EVALSHA) that also writes the queue's event
stream (XADD ... MAXLEN ~, XTRIM inside the scripts); QueueEvents reads it with XREAD BLOCK, and
the Worker waits for jobs with BZPOPMIN on the queue's marker key.
"""

import os
import signal

import pytest
from listd_testing import wait_until
from node_app import NODE_DIR, NodeApp, ran_records

JOBS = 300
RAN = "bullmq-test:ran"
EVENTS = "bullmq-test:events"



@pytest.fixture(scope="module")
def bullmq(url):
    return NodeApp(os.path.join(NODE_DIR, "bullmq_app.js"), url, "fw-bullmq")



@pytest.fixture(scope="module")
def worker(bullmq, module_processes):
    proc = bullmq.start_worker(module_processes, "bullmq-worker")
    # BullMQ counts a worker by its named connection (CLIENT SETNAME, found in CLIENT LIST).
    assert wait_until(lambda: len(bullmq("workers")) == 1, 60, interval=0.2), \
        module_processes.logs()
    return proc


def events_seen(conn, kind, count):
    """What QueueEvents read from the event stream: `count` events of `kind`, by job id."""
    def seen():
        found = {}
        for entry in conn.lrange(EVENTS, 0, -1):
            event, job_id, detail = entry.split(":", 2)
            if event == kind:
                assert job_id not in found, f"{kind} event for job {job_id} read twice"
                found[job_id] = detail
        return found if len(found) >= count else None
    return wait_until(seen, 60, interval=0.05)


def test_add_bulk_every_job_runs_once_with_its_result(worker, bullmq, conn, module_processes):
    ids = bullmq("bulk", JOBS)
    assert len(set(ids)) == JOBS
    completed = events_seen(conn, "completed", JOBS)
    assert completed == {job_id: str(2 * i) for i, job_id in enumerate(ids)}, \
        module_processes.logs()
    assert ran_records(conn, RAN) == {job_id: i for i, job_id in enumerate(ids)}
    assert bullmq("state")["returned"] == {job_id: 2 * i for i, job_id in enumerate(ids)}


def test_a_failing_job_is_failed_with_its_reason(worker, bullmq, conn, module_processes):
    job_id = bullmq("fail", 7)
    assert events_seen(conn, "failed", 1) == {job_id: "job failed on purpose: 7"}, \
        module_processes.logs()
    assert bullmq("state")["failed"] == {job_id: "job failed on purpose: 7"}


def test_a_delayed_job_runs_once_it_is_due(worker, bullmq, conn, module_processes):
    job = bullmq("delay", 500, 9)
    assert events_seen(conn, "completed", JOBS + 1), module_processes.logs()
    state = bullmq("state")
    assert state["returned"][job["id"]] == 18 and ran_records(conn, RAN)[job["id"]] == 9
    assert state["delayed_ran"][job["id"]] >= job["due"]  # never before it was due


def test_job_counts_agree_with_what_ran(worker, bullmq):
    counts = bullmq("state")["counts"]
    assert counts["completed"] == JOBS + 1 and counts["failed"] == 1
    assert {kind: n for kind, n in counts.items() if kind not in ("completed", "failed")} == \
        dict.fromkeys(counts.keys() - {"completed", "failed"}, 0)


def test_sigterm_closes_the_worker_cleanly(worker, bullmq, module_processes):
    os.kill(worker.pid, signal.SIGTERM)  # bullmq_app.js: Worker and QueueEvents close(), exit 0
    assert wait_until(lambda: worker.poll() is not None, 60), module_processes.logs()
    assert worker.returncode == 0, module_processes.logs()
    assert wait_until(lambda: bullmq("workers") == [], 30), "its connections are still open"
