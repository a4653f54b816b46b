"""The server options README.md promises, driven on the running binary.

maxclients (connections beyond it get `-ERR max number of clients reached`), timeout (idle
clients are closed, blocked ones are not), SIGINT and SIGTERM (exit 0), and start-up refusing
an unknown option or a bad value, on the command line and in a config file, with a message
naming the flag or the line. The texts are Redis 7.0.15's; the redis.* ctest entries run this
file against redis-server too.
"""

import signal
import socket
import subprocess
import time

import pytest

from listd_testing import RawConn, encode, parse_info, scaled, wait_until
from listd_testing.server import listd_binary


def info_clients(conn):
    return parse_info(conn.call("INFO", "clients"))


def read_until_eof(port, timeout=10):
    """Connects without sending anything and returns all bytes up to the server's close."""
    with socket.create_connection(("127.0.0.1", port), timeout=scaled(timeout)) as s:
        data = b""
        while True:
            chunk = s.recv(4096)  # bounded by the socket timeout
            if not chunk:
                return data
            data += chunk


def test_maxclients_refuses_connections_beyond_the_limit(listd_factory):
    srv = listd_factory("--maxclients", "3")
    first = RawConn(srv.port)
    others = []
    try:
        # the launcher's readiness probe has closed; wait until the server no longer counts it
        assert wait_until(lambda: info_clients(first)["connected_clients"] == "1"), \
            info_clients(first)
        assert info_clients(first)["maxclients"] == "3"
        others = [RawConn(srv.port) for _ in range(2)]
        for c in others:
            assert c.call("PING") == b"+PONG\r\n"
        # the 4th and 5th get the error, then the server closes them
        for _ in range(2):
            assert read_until_eof(srv.port) == b"-ERR max number of clients reached\r\n"
        assert first.call("PING") == b"+PONG\r\n"  # the admitted ones are untouched
        # a slot freed by a close can be used again
        others.pop().close()
        assert wait_until(lambda: info_clients(first)["connected_clients"] == "2"), \
            info_clients(first)
        with RawConn(srv.port) as again:
            assert again.call("PING") == b"+PONG\r\n"
    finally:
        for c in [first, *others]:
            c.close()


def test_timeout_closes_idle_clients_but_not_blocked_ones(listd_factory):
    srv = listd_factory("--timeout", "1")
    idle = RawConn(srv.port, timeout=scaled(15))
    blocked = RawConn(srv.port, timeout=scaled(15))
    try:
        assert idle.call("CLIENT", "SETNAME", "idle") == b"+OK\r\n"
        assert blocked.call("CLIENT", "SETNAME", "blocked") == b"+OK\r\n"
        t0 = time.monotonic()
        blocked.send(encode("BLPOP", "to:q", "0"))  # blocks forever: exempt from `timeout`
        # the server closes the idle one: recv returns EOF (bounded by the socket timeout)
        assert idle.sock.recv(4096) == b"", "the idle client got data instead of a close"
        assert time.monotonic() - t0 >= 1.0, "closed before it had been idle for 1 s"

        with RawConn(srv.port) as observer:  # busy, so never idle for a whole second
            def blocked_entry():
                listing = observer.call("CLIENT", "LIST").decode()
                lines = [ln for ln in listing.split("\n") if " name=blocked " in ln]
                return lines[0] if lines else None

            def idle_long_enough():
                entry = blocked_entry()
                return entry is None or int(entry.split(" idle=")[1].split()[0]) >= 3

            # Wait until the blocked client has been idle three times the timeout: long
            # enough for the server's periodic check to have closed it were it not exempt.
            assert wait_until(idle_long_enough, 15, interval=0.1), blocked_entry()
            entry = blocked_entry()
            assert entry is not None, "the blocked client was closed by `timeout`"
            assert " cmd=blpop " in entry and " flags=b " in entry, entry
            assert " name=idle " not in observer.call("CLIENT", "LIST").decode()
            assert observer.call("RPUSH", "to:q", "job") == b":1\r\n"
        assert blocked.read_reply() == b"*2\r\n$4\r\nto:q\r\n$3\r\njob\r\n"
    finally:
        idle.close()
        blocked.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_stops_the_server_with_status_0(listd_factory, sig):
    srv = listd_factory()
    with RawConn(srv.port) as c:
        assert c.call("RPUSH", "sig:q", "a") == b":1\r\n"
        assert srv.stop(sig=sig) == 0
        # and the connected client sees the server close its connection
        c.sock.settimeout(scaled(10))
        assert c.sock.recv(4096) == b""


def start_and_fail(tmp_path, *args):
    """Runs the binary with `args` in tmp_path; it must exit non-zero. Returns its output."""
    proc = subprocess.run([listd_binary(), *args], cwd=tmp_path, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=scaled(20))
    out = proc.stdout.decode(errors="replace")
    assert proc.returncode != 0, f"started with {args}; output:\n{out}"
    assert "*** FATAL CONFIG FILE ERROR (" in out, out
    return out


def test_unknown_option_on_the_command_line_stops_start_up(tmp_path):
    out = start_and_fail(tmp_path, "--bind", "127.0.0.1", "--no-such-option", "yes")
    assert ">>> 'no-such-option \"yes\"'" in out, out
    assert "Bad directive or wrong number of arguments" in out, out


def test_bad_value_on_the_command_line_stops_start_up(tmp_path):
    out = start_and_fail(tmp_path, "--bind", "127.0.0.1", "--maxclients", "lots")
    assert ">>> 'maxclients \"lots\"'" in out, out
    assert "argument couldn't be parsed into an integer" in out, out


def test_unknown_directive_in_a_config_file_names_the_line(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("bind 127.0.0.1\n# a comment\nno-such-directive 1\nport 0\n")
    out = start_and_fail(tmp_path, str(conf))
    assert "Reading the configuration file, at line 3" in out, out
    assert ">>> 'no-such-directive 1'" in out, out
    assert "Bad directive or wrong number of arguments" in out, out


def test_bad_value_in_a_config_file_names_the_line(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("bind 127.0.0.1\ntimeout soon\n")
    out = start_and_fail(tmp_path, str(conf))
    assert "Reading the configuration file, at line 2" in out, out
    assert ">>> 'timeout soon'" in out, out
    assert "argument couldn't be parsed into an integer" in out, out
