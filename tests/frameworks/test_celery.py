"""Celery 5.2.6 + kombu 5.2.4 (Debian python3-celery) against a real server: two real
`celery worker` processes (prefork pool, default settings) consume from the redis broker and
store results in the redis result backend; the client's `.get()` waits on the backend's
pub/sub channel `celery-task-meta-<id>`. The two workers serve every check of this file, in
order; the last two stop them (SIGTERM, then a remote-control shutdown). Runs against listd and,
as frameworks.against_redis, against redis-server 7.0.15, with the same expectations.
"""

import gc
import os
import signal
import sys
import time

import pytest
from celery import chord, group
from listd_testing import scaled, wait_until

TASKS = 200
WORKERS = ["w0@listd-test", "w1@listd-test"]


@pytest.fixture(scope="module")
def url(module_server):
    return f"redis://127.0.0.1:{module_server.port}/0"


@pytest.fixture(scope="module")
def app(url):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FRAMEWORK_REDIS_URL", url)
        sys.modules.pop("celery_app", None)  # bound to this file's server
        import celery_app
        yield celery_app
        # A collected AsyncResult unsubscribes, retrying for 20 s if the server is gone: collect
        # the tests' results (cycles included) while it is up.
        gc.collect()
        consumer = getattr(celery_app.app.backend, "result_consumer", None)
        if consumer is not None:
            consumer.stop()  # its pub/sub connection, before the server goes away
        celery_app.app.close()


@pytest.fixture(scope="module")
def conn(app):
    return app._redis


@pytest.fixture(scope="module")
def workers(app, url, module_processes):
    """{node name: Popen}: both workers, up once they answer a broadcast ping."""
    procs = {}
    for i, name in enumerate(WORKERS):
        procs[name] = module_processes.start(
            f"celery-worker-{i}",
            [sys.executable, "-m", "celery", "-A", "celery_app", "worker", "-n", name,
             "--loglevel", "INFO", "--concurrency", "2"], env={"FRAMEWORK_REDIS_URL": url})
    seen = []

    def all_answer():  # pidbox: PUBLISH to the workers, replies by list
        seen[:] = app.app.control.ping(timeout=1.0)
        return len(seen) == len(WORKERS)

    assert wait_until(all_answer, 90), f"ping replies {seen}\n{module_processes.logs()}"
    return procs


def test_control_ping_answers_from_every_worker(app, workers):
    replies = app.app.control.ping(timeout=2.0)
    assert sorted(replies, key=lambda r: list(r)) == [{name: {"ok": "pong"}} for name in WORKERS]


def test_results_through_the_redis_backend_every_task_once(app, workers, conn, module_processes):
    results = [app.add.delay(i, i) for i in range(TASKS)]
    values = [res.get(timeout=scaled(120)) for res in results]
    assert values == [2 * i for i in range(TASKS)], module_processes.logs()
    ran = [v.decode() for v in conn.lrange("celery-test:ran", 0, -1)]
    assert sorted(ran) == sorted(res.id for res in results), module_processes.logs()
    assert all(res.state == "SUCCESS" for res in results)


def test_a_failing_task_reports_its_exception(app, workers):
    res = app.fail.delay(7)
    with pytest.raises(ValueError, match="task failed on purpose: 7"):
        res.get(timeout=scaled(120))
    assert res.state == "FAILURE"


def test_a_group_returns_every_result_in_order(app, workers):
    res = group(app.add.s(i, 1) for i in range(20))()
    assert res.get(timeout=scaled(120)) == [i + 1 for i in range(20)]
    assert res.successful() and res.completed_count() == 20


def test_a_chord_runs_its_callback_once_on_every_header_result(app, workers, conn):
    # The redis backend counts the header's results in the chord's key (INCR) and calls the body
    # from the worker that finishes the last one.
    res = chord(app.add.s(i, i) for i in range(10))(app.tsum.s())
    assert res.get(timeout=scaled(120)) == sum(2 * i for i in range(10))
    assert res.parent.get(timeout=scaled(120)) == [2 * i for i in range(10)]


def test_countdown_runs_the_task_no_earlier_than_due(app, workers):
    due = time.time() + 1.5
    res = app.stamp.apply_async(countdown=1.5)
    assert res.get(timeout=scaled(120)) >= due - 0.01  # the eta is computed from a later clock


def test_sigterm_is_a_warm_shutdown(app, workers, conn, module_processes):
    # The task in flight when SIGTERM arrives finishes, then the worker exits 0.
    res = app.hold.delay("celery-test:release")
    assert wait_until(lambda: conn.llen("celery-test:holding") == 1, 60), module_processes.logs()
    holder = conn.lindex("celery-test:holding", 0).decode()
    proc = workers[holder]
    os.kill(proc.pid, signal.SIGTERM)
    conn.rpush("celery-test:release", "go")
    assert res.get(timeout=scaled(120)) == "released"
    assert wait_until(lambda: proc.poll() is not None, 60), module_processes.logs()
    assert proc.returncode == 0, module_processes.logs()
    others = [name for name in WORKERS if name != holder]
    assert [next(iter(r)) for r in app.app.control.ping(timeout=2.0)] == others


def test_remote_control_shutdown_stops_the_remaining_worker(app, workers, module_processes):
    app.app.control.shutdown()  # broadcast over the pidbox (PUBLISH /0.celery.pidbox)
    exited = wait_until(lambda: all(p.poll() is not None for p in workers.values()), 60)
    assert exited, module_processes.logs()
    assert [p.returncode for p in workers.values()] == [0, 0], module_processes.logs()
