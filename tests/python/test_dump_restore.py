"""DUMP / RESTORE against redis-server 7.0.15: payloads move both ways for every type and
encoding listd has, and RESTORE's errors and options answer as Redis' do.

The oracle is a real redis-server 7.0 (a second one under python.against_redis, where the
server under test is Redis too). For each kind of value:
  - Redis' DUMP restores into the server under test with the same contents and OBJECT ENCODING,
    and the payload the server under test then DUMPs restores back into Redis; where Redis'
    own DUMP is deterministic (everything but its hash tables, ordered by a per-process seed)
    Redis dumps the round-tripped value byte for byte as it dumped the original;
  - the server under test's DUMP of the same value built there restores into Redis.
Under rdbcompression yes (the default) the server under test LZF-compresses strings of more
than 20 bytes in its payloads and its dump.rdb, as Redis' rdbSaveRawString does: both restore
and load into Redis with the same contents, and with rdbcompression no nothing is compressed.
"""

import os

import pytest
import redis

from listd_testing import ListdServer, RedisServer


@pytest.fixture(scope="module")
def oracle_server():
    srv = RedisServer().start()
    yield srv
    srv.stop()
    srv.close()


@pytest.fixture
def ora(oracle_server):
    client = redis.Redis(host="127.0.0.1", port=oracle_server.port, socket_timeout=30)
    client.flushall()
    client.config_set("maxmemory-policy", "noeviction")
    yield client
    client.connection_pool.disconnect()


@pytest.fixture
def tgt(rb):
    rb.config_set("maxmemory-policy", "noeviction")
    yield rb
    rb.config_set("maxmemory-policy", "noeviction")


def build_stream(c, k):
    for i in range(1, 40):
        c.xadd(k, {"f": f"v{i}", "n": str(i)} if i % 7 else {"other": "x" * i}, id=f"{i}-1")
    c.xgroup_create(k, "g1", "0")
    c.xgroup_create(k, "g2", "$")
    c.xreadgroup("g1", "alice", {k: ">"}, count=5)
    c.xreadgroup("g1", "bob", {k: ">"}, count=3)
    c.xack(k, "g1", "2-1", "6-1")
    c.xdel(k, "3-1", "39-1")


# kind -> (builder, Redis' DUMP of it is deterministic)
KINDS = {
    "embstr": (lambda c, k: c.set(k, "hello"), True),
    "int": (lambda c, k: c.set(k, "-1234567"), True),
    "raw_lzf": (lambda c, k: c.set(k, "ab" * 300), True),
    "binary": (lambda c, k: c.set(k, bytes(range(256)) * 3), True),
    "hll_sparse": (lambda c, k: c.pfadd(k, *[f"e{i}" for i in range(50)]), True),
    "hll_dense": (lambda c, k: c.pfadd(k, *[f"e{i}" for i in range(3000)]), True),
    "list_small": (lambda c, k: c.rpush(k, "a", "bb", 12, -7, "x" * 70), True),
    "list_large": (lambda c, k: c.rpush(k, *[f"item-{i}" * (1 + i % 9) for i in range(3000)]),
                   True),
    "list_big_element": (lambda c, k: c.rpush(k, "a", "y" * 10000, "b"), True),
    "hash_listpack": (lambda c, k: c.hset(k, mapping={"f1": "v1", "f2": 22, "f3": "x" * 30}),
                      True),
    "hash_long_value": (lambda c, k: c.hset(k, mapping={"f": "z" * 100}), True),
    "hash_table": (lambda c, k: c.hset(k, mapping={f"f{i}": i for i in range(600)}), False),
    "set_intset": (lambda c, k: c.sadd(k, 1, -300, 70000, 2 ** 40), True),
    "set_table": (lambda c, k: c.sadd(k, "a", "b", "c"), False),
    "set_many_ints": (lambda c, k: c.sadd(k, *range(600)), False),
    "zset_listpack": (lambda c, k: c.zadd(k, {"m1": 1.5, "m2": -2, "m3": 3, "m4": 1e300}), True),
    "zset_skiplist": (lambda c, k: c.zadd(k, {f"m{i}": i * 0.25 for i in range(200)}), True),
    "zset_inf": (lambda c, k: c.zadd(k, {"lo": float("-inf"), "hi": float("inf")}), True),
    "stream": (build_stream, True),
    "stream_empty": (lambda c, k: (c.xadd(k, {"a": 1}, id="5-5"), c.xdel(k, "5-5")), True),
}


def contents(c, k):
    """What a client sees of the value at `k`, with its encoding."""
    kind = c.type(k)
    enc = c.object("encoding", k)
    if kind == b"string":
        return kind, enc, c.get(k)
    if kind == b"list":
        return kind, enc, c.lrange(k, 0, -1)
    if kind == b"hash":
        return kind, enc, sorted(c.hgetall(k).items())
    if kind == b"set":
        return kind, enc, sorted(c.smembers(k))
    if kind == b"zset":
        return kind, enc, c.zrange(k, 0, -1, withscores=True)
    assert kind == b"stream", kind
    groups = []
    for g in c.xinfo_groups(k):
        name = g["name"]
        pending = c.xpending_range(k, name, "-", "+", 1000)
        groups.append((g, [(p["message_id"], p["consumer"], p["times_delivered"])
                           for p in pending],
                       sorted((x["name"], x["pending"]) for x in c.xinfo_consumers(k, name))))
    info = c.xinfo_stream(k)
    summary = {f: info[f] for f in ("length", "last-generated-id", "max-deleted-entry-id",
                                    "entries-added", "recorded-first-entry-id")}
    return kind, enc, c.xrange(k), summary, groups


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_redis_payload_restores_and_comes_back_the_same(kind, ora, tgt):
    build, deterministic = KINDS[kind]
    build(ora, "k")
    payload = ora.dump("k")
    assert tgt.restore("k", 0, payload)
    assert contents(tgt, "k") == contents(ora, "k")
    assert ora.restore("back", 0, tgt.dump("k"))
    assert contents(ora, "back") == contents(ora, "k")
    if deterministic:
        assert ora.dump("back") == payload


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_target_payload_restores_into_redis(kind, ora, tgt):
    build, _ = KINDS[kind]
    build(tgt, "k")
    assert ora.restore("k", 0, tgt.dump("k"))
    assert contents(ora, "k") == contents(tgt, "k")


def crc64(data):
    """CRC-64/Jones as Redis computes it (reflected, no final xor)."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x95AC9329AC4BC9B5 if crc & 1 else crc >> 1
    return crc


def with_footer(body, version=10):
    body = body + bytes([version & 0xFF, version >> 8])
    return body + crc64(body).to_bytes(8, "little")


HELLO = with_footer(b"\x00\x05hello")


def reply(c, *args):
    """The reply, or the error text, of one command."""
    try:
        return c.execute_command(*args)
    except redis.ResponseError as e:
        return "ERR: " + str(e)


ERROR_STEPS = [
    ("RESTORE", "k", "0", HELLO),
    ("RESTORE", "k", "0", HELLO),
    ("RESTORE", "k", "-1", HELLO),
    ("RESTORE", "k", "0", HELLO, "BOGUS"),
    ("RESTORE", "new", "-1", HELLO),
    ("RESTORE", "new", "1.5", HELLO),
    ("RESTORE", "new", "0", b"x"),
    ("RESTORE", "new", "0", HELLO[:-1]),
    ("RESTORE", "new", "0", HELLO[:3] + b"X" + HELLO[4:]),
    ("RESTORE", "new", "0", with_footer(b"\x00\x05hello", version=11)),
    ("RESTORE", "new", "0", with_footer(b"\x00\x05hello", version=9)),
    ("RESTORE", "new2", "0", with_footer(b"\x00\x09hello")),
    ("RESTORE", "new3", "0", with_footer(b"\x01\x00")),
    ("RESTORE", "new3", "0", with_footer(b"\x02\x02\x01a\x01a")),
    ("RESTORE", "new3", "0", with_footer(b"\xf5\x01x")),
    ("RESTORE", "new3", "0", with_footer(b"")),
    ("RESTORE", "i", "0", HELLO, "IDLETIME", "-1"),
    ("RESTORE", "i", "0", HELLO, "IDLETIME", "x"),
    ("RESTORE", "i", "0", HELLO, "IDLETIME"),
    ("RESTORE", "i", "0", HELLO, "FREQ", "256"),
    ("RESTORE", "i", "0", HELLO, "FREQ", "-1"),
    ("RESTORE", "i", "0", HELLO, "IDLETIME", "1", "FREQ", "1"),
    ("RESTORE", "i", "0", HELLO, "FREQ", "1", "IDLETIME", "1"),
    ("RESTORE", "i", "0", HELLO, "replace", "absttl", "idletime", "5"),
    ("RESTORE", "k", "0", HELLO, "REPLACE"),
    ("RESTORE", "k"),
    ("DUMP", "nokey"),
    ("DUMP", "k"),
    ("DUMP",),
    ("RESTORE-ASKING", "ra", "0", HELLO),  # RESTORE on a standalone server
    ("RESTORE-ASKING", "ra", "0", HELLO),
    ("RESTORE-ASKING", "ra", "0", HELLO, "REPLACE", "IDLETIME", "x"),
    ("RESTORE-ASKING", "ra", "0"),
    ("GET", "ra"),
    ("EXISTS", "k", "new", "new2", "new3", "i"),
]


def test_restore_errors_are_redis_own(ora, tgt):
    for step in ERROR_STEPS:
        assert reply(tgt, *step) == reply(ora, *step), step


def test_ttl_and_absttl(ora, tgt):
    for c in (ora, tgt):
        assert c.restore("t", 5000, HELLO)
        assert 0 < c.pttl("t") <= 5000
        assert c.restore("a", 4102444800000, HELLO, absttl=True)
        assert c.pexpiretime("a") == 4102444800000
        assert c.restore("gone", 1, HELLO, absttl=True)  # in the past: not created
        assert c.exists("gone") == 0
        c.set("r", "old")
        assert c.restore("r", 1, HELLO, replace=True, absttl=True)  # replaced by nothing
        assert c.exists("r") == 0
        c.set("r", "old", ex=100)
        assert c.restore("r", 0, HELLO, replace=True)
        assert c.get("r") == b"hello" and c.ttl("r") == -1


def test_idletime_and_freq_follow_the_policy(ora, tgt):
    for c in (ora, tgt):
        assert c.restore("idle", 0, HELLO, idletime=1000)
        assert 1000 <= c.object("idletime", "idle") <= 1001
        assert c.restore("f", 0, HELLO, frequency=9)  # not LFU: FREQ does nothing
        assert c.object("idletime", "f") <= 1
        c.config_set("maxmemory-policy", "allkeys-lfu")
        assert c.restore("lfu", 0, HELLO, frequency=77)
        assert c.object("freq", "lfu") == 77
        assert c.restore("lfu2", 0, HELLO, idletime=1000)  # LFU: IDLETIME does nothing
        assert c.object("freq", "lfu2") == 5
        c.config_set("maxmemory-policy", "noeviction")


def build_stream_nodes(c, k):
    """Several nodes, master-field deltas, integers of each width, tombstones, trims inside a
    node and of whole nodes, a big element; a group without deliveries (a PEL would carry
    delivery times)."""
    for i in range(1, 700):
        if i % 11 == 0:
            fields = {"other": "x" * (i % 90), "n": -(i * 99991)}
        elif i % 97 == 0:
            fields = {"big": "y" * 5000}
        else:
            fields = {"job": f"{i:012d}", "state": "queued" if i % 3 else 2 ** 40 + i}
        c.xadd(k, fields, id=f"{1000 + i * 37}-{i % 5}")
    c.xdel(k, *[f"{1000 + i * 37}-{i % 5}" for i in range(5, 700, 13)])
    c.xtrim(k, maxlen=650, approximate=True)
    c.xtrim(k, minid=f"{1000 + 80 * 37}-0", approximate=False)
    c.xgroup_create(k, "idle", "0")
    c.execute_command("XSETID", k, "999999-9")


@pytest.mark.parametrize("max_entries", [100, 7, 0])
def test_stream_nodes_are_redis_own_byte_for_byte(max_entries, ora, tgt):
    """With rdbcompression yes both compress the nodes, each with its own LZF encoder, so the
    payloads may differ; Redis keeps a restored stream's listpacks as they came, so Redis' DUMP
    of what listd wrote equals its DUMP of the stream it built only if every node, counter and
    group is byte for byte its own. With rdbcompression no the payloads themselves are equal."""
    for c in (ora, tgt):
        c.config_set("stream-node-max-entries", max_entries)
    try:
        build_stream_nodes(ora, "k")
        build_stream_nodes(tgt, "k")
        want = ora.dump("k")
        assert ora.restore("from_listd", 0, tgt.dump("k"))
        assert ora.dump("from_listd") == want
        # And what listd loads from Redis it writes back unchanged.
        assert tgt.restore("back", 0, want)
        assert ora.restore("back", 0, tgt.dump("back"))
        assert ora.dump("back") == want
        for c in (ora, tgt):
            c.config_set("rdbcompression", "no")
        raw = ora.dump("k")
        assert len(raw) > len(want)  # the nodes were compressed
        assert tgt.dump("k") == raw
    finally:
        for c in (ora, tgt):
            c.config_set("stream-node-max-entries", 100)
            c.config_set("rdbcompression", "yes")


def build_compressible(c):
    """Keys of every type whose strings are over 20 bytes and repetitive, beside short ones."""
    pipe = c.pipeline(transaction=False)
    for i in range(200):
        pipe.set(f"string:{i}:" + "k" * 30, f"value {i} " + "payload " * 20)
        pipe.rpush(f"list:{i}", *[f"task-{i}-{j}-" + "x" * (j % 50) for j in range(100)])
    pipe.set("short", "hello")
    pipe.set("number", "123456")
    pipe.set("noise", os.urandom(500))
    pipe.hset("hash_listpack", mapping={f"field-{j}": "v" * 60 + str(j) for j in range(50)})
    pipe.hset("hash_table", mapping={f"field-{j}": "w" * 100 + str(j) for j in range(600)})
    pipe.sadd("set", *[f"member-{j}-" + "m" * 30 for j in range(300)])
    pipe.zadd("zset_listpack", {f"member-{j}-" + "z" * 20: j * 0.5 for j in range(40)})
    pipe.zadd("zset_skiplist", {f"member-{j}-" + "z" * 40: j for j in range(300)})
    pipe.execute()
    build_stream(c, "stream")


def all_contents(c):
    return {k: contents(c, k) for k in sorted(c.keys("*"))}


def saved_rdb(c, workdir, compression):
    c.config_set("rdbcompression", compression)
    assert c.execute_command("SAVE")
    with open(os.path.join(workdir, "dump.rdb"), "rb") as f:
        return f.read()


def test_compressed_dump_rdb_loads_into_redis():
    """The server under test's dump.rdb, saved with rdbcompression yes and no, loads into a
    redis-server 7.0 with every key as it was; compression makes it smaller."""
    src = ListdServer(["--save", ""]).start()
    try:
        c = redis.Redis(host="127.0.0.1", port=src.port, socket_timeout=60)
        build_compressible(c)
        want = all_contents(c)
        files = {mode: saved_rdb(c, src.workdir, mode) for mode in ("no", "yes")}
        c.connection_pool.disconnect()
    finally:
        src.stop()
        src.close()
    assert len(files["yes"]) * 3 < len(files["no"]) * 2, {k: len(v) for k, v in files.items()}
    for mode, data in files.items():
        dst = RedisServer()
        with open(os.path.join(dst.workdir, "dump.rdb"), "wb") as f:
            f.write(data)
        dst.start()
        try:
            r = redis.Redis(host="127.0.0.1", port=dst.port, socket_timeout=60)
            assert r.dbsize() == len(want), mode
            assert all_contents(r) == want, mode
            r.connection_pool.disconnect()
        finally:
            dst.stop()
            dst.close()


def test_compressed_payloads_restore_into_redis(ora, tgt):
    """DUMP follows rdbcompression as dump.rdb does (Redis createDumpPayload)."""
    build_compressible(tgt)
    try:
        for key in ("string:7:" + "k" * 30, "list:3", "hash_listpack", "hash_table", "set",
                    "zset_listpack", "zset_skiplist", "stream", "short", "noise"):
            tgt.config_set("rdbcompression", "no")
            raw = tgt.dump(key)
            tgt.config_set("rdbcompression", "yes")
            packed = tgt.dump(key)
            if key in ("short", "noise"):
                assert packed == raw, key  # 20 bytes or less; incompressible
            else:
                assert len(packed) < len(raw), key
            for n, payload in enumerate((raw, packed)):
                assert ora.restore(f"{key}:{n}", 0, payload), key
                assert contents(ora, f"{key}:{n}") == contents(tgt, key), key
    finally:
        tgt.config_set("rdbcompression", "yes")
