"""A stock redis.conf loads, and the whole 7.0 option table answers as Redis' does.

Compared with a live redis-server 7.0.15 (the oracle, started here): the names CONFIG GET *
lists, CONFIG SET's reply and the CONFIG GET that follows for a sample of every option type,
and the lines CONFIG REWRITE writes. Debian's own /etc/redis/redis.conf (read as it is
installed: root or the redis group may read it) starts the server under test daemonized, as
the file says, with port, dir, pidfile and logfile overridden on the command line (its
`repl-diskless-sync yes` is taken as it is).
python.against_redis runs this module against redis-server itself: every expectation is Redis'.
"""

import os
import shutil
import subprocess

import pytest
import redis

from listd_testing import ListdServer, RedisServer, free_port, scaled, wait_until
from listd_testing.server import listd_binary, target

DEBIAN_CONF = "/etc/redis/redis.conf"


class RedisOracleOnFile(RedisServer):
    def __init__(self, conf):
        super().__init__()
        self.conf = conf

    def command(self, port):
        return [self.binary, self.conf, "--port", str(port), "--bind", "127.0.0.1", *self.args]


class ConfFileServer(ListdServer):
    """The server under test started on a config file (which must come first for Redis);
    with bind=False the file's own `bind` is used."""

    def __init__(self, conf, args=(), bind=True):
        super().__init__(args)
        self.conf = conf
        self.bind = bind

    def command(self, port):
        bind = ["--bind", "127.0.0.1"] if self.bind else []
        return [listd_binary(), self.conf, "--port", str(port), *bind, *self.args]


@pytest.fixture(scope="module")
def servers():
    oracle = RedisServer().start()
    tested = ListdServer().start()
    yield oracle, tested
    for srv in (tested, oracle):
        srv.stop()
        srv.close()


def client(srv):
    return redis.Redis(port=srv.port, decode_responses=True, socket_timeout=30)


def test_config_get_star_lists_the_names_redis_lists(servers):
    oracle, tested = servers
    expected = set(client(oracle).config_get("*"))
    got = set(client(tested).config_get("*"))
    assert len(expected) == 192  # Redis 7.0.15's table, aliases included
    # listd's own options (docs/COMPATIBILITY.md "Scripting", "Queue view", "The I/O backend",
    # "Synchronous replication"): the EVAL cache's bound, the queue view's HTTP port and its
    # statistics' key bound, the I/O backend, and synchronous replication.
    got -= {"script-cache-max-eval", "metrics-port", "queue-stats-max-keys", "io-backend",
            "sync-replicas", "sync-replicas-timeout"}
    assert got == expected, (sorted(expected - got), sorted(got - expected))


# One sample of each type: bool, int with bounds (signed and unsigned), memory, enum, string,
# octal / percent, multi-word, immutable; each a value Redis accepts and values it refuses.
SAMPLES = [
    ("rdbcompression", "no"), ("rdbcompression", "maybe"), ("lazyfree-lazy-expire", "YES"),
    ("activedefrag", "yes"),
    ("active-expire-effort", "11"), ("active-expire-effort", "0"), ("active-expire-effort", "x"),
    ("active-expire-effort", "7"), ("slave-priority", "50"), ("replica-priority", "-1"),
    ("set-max-intset-entries", "-5"), ("tracking-table-max-keys", "2000"),
    ("hash-max-listpack-value", "1kb"), ("hash-max-ziplist-value", "-1"),
    ("stream-node-max-bytes", "12x"), ("hll-sparse-max-bytes", "2k"),
    ("active-defrag-ignore-bytes", "0"), ("cluster-link-sendbuf-limit", "1gb"),
    ("repl-diskless-load", "swapdb"), ("repl-diskless-load", "maybe"),
    ("oom-score-adj", "relative"), ("acl-pubsub-default", "ALLCHANNELS"), ("loglevel", "loud"),
    ("cluster-announce-hostname", "bad_host!"), ("cluster-announce-hostname", "node-1.example"),
    ("ignore-warnings", "ARM64-COW-BUG"), ("proc-title-template", "{title} {port}"),
    ("proc-title-template", "{title} {bogus}"), ("proc-title-template", "{title"),
    ("masteruser", "replicator"), ("replica-announce-ip", ""),
    ("maxmemory-clients", "abc"), ("maxmemory-clients", "101%"), ("maxmemory-clients", "0"),
    ("maxmemory-clients", "10%"), ("maxmemory-clients", "2mb"), ("maxmemory-clients", "-1%"),
    ("maxmemory-clients", "0"),
    ("oom-score-adj-values", "0 100 900"), ("oom-score-adj-values", "1 2"),
    ("oom-score-adj-values", "0 0 3000"),
    ("latency-tracking-info-percentiles", "99.99 50"),
    ("latency-tracking-info-percentiles", "abc"), ("latency-tracking-info-percentiles", "101"),
    ("shutdown-on-sigterm", "save nosave"), ("shutdown-on-sigterm", "loud"),
    ("io-threads", "4"), ("cluster-enabled", "yes"), ("unixsocketperm", "700"),
    ("replicaof", "127.0.0.1 1"), ("no-such-option", "1"),
]


def set_then_get(conn, name, value):
    try:
        reply = conn.config_set(name, value)
    except redis.ResponseError as e:
        reply = str(e)
    return reply, conn.config_get(name)


def test_config_set_and_get_answer_as_redis(servers):
    oracle, tested = servers
    want, got = client(oracle), client(tested)
    for name, value in SAMPLES:
        assert set_then_get(got, name, value) == set_then_get(want, name, value), (name, value)


def test_config_rewrite_keeps_comments_and_writes_redis_lines(tmp_path):
    lines = {}
    for kind in ("oracle", "tested"):
        conf = tmp_path / f"{kind}.conf"
        conf.write_text("# kept comment\nhash-max-listpack-value 64\nrdbcompression yes\n")
        srv = (RedisOracleOnFile if kind == "oracle" else ConfFileServer)(str(conf)).start()
        try:
            conn = client(srv)
            assert conn.config_set("hash-max-listpack-value", "1kb")
            assert conn.config_set("rdbcompression", "no")
            assert conn.config_set("replica-priority", "7")
            assert conn.config_set("oom-score-adj-values", "0 100 800")
            assert conn.config_rewrite()
            lines[kind] = conf.read_text().splitlines()
        finally:
            srv.stop()
            srv.close()
    for kind, text in lines.items():
        assert text[:3] == ["# kept comment", "hash-max-listpack-value 1kb", "rdbcompression no"]
        for line in ("replica-priority 7", "oom-score-adj-values 0 100 800"):
            assert line in text, (kind, text)


def test_debian_redis_conf_starts_the_server(tmp_path):
    assert os.access(DEBIAN_CONF, os.R_OK), \
        f"{DEBIAN_CONF} (package redis-server) must be readable: run as root or group redis"
    conf = tmp_path / "redis.conf"
    shutil.copyfile(DEBIAN_CONF, conf)
    # The file's own `daemonize yes`: the started process exits, the daemon writes the pidfile
    # (moved, with the log and dir, into tmp_path: /run/redis and /var/log/redis are the
    # package's) and answers on the port.
    pidfile, log = tmp_path / "redis.pid", tmp_path / "redis.log"
    port = free_port()
    launcher = subprocess.run(
        [listd_binary(), str(conf), "--port", str(port), "--dir", str(tmp_path),
         "--pidfile", str(pidfile), "--logfile", str(log), "--io-threads", "2"], stdin=subprocess.DEVNULL, capture_output=True,
        timeout=scaled(30), cwd=tmp_path)
    assert launcher.returncode == 0, launcher.stderr
    assert wait_until(pidfile.exists), log.read_text() if log.exists() else "no log"
    conn = redis.Redis(port=port, decode_responses=True, socket_timeout=30)
    try:
        assert wait_until(lambda: answers(conn)), log.read_text()
        assert conn.info("server")["process_id"] == int(pidfile.read_text())
        # The file's `bind 127.0.0.1 -::1`: the IPv6 address is optional ('-').
        assert conn.config_get("bind") == {"bind": "127.0.0.1 -::1"}
        assert conn.config_get("daemonize") == {"daemonize": "yes"}
        # Values of the file, and the command line's overrides, as CONFIG GET reports them.
        assert conn.config_get("proc-title-template") == {
            "proc-title-template": "{title} {listen-addr} {server-mode}"}
        assert conn.config_get("dir") == {"dir": str(tmp_path)}
        assert conn.config_get("hash-max-ziplist-entries") == {"hash-max-ziplist-entries": "512"}
        assert conn.config_get("io-threads") == {"io-threads": "2"}
        assert conn.config_get("repl-diskless-sync") == {"repl-diskless-sync": "yes"}
        assert conn.config_get("client-output-buffer-limit") == {
            "client-output-buffer-limit":
                "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"}
        if target() == "listd":  # the inert option set away from its default is named once
            notice = "Option 'io-threads' is set to '2', but listd does not act on it"
            assert wait_until(lambda: log.read_text().count(notice) == 1), log.read_text()
    finally:
        try:
            conn.shutdown(nosave=True)
        except redis.exceptions.ConnectionError:
            pass  # closed as it exited
    assert wait_until(lambda: not pidfile.exists()), "the daemon did not remove its pidfile"


def answers(conn):
    try:
        return conn.ping()
    except redis.exceptions.ConnectionError:
        return False


def test_an_optional_bind_address_the_host_lacks_is_skipped():
    # 10.255.255.1 is not an address of this host: with '-' it is skipped (EADDRNOTAVAIL).
    srv = ListdServer(["--bind", "127.0.0.1 -10.255.255.1"]).start()
    try:
        conn = client(srv)
        assert conn.ping() is True
        assert conn.config_get("bind") == {"bind": "127.0.0.1 -10.255.255.1"}
    finally:
        srv.stop()
        srv.close()
