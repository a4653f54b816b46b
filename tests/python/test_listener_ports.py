"""CONFIG SET port / tls-port / bind at run time (issues 18 and 21): the listener moves to the
new port, the old one stops answering, connected clients stay connected; tls-port 0 closes the
TLS listener and a tls-port set when none was open opens one; a port that cannot be bound gives
Redis' error and changes nothing; a new bind listens again on both ports, an address the host
lacks is refused (the old addresses listen again) unless it is optional ('-'); a CONFIG SET of
several pairs is all or none. INFO's tcp_port and CONFIG REWRITE follow. python.against_redis
runs the same tests on redis-server 7.0.15.

Ports come from free_port(); one another process may take between our pick and the server's
bind is picked again (a bounded number of times), and a port is "held" by a socket of ours
that listens on it.
"""

import os
import shutil
import socket
import tempfile

import pytest

from listd_testing import ListdServer, RawConn, encode, free_port, parse_info
from listd_testing.tls import make_certs, tls_client

ATTEMPTS = 5  # fresh ports tried before a test gives up
LISTEN_FAILED = (b"-ERR CONFIG SET failed (possibly related to argument '%s') - Unable to listen "
                 b"on this port. Check server logs.\r\n")
BIND_FAILED = (b"-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind "
               b"to specified addresses.\r\n")
ABSENT = "192.0.2.1"  # TEST-NET-1: not an address of this host, so binding it fails at once
TLS_FAILED = (b"-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to "
              b"update TLS configuration. Check server logs.\r\n")


@pytest.fixture(scope="module")
def certs():
    directory = tempfile.mkdtemp(prefix="listd-ports-certs-")
    yield make_certs(directory)
    shutil.rmtree(directory, ignore_errors=True)


def cert_args(certs):
    """The certificate options without a tls-port: TLS configured but no TLS listener."""
    return ["--tls-cert-file", os.path.join(certs, "server.crt"),
            "--tls-key-file", os.path.join(certs, "server.key"),
            "--tls-ca-cert-file", os.path.join(certs, "ca.crt")]


@pytest.fixture
def server():
    srv = ListdServer().start()
    yield srv
    srv.close()


@pytest.fixture
def tls_ready(certs):
    srv = ListdServer(cert_args(certs)).start()
    yield srv
    srv.close()


def config_get(conn, name):
    reply = conn.call("CONFIG", "GET", name)
    return reply.split(b"\r\n")[4].decode()  # *2, $len, name, $len, value


def tcp_port(conn):
    return parse_info(conn.call("INFO", "server"))["tcp_port"]


def refuses(port):
    """True when nothing listens on 127.0.0.1:`port` (the connection is refused)."""
    with socket.socket() as s:
        try:
            s.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
    return False


def answers_ping(port):
    with RawConn(port) as c:
        return c.call("PING") == b"+PONG\r\n"


def hold_port():
    """A listening socket of ours on a free port: (socket, port)."""
    for _ in range(ATTEMPTS):
        port = free_port()
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
            return s, port
        except OSError:
            s.close()  # taken since free_port() looked: another one
    raise RuntimeError(f"no port could be held in {ATTEMPTS} attempts")


def move(conn, *names):
    """CONFIG SET each of `names` to a fresh free port in one command; the ports set. A port
    taken in the meantime fails the whole command (nothing changes): then fresh ones again."""
    for _ in range(ATTEMPTS):
        ports = [free_port() for _ in names]
        args = [x for pair in zip(names, ports) for x in pair]
        reply = conn.call("CONFIG", "SET", *args)
        if reply == b"+OK\r\n":
            return ports
        assert reply.startswith(b"-ERR CONFIG SET failed") and b"Unable to listen" in reply, reply
    raise RuntimeError(f"CONFIG SET {names} found no free port in {ATTEMPTS} attempts")


def test_config_set_port_moves_the_listener(server):
    old = server.port
    with RawConn(old) as setter, RawConn(old) as bystander:
        (new,) = move(setter, "port")
        assert answers_ping(new)
        assert refuses(old)
        assert setter.call("PING") == b"+PONG\r\n"  # the connection that moved the port
        assert bystander.call("PING") == b"+PONG\r\n"  # and one connected before
        assert config_get(setter, "port") == str(new)
        assert tcp_port(bystander) == str(new)
        (again,) = move(bystander, "port")  # and once more, from the other connection
        assert answers_ping(again) and refuses(new)
        assert setter.call("PING") == b"+PONG\r\n"


def test_a_pipeline_moves_the_port_away_and_back(server):
    # The old socket is gone once the first reply is written: the second can bind its port
    # again in the same loop turn (on io_uring too, whose poll held the socket until the next
    # enter).
    old = server.port
    with RawConn(old) as conn:
        for _ in range(ATTEMPTS):
            away = free_port()
            conn.send(encode("CONFIG", "SET", "port", away) + encode("CONFIG", "SET", "port", old)
                      + encode("PING"))
            first, second, pong = conn.read_reply(), conn.read_reply(), conn.read_reply()
            if first == b"+OK\r\n":
                break
            assert first == LISTEN_FAILED % b"port", first  # `away` was taken: another
        else:
            raise RuntimeError(f"no free port in {ATTEMPTS} attempts")
        assert (second, pong) == (b"+OK\r\n", b"+PONG\r\n")
        assert config_get(conn, "port") == str(old)
        assert answers_ping(old) and refuses(away)


def test_config_set_port_to_a_held_port_fails_and_changes_nothing(server):
    holder, held = hold_port()
    with holder, RawConn(server.port) as conn:
        assert conn.call("CONFIG", "SET", "port", held) == LISTEN_FAILED % b"port"
        assert config_get(conn, "port") == str(server.port)
        assert tcp_port(conn) == str(server.port)
        assert answers_ping(server.port)  # still listening on the old port
        assert conn.call("PING") == b"+PONG\r\n"


def test_several_pairs_are_all_or_none(server):
    holder, held = hold_port()
    with holder, RawConn(server.port) as conn:
        samples = config_get(conn, "maxmemory-samples")
        reply = conn.call("CONFIG", "SET", "maxmemory-samples", "7", "port", held)
        assert reply == LISTEN_FAILED % b"port"
        assert config_get(conn, "maxmemory-samples") == samples
        assert config_get(conn, "port") == str(server.port)
        assert answers_ping(server.port)
    for _ in range(ATTEMPTS):  # and together when the port can be bound
        with RawConn(server.port) as conn:
            port = free_port()
            reply = conn.call("CONFIG", "SET", "maxmemory-samples", "7", "port", port)
            if reply != b"+OK\r\n":
                assert b"Unable to listen" in reply, reply
                continue
            assert config_get(conn, "maxmemory-samples") == "7"
            assert config_get(conn, "port") == str(port)
            assert answers_ping(port) and refuses(server.port)
            return
    raise RuntimeError(f"no free port in {ATTEMPTS} attempts")


def test_tls_port_opens_moves_and_closes(tls_ready, certs):
    with RawConn(tls_ready.port) as conn:
        assert config_get(conn, "tls-port") == "0"
        (first,) = move(conn, "tls-port")  # none was open: opened with the loaded certificates
        client = tls_client(first, certs)
        assert client.ping() is True
        client_id = client.client_id()
        assert tcp_port(conn) == str(tls_ready.port)  # the plain port's
        (second,) = move(conn, "tls-port")
        assert tls_client(second, certs).ping() is True
        assert refuses(first)
        assert client.client_id() == client_id  # the same TLS connection, still served
        assert conn.call("CONFIG", "SET", "tls-port", "0") == b"+OK\r\n"
        assert refuses(second)
        assert client.client_id() == client_id
        assert config_get(conn, "tls-port") == "0"
        (third,) = move(conn, "tls-port")  # and opened again
        assert tls_client(third, certs).ping() is True
        client.connection_pool.disconnect()


def test_tls_port_without_certificates_is_refused(server):
    with RawConn(server.port) as conn:
        assert conn.call("CONFIG", "SET", "tls-port", free_port()) == TLS_FAILED
        assert config_get(conn, "tls-port") == "0"
        assert conn.call("PING") == b"+PONG\r\n"


def test_a_tls_port_opened_later_uses_the_certificate_options_of_that_time(tls_ready, certs):
    with RawConn(tls_ready.port) as conn:
        missing = os.path.join(certs, "no-such.crt")
        # No TLS in use: the option is only stored (Redis applyTlsCfg builds nothing).
        assert conn.call("CONFIG", "SET", "tls-cert-file", missing) == b"+OK\r\n"
        assert conn.call("CONFIG", "SET", "tls-port", free_port()) == TLS_FAILED
        assert config_get(conn, "tls-port") == "0"
        good = os.path.join(certs, "server.crt")
        assert conn.call("CONFIG", "SET", "tls-cert-file", good) == b"+OK\r\n"
        (tls_port,) = move(conn, "tls-port")
        assert tls_client(tls_port, certs).ping() is True


def test_tls_port_to_a_held_port_fails_and_changes_nothing(tls_ready, certs):
    holder, held = hold_port()
    with holder, RawConn(tls_ready.port) as conn:
        (tls_port,) = move(conn, "tls-port")
        assert conn.call("CONFIG", "SET", "tls-port", held) == LISTEN_FAILED % b"tls-port"
        assert config_get(conn, "tls-port") == str(tls_port)
        assert tls_client(tls_port, certs).ping() is True


def test_port_and_tls_port_together_are_all_or_none(tls_ready, certs):
    holder, held = hold_port()
    with holder, RawConn(tls_ready.port) as conn:
        (tls_port,) = move(conn, "tls-port")
        for _ in range(ATTEMPTS):
            plain = free_port()
            reply = conn.call("CONFIG", "SET", "port", plain, "tls-port", held)
            if reply == LISTEN_FAILED % b"tls-port":
                break
            assert reply == LISTEN_FAILED % b"port", reply  # `plain` was taken: another
        else:
            raise RuntimeError(f"no free port in {ATTEMPTS} attempts")
        # Redis moved the plain port and moved it back; listd never moved it: the same end.
        assert config_get(conn, "port") == str(tls_ready.port)
        assert config_get(conn, "tls-port") == str(tls_port)
        assert answers_ping(tls_ready.port) and refuses(plain)
        assert tls_client(tls_port, certs).ping() is True
        new_plain, new_tls = move(conn, "port", "tls-port")  # both free: both move
        assert answers_ping(new_plain) and refuses(tls_ready.port)
        assert tls_client(new_tls, certs).ping() is True and refuses(tls_port)
        assert conn.call("PING") == b"+PONG\r\n"


def test_config_set_bind_listens_again_on_both_ports(tls_ready, certs):
    with RawConn(tls_ready.port) as conn:
        (tls_port,) = move(conn, "tls-port")
        client = tls_client(tls_port, certs)
        client_id = client.client_id()
        assert conn.call("CONFIG", "SET", "bind", "127.0.0.1") == b"+OK\r\n"
        assert config_get(conn, "bind") == "127.0.0.1"
        assert conn.call("PING") == b"+PONG\r\n"  # connected clients stay connected
        assert client.client_id() == client_id
        assert answers_ping(tls_ready.port)  # and both ports listen on the new addresses
        assert tls_client(tls_port, certs).ping() is True
        client.connection_pool.disconnect()


def test_an_address_the_host_lacks_is_refused_and_the_old_one_listens(server):
    with RawConn(server.port) as conn:
        assert conn.call("CONFIG", "SET", "bind", ABSENT) == BIND_FAILED
        assert config_get(conn, "bind") == "127.0.0.1"
        assert answers_ping(server.port)
        assert conn.call("PING") == b"+PONG\r\n"
        # All or none with other pairs.
        samples = config_get(conn, "maxmemory-samples")
        reply = conn.call("CONFIG", "SET", "maxmemory-samples", "7", "bind", f"127.0.0.1 {ABSENT}")
        assert reply == BIND_FAILED
        assert config_get(conn, "maxmemory-samples") == samples
        assert config_get(conn, "bind") == "127.0.0.1"
        assert answers_ping(server.port)


def test_an_optional_address_the_host_lacks_is_skipped(server):
    with RawConn(server.port) as conn:
        words = f"-{ABSENT} 127.0.0.1"
        assert conn.call("CONFIG", "SET", "bind", words) == b"+OK\r\n"
        assert config_get(conn, "bind") == words
        assert answers_ping(server.port)


def test_bind_and_port_together_move_the_listener(server):
    with RawConn(server.port) as conn:
        for _ in range(ATTEMPTS):
            port = free_port()
            reply = conn.call("CONFIG", "SET", "bind", "127.0.0.1", "port", port)
            if reply == b"+OK\r\n":
                break
            assert reply in (BIND_FAILED, LISTEN_FAILED % b"port"), reply  # taken: another
        else:
            raise RuntimeError(f"no free port in {ATTEMPTS} attempts")
        assert answers_ping(port) and refuses(server.port)
        assert tcp_port(conn) == str(port)
        assert conn.call("PING") == b"+PONG\r\n"


class ConfFileServer(ListdServer):
    """Started on a config file, which must come first for Redis."""

    def __init__(self, conf, args=()):
        super().__init__(args)
        self.conf = conf

    def command(self, port):
        cmd = super().command(port)
        return [cmd[0], self.conf, *cmd[1:]]


def test_config_rewrite_writes_the_new_ports(tmp_path, certs):
    conf = tmp_path / "listd.conf"
    conf.write_text("# the ports are set at run time\n")
    with ConfFileServer(str(conf), cert_args(certs)) as srv, RawConn(srv.port) as conn:
        port, tls_port = move(conn, "port", "tls-port")
        assert conn.call("CONFIG", "REWRITE") == b"+OK\r\n"
        lines = conf.read_text().splitlines()
        assert f"port {port}" in lines
        assert f"tls-port {tls_port}" in lines
        assert [x for x in lines if x.startswith("port ")] == [f"port {port}"]
