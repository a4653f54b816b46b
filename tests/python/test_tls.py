"""TLS (tls-port and the tls-* options) with real clients: redis-cli, redis-benchmark and
redis-py `ssl=True`, on certificates made by the test (tests/support/make-test-certs.sh).
python.against_redis runs the same tests on redis-server 7.0.15 (Debian's is built with TLS).
"""

import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading

import pytest
import redis

from listd_testing import ListdServer
from listd_testing.server import free_port, listd_binary
from listd_testing.tls import cli_tls_args, make_certs, start_tls_server, tls_client
from listd_testing.wait import scaled, wait_until

UPDATE_FAILED = ("CONFIG SET failed (possibly related to argument '{}') - Unable to update TLS "
                 "configuration. Check server logs.")


@pytest.fixture(scope="module")
def certs():
    directory = tempfile.mkdtemp(prefix="listd-tls-certs-")
    yield make_certs(directory)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def tls_server(certs):
    srv = start_tls_server(certs)
    yield srv
    srv.close()


@pytest.fixture
def plain(tls_server):
    client = redis.Redis(host="127.0.0.1", port=tls_server.port, decode_responses=True,
                         socket_timeout=10)
    client.flushall()
    client.config_set("tls-auth-clients", "yes")
    yield client
    client.config_set("tls-auth-clients", "yes")
    client.connection_pool.disconnect()


def test_redis_cli_ping_set_get_over_tls(tls_server, certs, plain):
    def cli(*args):
        out = subprocess.run(["redis-cli", "-p", str(tls_server.tls_port), *cli_tls_args(certs),
                              *args], capture_output=True, timeout=scaled(20), check=True)
        return out.stdout.decode().strip()

    assert cli("PING") == "PONG"
    assert cli("SET", "greeting", "hello over tls") == "OK"
    assert cli("GET", "greeting") == "hello over tls"
    assert plain.get("greeting") == "hello over tls"  # the same keyspace on both ports


def test_redis_py_client_certificate_as_tls_auth_clients_says(tls_server, certs, plain):
    with_cert = tls_client(tls_server.tls_port, certs, "client")
    assert with_cert.ping() is True
    with pytest.raises(redis.exceptions.ConnectionError):
        tls_client(tls_server.tls_port, certs, None).ping()  # yes: a certificate is required
    for mode in ("optional", "no"):
        plain.config_set("tls-auth-clients", mode)
        without = tls_client(tls_server.tls_port, certs, None)
        assert without.ping() is True
        without.connection_pool.disconnect()
    with_cert.connection_pool.disconnect()


def test_a_certificate_from_another_ca_is_refused_with_a_log_line(tls_server, certs, plain):
    plain.config_set("tls-auth-clients", "optional")  # even when a certificate is optional
    with pytest.raises(redis.exceptions.ConnectionError):
        tls_client(tls_server.tls_port, certs, "stranger").ping()
    assert wait_until(lambda: "Error accepting a client connection: error:" in
                      tls_server.log_text() and "certificate verify failed" in
                      tls_server.log_text()), tls_server.log_text()[-2000:]


def test_plaintext_on_the_tls_port_is_refused_and_harms_no_one(tls_server, certs, plain):
    kept = tls_client(tls_server.tls_port, certs)
    assert kept.set("k", "v") is True
    with socket.create_connection(("127.0.0.1", tls_server.tls_port), timeout=10) as s:
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        received = b""
        try:
            while True:  # until the server closes (bounded by the socket timeout)
                chunk = s.recv(4096)
                if not chunk:
                    break
                received += chunk
        except ConnectionResetError:
            pass
    assert b"PONG" not in received  # at most a TLS alert, never a reply
    assert wait_until(lambda: "wrong version number" in tls_server.log_text())
    assert kept.get("k") == "v"
    assert plain.ping() is True
    kept.connection_pool.disconnect()


def test_pipelined_large_replies_over_tls(tls_server, certs, plain):
    client = tls_client(tls_server.tls_port, certs, decode_responses=False)
    big = os.urandom(300_000)
    client.set("big", big)
    client.rpush("list", *[b"item-%d" % i + b"x" * 500 for i in range(2000)])
    pipe = client.pipeline(transaction=False)
    for _ in range(12):  # about 4 MB of replies, far more than a socket buffer takes at once
        pipe.get("big")
        pipe.lrange("list", 0, -1)
    replies = pipe.execute()
    assert all(r == big for r in replies[0::2])
    assert all(len(r) == 2000 and r[1999].startswith(b"item-1999") for r in replies[1::2])
    client.connection_pool.disconnect()


def test_brpop_on_tls_served_by_a_push_on_the_plaintext_port(tls_server, certs, plain):
    waiter = tls_client(tls_server.tls_port, certs, socket_timeout=30)
    waiter.client_setname("tls-waiter")
    result = {}
    thread = threading.Thread(target=lambda: result.update(v=waiter.brpop("jobs", timeout=20)))
    thread.start()
    assert wait_until(lambda: any(c.get("name") == "tls-waiter" and c.get("cmd") == "brpop"
                                  for c in plain.client_list()))
    plain.lpush("jobs", "job-1")
    thread.join(timeout=20)
    assert result.get("v") == ("jobs", "job-1")
    waiter.connection_pool.disconnect()


def test_redis_benchmark_runs_over_tls(tls_server, certs, plain):
    out = subprocess.run(["redis-benchmark", "-p", str(tls_server.tls_port), *cli_tls_args(certs),
                          "-n", "2000", "-c", "4", "-P", "8", "-t", "lpush,rpop", "-q"],
                         capture_output=True, timeout=scaled(60), check=True).stdout.decode()
    assert out.count("requests per second") == 2, out


def test_config_set_reloads_the_certificates_or_refuses(tls_server, certs, plain):
    with pytest.raises(redis.ResponseError) as e:
        plain.config_set("tls-cert-file", os.path.join(certs, "no-such.crt"))
    assert str(e.value) == UPDATE_FAILED.format("tls-cert-file")
    assert plain.config_get("tls-cert-file")["tls-cert-file"] == os.path.join(certs, "server.crt")
    assert wait_until(lambda: "Failed to load certificate: " in tls_server.log_text())
    with pytest.raises(redis.ResponseError) as e:
        plain.config_set("tls-protocols", "TLSv9")
    assert str(e.value) == UPDATE_FAILED.format("tls-protocols")
    # A valid change builds a new context; new connections use it.
    copy = os.path.join(certs, "server-copy.crt")
    shutil.copyfile(os.path.join(certs, "server.crt"), copy)
    assert plain.config_set("tls-cert-file", copy) is True
    assert plain.config_set("tls-protocols", "TLSv1.2") is True
    client = tls_client(tls_server.tls_port, certs)
    assert client.ping() is True
    assert client.connection_pool.get_connection("PING")._sock.version() == "TLSv1.2"
    assert plain.config_set("tls-protocols", "") is True
    assert plain.config_set("tls-cert-file", os.path.join(certs, "server.crt")) is True
    client.connection_pool.disconnect()


def test_tls_options_read_back_as_set(tls_server, certs, plain):
    got = plain.config_get("tls-*")
    assert got["tls-port"] == str(tls_server.tls_port)
    assert got["tls-ca-cert-file"] == os.path.join(certs, "ca.crt")
    assert got["tls-auth-clients"] == "yes"
    assert got["tls-session-caching"] == "yes"
    assert got["tls-session-cache-size"] == "20480"
    assert got["tls-replication"] == "no"
    with pytest.raises(redis.ResponseError) as e:
        plain.config_set("tls-auth-clients", "sometimes")
    assert "argument(s) must be one of the following: no, yes, optional" in str(e.value)


def run_server(args, timeout=20):
    """Runs the server binary to its exit (start-up refusals); returns (status, output)."""
    proc = subprocess.run([listd_binary(), *args], capture_output=True,
                          timeout=scaled(timeout), cwd=tempfile.gettempdir())
    return proc.returncode, (proc.stdout + proc.stderr).decode(errors="replace")


def test_a_bad_certificate_fails_the_start(certs):
    status, out = run_server(["--port", str(free_port()), "--tls-port", str(free_port()),
                              "--tls-cert-file", os.path.join(certs, "no-such.crt"),
                              "--tls-key-file", os.path.join(certs, "server.key"),
                              "--tls-ca-cert-file", os.path.join(certs, "ca.crt")])
    assert status == 1
    assert "Failed to load certificate: " + os.path.join(certs, "no-such.crt") in out
    assert "Failed to configure TLS. Check logs for more info." in out


def test_tls_port_alone_with_port_0(certs):
    tls_port = free_port()
    proc = subprocess.Popen([listd_binary(), "--port", "0", "--bind", "127.0.0.1",
                             "--tls-port", str(tls_port),
                             "--tls-cert-file", os.path.join(certs, "server.crt"),
                             "--tls-key-file", os.path.join(certs, "server.key"),
                             "--tls-ca-cert-file", os.path.join(certs, "ca.crt")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=tempfile.gettempdir())
    try:
        def pid_on_tls():
            try:
                client = tls_client(tls_port, certs, socket_timeout=2)
                info = client.info("server")
                client.connection_pool.disconnect()
                return info
            except (redis.exceptions.ConnectionError, ssl.SSLError, OSError):
                return None
        info = wait_until(pid_on_tls, timeout=20, interval=0.05)
        assert info and info["process_id"] == proc.pid, "no TLS listener on the port"
        assert info["tcp_port"] == tls_port  # Redis reports the TLS port when port is 0
    finally:
        proc.terminate()
        proc.wait(timeout=scaled(10))


class RedisTlsReplica(ListdServer):
    """redis-server 7.0 replicating from a TLS port (tls-replication yes), presenting
    `cert` as its client certificate: Redis uses tls-cert-file / tls-key-file for outgoing
    links when no tls-client-cert-file is set."""

    def __init__(self, certs, master_tls_port, cert="client"):
        super().__init__(["--replicaof", "127.0.0.1", str(master_tls_port), "--save", "",
                          "--appendonly", "no", "--tls-replication", "yes",
                          "--tls-cert-file", os.path.join(certs, cert + ".crt"),
                          "--tls-key-file", os.path.join(certs, cert + ".key"),
                          "--tls-ca-cert-file", os.path.join(certs, "ca.crt")],
                         binary="/usr/bin/redis-server")

    def _check_kind(self, fields):
        assert fields.get("redis_version", "").startswith("7.0."), fields


def test_a_redis_replica_syncs_over_tls_from_the_tls_port(certs):
    # Disk-based sync: Redis' own default (diskless, 5 s delay) would only slow its run.
    master = start_tls_server(certs, extra=["--repl-diskless-sync", "no"])
    replica = RedisTlsReplica(certs, master.tls_port)
    m = redis.Redis(port=master.port, decode_responses=True, socket_timeout=10)
    try:
        m.rpush("q", "a", "b")
        replica.start()
        r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=10)
        assert wait_until(lambda: r.lrange("q", 0, -1) == ["a", "b"], timeout=20)
        m.rpush("q", "c")  # then the stream, over the same TLS link
        assert wait_until(lambda: r.lrange("q", 0, -1) == ["a", "b", "c"], timeout=20)
        assert r.info("replication")["master_link_status"] == "up"
        assert m.info("replication")["connected_slaves"] == 1
        r.connection_pool.disconnect()
    finally:
        m.connection_pool.disconnect()
        replica.stop()
        replica.close()
        master.stop()
        master.close()
