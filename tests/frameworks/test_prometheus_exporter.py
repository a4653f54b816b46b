"""prometheus-redis-exporter 1.45 (Debian), the exporter Grafana's Redis dashboards read, scraping
a real server: /metrics answers with `redis_up 1` and no scrape error, and the metrics a
work-queue operator reads are true (a list's length through --check-keys, an HLL's count through
the PFCOUNT it sends for string keys, clients, commands, errors by code, latency percentiles,
the slow log and the latency monitor). Against listd, a second check scrapes a redis-server
7.0.15 holding the same data: every metric name Redis gets, listd gets too, but for the names
docs/COMPATIBILITY.md lists as not applicable (NOT_APPLICABLE below, with the reason). Runs
against listd and, as frameworks.against_redis, against redis-server.
"""

import os
import re
import shutil
import subprocess
import tempfile
import urllib.request

import pytest
import redis
from listd_testing import free_port, scaled, target, wait_until

EXPORTER = "/usr/bin/prometheus-redis-exporter"
CHECK_KEYS = "queue:*,visitors,greeting"

# Metric names a redis-server 7.0.15 yields and listd does not, each with its reason (the same
# list is in docs/COMPATIBILITY.md, "Monitoring").
NOT_APPLICABLE = {
    # jemalloc's figures: listd uses glibc malloc, which has no arena-level active/resident split.
    "redis_allocator_active_bytes": "jemalloc only",
    "redis_allocator_allocated_bytes": "jemalloc only",
    "redis_allocator_frag_bytes": "jemalloc only",
    "redis_allocator_frag_ratio": "jemalloc only",
    "redis_allocator_resident_bytes": "jemalloc only",
    "redis_allocator_rss_bytes": "jemalloc only",
    "redis_allocator_rss_ratio": "jemalloc only",
    # CONFIG GET io-threads: listd has no I/O threads and no such option.
    # Per-class client memory and the eviction-exempt memory are not broken down by listd.
    "redis_mem_clients_normal": "not measured",
    "redis_mem_clients_slaves": "not measured",
    "redis_mem_not_counted_for_eviction_bytes": "not measured",
}


def load_data(c):
    """The same data on either server: a queue of 5 jobs, an HLL of 100 visitors, a string,
    two WRONGTYPE errors, every command in the slow log, and a latency spike over a 1 ms
    threshold (a script counting to 3,000,000 runs for well over a millisecond anywhere)."""
    c.config_set("slowlog-log-slower-than", 0)
    c.rpush("queue:jobs", *[f"job-{i}" for i in range(5)])
    c.pfadd("visitors", *[f"user-{i}" for i in range(100)])
    c.set("greeting", "hello")
    for _ in range(2):
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            c.get("queue:jobs")
    c.config_set("latency-monitor-threshold", 1)
    c.eval("local i = 0 while i < 3000000 do i = i + 1 end", 0)


class Exporter:
    """One exporter process scraping `port`; its web port is checked to be its own by the
    redis_up line of a scrape (a port taken meanwhile makes it exit: another port is tried)."""

    def __init__(self, port, tmp_path):
        self.log_path = tmp_path / f"exporter-{port}.log"
        self.proc = None
        for _ in range(5):
            self.web_port = free_port()
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    [EXPORTER, "-redis.addr", f"redis://127.0.0.1:{port}",
                     "-web.listen-address", f"127.0.0.1:{self.web_port}",
                     "-check-keys", CHECK_KEYS, "-redis-only-metrics"],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            if wait_until(lambda: self.proc.poll() is not None or self._answers(),
                          timeout=scaled(10)) and self.proc.poll() is None:
                return
            self.stop()
        raise RuntimeError(f"the exporter did not start: {self.log()}")

    def _answers(self):
        try:
            return "redis_up" in self.scrape_text()
        except OSError:
            return False

    def scrape_text(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.web_port}/metrics",
                                    timeout=scaled(10)) as resp:
            return resp.read().decode()

    def scrape(self):
        """{'name{labels}': value} of one scrape."""
        samples = {}
        for line in self.scrape_text().splitlines():
            if line and not line.startswith("#"):
                key, value = line.rsplit(" ", 1)
                samples[key] = float(value)
        return samples

    def log(self):
        return self.log_path.read_text(errors="replace")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=scaled(10))


def names(samples):
    return {re.sub(r"\{.*", "", k) for k in samples if k.startswith("redis_")}


@pytest.fixture
def exporter_for(tmp_path):
    started = []

    def start(port):
        started.append(Exporter(port, tmp_path))
        return started[-1]

    yield start
    for e in started:
        e.stop()


def test_the_exporter_reads_true_values(server, r, exporter_for):
    load_data(r)
    others = [redis.Redis(port=server.port) for _ in range(3)]
    for o in others:
        o.ping()
    exporter = exporter_for(server.port)
    # The start-up probe's scrape connection must be gone before the counted scrape.
    assert wait_until(lambda: r.info("clients")["connected_clients"] == 4, timeout=scaled(10))
    m = exporter.scrape()
    assert m["redis_up"] == 1, exporter.log()
    assert m['redis_exporter_last_scrape_error{err=""}'] == 0, exporter.log()
    assert "level=error" not in exporter.log()
    assert m['redis_key_size{db="db0",key="queue:jobs"}'] == 5
    # For a string key the exporter sends PFCOUNT first: an HLL reports its count.
    assert m['redis_key_size{db="db0",key="visitors"}'] == r.pfcount("visitors")
    assert m['redis_key_size{db="db0",key="greeting"}'] == 5
    assert m["redis_connected_clients"] == 5  # r, three others, and the exporter itself
    assert m['redis_commands_total{cmd="rpush"}'] == 1
    # Ours two, and the exporter's own PFCOUNT of the plain string "greeting".
    assert m['redis_errors_total{err="WRONGTYPE"}'] == 3
    assert m['redis_db_keys{db="db0"}'] == 3
    assert m["redis_commands_processed_total"] >= 10
    assert m['redis_latency_percentiles_usec{cmd="pfadd",quantile="50"}'] > 0
    assert m['redis_latency_spike_duration_seconds{event_name="command"}'] >= 0.001
    assert m["redis_slowlog_length"] >= 10
    for o in others:
        o.connection_pool.disconnect()


def start_redis_server(workdir):
    """A redis-server 7.0.15 on a free port, checked to be ours by its pid (bounded retries)."""
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen(["/usr/bin/redis-server", "--port", str(port), "--bind",
                                 "127.0.0.1", "--save", "", "--appendonly", "no"],
                                cwd=workdir, stdout=subprocess.DEVNULL,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        c = redis.Redis(port=port, socket_timeout=5)

        def ours():
            try:
                return c.info("server")["process_id"] == proc.pid
            except (redis.ConnectionError, redis.TimeoutError):
                return False

        if wait_until(lambda: proc.poll() is not None or ours(), timeout=scaled(10)) and ours():
            return proc, c
        proc.kill()
        proc.wait()
    raise RuntimeError("redis-server did not start")


def test_every_metric_redis_gets_listd_gets_unless_documented(server, r, exporter_for):
    """Against redis (frameworks.against_redis) the server under test is a redis-server too, and
    nothing may be missing: the comparison itself is checked."""
    workdir = tempfile.mkdtemp(prefix="exporter-redis-")
    proc, theirs = start_redis_server(workdir)
    try:
        load_data(r)
        load_data(theirs)
        ours_m = exporter_for(server.port).scrape()
        theirs_m = exporter_for(theirs.connection_pool.connection_kwargs["port"]).scrape()
        missing = names(theirs_m) - names(ours_m)
        expected = set(NOT_APPLICABLE) if target() == "listd" else set()
        assert missing == expected, sorted(missing ^ expected)
        assert ours_m["redis_up"] == 1
    finally:
        theirs.connection_pool.disconnect()
        proc.terminate()
        proc.wait(timeout=scaled(10))
        shutil.rmtree(workdir, ignore_errors=True)
