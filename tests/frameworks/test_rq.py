"""RQ 1.13 (Debian python3-rq) against a real server, with RQ's real `rq worker` processes and
default settings (a forked work horse per job). Runs against listd and, as
frameworks.against_redis, against redis-server 7.0.15.

On a server that reports version 5 or later RQ 1.13 keeps job results in streams: the work horse
writes `XADD rq:results:<id> MAXLEN ~ 10 * type ... return_value ...`, `job.result` reads
`XREVRANGE rq:results:<id> + - COUNT 1` and `Result.count` is XLEN. Every check asserts on
results and on RQ's own state (queues, registries, results), never on the workers' logs.
"""

import calendar
import sys
import time
import warnings
from datetime import timedelta

import pytest
import redis
import rq_jobs
from listd_testing import wait_until
from rq import Queue, Worker
from rq.command import send_shutdown_command
from rq.job import JobStatus
from rq.registry import FailedJobRegistry, FinishedJobRegistry, ScheduledJobRegistry
from rq.results import Result

JOBS = 200


@pytest.fixture
def url(server):
    return f"redis://127.0.0.1:{server.port}/0"


@pytest.fixture
def conn(url):
    c = redis.Redis.from_url(url, socket_timeout=30)
    yield c
    c.connection_pool.disconnect()


def run_burst_workers(processes, url, count, *extra):
    """Starts `count` `rq worker --burst` processes and waits until each has drained the queue and
    exited; a burst worker that meets an unhandled error also exits 0, so callers check state."""
    workers = [processes.start(f"rq-burst-{i}", [sys.executable, "/usr/bin/rq", "worker", "--burst",
                                                 "--url", url, *extra, "default"])
               for i in range(count)]
    assert wait_until(lambda: all(w.poll() is not None for w in workers), 60, interval=0.05), \
        processes.logs()
    assert [w.returncode for w in workers] == [0] * count, processes.logs()


def ran_ids(conn):
    ids = [i.decode() for i in conn.lrange(rq_jobs.RAN, 0, -1)]
    assert len(ids) == len(set(ids)), "a job ran twice"
    return set(ids)


def test_burst_workers_run_every_job_once_with_its_result(conn, url, processes):
    queue = Queue("default", connection=conn)
    jobs = [queue.enqueue(rq_jobs.square, n) for n in range(JOBS)]
    failing = queue.enqueue(rq_jobs.fail, 7)
    assert queue.count == JOBS + 1

    run_burst_workers(processes, url, 2)

    assert queue.count == 0, processes.logs()
    assert ran_ids(conn) == {j.id for j in jobs} | {failing.id}, processes.logs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # job.result: RQ 1.13 deprecates it
        for n, job in enumerate(jobs):
            job.refresh()
            assert job.get_status() == JobStatus.FINISHED
            assert job.result == n * n
            assert job.return_value() == n * n
            assert Result.count(job) == 1

    finished = FinishedJobRegistry(queue=queue)
    failed = FailedJobRegistry(queue=queue)
    assert set(finished.get_job_ids()) == {j.id for j in jobs}
    assert failed.get_job_ids() == [failing.id]
    assert failing.get_status() == JobStatus.FAILED
    latest = failing.latest_result()
    assert latest.type == Result.Type.FAILED
    assert "ValueError: rq-test failure 7" in latest.exc_string
    assert failing.return_value() is None


def test_enqueue_in_runs_once_due_on_a_worker_with_scheduler(conn, url, processes):
    queue = Queue("default", connection=conn)
    job = queue.enqueue_in(timedelta(seconds=1), rq_jobs.square, 12)
    scheduled = ScheduledJobRegistry(queue=queue)
    assert scheduled.get_job_ids() == [job.id]
    assert job.get_status() == JobStatus.SCHEDULED
    assert queue.count == 0

    # A burst worker's scheduler enqueues the jobs due when it starts: wait until this one is due
    # (its score is a whole UTC second), then start it.
    due_at = int(conn.zscore(scheduled.key, job.id))
    assert wait_until(lambda: calendar.timegm(time.gmtime()) > due_at, 10, interval=0.05)
    run_burst_workers(processes, url, 1, "--with-scheduler")

    assert scheduled.get_job_ids() == [], processes.logs()
    assert ran_ids(conn) == {job.id}, processes.logs()
    assert job.return_value(refresh=True) == 144
    assert FinishedJobRegistry(queue=queue).get_job_ids() == [job.id]


def test_send_shutdown_command_stops_a_listening_worker(server, processes):
    url = f"redis://127.0.0.1:{server.port}/0"
    conn = redis.Redis.from_url(url)
    worker = processes.start("rq-worker", [sys.executable, "/usr/bin/rq", "worker", "--url", url,
                                           "--name", "w1", "default"])

    # Subscribed, and idle: RQ subscribes before it installs its signal handlers, and a shutdown
    # command in between is a bare SIGINT ("Aborted!", status 1). It goes idle after them.
    def listening():
        names = [w.name for w in Worker.all(connection=conn)]
        subscribers = dict(conn.pubsub_numsub("rq:pubsub:w1"))
        idle = conn.hget("rq:worker:w1", "state") == b"idle"
        return names == ["w1"] and subscribers.get(b"rq:pubsub:w1") == 1 and idle

    assert wait_until(listening, 60), processes.logs()

    send_shutdown_command(conn, "w1")
    assert wait_until(lambda: worker.poll() is not None, 60), processes.logs()
    assert worker.returncode == 0, processes.logs()
    assert Worker.all(connection=conn) == [], processes.logs()
    assert "Received shutdown command" in processes.logs(), processes.logs()
    conn.connection_pool.disconnect()
