"""Keyspace notifications through redis-py 4.3.4 (Debian python3-redis), as applications use
them: CONFIG SET notify-keyspace-events, then pubsub().psubscribe on __keyspace@0__:<key> or
__keyevent@0__:<event>, messages read with get_message.

python.against_redis runs this module against redis-server 7.0.15: every expectation is Redis'.
Waits are bounded polls (an expiry is waited for, never slept on).
"""

import pytest

from listd_testing import wait_until


def next_message(p, timeout=10.0):
    """The next message of PubSub `p` (None after scaled(timeout) seconds)."""
    return wait_until(lambda: p.get_message(timeout=0.05), timeout=timeout, interval=0)


@pytest.fixture
def events(r):
    """Sets notify-keyspace-events for the test; the session's server gets "" back after."""
    def configure(flags):
        r.config_set("notify-keyspace-events", flags)
    yield configure
    r.config_set("notify-keyspace-events", "")


def test_option_round_trips_like_redis(r, events):
    events("KEA")
    assert r.config_get("notify-keyspace-events") == {"notify-keyspace-events": "AKE"}
    events("Elg")
    assert r.config_get("notify-keyspace-events") == {"notify-keyspace-events": "glE"}


def test_keyspace_channel_follows_a_queue(r, events):
    events("Klg")
    p = r.pubsub(ignore_subscribe_messages=True)
    p.psubscribe("__keyspace@0__:queue")
    assert wait_until(lambda: r.pubsub_numpat() == 1)
    r.lpush("queue", "job1", "job2")
    r.rpop("queue")
    r.rpop("queue")  # empties the list: rpop, then del
    seen = [next_message(p) for _ in range(4)]
    assert [m["data"] for m in seen] == ["lpush", "rpop", "rpop", "del"]
    assert {m["channel"] for m in seen} == {"__keyspace@0__:queue"}
    assert {m["pattern"] for m in seen} == {"__keyspace@0__:queue"}
    p.close()


def test_keyevent_expired_arrives_from_the_active_cycle(r, events):
    events("Ex")
    p = r.pubsub(ignore_subscribe_messages=True)
    p.psubscribe("__keyevent@0__:expired")
    assert wait_until(lambda: r.pubsub_numpat() == 1)
    r.set("lease", "worker-1", px=50)
    message = next_message(p)  # nobody reads the key: only the server's own expiry sees it
    assert message == {"type": "pmessage", "pattern": "__keyevent@0__:expired",
                       "channel": "__keyevent@0__:expired", "data": "lease"}
    p.close()


def test_new_and_keymiss_need_their_own_classes(r, events):
    events("EA")
    p = r.pubsub(ignore_subscribe_messages=True)
    p.psubscribe("__keyevent@0__:*")
    assert wait_until(lambda: r.pubsub_numpat() == 1)
    r.get("absent")          # keymiss: class m, not in A
    r.hset("h", "f", "v")    # new: class n, not in A
    assert next_message(p)["channel"] == "__keyevent@0__:hset"
    events("Enm")
    r.get("absent")
    r.hset("h2", "f", "v")
    got = [next_message(p)["channel"] for _ in range(2)]
    assert got == ["__keyevent@0__:keymiss", "__keyevent@0__:new"]
    assert p.get_message(timeout=0.2) is None  # hset is class h, off now
    p.close()
