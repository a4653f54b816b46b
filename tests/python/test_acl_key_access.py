"""ACL key patterns by access (%R~, %W~, ~) against redis-server 7.0.15: a key needs read access
when its key spec (or the command's key function) says ACCESS, and write access when it says
INSERT, DELETE or UPDATE; RO / RW / OW / RM alone need neither. ACL DRYRUN and real commands
answer what Redis answers.
"""

import pytest

from listd_testing import RedisServer
from listd_testing.resp import RawConn

USER = ["ACL", "SETUSER", "keys", "on", ">pw", "+@all", "%R~r:*", "%W~w:*", "~b:*"]

CASES = [
    ["GET", "r:1"], ["GET", "w:1"], ["SET", "r:1", "v"], ["SET", "w:1", "v"],
    ["SET", "w:1", "v", "GET"], ["SET", "b:1", "v", "get"], ["MSET", "w:a", "1", "w:b", "2"],
    ["BITFIELD", "r:1", "GET", "u8", "0"], ["BITFIELD", "r:1", "SET", "u8", "0", "1"],
    ["BITFIELD", "w:1", "INCRBY", "u8", "0", "1"], ["BITFIELD", "b:1", "SET", "u8", "0", "1"],
    ["XREAD", "STREAMS", "r:s", "0"], ["XADD", "r:s", "*", "f", "v"], ["XADD", "w:s", "*", "f", "v"],
    ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "r:s", ">"],
    ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "w:s", ">"],
    ["LMOVE", "r:a", "w:b", "LEFT", "LEFT"], ["LMOVE", "b:a", "w:b", "LEFT", "LEFT"],
    ["COPY", "r:a", "w:b"], ["ZUNIONSTORE", "w:d", "2", "r:a", "r:b"],
    ["ZUNIONSTORE", "r:d", "1", "r:a"], ["SORT", "r:k", "STORE", "w:d"],
    ["SORT", "r:k", "STORE", "r:d"], ["EXISTS", "w:1", "r:2"], ["TYPE", "w:k"],
    ["DEL", "r:1"], ["DEL", "w:1"], ["RENAME", "w:a", "w:b"], ["RENAME", "b:a", "w:b"],
    ["EVAL", "return 1", "1", "r:k"], ["EVAL", "return 1", "1", "b:k"],
    ["GEORADIUS", "r:g", "0", "0", "1", "km", "STORE", "w:d"],
    ["GEORADIUS", "r:g", "0", "0", "1", "km", "STOREDIST", "r:d"],
    ["OBJECT", "ENCODING", "w:k"], ["PFCOUNT", "r:h"], ["PFCOUNT", "w:h"],
]


@pytest.fixture(scope="module")
def admins(listd):
    oracle = RedisServer().start()
    conns = {"redis": RawConn(oracle.port), "listd": RawConn(listd.port)}
    for conn in conns.values():
        assert conn.call(*USER) == b"+OK\r\n"
    yield conns
    for conn in conns.values():
        conn.call("ACL", "DELUSER", "keys")
        conn.close()
    oracle.stop()
    oracle.close()


def test_dryrun_key_access_matches_redis(admins):
    diffs = []
    for argv in CASES:
        want, got = (admins[w].call("ACL", "DRYRUN", "keys", *argv) for w in ("redis", "listd"))
        if want != got:
            diffs.append((argv, want, got))
    assert diffs == []
    # The case table exercises both outcomes.
    outcomes = {admins["redis"].call("ACL", "DRYRUN", "keys", *argv) == b"+OK\r\n" for argv in CASES}
    assert outcomes == {True, False}


def test_commands_run_as_the_user_answer_as_redis(admins):
    replies = {}
    for who, admin in admins.items():
        admin.call("FLUSHALL")
        port = admin.sock.getpeername()[1]
        with RawConn(port) as user:
            assert user.call("AUTH", "keys", "pw") == b"+OK\r\n"
            replies[who] = [user.call(*argv) for argv in (
                ["SET", "w:1", "v"], ["SET", "r:1", "v"], ["GET", "r:1"],
                ["SET", "w:1", "v", "GET"], ["BITFIELD", "r:1", "GET", "u8", "0"],
                ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "r:s", ">"])]
    assert replies["listd"] == replies["redis"]
