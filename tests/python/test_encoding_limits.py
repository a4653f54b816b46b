"""The small forms' limits, honoured as Redis 7.0.15 honours them: hash-max-listpack-entries,
hash-max-listpack-value, zset-max-listpack-entries, zset-max-listpack-value (each also under its
old -ziplist- name) and set-max-intset-entries.

Every assertion is OBJECT ENCODING (or CONFIG GET) and holds against listd and against
redis-server 7.0.15 (LISTD_TEST_TARGET=redis, python.against_redis):
  - CONFIG SET moves a limit; a key converts where Redis converts (HSET & co, ZADD, GEOADD, the
    STORE commands, SADD), and a lowered limit converts nothing until the next write that checks;
  - RESTORE and a restart's RDB load keep a listpack hash or sorted set whose count is within
    the limit even if a value is longer than the value limit (rdbLoadObject checks only the
    count for a listpack blob), turn a plain-typed (hashtable, skip list) one back into a
    listpack when it fits, and convert an intset over set-max-intset-entries.
"""

import pytest
import redis

from listd_testing import ListdServer

DEFAULTS = {
    "hash-max-listpack-entries": "512",
    "hash-max-listpack-value": "64",
    "zset-max-listpack-entries": "128",
    "zset-max-listpack-value": "64",
    "set-max-intset-entries": "512",
}
ALIASES = {
    "hash-max-ziplist-entries": "hash-max-listpack-entries",
    "hash-max-ziplist-value": "hash-max-listpack-value",
    "zset-max-ziplist-entries": "zset-max-listpack-entries",
    "zset-max-ziplist-value": "zset-max-listpack-value",
}


@pytest.fixture
def c(r):
    """The shared server's client; every limit back at Redis' default afterwards."""
    yield r
    for name, value in DEFAULTS.items():
        r.config_set(name, value)


def enc(c, key):
    return c.object("encoding", key)


def limits(c, **values):
    for name, value in values.items():
        c.config_set(name.replace("_", "-"), str(value))


def test_names_aliases_and_defaults(c):
    for name, value in DEFAULTS.items():
        assert c.config_get(name) == {name: value}
    for alias, name in ALIASES.items():
        assert c.config_get(alias) == {alias: DEFAULTS[name]}
    assert c.config_get("hash-max-*") == {
        "hash-max-listpack-entries": "512", "hash-max-ziplist-entries": "512",
        "hash-max-listpack-value": "64", "hash-max-ziplist-value": "64"}
    c.config_set("zset-max-ziplist-value", "1kb")
    assert c.config_get("zset-max-listpack-value") == {"zset-max-listpack-value": "1024"}
    c.config_set("hash-max-ziplist-entries", "7")
    assert c.config_get("hash-max-listpack-entries") == {"hash-max-listpack-entries": "7"}
    with pytest.raises(redis.ResponseError, match="argument must be between 0 and "
                                                  "9223372036854775807 inclusive"):
        c.config_set("set-max-intset-entries", "-1")
    with pytest.raises(redis.ResponseError, match="argument must be a memory value"):
        c.config_set("hash-max-listpack-value", "x")


def test_hash_entries_and_value_limits(c):
    limits(c, hash_max_listpack_entries=4, hash_max_listpack_value=8)
    c.hset("h", mapping={"a": "12345678", "b": 1, "c": 2, "d": 3})
    assert enc(c, "h") == "listpack"  # 4 fields, values of 8 bytes: at both limits
    c.hset("h", "e", 4)
    assert enc(c, "h") == "hashtable"
    c.hset("long_value", "f", "123456789")
    assert enc(c, "long_value") == "hashtable"
    c.hset("long_field", "123456789", "v")
    assert enc(c, "long_field") == "hashtable"
    c.hsetnx("nx", "f", "123456789")
    assert enc(c, "nx") == "hashtable"
    c.execute_command("HMSET", "m", "a", "1", "b", "2")
    assert enc(c, "m") == "listpack"
    # HINCRBY's result is checked as it is set (hashTypeSet).
    c.hincrby("incr", "f", 12345678)
    assert enc(c, "incr") == "listpack"
    c.hincrby("incr", "f", 100000000)
    assert enc(c, "incr") == "hashtable"
    c.hincrbyfloat("fl", "f", "1.5")
    assert enc(c, "fl") == "listpack"
    c.hincrbyfloat("fl", "f", "0.123456789")
    assert enc(c, "fl") == "hashtable"
    limits(c, hash_max_listpack_entries=0)
    c.hset("none", "a", "b")
    assert enc(c, "none") == "hashtable"


def test_zset_entries_and_value_limits(c):
    limits(c, zset_max_listpack_entries=3, zset_max_listpack_value=5)
    c.zadd("z", {"a": 1, "b": 2, "12345": 3})
    assert enc(c, "z") == "listpack"
    c.zadd("z", {"d": 4})
    assert enc(c, "z") == "skiplist"
    c.zadd("first_long", {"123456": 1})
    assert enc(c, "first_long") == "skiplist"
    c.zadd("second_long", {"a": 1, "123456": 2})
    assert enc(c, "second_long") == "skiplist"
    c.zincrby("incr", 1, "a")
    assert enc(c, "incr") == "listpack"
    c.geoadd("geo", [13.36, 38.11, "pa", 15.08, 37.50, "ca", 12.49, 41.89, "ro"])
    assert enc(c, "geo") == "listpack"
    c.geoadd("geo", [9.19, 45.46, "mi"])
    assert enc(c, "geo") == "skiplist"
    limits(c, zset_max_listpack_entries=0)
    c.zadd("none", {"a": 1})
    assert enc(c, "none") == "skiplist"


def test_set_intset_limit(c):
    limits(c, set_max_intset_entries=3)
    c.sadd("s", 1, 2, 3)
    assert enc(c, "s") == "intset"
    c.sadd("s", 4)
    assert enc(c, "s") == "hashtable"
    c.sadd("a", 1, 2, 3, 4)
    c.sadd("b", 1, 2, 3, 4, 5)
    c.sadd("c", 1, 2, 3)
    assert c.sinterstore("inter3", "a", "c") == 3
    assert enc(c, "inter3") == "intset"
    assert c.sinterstore("inter4", "a", "b") == 4
    assert enc(c, "inter4") == "hashtable"
    assert c.sunionstore("union3", "c") == 3
    assert enc(c, "union3") == "intset"
    assert c.sunionstore("union5", "a", "b") == 5
    assert enc(c, "union5") == "hashtable"
    assert c.sdiffstore("diff1", "b", "a") == 1
    assert enc(c, "diff1") == "intset"
    limits(c, set_max_intset_entries=0)
    c.sadd("none", 1)
    assert enc(c, "none") == "hashtable"


def test_store_commands_take_the_limits(c):
    limits(c, zset_max_listpack_entries=3, zset_max_listpack_value=5)
    c.zadd("src", {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5})  # a skip list (5 > 3)
    c.zadd("small", {"a": 1, "b": 2})
    assert c.zunionstore("u2", ["small"]) == 2
    assert enc(c, "u2") == "listpack"
    assert c.zunionstore("u5", ["src", "small"]) == 5
    assert enc(c, "u5") == "skiplist"
    assert c.zinterstore("i2", ["src", "small"]) == 2
    assert enc(c, "i2") == "listpack"
    assert c.zdiffstore("d3", ["src", "small"]) == 3
    assert enc(c, "d3") == "listpack"
    c.zadd("longm", {"123456": 1})
    assert c.zunionstore("ul", ["longm"]) == 1
    assert enc(c, "ul") == "skiplist"
    # ZRANGESTORE: a rank range is sized up front; a score range grows a listpack.
    assert c.zrangestore("r3", "src", 0, 2) == 3
    assert enc(c, "r3") == "listpack"
    assert c.zrangestore("r4", "src", 0, 3) == 4
    assert enc(c, "r4") == "skiplist"
    assert c.zrangestore("s3", "src", 1, 3, byscore=True) == 3
    assert enc(c, "s3") == "listpack"
    assert c.zrangestore("s4", "src", 1, 4, byscore=True) == 4
    assert enc(c, "s4") == "skiplist"
    c.geoadd("pts", [13.361389, 38.115556, "pa", 15.087269, 37.502669, "ca",
                     12.496366, 41.902782, "ro", 9.189982, 45.464204, "mi"])
    assert c.geosearchstore("g3", "pts", longitude=14, latitude=38, radius=600, unit="km") == 3
    assert enc(c, "g3") == "listpack"
    assert c.geosearchstore("g4", "pts", longitude=14, latitude=38, radius=1000, unit="km") == 4
    assert enc(c, "g4") == "skiplist"
    limits(c, zset_max_listpack_value=1)
    assert c.geosearchstore("g1", "pts", longitude=14, latitude=38, radius=100, unit="km") == 1
    assert enc(c, "g1") == "skiplist"  # "ca" is 2 bytes


def test_lowered_limits_convert_on_the_next_write_that_checks(c):
    c.hset("h", mapping={f"f{i}": "v" * 20 for i in range(10)})
    c.zadd("z", {f"m{i}": i for i in range(10)})
    c.sadd("s", *range(10))
    limits(c, hash_max_listpack_entries=5, hash_max_listpack_value=5,
           zset_max_listpack_entries=5, zset_max_listpack_value=1, set_max_intset_entries=5)
    assert [enc(c, k) for k in ("h", "z", "s")] == ["listpack", "listpack", "intset"]
    c.hdel("h", "f9")
    c.zrem("z", "m9")
    c.srem("s", 9)
    assert [enc(c, k) for k in ("h", "z", "s")] == ["listpack", "listpack", "intset"]
    c.zadd("z", {"m3": 30})  # an update: zsetAdd checks only for a new member
    c.sadd("s", 3)  # already there
    assert [enc(c, k) for k in ("z", "s")] == ["listpack", "intset"]
    c.hset("h", "f0", "x")  # hashTypeSet checks the count on every set
    c.zadd("z", {"new": 11})
    c.sadd("s", 99)
    assert [enc(c, k) for k in ("h", "z", "s")] == ["hashtable", "skiplist", "hashtable"]
    assert c.hget("h", "f1") == "v" * 20
    assert c.zrange("z", -2, -1) == ["new", "m3"]
    assert c.scard("s") == 10


def test_restore_decides_by_count_for_a_listpack(c):
    c.hset("h", mapping={"a": "x" * 20, "b": "y" * 30, "c": "z"})
    c.zadd("z", {"m" * 20: 1, "n" * 30: 2.5, "o": 3})
    c.sadd("s", 1, 2, 3, 4, 5)
    dumps = {k: c.dump(k) for k in ("h", "z", "s")}
    limits(c, hash_max_listpack_value=5, zset_max_listpack_value=5, set_max_intset_entries=4)
    for k, payload in dumps.items():
        c.restore(k + "2", 0, payload)
    # Long values, but within the counts: the listpacks stay; the intset is over its count.
    assert [enc(c, k) for k in ("h2", "z2", "s2")] == ["listpack", "listpack", "hashtable"]
    assert c.hgetall("h2") == {"a": "x" * 20, "b": "y" * 30, "c": "z"}
    assert c.zrange("z2", 0, -1, withscores=True) == [("m" * 20, 1.0), ("n" * 30, 2.5),
                                                      ("o", 3.0)]
    # A short write keeps such a listpack (HSET looks at its own arguments only).
    c.hset("h2", "d", "w")
    assert enc(c, "h2") == "listpack"
    c.hset("h2", "e", "123456")
    assert enc(c, "h2") == "hashtable"
    limits(c, hash_max_listpack_entries=2, zset_max_listpack_entries=2)
    c.restore("h3", 0, dumps["h"])
    c.restore("z3", 0, dumps["z"])
    assert [enc(c, k) for k in ("h3", "z3")] == ["hashtable", "skiplist"]


def test_restore_turns_a_plain_type_back_into_the_small_form(c):
    limits(c, hash_max_listpack_entries=2, zset_max_listpack_entries=2,
           set_max_intset_entries=2)
    c.hset("h", mapping={"a": 1, "b": 2, "c": 3})
    c.zadd("z", {"a": 1, "b": 2, "c": 3})
    c.sadd("s", 1, 2, 3)
    assert [enc(c, k) for k in ("h", "z", "s")] == ["hashtable", "skiplist", "hashtable"]
    dumps = {k: c.dump(k) for k in ("h", "z", "s")}
    limits(c, hash_max_listpack_entries=512, zset_max_listpack_entries=128,
           set_max_intset_entries=512)
    for k, payload in dumps.items():
        c.restore(k + "2", 0, payload)
    assert [enc(c, k) for k in ("h2", "z2", "s2")] == ["listpack", "listpack", "intset"]
    # ... unless a value is over its limit: the plain types are checked element by element.
    limits(c, hash_max_listpack_value=0, zset_max_listpack_value=0)
    c.restore("h3", 0, dumps["h"])
    c.restore("z3", 0, dumps["z"])
    assert [enc(c, k) for k in ("h3", "z3")] == ["hashtable", "skiplist"]


def build_for_restart(c):
    c.hset("h_long", mapping={"a": "x" * 20, "b": "y" * 30})
    c.hset("h_many", mapping={f"f{i}": i for i in range(10)})
    c.zadd("z_long", {"m" * 20: 1, "n" * 30: 2})
    c.zadd("z_many", {f"m{i}": i for i in range(10)})
    c.sadd("s_ints", *range(10))
    limits(c, hash_max_listpack_entries=2, zset_max_listpack_entries=2)
    c.hset("h_table", mapping={"a": 1, "b": 2, "c": 3})
    c.zadd("z_skip", {"a": 1, "b": 2, "c": 3})
    limits(c, hash_max_listpack_entries=512, zset_max_listpack_entries=128)


def encodings(c):
    keys = ("h_long", "h_many", "h_table", "z_long", "z_many", "z_skip", "s_ints")
    return {k: enc(c, k) for k in keys}


def test_restart_loads_with_the_new_limits():
    srv = ListdServer().start()
    try:
        c = redis.Redis(host="127.0.0.1", port=srv.port, decode_responses=True,
                        socket_timeout=30)
        build_for_restart(c)
        assert encodings(c) == {"h_long": "listpack", "h_many": "listpack",
                                "h_table": "hashtable", "z_long": "listpack",
                                "z_many": "listpack", "z_skip": "skiplist", "s_ints": "intset"}
        assert c.save()
        c.connection_pool.disconnect()
        # Value limits lowered (old names on the command line): only the counts decide for
        # the listpacks; the plain-typed ones are checked member by member.
        srv.args = ["--hash-max-ziplist-value", "5", "--zset-max-ziplist-value", "5",
                    "--set-max-intset-entries", "9"]
        srv.restart()
        c = redis.Redis(host="127.0.0.1", port=srv.port, decode_responses=True,
                        socket_timeout=30)
        assert c.config_get("hash-max-listpack-value") == {"hash-max-listpack-value": "5"}
        assert encodings(c) == {"h_long": "listpack", "h_many": "listpack",
                                "h_table": "listpack", "z_long": "listpack",
                                "z_many": "listpack", "z_skip": "listpack", "s_ints": "hashtable"}
        assert c.hget("h_long", "b") == "y" * 30
        assert c.save()
        c.connection_pool.disconnect()
        # Entry limits lowered under the counts: everything over converts. The set, saved as a
        # plain set of integers, is an intset again under the default set-max-intset-entries.
        srv.args = ["--hash-max-listpack-entries", "2", "--zset-max-listpack-entries", "2"]
        srv.restart()
        c = redis.Redis(host="127.0.0.1", port=srv.port, decode_responses=True,
                        socket_timeout=30)
        assert encodings(c) == {"h_long": "listpack", "h_many": "hashtable",
                                "h_table": "hashtable", "z_long": "listpack",
                                "z_many": "skiplist", "z_skip": "skiplist", "s_ints": "intset"}
        assert c.zrange("z_long", 0, -1) == ["m" * 20, "n" * 30]
        assert c.hlen("h_many") == 10
        c.connection_pool.disconnect()
    finally:
        assert srv.stop() == 0
        srv.close()
