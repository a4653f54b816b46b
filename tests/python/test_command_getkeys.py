"""COMMAND GETKEYS against redis-server 7.0.15: for a table of sample argv, fixed, counted
(numkeys) and scanned (STREAMS, STORE, STOREDIST) keys, and the errors, the server under test
answers what Redis answers, in the same order.
"""

import pytest
import redis

from listd_testing import RedisServer

SAMPLES = [
    ["GET", "k"], ["SET", "k", "v", "EX", "10"], ["MSET", "a", "1", "b", "2"],
    ["MGET", "a", "b", "c"], ["DEL", "a", "b"], ["RENAME", "a", "b"],
    ["LMOVE", "a", "b", "LEFT", "RIGHT"], ["BLPOP", "a", "b", "0"],
    ["LMPOP", "2", "a", "b", "LEFT"], ["BLMPOP", "0", "2", "a", "b", "LEFT", "COUNT", "2"],
    ["ZMPOP", "1", "z", "MIN"], ["BZMPOP", "0", "2", "z1", "z2", "MAX"],
    ["ZUNION", "2", "a", "b"], ["ZINTER", "2", "a", "b", "WEIGHTS", "1", "2"],
    ["ZDIFF", "2", "a", "b"], ["ZUNIONSTORE", "d", "2", "a", "b"],
    ["ZINTERSTORE", "d", "3", "a", "b", "c"], ["ZDIFFSTORE", "d", "1", "a"],
    ["ZINTERCARD", "2", "a", "b"], ["SINTERCARD", "2", "a", "b"],
    ["ZRANGESTORE", "d", "s", "0", "-1"],
    ["MIGRATE", "h", "1", "k", "0", "5000", "COPY"],
    ["MIGRATE", "h", "1", "", "0", "5000", "AUTH2", "keys", "keys", "KEYS", "a", "b"],
    ["SORT", "k"], ["SORT", "k", "STORE", "d"], ["SORT", "k", "LIMIT", "0", "1", "STORE", "d"],
    ["SORT_RO", "k", "BY", "w_*"],
    ["EVAL", "return 1", "2", "a", "b", "x"], ["EVALSHA", "abc", "1", "a"],
    ["EVAL_RO", "return 1", "1", "a"], ["FCALL", "f", "2", "a", "b"], ["FCALL_RO", "f", "1", "a"],
    ["EVAL", "return 1", "0"], ["EVAL", "return 1", "5", "a"], ["FCALL", "f", "0"],
    ["XREAD", "STREAMS", "s1", "s2", "0", "0"], ["XREAD", "COUNT", "2", "STREAMS", "s1", "0"],
    ["XREAD", "STREAMS", "s1", "s2", "0"], ["XREAD", "COUNT", "1", "STREAMS"],
    ["XREAD", "COUNT", "1", "a", "b"], ["XREAD", "STREAMS", "s1"],
    ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", "s2", ">", ">"],
    ["XREADGROUP", "GROUP", "streams", "c", "NOACK", "STREAMS", "s", ">"],
    ["XADD", "s", "*", "f", "v"],
    ["GEORADIUS", "g", "0", "0", "1", "km", "STORE", "d"],
    ["GEORADIUS", "g", "0", "0", "1", "km", "STOREDIST", "d"],
    ["GEORADIUS", "g", "0", "0", "1", "km", "STORE", "a", "STORE", "b"],
    ["GEORADIUS", "g", "0", "0", "1", "km", "STORE"],
    ["GEORADIUSBYMEMBER", "g", "m", "1", "km", "STORE", "d"],
    ["GEORADIUSBYMEMBER", "g", "m", "1", "km", "STOREDIST", "d", "STORE", "e"],
    ["GEORADIUS_RO", "g", "0", "0", "1", "km"],
    ["GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "m", "BYRADIUS", "1", "km"],
    ["BITOP", "AND", "d", "a", "b"], ["BITFIELD", "k", "GET", "u8", "0"],
    ["OBJECT", "ENCODING", "k"], ["MEMORY", "USAGE", "k"], ["XINFO", "STREAM", "s"],
    ["PFCOUNT", "a", "b"], ["PFMERGE", "d", "a", "b"], ["SMOVE", "a", "b", "m"],
    ["LCS", "a", "b"], ["COPY", "a", "b"], ["WATCH", "a", "b"],
    ["SUNIONSTORE", "d", "a", "b"], ["RPOPLPUSH", "a", "b"], ["TOUCH", "a"],
    ["MSETNX", "a", "1", "b", "2"], ["GETEX", "k", "PERSIST"], ["DUMP", "k"],
    ["RESTORE", "k", "0", "x"],
    ["PING"], ["PING", "x"], ["GET"], ["LPUSH", "k"], ["NOSUCHCMD", "x"],
    ["SSUBSCRIBE", "a", "b"], ["ZUNION", "0", "a"], ["ZUNION", "5", "a"],
    ["ZUNIONSTORE", "d", "0", "a"], ["LMPOP", "3", "a", "LEFT"], ["LMPOP", "0", "a", "LEFT"],
]


@pytest.fixture(scope="module")
def ora():
    srv = RedisServer().start()
    client = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    yield client
    client.connection_pool.disconnect()
    srv.stop()
    srv.close()


def getkeys(client, argv):
    # redis-py parses COMMAND replies as COMMAND INFO: ask for the raw reply.
    client.response_callbacks.pop("COMMAND", None)
    try:
        return client.execute_command("COMMAND", "GETKEYS", *argv)
    except redis.ResponseError as e:
        return "error: " + str(e)


def test_getkeys_matches_redis(rb, ora):
    diffs = []
    for argv in SAMPLES:
        want, got = getkeys(ora, argv), getkeys(rb, argv)
        if want != got:
            diffs.append((argv, want, got))
    assert diffs == []
