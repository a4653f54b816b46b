"""The shared launcher (tests/pylib/listd_testing) does not take another server's port for ours.

Audit T2: a free port can be taken between the launcher's check and the server's bind; the
port then answers, but for someone else. These tests hand the launcher a port that another
server already holds and check that it notices (INFO server's process_id) and moves on.
"""

import time

import listd_testing.server as launcher
from listd_testing import ListdServer, RawConn, parse_info, scaled


def pid_on(port, password=None):
    with RawConn(port) as c:
        if password:
            assert c.call("AUTH", password) == b"+OK\r\n"
        return int(parse_info(c.call("INFO", "server"))["process_id"])


def test_start_skips_a_port_that_another_server_answers(listd_factory, monkeypatch):
    other = listd_factory()
    offered = [other.port, other.port]  # the first two "free" ports are taken
    real_free_port = launcher.free_port
    monkeypatch.setattr(launcher, "free_port",
                        lambda: offered.pop(0) if offered else real_free_port())
    ours = listd_factory("--requirepass", "pw")
    assert offered == [], "the launcher did not try the taken port"
    assert ours.port != other.port
    assert pid_on(ours.port, "pw") == ours.pid
    assert pid_on(other.port) == other.pid  # and the other server was left alone


def test_restart_keeps_the_port_and_checks_the_new_pid(listd_factory):
    srv = listd_factory()
    port, old_pid = srv.port, srv.pid
    assert srv.restart() == 0
    assert srv.port == port and srv.pid != old_pid
    assert pid_on(port) == srv.pid


def stop_and_let_a_thief_bind(srv):
    """Stops srv and starts another server on its port; that server, or None if the port could
    not be had. Under the parallel ctest another test's free_port() may take the port in the
    moment it is free (seen twice in full runs: "Address already in use" in the thief's log), so
    the thief tries for a bounded time and the caller starts over on a fresh port."""
    port = srv.port
    assert srv.stop() == 0
    thief = ListdServer()
    end = time.monotonic() + scaled(2)
    while not thief._spawn(port):
        if time.monotonic() >= end:
            thief.close()
            return None
        time.sleep(0.05)  # the port is busy: try again shortly
    return thief


def test_restart_fails_when_another_server_holds_the_port():
    for _ in range(3):
        srv = ListdServer().start()
        thief = stop_and_let_a_thief_bind(srv)
        if thief is not None:
            break
        srv.close()
    else:
        raise AssertionError("three freed ports were each taken by someone else")
    port = srv.port
    try:
        assert thief.port == port, thief.log_text()
        try:
            srv.restart(timeout=1)
        except RuntimeError as e:
            assert f"did not restart on port {port}" in str(e)
        else:
            raise AssertionError(f"restart() accepted port {port}, answered by pid {thief.pid}")
        assert pid_on(port) == thief.pid
    finally:
        srv.close()
        assert thief.stop() == 0
        thief.close()
