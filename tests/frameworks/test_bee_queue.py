"""bee-queue 2.0.0 + node-redis 3.1 (npm, pinned in node/package-lock.json) against a real server:
one real worker process (node/bee_queue_app.js worker: Queue#process, activateDelayedJobs) serves
every check of this file, in order; the client saves jobs and waits for their outcome events
(bee-queue's pub/sub channel `bq:<queue>:events`). Runs against listd and, as
frameworks.against_redis, against redis-server 7.0.15.

bee-queue sends SCRIPT LOAD / SCRIPT EXISTS / EVALSHA, BRPOPLPUSH, MULTI/EXEC and SUBSCRIBE;
its scripts PUBLISH.
"""

import os
import signal

import pytest
from listd_testing import wait_until
from node_app import NODE_DIR, NodeApp

JOBS = 300
RAN = "bee-test:ran"



@pytest.fixture(scope="module")
def bee(url):
    return NodeApp(os.path.join(NODE_DIR, "bee_queue_app.js"), url, "fw-bee")



@pytest.fixture(scope="module")
def worker(bee, module_processes):
    # The client actions wait for the worker's events, so nothing waits for it to start.
    return bee.start_worker(module_processes, "bee-queue-worker")


def ran_records(conn):
    """{job id: (value, time it ran in ms)}; a job twice fails the check."""
    records = {}
    for entry in conn.lrange(RAN, 0, -1):
        job_id, value, ran_at = entry.split(":")
        assert job_id not in records, f"job {job_id} ran twice"
        records[job_id] = (int(value), int(ran_at))
    return records


def test_save_all_every_job_runs_once_with_its_result(worker, bee, conn):
    results = bee("bulk", JOBS)
    ids = list(results)
    assert len(ids) == JOBS
    assert results == {job_id: 2 * i for i, job_id in enumerate(ids)}
    assert {job_id: value for job_id, (value, _) in ran_records(conn).items()} == \
        {job_id: i for i, job_id in enumerate(ids)}


def test_a_failing_job_reports_its_error(worker, bee):
    job = bee("fail", 7)
    assert (job["event"], job["error"]) == ("failed", "job failed on purpose: 7")
    assert bee("state")["failed"] == [job["id"]]


def test_a_delayed_job_runs_once_it_is_due(worker, bee, conn):
    job = bee("delay", 500, 9)
    assert (job["event"], job["result"]) == ("succeeded", 18)
    value, ran_at = ran_records(conn)[job["id"]]
    assert value == 9 and ran_at >= job["due"]  # never before it was due


def test_health_counts_agree_with_what_ran(worker, bee):
    state = bee("state")
    assert state["health"] == {"waiting": 0, "active": 0, "succeeded": JOBS + 1, "failed": 1,
                               "delayed": 0, "newestJob": JOBS + 2}
    assert len(state["succeeded"]) == JOBS + 1


def test_sigterm_closes_the_worker_cleanly(worker, module_processes):
    os.kill(worker.pid, signal.SIGTERM)  # bee_queue_app.js: Queue#close(), then exit 0
    assert wait_until(lambda: worker.poll() is not None, 60), module_processes.logs()
    assert worker.returncode == 0, module_processes.logs()
