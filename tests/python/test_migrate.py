"""MIGRATE from the server under test to a second instance of the same server and to a real
redis-server 7.0.15: keys move with their TTLs, COPY / REPLACE / AUTH / AUTH2 / KEYS, the target's
errors, a kept connection the target dropped, a target that never answers, and Redis' texts.
python.against_redis runs it with redis-server as the source too.
"""

import socket

import pytest
import redis

from listd_testing import ListdServer, RedisServer
from listd_testing.wait import wait_until

PASSWORD = "target-pw"


@pytest.fixture(scope="module", params=["same", "redis"])
def target_server(request):
    args = ["--requirepass", PASSWORD]
    srv = (ListdServer(args) if request.param == "same" else RedisServer(args)).start()
    yield srv
    srv.stop()
    srv.close()


@pytest.fixture
def tgt(target_server):
    client = redis.Redis(host="127.0.0.1", port=target_server.port, password=PASSWORD,
                         decode_responses=True, socket_timeout=10)
    client.flushall()
    client.execute_command("ACL", "SETUSER", "mover", "on", ">mover-pw", "~*", "+@all")
    yield client
    client.connection_pool.disconnect()


def migrate(r, port, key, db, *options, timeout=5000):
    return r.execute_command("MIGRATE", "127.0.0.1", port, key, db, timeout, *options)


def test_a_key_moves_with_its_ttl_and_leaves_the_source(r, tgt, target_server):
    r.rpush("jobs", "a", "b", "c")
    r.set("session", "v", px=100_000)
    assert migrate(r, target_server.port, "jobs", 0, "AUTH", PASSWORD) == "OK"
    assert migrate(r, target_server.port, "session", 0, "AUTH", PASSWORD) == "OK"
    assert r.exists("jobs", "session") == 0
    assert tgt.lrange("jobs", 0, -1) == ["a", "b", "c"]
    assert 90_000 < tgt.pttl("session") <= 100_000
    assert tgt.ttl("jobs") == -1
    assert r.info("stats")["migrate_cached_sockets"] >= 1  # kept for the next MIGRATE


def test_keys_form_selects_the_db_and_skips_missing_keys(r, tgt, target_server):
    r.hset("h", mapping={"f": "v"})
    r.sadd("s", "x", "y")
    assert migrate(r, target_server.port, "", 3, "AUTH", PASSWORD, "KEYS", "h", "nope", "s") == "OK"
    assert r.exists("h", "s") == 0
    db3 = redis.Redis(host="127.0.0.1", port=target_server.port, password=PASSWORD, db=3,
                      decode_responses=True)
    assert db3.hgetall("h") == {"f": "v"}
    assert db3.smembers("s") == {"x", "y"}
    assert tgt.exists("h", "s") == 0  # not in db 0
    assert migrate(r, target_server.port, "", 3, "AUTH", PASSWORD, "KEYS", "gone", "nope") == "NOKEY"
    assert migrate(r, target_server.port, "nope", 0, "AUTH", PASSWORD) == "NOKEY"
    db3.flushdb()
    db3.connection_pool.disconnect()


def test_copy_replace_and_the_targets_busykey(r, tgt, target_server):
    r.set("k", "source")
    tgt.set("k", "target")
    with pytest.raises(redis.ResponseError) as e:
        migrate(r, target_server.port, "k", 0, "AUTH", PASSWORD)
    assert str(e.value) == ("Target instance replied with error: BUSYKEY Target key name "
                            "already exists.")
    assert r.get("k") == "source"  # not acknowledged: kept
    assert migrate(r, target_server.port, "k", 0, "COPY", "REPLACE", "AUTH", PASSWORD) == "OK"
    assert tgt.get("k") == "source"
    assert r.get("k") == "source"  # COPY keeps it


def test_auth_and_auth2_errors_come_from_the_target(r, tgt, target_server):
    # A kept connection stays authenticated (a failed AUTH does not undo an earlier one):
    # start from a new, unauthenticated one.
    tgt.client_kill_filter(_type="normal", skipme=True)
    r.set("k", "v")
    with pytest.raises(redis.ResponseError) as e:
        migrate(r, target_server.port, "k", 0, "AUTH", "wrong")
    assert str(e.value) == ("Target instance replied with error: WRONGPASS invalid "
                            "username-password pair or user is disabled.")
    with pytest.raises(redis.ResponseError) as e:
        migrate(r, target_server.port, "k", 0)  # no AUTH: the target wants one
    assert str(e.value) == "Target instance replied with error: NOAUTH Authentication required."
    assert r.get("k") == "v"
    assert migrate(r, target_server.port, "k", 0, "AUTH2", "mover", "mover-pw") == "OK"
    assert tgt.get("k") == "v"


def test_argument_errors(r, target_server):
    r.set("k", "v")
    port = target_server.port
    cases = [
        (("k", 0, "AUTH"), "syntax error"),
        (("k", 0, "AUTH2", "user"), "syntax error"),
        (("k", 0, "BOGUS"), "syntax error"),
        (("k", 0, "KEYS", "k"),
         "When using MIGRATE KEYS option, the key argument must be set to the empty string"),
        (("k", "db"), "value is not an integer or out of range"),
    ]
    for args, text in cases:
        with pytest.raises(redis.ResponseError) as e:
            migrate(r, port, *args)
        assert str(e.value) == text, args
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("MIGRATE", "127.0.0.1", port, "k", 0, "soon")
    assert str(e.value) == "value is not an integer or out of range"
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("MIGRATE", "127.0.0.1", port, "k", 0)
    assert str(e.value) == "wrong number of arguments for 'migrate' command"
    assert r.get("k") == "v"


def test_a_port_nobody_listens_on(r):
    with socket.socket() as s:  # a port that was free a moment ago, now closed
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    r.set("k", "v")
    with pytest.raises(redis.ResponseError) as e:
        migrate(r, closed_port, "k", 0, timeout=500)
    assert str(e.value) == "IOERR error or timeout writing to target instance"
    assert r.get("k") == "v"


def test_a_target_that_never_answers_times_out(r):
    with socket.socket() as s:  # accepts connections (backlog) but never reads or replies
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        r.set("k", "v")
        with pytest.raises(redis.ResponseError) as e:
            migrate(r, s.getsockname()[1], "k", 0, timeout=300)
    assert str(e.value) == "IOERR error or timeout reading to target instance"
    assert r.get("k") == "v"


def test_a_kept_connection_the_target_closed_is_made_again(r, tgt, target_server):
    r.set("a", "1")
    assert migrate(r, target_server.port, "a", 0, "AUTH", PASSWORD) == "OK"
    # The target drops every other normal client: the source's kept connection is dead.
    tgt.client_kill_filter(_type="normal", skipme=True)
    r.set("b", "2")
    assert migrate(r, target_server.port, "b", 0, "AUTH", PASSWORD) == "OK"
    assert tgt.mget("a", "b") == ["1", "2"]


def test_migrate_is_a_del_here_for_watch_and_notifications(r, tgt, target_server):
    r.config_set("notify-keyspace-events", "Eg")
    events = r.pubsub()
    events.psubscribe("__keyevent@0__:del")
    assert events.get_message(timeout=5)["type"] == "psubscribe"
    watcher = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"],
                          decode_responses=True)
    r.set("w", "v")
    pipe = watcher.pipeline()
    pipe.watch("w")
    assert migrate(r, target_server.port, "w", 0, "AUTH", PASSWORD) == "OK"
    pipe.multi()
    pipe.get("w")
    with pytest.raises(redis.WatchError):  # the MIGRATE touched the watched key
        pipe.execute()

    def del_of_w():
        message = events.get_message(timeout=0.1)
        return message is not None and message.get("data") == "w"

    assert wait_until(del_of_w)
    events.close()
    watcher.connection_pool.disconnect()
    r.config_set("notify-keyspace-events", "")


def test_the_passwords_are_redacted_in_the_slow_log(r, tgt, target_server):
    r.config_set("slowlog-log-slower-than", 0)
    r.slowlog_reset()
    r.set("k", "v")
    migrate(r, target_server.port, "k", 0, "AUTH2", "mover", "mover-pw")
    entry = next(e for e in r.slowlog_get(10) if e["command"].startswith(b"MIGRATE"))
    assert entry["command"].endswith(b"AUTH2 (redacted) (redacted)"), entry
    r.config_set("slowlog-log-slower-than", 10000)
