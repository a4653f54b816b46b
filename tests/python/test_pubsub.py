"""Pub/Sub through redis-py 4.3.4 (Debian python3-redis): pubsub() with get_message, listen,
run_in_thread, psubscribe, the health check, and PUBSUB NUMSUB / NUMPAT / CHANNELS; then the
RESP3 conversation of redis-py 5-8 (`protocol=3`, push frames) replayed over a raw socket.

python.against_redis runs this module against redis-server 7.0.15: every expectation is Redis'.
A subscription has taken effect once its subscribe message is read; waits are bounded polls.
"""

import threading

import pytest
import redis

from listd_testing import RawConn, scaled, wait_until


def next_message(p, timeout=10.0):
    """The next message of PubSub `p` (None after scaled(timeout) seconds)."""
    return wait_until(lambda: p.get_message(timeout=0.05), timeout=timeout, interval=0)


def bulk(s):
    s = s.encode() if isinstance(s, str) else s
    return b"$%d\r\n%s\r\n" % (len(s), s)


def frame(t, *parts):
    """A pub/sub frame: `t` is b'*' (RESP2) or b'>' (RESP3); ints become RESP integers."""
    out = t + b"%d\r\n" % len(parts)
    for p in parts:
        out += b":%d\r\n" % p if isinstance(p, int) else bulk(p)
    return out


def test_subscribe_get_message_and_publish(r):
    p = r.pubsub()
    p.subscribe("news")
    assert next_message(p) == {"type": "subscribe", "pattern": None, "channel": "news", "data": 1}
    assert r.publish("news", "hello") == 1
    assert r.publish("nobody", "x") == 0
    assert next_message(p) == {"type": "message", "pattern": None, "channel": "news",
                               "data": "hello"}
    p.unsubscribe("news")
    assert next_message(p) == {"type": "unsubscribe", "pattern": None, "channel": "news",
                               "data": 0}
    assert r.publish("news", "late") == 0
    p.close()


def test_psubscribe_delivers_pmessages(r):
    p = r.pubsub(ignore_subscribe_messages=True)
    p.psubscribe("jobs.*")
    assert wait_until(lambda: r.pubsub_numpat() == 1)  # the psubscribe reply is not returned
    assert r.publish("jobs.done", "42") == 1
    assert next_message(p) == {"type": "pmessage", "pattern": "jobs.*", "channel": "jobs.done",
                               "data": "42"}
    p.punsubscribe()
    assert wait_until(lambda: r.pubsub_numpat() == 0)
    p.close()


def test_listen_yields_in_publish_order(r):
    p = r.pubsub()
    p.subscribe("ordered")
    it = p.listen()
    assert next(it)["type"] == "subscribe"
    for i in range(50):
        assert r.publish("ordered", str(i)) == 1
    got = [next(it)["data"] for _ in range(50)]
    assert got == [str(i) for i in range(50)]
    p.close()


def test_run_in_thread_calls_the_handler(r):
    received = []
    done = threading.Event()

    def handler(message):
        received.append(message["data"])
        if len(received) == 3:
            done.set()

    p = r.pubsub(ignore_subscribe_messages=True)
    p.subscribe(**{"rq:pubsub:worker-1": handler})
    thread = p.run_in_thread(sleep_time=0.01, daemon=True)
    try:
        channel = "rq:pubsub:worker-1"
        assert wait_until(lambda: r.pubsub_numsub(channel) == [(channel, 1)])
        for cmd in ("shutdown", "kill-horse", "stop-job"):
            assert r.publish("rq:pubsub:worker-1", cmd) == 1
        assert done.wait(scaled(10)), received
        assert received == ["shutdown", "kill-horse", "stop-job"]
    finally:
        thread.stop()
        thread.join(scaled(10))
    assert not thread.is_alive()


def test_pubsub_introspection(r):
    p = r.pubsub()
    p.subscribe("a", "b")
    p.psubscribe("x*")
    for _ in range(3):
        assert next_message(p)["type"] in ("subscribe", "psubscribe")
    assert r.pubsub_numsub("a", "b", "zz") == [("a", 1), ("b", 1), ("zz", 0)]
    assert r.pubsub_numpat() == 1
    assert sorted(r.pubsub_channels()) == ["a", "b"]
    assert r.pubsub_channels("a*") == ["a"]
    p.close()
    assert wait_until(lambda: r.pubsub_numsub("a") == [("a", 0)])


def test_subscribed_connection_health_check_and_ping(listd, r):
    # health checks send `PING redis-py-health-check` on the subscribed connection and drop
    # the `pong` frame that answers it
    hc = redis.Redis(host="127.0.0.1", port=listd.port, decode_responses=True,
                     health_check_interval=0.01, socket_timeout=30)
    p = hc.pubsub()
    p.subscribe("hc")
    assert next_message(p)["type"] == "subscribe"
    p.ping("hi")
    msg = next_message(p)
    assert msg == {"type": "pong", "pattern": None, "channel": None, "data": "hi"}
    for i in range(3):  # with health checks in between
        assert r.publish("hc", f"after{i}") == 1
        assert next_message(p)["data"] == f"after{i}"
        assert p.get_message(timeout=0.05) is None  # the health check's pong is not a message
    p.close()
    hc.connection_pool.disconnect()


def test_other_commands_are_refused_on_a_subscribed_connection(listd):
    c = redis.Redis(host="127.0.0.1", port=listd.port, single_connection_client=True)
    try:
        c.execute_command("SUBSCRIBE", "only")
        with pytest.raises(redis.ResponseError) as e:
            c.execute_command("LPUSH", "k", "v")
        assert str(e.value) == ("Can't execute 'lpush': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                                "PING / QUIT / RESET are allowed in this context")
        assert c.execute_command("RESET") in ("RESET", b"RESET")
        assert c.execute_command("LLEN", "k") == 0
    finally:
        c.close()


def test_binary_channel_and_payload(rb):
    p = rb.pubsub()
    p.subscribe(b"bin\x00chan")
    assert next_message(p)["type"] == "subscribe"
    assert rb.publish(b"bin\x00chan", b"\x00\xff\r\n") == 1
    assert next_message(p)["data"] == b"\x00\xff\r\n"
    p.close()


# ---- redis-py 5-8 with protocol=3: the wire conversation over RESP3 ------------------------
# redis-py >= 5 with protocol=3 sends HELLO 3, then SUBSCRIBE; every subscribe / message frame
# arrives as a RESP3 push (`>`), and ordinary commands may be interleaved on the same
# connection (its push handler takes the frames out of band).

def test_resp3_push_conversation(listd):
    with RawConn(listd.port) as s, RawConn(listd.port) as pub:
        assert s.call("HELLO", "3").startswith(b"%7\r\n")
        assert s.call("SUBSCRIBE", "chan") == frame(b">", "subscribe", "chan", 1)
        assert s.call("PSUBSCRIBE", "ch*") == frame(b">", "psubscribe", "ch*", 2)
        assert pub.call("PUBLISH", "chan", "m1") == b":2\r\n"
        # The frames were queued before the reply to the command below, and arrive first.
        assert s.call("PING") == frame(b">", "message", "chan", "m1")
        assert s.read_reply() == frame(b">", "pmessage", "ch*", "chan", "m1")
        assert s.read_reply() == b"+PONG\r\n"
        assert s.call("GET", "nokey") == b"_\r\n"
        # A client publishing to itself gets its push before the receiver count.
        assert s.call("PUBLISH", "chan", "self") == frame(b">", "message", "chan", "self")
        assert s.read_reply() == frame(b">", "pmessage", "ch*", "chan", "self")
        assert s.read_reply() == b":2\r\n"
        assert s.call("UNSUBSCRIBE", "chan") == frame(b">", "unsubscribe", "chan", 1)
        assert s.call("PUNSUBSCRIBE") == frame(b">", "punsubscribe", "ch*", 0)
        assert s.call("UNSUBSCRIBE") == b">3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n"
        assert s.call("RESET") == b"+RESET\r\n"


def test_resp2_raw_conversation(listd):
    with RawConn(listd.port) as s:
        assert s.call("UNSUBSCRIBE") == b"*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n"
        assert s.call("SUBSCRIBE", "a", "b") == frame(b"*", "subscribe", "a", 1)
        assert s.read_reply() == frame(b"*", "subscribe", "b", 2)
        assert s.call("PING") == b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"
        assert s.call("PING", "x") == b"*2\r\n$4\r\npong\r\n$1\r\nx\r\n"
        assert s.call("QUIT") == b"+OK\r\n"
