"""Celery 5.2.6 + kombu 5.2.4 (Debian python3-celery) against a real server: two real
`celery worker` processes (prefork pool, default settings) consume from the redis broker and
store results in the redis result backend; the client's `.get()` waits on the backend's
pub/sub channel `celery-task-meta-<id>`. Runs against listd and, as frameworks.against_redis,
against redis-server 7.0.15, with the same expectations.
"""

import gc
import sys

import pytest
from listd_testing import scaled, wait_until

TASKS = 200


def start_workers(processes, url, count=2):
    env = {"FRAMEWORK_REDIS_URL": url}
    for i in range(count):
        processes.start(f"celery-worker-{i}",
                        [sys.executable, "-m", "celery", "-A", "celery_app", "worker",
                         "-n", f"w{i}@listd-test", "--loglevel", "INFO", "--concurrency", "2",
                         "--without-heartbeat"], env=env)


@pytest.fixture
def app(server, monkeypatch):
    url = f"redis://127.0.0.1:{server.port}/0"
    monkeypatch.setenv("FRAMEWORK_REDIS_URL", url)
    sys.modules.pop("celery_app", None)  # each test binds the app to its own server
    import celery_app
    yield celery_app
    consumer = getattr(celery_app.app.backend, "result_consumer", None)
    if consumer is not None:
        consumer.stop()  # its pub/sub connection, before the server goes away
    celery_app.app.close()


def forget_pending(results):
    """Drops the results while the server is up: an AsyncResult unsubscribes when collected."""
    results.clear()
    gc.collect()


def wait_for_workers(app, processes, count=2):
    """Both workers answer a broadcast ping (pidbox: PUBLISH to the workers, replies by list)."""
    seen = []

    def all_answer():
        seen[:] = app.app.control.ping(timeout=1.0)
        return len(seen) == count

    assert wait_until(all_answer, 90), f"ping replies {seen}\n{processes.logs()}"


def test_results_through_the_redis_backend_every_task_once(app, server, processes, r):
    start_workers(processes, f"redis://127.0.0.1:{server.port}/0")
    wait_for_workers(app, processes)

    results = [app.add.delay(i, i) for i in range(TASKS)]
    values = [res.get(timeout=scaled(120)) for res in results]
    assert values == [2 * i for i in range(TASKS)], processes.logs()

    ran = r.lrange("celery-test:ran", 0, -1)
    assert sorted(ran) == sorted(res.id for res in results), processes.logs()
    assert all(res.state == "SUCCESS" for res in results)
    forget_pending(results)


def test_a_failing_task_reports_its_exception(app, server, processes):
    start_workers(processes, f"redis://127.0.0.1:{server.port}/0", count=1)
    wait_for_workers(app, processes, count=1)
    res = app.fail.delay(7)
    with pytest.raises(ValueError, match="task failed on purpose: 7"):
        res.get(timeout=scaled(120))
    assert res.state == "FAILURE"
    del res
    gc.collect()  # while the server is up: a collected AsyncResult unsubscribes


def test_remote_control_shutdown_stops_the_workers(app, server, processes):
    start_workers(processes, f"redis://127.0.0.1:{server.port}/0")
    wait_for_workers(app, processes)
    app.app.control.shutdown()  # broadcast over the pidbox (PUBLISH /0.celery.pidbox)
    exited = wait_until(lambda: all(p.poll() is not None for _, p, _ in processes.procs), 60)
    assert exited, processes.logs()
    assert [p.returncode for _, p, _ in processes.procs] == [0, 0], processes.logs()
