"""redis-cli 7.0's replica modes against listd, next to a real redis-server 7.0.15 master.

`redis-cli --rdb <file>` sends REPLCONF capa eof, REPLCONF rdb-only 1 and the old SYNC: the
master sends the RDB (either form) and closes (7.0's CLIENT_REPL_RDBONLY). The file it writes
is loaded by a redis-server, which must have the keys. `redis-cli --replica` sends REPLCONF
rdb-filter-only "" (an RDB without keys nor functions, always diskless) and SYNC, then prints
the stream in CSV. `redis-cli --functions-rdb <file>` adds rdb-filter-only functions to --rdb's
handshake: the file has the FUNCTION libraries and no key. Each is run against each master and
compared.
"""

import os
import re
import subprocess
import tempfile

import pytest
import redis

from conftest import LineReader
from listd_testing import ListdServer, RedisServer, wait_until


def masters():
    return {"listd": ListdServer, "redis": RedisServer}


def fill(client):
    client.rpush("l", "a", "b", "c")
    client.set("s", "v")
    client.hset("h", "f", "1")


def load_in_redis(path):
    """A redis-server started on `path` as its dump.rdb; returns what it loaded."""
    srv = RedisServer(["--dir", os.path.dirname(path), "--dbfilename", os.path.basename(path)])
    srv.start()
    try:
        c = redis.Redis(port=srv.port, decode_responses=True)
        return {"l": c.lrange("l", 0, -1), "s": c.get("s"), "h": c.hgetall("h"),
                "dbsize": c.dbsize()}
    finally:
        srv.close()


def load_functions_in_redis(path):
    """The libraries and the key count a redis-server started on `path` loaded."""
    srv = RedisServer(["--dir", os.path.dirname(path), "--dbfilename", os.path.basename(path)])
    srv.start()
    try:
        c = redis.Redis(port=srv.port, decode_responses=True)
        libs = c.execute_command("FUNCTION", "LIST")
        names = sorted(lib[lib.index("library_name") + 1] for lib in libs)
        return {"libraries": names, "dbsize": c.dbsize(), "fcall": c.fcall("cli_f", 0)}
    finally:
        srv.close()


LIBRARY = "#!lua name=clilib\nredis.register_function('cli_f', function() return 'hi' end)"


def get_rdb(port, path, mode="--rdb"):
    proc = subprocess.run(["redis-cli", "-p", str(port), mode, path], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # The byte count is the snapshot's size, which differs between servers; the path, the run's.
    text = (proc.stdout + proc.stderr).decode().replace(path, "<file>")
    return re.sub(r"\d+ bytes", "N bytes", text)


@pytest.mark.parametrize("diskless", ["yes", "no"])
def test_rdb_mode_writes_a_file_redis_loads(diskless):
    outputs = {}
    for kind, server in masters().items():
        srv = server(["--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0"])
        srv.start()
        try:
            c = redis.Redis(port=srv.port)
            fill(c)
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "out.rdb")
                outputs[kind] = get_rdb(srv.port, path)
                assert load_in_redis(path) == {"l": ["a", "b", "c"], "s": "v",
                                               "h": {"f": "1"}, "dbsize": 3}
            # The rdb-only replica is closed after its RDB and never counted as a replica.
            assert wait_until(lambda: c.info("replication")["connected_slaves"] == 0,
                              timeout=20)
            assert c.info("replication")["master_repl_offset"] >= 0
        finally:
            srv.close()
    print(outputs["listd"])
    assert "sending REPLCONF rdb-only 1" in outputs["listd"]
    assert "Transfer finished with success" in outputs["listd"]
    assert outputs["listd"] == outputs["redis"]


def test_rdb_only_value_is_checked():
    srv = ListdServer().start()
    try:
        c = redis.Redis(port=srv.port)
        with pytest.raises(redis.ResponseError, match="value must between 0 and 1"):
            c.execute_command("REPLCONF", "rdb-only", "2")
        with pytest.raises(redis.ResponseError, match="value is not an integer"):
            c.execute_command("REPLCONF", "rdb-only", "x")
        assert c.execute_command("REPLCONF", "rdb-only", "0") == b"OK"
    finally:
        srv.close()


@pytest.mark.parametrize("diskless", ["yes", "no"])
def test_functions_rdb_mode_writes_the_functions_and_no_key(diskless):
    outputs = {}
    for kind, server in masters().items():
        srv = server(["--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0"])
        srv.start()
        try:
            c = redis.Redis(port=srv.port, decode_responses=True)
            fill(c)
            c.select(5)
            c.rpush("other", "x")
            assert c.function_load(LIBRARY) == "clilib"
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "functions.rdb")
                outputs[kind] = get_rdb(srv.port, path, "--functions-rdb")
                assert load_functions_in_redis(path) == {"libraries": ["clilib"], "dbsize": 0,
                                                         "fcall": "hi"}
            # rdb-only: closed after its RDB; the master's data is untouched.
            assert wait_until(lambda: c.info("replication")["connected_slaves"] == 0,
                              timeout=20)
            assert c.dbsize() == 1 and c.select(0) and c.dbsize() == 3
        finally:
            srv.close()
    print(outputs["listd"])
    assert "sending REPLCONF rdb-filter-only functions" in outputs["listd"]
    assert "error" not in outputs["listd"].lower()
    # Always the EOF form (a filtered RDB is sent diskless), whatever repl-diskless-sync says.
    assert "until EOF marker" in outputs["listd"]
    assert "Transfer finished with success" in outputs["listd"]
    assert outputs["listd"] == outputs["redis"]


def test_rdb_filter_only_values_are_checked():
    srv = ListdServer().start()
    try:
        c = redis.Redis(port=srv.port)
        with pytest.raises(redis.ResponseError, match="Unsupported rdb-filter-only option: keys"):
            c.execute_command("REPLCONF", "rdb-filter-only", "functions keys")
        with pytest.raises(redis.ResponseError, match="Missing rdb-filter-only values"):
            c.execute_command("REPLCONF", "rdb-filter-only", '"functions')
        # Without capa eof a filtered replica is refused and stays a normal client.
        with pytest.raises(redis.ResponseError,
                           match="Filtered replica requires EOF capability"):
            c.execute_command("SYNC")
        assert c.execute_command("REPLCONF", "rdb-filter-only", "FUNCTIONS") == b"OK"
        assert c.execute_command("REPLCONF", "rdb-filter-only", "") == b"OK"
        assert c.ping()
        assert c.info("replication")["connected_slaves"] == 0
    finally:
        srv.close()


def stream_lines(kind):
    """What redis-cli --replica prints for a few writes to a fresh master of `kind`: the
    handshake's lines (up to "SYNC done") and the stream's."""
    srv = masters()[kind](["--repl-diskless-sync", "no", "--repl-ping-replica-period", "3600"])
    srv.start()
    reader = LineReader(["redis-cli", "-p", str(srv.port), "--replica"])
    try:
        handshake = []
        for _ in range(10):
            handshake.append(reader.readline(timeout=30).strip())
            if "SYNC done" in handshake[-1]:
                break
        c = redis.Redis(port=srv.port)
        c.rpush("l", "a")
        c.set("s", "v")
        lines = []
        while not lines or '"v"' not in lines[-1]:
            line = reader.readline(timeout=30).strip()
            # redis-cli's own stderr: after the EOF form it ACKs ("sending REPLCONF ACK 0").
            if not line.startswith("sending REPLCONF"):
                lines.append(line)
        return handshake, lines
    finally:
        reader.stop()
        srv.close()


def test_replica_mode_prints_the_stream():
    (our_handshake, ours), (redis_handshake, redis_lines) = stream_lines("listd"), stream_lines(
        "redis")
    print(our_handshake)
    # REPLCONF rdb-filter-only "" is accepted: no error, and the RDB comes in the EOF form
    # (without keys) even with repl-diskless-sync no, as from Redis.
    assert not [x for x in our_handshake if "error" in x.lower()]
    assert "sending REPLCONF rdb-filter-only" in our_handshake
    assert any("until EOF marker" in x for x in our_handshake)

    def sizeless(lines):  # the RDB's size differs between servers
        return [re.sub(r"\d+ bytes", "N bytes", x) for x in lines]

    assert sizeless(our_handshake) == sizeless(redis_handshake)
    # After the EOF form (socket target, forced by the rdb filter) redis-cli shows no SELECT
    # first, from either master: the stream's lines are the same.
    assert ours == redis_lines
