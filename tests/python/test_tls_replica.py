"""The replica side of TLS replication (tls-replication yes): a replica under test syncing from a
TLS listd master and from a TLS-only redis-server 7.0 master, the data compared after traffic;
tls-client-cert-file chosen over tls-cert-file; a master certificate from another CA refused with
a log line; a partial resync (+CONTINUE) over TLS after the link is cut. Certificates are made
by the test (tests/support/make-test-certs.sh). python.against_redis runs the same on Redis.
"""

import os
import shutil
import ssl
import subprocess
import tempfile

import pytest
import redis

from listd_testing import ListdServer
from listd_testing.server import REDIS_SERVER_BINARY, free_port
from listd_testing.tls import make_certs, start_tls_server, tls_client
from listd_testing.wait import scaled, wait_until


@pytest.fixture(scope="module")
def certs():
    directory = tempfile.mkdtemp(prefix="listd-tlsrepl-certs-")
    yield make_certs(directory)
    shutil.rmtree(directory, ignore_errors=True)


def tls_replica(certs, master_tls_port, cert="client", extra=()):
    """A replica under test of 127.0.0.1:master_tls_port over TLS, presenting `cert`."""
    return ListdServer(["--replicaof", "127.0.0.1", str(master_tls_port), "--save", "",
                        "--appendonly", "no", "--tls-replication", "yes",
                        "--tls-cert-file", os.path.join(certs, cert + ".crt"),
                        "--tls-key-file", os.path.join(certs, cert + ".key"),
                        "--tls-ca-cert-file", os.path.join(certs, "ca.crt"), *extra])


def snapshot(client):
    """Every key's type and value, for comparing master and replica."""
    out = {}
    for key in client.keys("*"):
        kind = client.type(key)
        if kind == "list":
            out[key] = (kind, client.lrange(key, 0, -1))
        elif kind == "string":
            out[key] = (kind, client.get(key))
        elif kind == "hash":
            out[key] = (kind, client.hgetall(key))
        else:
            out[key] = (kind, None)
    return out


def traffic(client, rounds=200):
    """Pushes, pops and overwrites: every kind of effect the stream carries for a queue."""
    for i in range(rounds):
        client.lpush("jobs", f"job-{i}", "x" * (i % 50))
        if i % 3 == 0:
            client.rpop("jobs")
        client.hset("stats", f"f{i % 7}", i)
        client.set(f"s{i % 11}", f"v{i}")
    client.rpoplpush("jobs", "done")
    client.delete("s3")


def synced(master, replica):
    return master.info("replication")["master_repl_offset"] == \
        replica.info("replication").get("slave_repl_offset") and \
        snapshot(master) == snapshot(replica)


def close_all(clients, servers):
    """The end of every test here: its clients' connections, then its servers."""
    for client in clients:
        client.connection_pool.disconnect()
    for server in servers:
        server.close()


def test_a_replica_syncs_over_tls_from_a_listd_master_and_follows_the_stream(certs):
    master = start_tls_server(certs, extra=["--repl-diskless-sync", "no"])
    m = redis.Redis(port=master.port, decode_responses=True, socket_timeout=10)
    m.rpush("before", *[f"e{i}" for i in range(1000)])  # the full sync's RDB carries these
    replica = tls_replica(certs, master.tls_port).start()
    r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=10)
    try:
        assert wait_until(lambda: r.llen("before") == 1000, timeout=scaled(20)), \
            replica.log_text()[-2000:]
        traffic(m)
        assert wait_until(lambda: synced(m, r), timeout=scaled(20)), replica.log_text()[-2000:]
        assert r.info("replication")["master_link_status"] == "up"
        assert "MASTER <-> REPLICA sync: Finished with success" in replica.log_text()
        assert m.info("replication")["connected_slaves"] == 1
    finally:
        close_all((r, m), (replica, master))


def test_tls_client_cert_file_is_presented_instead_of_tls_cert_file(certs):
    # The master requires a certificate from its CA: "stranger" (another CA's) as tls-cert-file
    # would be refused, so the sync succeeds only if tls-client-cert-file/key-file are used.
    master = start_tls_server(certs, extra=["--repl-diskless-sync", "no"])
    m = redis.Redis(port=master.port, decode_responses=True, socket_timeout=10)
    m.rpush("q", "a", "b")
    replica = tls_replica(certs, master.tls_port, cert="stranger", extra=[
        "--tls-client-cert-file", os.path.join(certs, "client.crt"),
        "--tls-client-key-file", os.path.join(certs, "client.key")]).start()
    r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=10)
    try:
        assert wait_until(lambda: r.lrange("q", 0, -1) == ["a", "b"], timeout=scaled(20)), \
            replica.log_text()[-2000:]
        assert r.config_get("tls-client-cert-file")["tls-client-cert-file"].endswith("client.crt")
    finally:
        close_all((r, m), (replica, master))


def test_a_master_certificate_from_another_ca_is_refused_with_a_log_line(certs):
    master = start_tls_server(certs, extra=["--tls-cert-file",
                                            os.path.join(certs, "stranger.crt"),
                                            "--tls-key-file", os.path.join(certs, "stranger.key")])
    m = redis.Redis(port=master.port, decode_responses=True, socket_timeout=10)
    m.set("secret", "not for an unverified link")
    replica = tls_replica(certs, master.tls_port).start()
    r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=10)
    try:
        assert wait_until(lambda: "Error condition on socket for SYNC: error:" in
                          replica.log_text() and "certificate verify failed" in
                          replica.log_text(), timeout=scaled(20)), replica.log_text()[-2000:]
        assert r.info("replication")["master_link_status"] == "down"
        assert r.get("secret") is None
    finally:
        close_all((r, m), (replica, master))


def test_a_cut_link_resumes_with_a_partial_resync_over_tls(certs):
    master = start_tls_server(certs, extra=["--repl-diskless-sync", "no"])
    m = redis.Redis(port=master.port, decode_responses=True, socket_timeout=10)
    replica = tls_replica(certs, master.tls_port).start()
    r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=10)
    try:
        traffic(m, rounds=50)
        assert wait_until(lambda: synced(m, r), timeout=scaled(20)), replica.log_text()[-2000:]
        assert r.client_kill_filter(_type="master") == 1
        assert wait_until(lambda: m.info("stats")["sync_partial_ok"] == 1, timeout=scaled(20)), \
            replica.log_text()[-2000:]
        traffic(m, rounds=50)
        assert wait_until(lambda: synced(m, r), timeout=scaled(20)), replica.log_text()[-2000:]
        assert "Successful partial resynchronization with master." in replica.log_text()
        assert m.info("stats")["sync_full"] == 1  # only the first sync was a full one
    finally:
        close_all((r, m), (replica, master))


class RedisTlsOnlyMaster:
    """redis-server 7.0 with a TLS port and no plaintext one (--port 0)."""

    def __init__(self, certs, attempts=5):
        self.certs = certs
        self.workdir = tempfile.mkdtemp(prefix="listd-tlsrepl-redis-")
        for _ in range(attempts):
            self.tls_port = free_port()
            self.proc = subprocess.Popen(
                [REDIS_SERVER_BINARY, "--port", "0", "--tls-port", str(self.tls_port),
                 "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--repl-diskless-sync", "no",
                 "--tls-cert-file", os.path.join(certs, "server.crt"),
                 "--tls-key-file", os.path.join(certs, "server.key"),
                 "--tls-ca-cert-file", os.path.join(certs, "ca.crt")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.workdir)
            if wait_until(self._answers, timeout=scaled(20), interval=0.05):
                return
            self.close()
        raise RuntimeError("redis-server did not start on a TLS port")

    def _answers(self):
        if self.proc.poll() is not None:
            return True  # exited: the port was taken (checked below)
        try:
            client = self.client()
            info = client.info("server")
            client.connection_pool.disconnect()
            return info["process_id"] == self.proc.pid
        except (redis.exceptions.ConnectionError, ssl.SSLError, OSError):
            return False

    def client(self):
        return tls_client(self.tls_port, self.certs)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=scaled(10))
        shutil.rmtree(self.workdir, ignore_errors=True)


def test_a_replica_syncs_over_tls_from_a_tls_only_redis_master(certs):
    master = RedisTlsOnlyMaster(certs)
    assert master.proc.poll() is None
    m = master.client()
    m.rpush("before", *[f"e{i}" for i in range(500)])
    # Started without TLS: CONFIG SET tls-replication acts on the next connection.
    replica = ListdServer(["--save", "", "--appendonly", "no",
                           "--tls-cert-file", os.path.join(certs, "client.crt"),
                           "--tls-key-file", os.path.join(certs, "client.key"),
                           "--tls-ca-cert-file", os.path.join(certs, "ca.crt")]).start()
    r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=10)
    try:
        assert r.config_set("tls-replication", "yes") is True
        assert r.config_get("tls-replication") == {"tls-replication": "yes"}
        r.replicaof("127.0.0.1", master.tls_port)
        assert wait_until(lambda: r.llen("before") == 500, timeout=scaled(20)), \
            replica.log_text()[-2000:]
        traffic(m)
        assert wait_until(lambda: synced(m, r), timeout=scaled(20)), replica.log_text()[-2000:]
        assert r.info("replication")["master_link_status"] == "up"
    finally:
        close_all((r, m), (replica, master))
