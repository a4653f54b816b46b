"""redis-py 4.3.4 client options and connection handling against listd.

The options are the seed workers' (document 004, section 6) plus db, password and
client_name; CLIENTS.md section 3.1 lists what each one sends on connect.
"""

import select
import socket
import threading
import time

import pytest
import redis

from conftest import PASSWORD
from listd_testing import scaled, wait_until


def cmdstat_calls(client, name):
    stats = client.info("commandstats")
    return stats.get(f"cmdstat_{name}", {}).get("calls", 0)


def clients_named(client, name):
    return [c for c in client.client_list() if c["name"] == name]


def test_ping(r):
    assert r.ping() is True
    assert r.echo("x y") == "x y"


def test_seed_worker_client_options(listd):
    # Exactly the module-level client of the seed documents, plus a client name.
    client = redis.Redis(host="127.0.0.1", port=listd.port, db=0, decode_responses=True,
                         max_connections=10, socket_timeout=30, socket_connect_timeout=5,
                         health_check_interval=30, client_name="worker-1")
    try:
        assert client.ping() is True
        assert client.client_getname() == "worker-1"
        names = [c["name"] for c in client.client_list()]
        assert "worker-1" in names
        assert client.lpush("task:queue", "j1") == 1
        assert client.brpop("task:queue", timeout=5) == ("task:queue", "j1")
    finally:
        client.connection_pool.disconnect()


def test_decode_responses_false_gives_bytes(rb):
    rb.rpush("l", "a", b"\xff\x00bin")
    assert rb.lrange("l", 0, -1) == [b"a", b"\xff\x00bin"]


def test_decode_responses_true_gives_str(r):
    r.rpush("l", "héllo")
    assert r.lrange("l", 0, -1) == ["héllo"]


def test_db_option_selects_database(listd):
    r0 = redis.Redis(port=listd.port, db=0, decode_responses=True)
    r2 = redis.Redis(port=listd.port, db=2, decode_responses=True)
    r3 = redis.Redis.from_url(f"redis://127.0.0.1:{listd.port}/3", decode_responses=True)
    try:
        r0.flushall()
        r2.rpush("q", "in-db-2")
        r3.rpush("q", "in-db-3")
        assert r0.exists("q") == 0
        assert r2.lrange("q", 0, -1) == ["in-db-2"]
        assert r3.lrange("q", 0, -1) == ["in-db-3"]
        assert int(r2.client_info()["db"]) == 2
        ks = r0.info("keyspace")
        assert ks["db2"]["keys"] == 1 and ks["db3"]["keys"] == 1
    finally:
        for c in (r0, r2, r3):
            c.connection_pool.disconnect()


def test_db_out_of_range_is_refused(listd):
    bad = redis.Redis(port=listd.port, db=99)
    with pytest.raises(redis.exceptions.ResponseError, match="DB index is out of range"):
        bad.ping()
    bad.connection_pool.disconnect()


def test_password(listd_auth):
    good = redis.Redis(port=listd_auth.port, password=PASSWORD, decode_responses=True)
    assert good.ping() is True
    assert good.rpush("authed", "x") >= 1
    with_user = redis.Redis(port=listd_auth.port, username="default", password=PASSWORD)
    assert with_user.ping() is True

    none = redis.Redis(port=listd_auth.port)
    with pytest.raises(redis.exceptions.AuthenticationError):
        none.ping()

    wrong = redis.Redis(port=listd_auth.port, password="wrong")
    with pytest.raises((redis.exceptions.AuthenticationError, redis.exceptions.ResponseError),
                       match="WRONGPASS|invalid"):
        wrong.ping()
    for c in (good, with_user, none, wrong):
        c.connection_pool.disconnect()


def test_password_given_but_none_configured(listd):
    c = redis.Redis(port=listd.port, password="x")
    with pytest.raises(redis.exceptions.ResponseError,
                       match="called without any password configured"):
        c.ping()
    c.connection_pool.disconnect()


def test_health_check_interval_sends_ping(listd):
    observer = redis.Redis(port=listd.port)
    c = redis.Redis(port=listd.port, health_check_interval=1, decode_responses=True)
    try:
        c.llen("x")  # fresh connection: PING before the command
        before = cmdstat_calls(observer, "ping")
        time.sleep(1.3)
        assert c.llen("x") == 0  # idle > 1 s: another PING first
        assert cmdstat_calls(observer, "ping") >= before + 1
    finally:
        c.connection_pool.disconnect()
        observer.connection_pool.disconnect()


def test_socket_timeout_shorter_than_brpop(listd):
    """CLIENTS.md 3.5: the client gives up; the server must drop the waiter and lose nothing."""
    c = redis.Redis(port=listd.port, socket_timeout=1, decode_responses=True,
                    client_name="st-waiter")
    other = redis.Redis(port=listd.port, decode_responses=True)
    try:
        other.delete("st:q")
        t0 = time.monotonic()
        # The server would answer nil only after 60 s, so a TimeoutError can only be the
        # client's socket_timeout; it must not fire before 1 s.
        with pytest.raises(redis.exceptions.TimeoutError):
            c.brpop("st:q", timeout=60)
        assert time.monotonic() - t0 >= 0.95
        # redis-py closed the connection; wait until the server has dropped it (and its wait)
        assert wait_until(lambda: not clients_named(other, "st-waiter")), \
            "the server still lists the abandoned waiter"
        assert other.lpush("st:q", "kept") == 1
        # A waiter is served inside LPUSH, before the server reads the next command, so this
        # reply already shows whether the element went to the dead connection.
        assert other.llen("st:q") == 1, "a disconnected waiter must not be served"
        assert c.ping() is True  # a new connection from the pool
    finally:
        c.connection_pool.disconnect()
        other.connection_pool.disconnect()


def test_socket_connect_timeout(listd):
    ok = redis.Redis(port=listd.port, socket_connect_timeout=5)
    assert ok.ping() is True
    ok.connection_pool.disconnect()
    # A port held by a socket that is bound but not listening: nobody else can take it while
    # we hold it, and a connection to it is refused at once.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        down = redis.Redis(port=s.getsockname()[1], socket_connect_timeout=1)
        t0 = time.monotonic()
        with pytest.raises(redis.exceptions.ConnectionError):
            down.ping()
        # refused, not timed out: far below the 1 s connect timeout on an idle machine
        assert time.monotonic() - t0 < scaled(3)
        down.connection_pool.disconnect()


def test_max_connections_pool(listd):
    pool = redis.ConnectionPool(host="127.0.0.1", port=listd.port, max_connections=2,
                                decode_responses=True)
    c = redis.Redis(connection_pool=pool)
    a = pool.get_connection("PING")
    b = pool.get_connection("PING")
    with pytest.raises(redis.exceptions.ConnectionError, match="Too many connections"):
        pool.get_connection("PING")
    pool.release(a)
    pool.release(b)
    assert c.ping() is True
    pool.disconnect()


def test_blocked_brpop_and_other_commands_share_one_pool(listd):
    """Seed document 004 §6.3: BRPOP holds one pooled connection, the rest use another."""
    c = redis.Redis(port=listd.port, decode_responses=True, max_connections=10,
                    socket_timeout=30, socket_connect_timeout=5, health_check_interval=30)
    c.delete("pool:q", "pool:other")
    got = []
    t = threading.Thread(target=lambda: got.append(c.brpop("pool:q", timeout=5)))
    t.start()
    assert wait_until(lambda: c.info("clients")["blocked_clients"] == 1), "BRPOP never blocked"
    assert c.rpush("pool:other", "x") == 1  # another connection of the same pool
    assert c.lpush("pool:q", "task-1") == 1
    t.join(10)
    assert got == [("pool:q", "task-1")]
    assert len(c.connection_pool._available_connections) >= 2
    c.connection_pool.disconnect()


def test_idle_connection_killed_by_server_is_transparent(listd):
    c = redis.Redis(port=listd.port, decode_responses=True)
    c.client_setname("to-kill")
    my_id = c.client_id()
    killer = redis.Redis(port=listd.port)
    assert killer.client_kill_filter(_id=my_id) == 1
    # the pooled connection is idle; wait until its socket shows the server's close (EOF)
    sock = c.connection_pool._available_connections[0]._sock
    assert wait_until(lambda: select.select([sock], [], [], 0)[0]), "no EOF after CLIENT KILL"
    assert c.ping() is True  # the pool notices EOF on checkout and reconnects
    assert c.client_id() != my_id
    c.connection_pool.disconnect()
    killer.connection_pool.disconnect()


def test_server_restart_then_reconnect(listd_factory):
    srv = listd_factory()
    c = redis.Redis(port=srv.port, decode_responses=True)
    assert c.rpush("l", "a") == 1
    srv.restart()
    # The pooled connection is dead; redis-py 4.3.4 notices on checkout and reconnects.
    assert c.ping() is True
    c.connection_pool.disconnect()


def test_client_kill_of_an_unknown_user_is_an_error(r):
    for name in ("nobody", "Default"):  # user names are case-sensitive
        with pytest.raises(redis.ResponseError) as err:
            r.execute_command("CLIENT", "KILL", "USER", name)
        assert str(err.value) == f"No such user '{name}'"
