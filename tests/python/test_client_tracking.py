"""CLIENT TRACKING (server-assisted client-side caching) as Redis 7.0 has it: RESP3 push frames
on raw sockets (redis-py 4.3.4 has no RESP3), RESP2 invalidations through redis-py on a
redirect connection subscribed to __redis__:invalidate, every mode (default, BCAST with
prefixes, OPTIN + CACHING yes, OPTOUT + CACHING no, NOLOOP), expiry, FLUSHALL, MULTI, scripts,
tracking-table-max-keys, CLIENT GETREDIR / TRACKINGINFO / LIST, INFO, and every error.

python.against_redis runs this module against redis-server 7.0.15: every expectation is Redis'.
"Nothing was sent" is proved without waiting: an invalidation is queued on the receiver before
the writer's reply, so the receiver's next PING answers +PONG with nothing ahead of it.
"""

import pytest
import redis

from listd_testing import RawConn, parse_info, wait_until


def bulk(s):
    s = s.encode() if isinstance(s, str) else s
    return b"$%d\r\n%s\r\n" % (len(s), s)


def invalidate(*keys):
    """The RESP3 push for `keys` (None: the null of a flush, as a RESP3 tracker gets it)."""
    if keys == (None,):
        return b">2\r\n$10\r\ninvalidate\r\n_\r\n"
    return b">2\r\n$10\r\ninvalidate\r\n*%d\r\n%s" % (len(keys), b"".join(bulk(k) for k in keys))


PONG = b"+PONG\r\n"
OK = b"+OK\r\n"


@pytest.fixture
def conns(listd):
    """A factory of raw connections, all closed after the test; the server is flushed first."""
    opened = []

    def make(resp3=True):
        c = RawConn(listd.port)
        opened.append(c)
        if resp3:
            assert c.call("HELLO", "3").startswith(b"%7\r\n")
        return c

    make(resp3=False).call("FLUSHALL")
    yield make
    for c in opened:
        c.close()


def client_id(c):
    return int(c.call("CLIENT", "ID")[1:-2])


def test_default_mode_invalidates_a_read_key_once(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    assert c.call("GET", "k") == b"_\r\n"
    assert w.call("SET", "k", "1") == OK
    assert c.call("PING") == invalidate("k")
    assert c.read_reply() == PONG
    # Told once: the key left the table until it is read again.
    assert w.call("SET", "k", "2") == OK
    assert c.call("PING") == PONG
    assert c.call("MGET", "k", "other") == b"*2\r\n$1\r\n2\r\n_\r\n"
    assert w.call("DEL", "k", "other") == b":1\r\n"
    assert c.call("PING") == invalidate("k")  # "other" did not exist: no write, no message
    assert c.read_reply() == PONG


def test_own_write_is_told_after_its_reply_and_noloop_silences_it(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    c.call("GET", "k")
    assert c.call("SET", "k", "1") == OK
    assert c.read_reply() == invalidate("k")
    assert c.call("CLIENT", "TRACKING", "ON", "NOLOOP") == OK
    c.call("GET", "k")
    assert c.call("SET", "k", "2") == OK
    assert c.call("PING") == PONG
    c.call("GET", "k")
    assert w.call("SET", "k", "3") == OK
    assert c.call("PING") == invalidate("k")
    assert c.read_reply() == PONG


def test_resp2_redirect_to_a_subscribed_redis_py_connection(listd, r):
    p = r.pubsub()
    p.subscribe("__redis__:invalidate")
    assert wait_until(lambda: p.get_message(timeout=0.05))["type"] == "subscribe"
    sub_id = [c for c in r.client_list() if c["sub"] == "1"][0]["id"]
    tracker = redis.Redis(host="127.0.0.1", port=listd.port, decode_responses=True,
                          single_connection_client=True)
    try:
        assert tracker.client_tracking_on(clientid=int(sub_id))
        assert tracker.client_getredir() == int(sub_id)
        assert tracker.get("job:1") is None
        r.set("job:1", "done")
        msg = wait_until(lambda: p.get_message(timeout=0.05))
        assert msg == {"type": "message", "pattern": None, "channel": "__redis__:invalidate",
                       "data": ["job:1"]}
        # A flush is the null invalidation, in the tracker's own protocol (RESP2: $-1).
        r.flushall()
        msg = wait_until(lambda: p.get_message(timeout=0.05))
        assert msg == {"type": "message", "pattern": None, "channel": "__redis__:invalidate",
                       "data": None}
        assert tracker.client_tracking_off()
        assert tracker.client_getredir() == -1
    finally:
        tracker.close()
        p.close()


def test_resp2_tracker_without_redirect_gets_nothing_but_the_key_is_dropped(conns):
    c, w = conns(resp3=False), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    c.call("GET", "k")
    assert parse_info(w.call("INFO", "stats"))["tracking_total_keys"] == "1"
    w.call("SET", "k", "v")
    assert c.call("PING") == PONG
    assert parse_info(w.call("INFO", "stats"))["tracking_total_keys"] == "0"


def test_bcast_prefixes_batch_the_turns_keys_and_noloop_drops_own(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "b:", "PREFIX", "a:") == OK
    assert w.call("MSET", "a:1", "x", "b:2", "y", "c:3", "z") == OK
    assert c.call("PING") == invalidate("a:1")  # prefixes in byte order, each its own message
    assert c.read_reply() == invalidate("b:2")
    assert c.read_reply() == PONG
    # One pipelined turn: each key once, in byte order.
    w.send(b"*3\r\n$3\r\nSET\r\n$3\r\na:z\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$3\r\na:a\r\n$1\r\n1\r\n"
           b"*3\r\n$3\r\nSET\r\n$3\r\na:z\r\n$1\r\n2\r\n")
    assert [w.read_reply() for _ in range(3)] == [OK, OK, OK]
    assert c.call("PING") == invalidate("a:a", "a:z")
    assert c.read_reply() == PONG
    info = parse_info(w.call("INFO"))
    assert info["tracking_total_prefixes"] == "2"
    assert info["tracking_clients"] == "1"
    n = conns()
    assert n.call("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP") == OK  # the empty prefix
    assert n.call("SET", "mine", "1") == OK
    assert w.call("SET", "theirs", "1") == OK
    assert n.call("PING") == invalidate("theirs")
    assert n.read_reply() == PONG
    assert b"flags=tB " in n.call("CLIENT", "INFO")


def test_optin_tracks_only_after_caching_yes(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON", "OPTIN") == OK
    c.call("GET", "plain")
    assert c.call("CLIENT", "CACHING", "YES") == OK
    c.call("GET", "cached")
    c.call("GET", "again")  # CACHING covered one command only
    w.call("MSET", "plain", "1", "cached", "1", "again", "1")
    assert c.call("PING") == invalidate("cached")
    assert c.read_reply() == PONG
    # Inside MULTI, CACHING yes covers the whole transaction.
    assert c.call("CLIENT", "CACHING", "YES") == OK
    assert c.call("MULTI") == OK
    c.call("GET", "t1")
    c.call("GET", "t2")
    assert c.call("EXEC") == b"*2\r\n_\r\n_\r\n"
    w.call("MSET", "t1", "1", "t2", "1")
    assert c.call("PING") == invalidate("t1")
    assert c.read_reply() == invalidate("t2")
    assert c.read_reply() == PONG


def test_optout_tracks_unless_caching_no(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON", "OPTOUT") == OK
    assert c.call("CLIENT", "CACHING", "NO") == OK
    c.call("GET", "skipped")
    c.call("GET", "tracked")
    w.call("MSET", "skipped", "1", "tracked", "1")
    assert c.call("PING") == invalidate("tracked")
    assert c.read_reply() == PONG
    info = c.call("CLIENT", "TRACKINGINFO")
    assert info == (b"%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$6\r\noptout\r\n"
                    b"$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n")


def test_expiry_invalidates(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    w.call("SET", "ttl", "v")
    assert c.call("GET", "ttl") == b"$1\r\nv\r\n"
    w.call("PEXPIRE", "ttl", "1")
    assert wait_until(lambda: w.call("EXISTS", "ttl") == b":0\r\n")
    assert c.call("PING") == invalidate("ttl")
    assert c.read_reply() == PONG


def test_flushall_is_the_null_invalidation(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    c.call("GET", "k")
    assert w.call("FLUSHALL") == OK
    assert c.call("PING") == invalidate(None)
    assert c.read_reply() == PONG
    assert c.call("FLUSHDB") == OK  # its own: after the reply
    assert c.read_reply() == invalidate(None)
    assert parse_info(w.call("INFO", "stats"))["tracking_total_keys"] == "0"


def test_multi_sends_invalidations_after_exec(conns):
    c = conns()
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    c.call("GET", "k")
    assert c.call("MULTI") == OK
    assert c.call("SET", "k", "1") == b"+QUEUED\r\n"
    assert c.call("GET", "k") == b"+QUEUED\r\n"
    assert c.call("EXEC") == b"*2\r\n+OK\r\n$1\r\n1\r\n"
    assert c.read_reply() == invalidate("k")
    assert c.call("SET", "k", "2") == OK  # the GET inside EXEC tracked it again
    assert c.read_reply() == invalidate("k")


def test_scripts_track_declared_keys_and_invalidate_after_the_reply(conns):
    c, w = conns(), conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    # 7.0: a script's read tracks the keys the script declared.
    assert c.call("EVAL", "return redis.call('get', KEYS[1])", "1", "s") == b"_\r\n"
    w.call("SET", "s", "1")
    assert c.call("PING") == invalidate("s")
    assert c.read_reply() == PONG
    c.call("GET", "k")
    assert c.call("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "k") == OK
    assert c.read_reply() == invalidate("k")


def test_tracking_table_max_keys_evicts_with_an_invalidation(conns):
    c, w = conns(), conns(resp3=False)
    assert w.call("CONFIG", "GET", "tracking-table-max-keys") == (
        b"*2\r\n$23\r\ntracking-table-max-keys\r\n$7\r\n1000000\r\n")
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    try:
        assert w.call("CONFIG", "SET", "tracking-table-max-keys", "1") == OK
        c.call("GET", "a")
        c.call("GET", "b")  # over the limit after this read
        push = c.call("PING")  # the next command first brings the table back under it
        assert push in (invalidate("a"), invalidate("b"))
        assert c.read_reply() == PONG
        assert parse_info(w.call("INFO", "stats"))["tracking_total_keys"] == "1"
    finally:
        w.call("CONFIG", "SET", "tracking-table-max-keys", "1000000")


def test_broken_redirect_is_reported_on_resp3(conns):
    c, w, d = conns(), conns(resp3=False), conns(resp3=False)
    d_id = client_id(d)
    assert c.call("CLIENT", "TRACKING", "ON", "REDIRECT", str(d_id)) == OK
    assert c.call("CLIENT", "GETREDIR") == b":%d\r\n" % d_id
    info = c.call("CLIENT", "INFO")
    assert b"flags=t " in info and b"redir=%d " % d_id in info
    c.call("GET", "k")
    d.close()
    assert wait_until(lambda: b"id=%d " % d_id not in w.call("CLIENT", "LIST"))
    w.call("SET", "k", "1")
    assert c.call("PING") == b">2\r\n$21\r\ntracking-redir-broken\r\n:%d\r\n" % d_id
    assert c.read_reply() == PONG
    assert b"flags=tR " in c.call("CLIENT", "INFO")
    assert b"broken_redirect" in c.call("CLIENT", "TRACKINGINFO")


def test_trackinginfo_getredir_and_reset(conns):
    c = conns(resp3=False)
    assert c.call("CLIENT", "GETREDIR") == b":-1\r\n"
    assert c.call("CLIENT", "TRACKINGINFO") == (
        b"*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n"
        b"$8\r\nprefixes\r\n*0\r\n")
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "q", "NOLOOP") == OK
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p") == OK  # adds a prefix
    assert c.call("CLIENT", "TRACKINGINFO") == (
        b"*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:0\r\n"
        b"$8\r\nprefixes\r\n*2\r\n$1\r\np\r\n$1\r\nq\r\n")
    assert c.call("CLIENT", "TRACKING", "OFF") == OK
    assert c.call("CLIENT", "TRACKING", "ON", "OPTIN", "NOLOOP") == OK
    assert c.call("CLIENT", "CACHING", "YES") == OK
    assert c.call("CLIENT", "TRACKINGINFO") == (
        b"*6\r\n$5\r\nflags\r\n*4\r\n$2\r\non\r\n$5\r\noptin\r\n$11\r\ncaching-yes\r\n"
        b"$6\r\nnoloop\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n")
    assert c.call("RESET") == b"+RESET\r\n"
    assert c.call("CLIENT", "GETREDIR") == b":-1\r\n"


ERRORS = [
    (["ON", "PREFIX", "a"], "ERR PREFIX option requires BCAST mode to be enabled"),
    (["ON", "BCAST", "OPTIN"], "ERR OPTIN and OPTOUT are not compatible with BCAST"),
    (["ON", "OPTIN", "OPTOUT"], "ERR You can't specify both OPTIN mode and OPTOUT mode"),
    (["ON", "REDIRECT", "987654321"], "ERR The client ID you want redirect to does not exist"),
    (["ON", "REDIRECT", "x"], "ERR value is not an integer or out of range"),
    (["ON", "NOPE"], "ERR syntax error"),
    (["MAYBE"], "ERR syntax error"),
    (["ON", "REDIRECT"], "ERR syntax error"),
    (["ON", "BCAST", "PREFIX", "ab", "PREFIX", "a"],
     "ERR Prefix 'ab' overlaps with another provided prefix 'a'. "
     "Prefixes for a single client must not overlap."),
]


@pytest.mark.parametrize("args,error", ERRORS, ids=[e[1][4:30] for e in ERRORS])
def test_tracking_errors(conns, args, error):
    c = conns(resp3=False)
    assert c.call("CLIENT", "TRACKING", *args) == b"-" + error.encode() + b"\r\n"
    assert c.call("CLIENT", "GETREDIR") == b":-1\r\n"


def test_errors_that_depend_on_the_current_mode(conns):
    c = conns(resp3=False)
    me = client_id(c)
    assert c.call("CLIENT", "TRACKING", "ON", "REDIRECT", str(me), "REDIRECT", str(me)) == (
        b"-ERR A client can only redirect to a single other client\r\n")
    assert c.call("CLIENT", "CACHING", "YES") == (
        b"-ERR CLIENT CACHING can be called only when the client is in tracking mode with "
        b"OPTIN or OPTOUT mode enabled\r\n")
    assert c.call("CLIENT", "TRACKING", "ON") == OK
    assert c.call("CLIENT", "CACHING", "YES") == (
        b"-ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.\r\n")
    assert c.call("CLIENT", "CACHING", "NO") == (
        b"-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n")
    assert c.call("CLIENT", "CACHING", "MAYBE") == b"-ERR syntax error\r\n"
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST") == (
        b"-ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
        b"and then re-enabling it with a different mode.\r\n")
    assert c.call("CLIENT", "TRACKING", "ON", "OPTIN") == OK
    assert c.call("CLIENT", "TRACKING", "ON", "OPTOUT") == (
        b"-ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
        b"and then re-enabling it with a different mode.\r\n")
    assert c.call("CLIENT", "TRACKING", "OFF") == OK
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "job") == OK
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "jo") == (
        b"-ERR Prefix 'jo' overlaps with an existing prefix 'job'. "
        b"Prefixes for a single client must not overlap.\r\n")
    assert c.call("CLIENT", "CACHING") == (
        b"-ERR wrong number of arguments for 'client|caching' command\r\n")
