"""RQ 1.13 (Debian python3-rq) against a real server: a real `rq worker` process (default
settings) registers itself, listens for commands on its pub/sub channel `rq:pubsub:<name>`, and
stops when `send_shutdown_command` publishes to it. Runs against listd and, as
frameworks.against_redis, against redis-server 7.0.15.

(RQ 1.13 stores job results in streams on a server that reports version 5 or later, so running
jobs needs XADD/XREVRANGE: those checks belong with the streams work.)
"""

import sys

import redis
from listd_testing import wait_until
from rq import Worker
from rq.command import send_shutdown_command


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
