"""Sidekiq 6.4.1 + redis-rb 4.8 (Debian ruby-sidekiq, ruby-redis) against a real server: one real
`sidekiq` process (default settings: concurrency 10, queue "default"; sidekiq/sidekiq.yml only
makes the scheduled poller poll about once a second) serves every check of this file, in order.
Jobs are enqueued through Sidekiq's client API (sidekiq/client.rb, one ruby run per action) and
record each run in redis (sidekiq/jobs.rb); Sidekiq's own state is read through its API
(Sidekiq::Stats, ProcessSet, DeadSet). Runs against listd and, as frameworks.against_redis,
against redis-server 7.0.15, with the same expectations.

Sidekiq sends BRPOP, MULTI/EXEC, HMSET/HMGET, SSCAN, ZADD, UNLINK, ... and its scheduled poller
(perform_in, retries) runs a Lua ZPOPBYSCORE through SCRIPT LOAD + EVALSHA.
"""

import json
import os
import signal
import subprocess

import pytest
from listd_testing import scaled, wait_until

SIDEKIQ_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sidekiq")
JOBS = 300
RAN = "sidekiq-test:ran"
ATTEMPTS = "sidekiq-test:attempts"


class Client:
    """Runs sidekiq/client.rb actions against one server; each answers one JSON line."""

    def __init__(self, url):
        self.env = dict(os.environ, REDIS_URL=url)

    def __call__(self, *args):
        done = subprocess.run(["ruby", "client.rb", *map(str, args)], cwd=SIDEKIQ_DIR,
                              env=self.env, capture_output=True, text=True,
                              timeout=scaled(60))
        assert done.returncode == 0, f"client.rb {args}: {done.stdout}{done.stderr}"
        return json.loads(done.stdout.strip().splitlines()[-1])



@pytest.fixture(scope="module")
def client(url):
    return Client(url)



@pytest.fixture(scope="module")
def worker(url, module_processes, client):
    proc = module_processes.start("sidekiq", ["sidekiq", "-C", "sidekiq.yml", "-r", "./jobs.rb"],
                                  env={"REDIS_URL": url}, cwd=SIDEKIQ_DIR)

    def registered():  # the heartbeat: Sidekiq's process record, with its settings
        processes = client("state")["processes"]
        return processes if len(processes) == 1 else None

    processes = wait_until(registered, 60, interval=0.2)
    assert processes, module_processes.logs()
    assert processes[0]["pid"] == proc.pid
    assert processes[0]["concurrency"] == 10 and processes[0]["queues"] == ["default"]
    return proc


def ran_records(conn):
    """{jid: [fields after the jid]} of every successful run; a jid twice fails the check."""
    records = {}
    for entry in conn.lrange(RAN, 0, -1):
        jid, *fields = entry.split(":")
        assert jid not in records, f"job {jid} ran twice"
        records[jid] = fields
    return records


def test_perform_async_runs_every_job_exactly_once(worker, client, conn, module_processes):
    jids = client("async", JOBS)
    assert len(set(jids)) == JOBS
    assert wait_until(lambda: conn.llen(RAN) >= JOBS, 60, interval=0.05), module_processes.logs()
    records = ran_records(conn)
    assert records == {jid: [str(i)] for i, jid in enumerate(jids)}
    assert conn.llen("queue:default") == 0


def test_a_job_without_retries_reaches_the_dead_set(worker, client, conn, module_processes):
    jid = client("dead", 7)
    dead = wait_until(lambda: client("state")["dead"], 60, interval=0.2)
    assert dead == [jid], module_processes.logs()
    assert conn.hget(ATTEMPTS, jid) == "1"
    assert jid not in ran_records(conn)


def test_the_scheduled_poller_runs_perform_in_and_retries(worker, client, conn,
                                                           module_processes):
    # Both go through sorted sets (schedule, retry) that only the poller's Lua script empties.
    flaky = client("flaky", 9)
    later = client("in", 2)
    assert wait_until(lambda: {flaky, later} <= ran_records(conn).keys(), 60, interval=0.1), \
        module_processes.logs()
    records = ran_records(conn)
    assert records[flaky] == ["9"]
    assert conn.hget(ATTEMPTS, flaky) == "2"  # failed once, then its retry succeeded
    ran_at, due = map(float, records[later])
    assert ran_at >= due  # never before it was due


def test_stats_and_process_set_agree_with_what_ran(worker, client, module_processes):
    # processed counts every attempt: the plain jobs, the dead job, both flaky attempts, the
    # scheduled job; failed counts the two attempts that raised. The process adds its counts to
    # the totals at its heartbeat (every 5 s).
    state = wait_until(lambda: (s := client("state"))["processed"] >= JOBS + 4 and s, 30,
                       interval=0.5)
    assert state, module_processes.logs()
    assert state["processed"] == JOBS + 4
    assert state["failed"] == 2
    assert (state["dead_size"], state["retry_size"], state["scheduled_size"]) == (1, 0, 0)
    assert state["enqueued"] == 0 and state["queues"] == {"default": 0}
    assert state["processes_size"] == 1 and state["workers_size"] == 0
    assert [p["busy"] for p in state["processes"]] == [0]
    assert [p["pid"] for p in state["processes"]] == [worker.pid]


def test_term_stops_the_process_cleanly(worker, client, module_processes):
    os.kill(worker.pid, signal.SIGTERM)
    assert wait_until(lambda: worker.poll() is not None, 60), module_processes.logs()
    assert worker.returncode == 0, module_processes.logs()
    state = client("state")
    assert state["processes"] == [] and state["processes_size"] == 0  # its heartbeat removed
