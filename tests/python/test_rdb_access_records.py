"""The IDLE and FREQ records of an RDB file (opcodes 248 / 249): the server under test writes a
key's idle time under an LRU maxmemory-policy and its LFU counter under an LFU one, as Redis 7.0
does, and reads them back (from its own file and from redis-server 7.0.15's) into OBJECT
IDLETIME / OBJECT FREQ. The access words are set with RESTORE IDLETIME / FREQ, so nothing waits
for time to pass; an LFU counter decays by the minute, an idle time grows by the second, hence
the one-step margins.
"""

import os
import re
import shutil

import pytest
import redis

from listd_testing import ListdServer, RedisServer

HELLO = (b"\x00\x05hello\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a")


def client(srv):
    return redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)


@pytest.fixture
def servers():
    started = []

    def start(srv):
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.stop()
        srv.close()


def fill(c):
    assert c.restore("idle", 0, HELLO, idletime=5000, replace=True)
    assert c.restore("freq", 0, HELLO, frequency=77, replace=True)
    c.execute_command("SAVE")


def check(c, policy):
    if "lfu" in policy:
        assert c.object("freq", "freq") in (76, 77)
    else:
        assert 5000 <= c.object("idletime", "idle") <= 5002


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-lfu"])
def test_own_file_keeps_the_access_words(policy, servers):
    srv = servers(ListdServer(["--maxmemory-policy", policy, "--save", ""]))
    fill(client(srv))
    srv.restart()
    check(client(srv), policy)


@pytest.mark.parametrize("policy", ["allkeys-lru", "allkeys-lfu"])
def test_files_move_between_the_servers_with_their_access_words(policy, servers):
    args = ["--maxmemory-policy", policy, "--save", ""]
    redis_side = servers(RedisServer(args))
    fill(client(redis_side))
    target = ListdServer(args)
    shutil.copy(os.path.join(redis_side.workdir, "dump.rdb"), target.workdir)
    check(client(servers(target)), policy)
    fill(client(target))
    back = RedisServer(args)
    shutil.copy(os.path.join(target.workdir, "dump.rdb"), back.workdir)
    check(client(servers(back)), policy)


# IDLE (0xf8), 5000 s as a 14-bit length, then the string's type byte and the key.
IDLE_RECORD = re.compile(rb"\xf8\x53[\x88-\x8a]\x00\x04idle")


def saved_file(srv):
    with open(os.path.join(srv.workdir, "dump.rdb"), "rb") as f:
        return f.read()


@pytest.mark.parametrize("policy,recorded", [("volatile-lru", True), ("allkeys-random", False),
                                             ("noeviction", False)])
def test_idle_is_recorded_only_under_an_lru_policy(policy, recorded, servers):
    srv = servers(ListdServer(["--maxmemory-policy", policy, "--save", ""]))
    c = client(srv)
    assert c.restore("idle", 0, HELLO, idletime=5000)
    c.execute_command("SAVE")
    assert bool(IDLE_RECORD.search(saved_file(srv))) == recorded
    srv.restart()
    idle = client(srv).object("idletime", "idle")
    assert (5000 <= idle <= 5002) if recorded else idle <= 1  # unrecorded: loaded as new
