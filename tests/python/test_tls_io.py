"""TLS connections through the I/O layer's harder paths: input held back during the client's
own busy script, bulk arguments and pipelines larger than one receive, a slow reader over its
output-buffer limit, and a blocked client that disconnects. On io_uring listd's TLS bytes travel
by multishot receive and gathered sends (src/net/connection_stream.cpp); the epoll pass runs the
same file on the readiness path. python.against_redis runs it on redis-server 7.0.15.
"""

import os
import socket
import ssl

import pytest
import redis

from listd_testing.tls import start_tls_server, tls_client
from listd_testing.wait import scaled, wait_until
from test_tls import certs  # noqa: F401 (a module fixture: the test certificates)

BUSY_SCRIPT = "local i = 0 while true do i = i + 1 end"


@pytest.fixture(scope="module")
def tls_server(certs):
    srv = start_tls_server(certs, extra=["--busy-reply-threshold", "100"])
    yield srv
    srv.close()


@pytest.fixture
def plain(tls_server):
    client = redis.Redis(host="127.0.0.1", port=tls_server.port, decode_responses=True,
                         socket_timeout=10)
    client.flushall()
    yield client
    client.config_set("client-output-buffer-limit", "normal 0 0 0")
    client.connection_pool.disconnect()


def raw_tls(tls_server, certs):
    """A bare TLS socket with the test client certificate, to write requests byte for byte."""
    context = ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))
    context.check_hostname = False
    context.load_cert_chain(os.path.join(certs, "client.crt"), os.path.join(certs, "client.key"))
    sock = socket.create_connection(("127.0.0.1", tls_server.tls_port), timeout=scaled(20))
    return context.wrap_socket(sock)


def read_lines(sock, count):
    """The first `count` CRLF-terminated lines the server sends (simple replies only)."""
    data = b""
    while data.count(b"\r\n") < count:
        chunk = sock.recv(65536)
        assert chunk, f"closed after {data!r}"
        data += chunk
    return data.split(b"\r\n")[:count]


def test_input_sent_during_the_clients_own_busy_script_runs_after_it(tls_server, certs, plain):
    with raw_tls(tls_server, certs) as sock:
        script = BUSY_SCRIPT.encode()
        sock.sendall(b"*3\r\n$4\r\nEVAL\r\n$%d\r\n%s\r\n$1\r\n0\r\n" % (len(script), script))

        def busy():
            try:
                plain.ping()
                return False
            except redis.exceptions.BusyLoadingError:
                return False
            except redis.exceptions.ResponseError as e:
                return str(e).startswith("BUSY")

        assert wait_until(busy), "the script never went busy"
        # Arrives while the script runs: held back, and run once it has ended.
        sock.sendall(b"*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n*1\r\n$4\r\nPING\r\n")
        assert busy()  # still running: the ECHO did not end it
        plain.script_kill()
        lines = read_lines(sock, 4)
    assert lines[0].startswith(b"-ERR Script killed by user with SCRIPT KILL")
    assert lines[1:] == [b"$5", b"after", b"+PONG"]
    assert plain.ping() is True


def test_a_bulk_argument_and_a_pipeline_larger_than_one_receive(tls_server, certs, plain):
    client = tls_client(tls_server.tls_port, certs, decode_responses=False)
    big = os.urandom(3_000_000)  # hundreds of TLS records, many receives
    assert client.set("big", big) is True
    assert plain.strlen("big") == len(big)
    assert client.get("big") == big
    pipe = client.pipeline(transaction=False)
    for i in range(20_000):  # about 700 KB of requests in one write
        pipe.rpush("queue", b"task-%d" % i)
    replies = pipe.execute()
    assert replies == list(range(1, 20_001))
    assert plain.lindex("queue", 0) == "task-0"
    assert plain.lindex("queue", -1) == "task-19999"
    client.connection_pool.disconnect()


def test_a_slow_tls_reader_over_its_output_limit_is_closed(tls_server, certs, plain):
    plain.set("big", "x" * 100_000)
    plain.config_set("client-output-buffer-limit", "normal 1mb 0 0")
    plain.client_setname("observer")
    with raw_tls(tls_server, certs) as sock:
        request = b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"
        sock.sendall(b"*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$6\r\nslowrd\r\n")
        assert read_lines(sock, 1) == [b"+OK"]
        try:
            for _ in range(400):  # 40 MB of replies asked for, none read
                sock.sendall(request * 10)
        except OSError:
            pass  # the server closed it while we were still writing
        assert wait_until(lambda: not any(c.get("name") == "slowrd"
                                          for c in plain.client_list())), plain.client_list()
    assert plain.ping() is True
    assert plain.strlen("big") == 100_000


def test_a_blocked_tls_client_that_disconnects_is_never_served(tls_server, certs, plain):
    with raw_tls(tls_server, certs) as sock:
        sock.sendall(b"*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$6\r\nwaiter\r\n"
                     b"*3\r\n$5\r\nBRPOP\r\n$4\r\njobs\r\n$1\r\n0\r\n")
        assert read_lines(sock, 1) == [b"+OK"]
        assert wait_until(lambda: any(c.get("name") == "waiter" and c.get("cmd") == "brpop"
                                      for c in plain.client_list()))
    assert wait_until(lambda: not any(c.get("name") == "waiter" for c in plain.client_list()))
    plain.lpush("jobs", "job-1")
    assert plain.lrange("jobs", 0, -1) == ["job-1"]  # nobody took it
