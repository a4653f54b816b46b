"""The job functions test_rq.py enqueues; RQ's work horses import them by name (rq_jobs.square),
so this module sits on the workers' PYTHONPATH (conftest.Processes puts this directory there)."""

from rq import get_current_job

RAN = "rq-test:ran"


def square(n):
    """Records its own run (job id) so the test can prove every job ran exactly once."""
    job = get_current_job()
    job.connection.rpush(RAN, job.id)
    return n * n


def fail(n):
    job = get_current_job()
    job.connection.rpush(RAN, job.id)
    raise ValueError(f"rq-test failure {n}")
