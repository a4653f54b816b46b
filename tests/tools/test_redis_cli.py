"""redis-cli 7.0 (Debian redis-tools) against listd: one-shot options and special modes.

The interactive session is in test_redis_cli_interactive.py. Expected texts are what
redis-cli prints against Redis 7.0.15 (CLIENTS.md section 1).
"""

import re
import subprocess
import time

from conftest import PASSWORD, LineReader, RawConn, cli


def test_one_shot_command(flushed):
    out, err = cli(flushed.port, "LPUSH", "mylist", "a", "b", "c")
    assert (out, err) == ("3\n", "")
    out, _ = cli(flushed.port, "LRANGE", "mylist", "0", "-1")
    assert out == "c\nb\na\n"
    out, _ = cli(flushed.port, "BRPOP", "mylist", "1")
    assert out == "mylist\na\n"


def test_no_raw_rendering(flushed):
    p = flushed.port
    assert cli(p, "--no-raw", "RPUSH", "l", "a", "b")[0] == "(integer) 2\n"
    assert cli(p, "--no-raw", "LRANGE", "l", "0", "-1")[0] == '1) "a"\n2) "b"\n'
    assert cli(p, "--no-raw", "LPOP", "nokey")[0] == "(nil)\n"
    assert cli(p, "--no-raw", "LRANGE", "nokey", "0", "-1")[0] == "(empty array)\n"
    assert cli(p, "--no-raw", "BRPOP", "nokey", "0.1")[0] == "(nil)\n"
    assert cli(p, "--no-raw", "TYPE", "l")[0] == "list\n"
    out, _ = cli(p, "--no-raw", "LPUSH", "l")  # exit status 0 even on an error reply
    assert out == "(error) ERR wrong number of arguments for 'lpush' command\n"


def test_raw_rendering(flushed):
    p = flushed.port
    cli(p, "RPUSH", "l", "a b", "c")
    assert cli(p, "--raw", "LRANGE", "l", "0", "-1")[0] == "a b\nc\n"
    assert cli(p, "--raw", "LPOP", "nokey")[0] == "\n"
    assert cli(p, "--raw", "LLEN", "l")[0] == "2\n"
    out, _ = cli(p, "--raw", "NOPE")
    assert out.startswith("ERR unknown command 'NOPE'")


def test_csv(flushed):
    p = flushed.port
    cli(p, "RPUSH", "l", "a", "b,c", 'd"e')
    assert cli(p, "--csv", "LRANGE", "l", "0", "-1")[0] == '"a","b,c","d\\"e"\n'
    assert cli(p, "--csv", "LLEN", "l")[0] == "3\n"


def test_select_db_with_n(flushed):
    p = flushed.port
    assert cli(p, "-n", "2", "RPUSH", "q", "x")[0] == "1\n"
    assert cli(p, "-n", "2", "LLEN", "q")[0] == "1\n"
    assert cli(p, "LLEN", "q")[0] == "0\n"
    assert cli(p, "-n", "15", "DBSIZE")[0] == "0\n"
    out, err = cli(p, "-n", "16", "PING")
    assert "DB index is out of range" in out + err


def test_password_with_a(listd_auth):
    p = listd_auth.port
    out, err = cli(p, "-a", PASSWORD, "--no-auth-warning", "RPUSH", "authq", "x")
    assert (out, err) == ("1\n", "")
    out, err = cli(p, "-a", PASSWORD, "LLEN", "authq")
    assert out == "1\n"
    assert err.startswith("Warning: Using a password")  # redis-cli's own warning, as on Redis
    out, err = cli(p, "--user", "default", "--pass", PASSWORD, "--no-auth-warning", "LLEN", "authq")
    assert (out, err) == ("1\n", "")
    out, err = cli(p, "-a", "wrong", "--no-auth-warning", "LLEN", "authq")
    assert "AUTH failed: WRONGPASS invalid username-password pair or user is disabled." in err
    assert out.startswith("NOAUTH")
    out, _ = cli(p, "LLEN", "authq")
    assert out.startswith("NOAUTH Authentication required.")


def test_resp3_with_3(flushed):
    p = flushed.port
    out, err = cli(p, "-3", "RPUSH", "l", "a")
    assert (out, err) == ("1\n", "")  # no "HELLO 3 failed" on stderr
    assert cli(p, "-3", "--no-raw", "LPOP", "nokey") == ("(nil)\n", "")
    assert cli(p, "-3", "--no-raw", "BRPOP", "nokey", "0.1") == ("(nil)\n", "")
    out, err = cli(p, "-3", "--no-raw", "CONFIG", "GET", "save")
    assert (out, err) == ('1# "save" => ""\n', "")
    out, err = cli(p, "-3", "--no-raw", "HELLO", "3")
    assert '"proto" => (integer) 3' in out and err == ""


def test_x_reads_last_argument_from_stdin(flushed):
    p = flushed.port
    out, _ = cli(p, "-x", "LPUSH", "xl", input=b"from stdin\n")
    assert out == "1\n"
    with RawConn(p) as c:
        assert c.call("LINDEX", "xl", "0") == b"$11\r\nfrom stdin\n\r\n"


def test_repeat_with_interval(flushed):
    p = flushed.port
    t0 = time.monotonic()
    out, _ = cli(p, "-r", "5", "-i", "0.1", "RPUSH", "rq", "x")
    assert out == "1\n2\n3\n4\n5\n"
    assert time.monotonic() - t0 >= 0.4
    assert cli(p, "LLEN", "rq")[0] == "5\n"


def test_pipe_mass_insertion_one_million(flushed, tmp_path):
    """redis-cli --pipe: 1,000,000 RPUSH, then its empty line + ECHO trailer."""
    n = 1_000_000
    data = tmp_path / "mass.resp"
    head = b"*3\r\n$5\r\nRPUSH\r\n$4\r\nmass\r\n"
    with open(data, "wb") as f:
        step = 100_000
        for start in range(0, n, step):
            f.write(b"".join(head + b"$%d\r\n%d\r\n" % (len(str(i)), i)
                             for i in range(start, start + step)))
    with open(data, "rb") as f:
        proc = subprocess.run(["redis-cli", "-p", str(flushed.port), "--pipe"], stdin=f,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=150)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    assert "All data transferred. Waiting for the last reply..." in out
    assert "Last reply received from server." in out
    assert "errors: 0, replies: 1000000" in out, out
    with RawConn(flushed.port) as c:
        assert c.call("LLEN", "mass") == b":1000000\r\n"
        assert c.call("LINDEX", "mass", "-1") == b"$6\r\n999999\r\n"


def test_pipe_inline_commands(flushed):
    lines = b"".join(b"RPUSH inl item-%d\r\n" % i for i in range(1000)) + b"LLEN inl\n"
    proc = subprocess.run(["redis-cli", "-p", str(flushed.port), "--pipe"], input=lines,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "errors: 0, replies: 1001" in out, out


def test_pipe_reports_errors(flushed):
    lines = b"RPUSH e a\r\nLPUSH\r\nNOPE x\r\nRPUSH e b\r\n"
    proc = subprocess.run(["redis-cli", "-p", str(flushed.port), "--pipe"], input=lines,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = proc.stdout.decode()
    assert "errors: 2, replies: 4" in out, out
    assert "ERR wrong number of arguments for 'lpush' command" in out


def test_scan_with_pattern(flushed):
    p = flushed.port
    with RawConn(p) as c:
        for i in range(250):
            c.call("RPUSH", f"user:{i}:inbox", "m")
        for i in range(50):
            c.call("RPUSH", f"other:{i}", "m")
    out, _ = cli(p, "--scan", "--pattern", "user:*")
    assert sorted(out.split()) == sorted(f"user:{i}:inbox" for i in range(250))
    out, _ = cli(p, "--scan", "--pattern", "user:1?:inbox")
    assert sorted(out.split()) == sorted(f"user:{i}:inbox" for i in range(10, 20))
    out, _ = cli(p, "--scan")
    assert len(out.split()) == 300


def fill_for_bigkeys(port):
    with RawConn(port) as c:
        c.call("RPUSH", "big", *[f"e{i}" for i in range(100)])
        c.call("RPUSH", "small", "a", "b")
        c.call("SET", "str", "x" * 50)
        c.call("SET", "tiny", "y")


def test_bigkeys(flushed):
    fill_for_bigkeys(flushed.port)
    out, err = cli(flushed.port, "--bigkeys")
    assert "error" not in (out + err).lower(), out + err
    assert "Sampled 4 keys in the keyspace!" in out
    assert "Biggest   list found '\"big\"' has 100 items" in out
    assert "Biggest string found '\"str\"' has 50 bytes" in out
    assert "2 lists with 102 items (50.00% of keys, avg size 51.00)" in out
    assert "2 strings with 51 bytes (50.00% of keys, avg size 25.50)" in out


def test_bigkeys_all_types(flushed):
    """--bigkeys with hashes, sets and sorted sets too (HLEN, SCARD, ZCARD)."""
    fill_for_bigkeys(flushed.port)
    with RawConn(flushed.port) as c:
        c.call("HSET", "h", "f1", "v", "f2", "v", "f3", "v")
        c.call("SADD", "s", "a", "b", "c", "d")
        c.call("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
    out, err = cli(flushed.port, "--bigkeys")
    assert "error" not in (out + err).lower(), out + err
    assert "Sampled 7 keys in the keyspace!" in out
    assert "Biggest   hash found '\"h\"' has 3 fields" in out
    assert "Biggest    set found '\"s\"' has 4 members" in out
    assert "Biggest   zset found '\"z\"' has 5 members" in out
    assert "1 hashs with 3 fields" in out and "1 zsets with 5 members" in out
    out, err = cli(flushed.port, "--memkeys")
    assert "error" not in (out + err).lower(), out + err
    assert re.search(r"Biggest   zset found '\"z\"' has \d+ bytes", out), out


def test_memkeys(flushed):
    fill_for_bigkeys(flushed.port)
    out, err = cli(flushed.port, "--memkeys")
    assert "error" not in (out + err).lower(), out + err
    assert "Sampled 4 keys in the keyspace!" in out
    m = re.search(r"Biggest   list found '\"big\"' has (\d+) bytes", out)
    assert m and int(m.group(1)) > 100, out
    assert re.search(r"Biggest string found '\"str\"' has \d+ bytes", out), out


def test_stat(flushed):
    with RawConn(flushed.port) as c:
        c.call("RPUSH", "a", "1")
        c.call("RPUSH", "b", "1")
    reader = LineReader(["redis-cli", "-p", str(flushed.port), "--stat", "-i", "0.2"])
    try:
        assert reader.readline().startswith("------- data ------ ----")
        assert reader.readline().split()[:5] == ["keys", "mem", "clients", "blocked",
                                                 "requests"]
        rows = [reader.readline() for _ in range(3)]
    finally:
        reader.stop()
    for row in rows:
        assert re.match(r"^2\s+\S+\s+\d+\s+0\s+\d+ \(\+\d+\)\s+\d+", row), rows


def test_latency(flushed):
    out, err = cli(flushed.port, "--latency", "-i", "0.5", timeout=20)
    m = re.fullmatch(r"(\d+) (\d+) ([\d.]+) (\d+)\n", out)  # min max avg samples
    assert m and int(m.group(4)) >= 5 and err == "", out + err


def test_latency_history(flushed):
    reader = LineReader(["redis-cli", "-p", str(flushed.port), "--latency-history",
                         "-i", "0.5"])
    try:
        line = reader.readline(timeout=20)
    finally:
        reader.stop()
    assert re.fullmatch(r"\d+ \d+ [\d.]+ \d+", line), line


def test_intrinsic_latency_is_client_side():
    out, err = cli(1, "--intrinsic-latency", "1", timeout=20)  # no server needed
    assert "Worst run took" in out


def test_monitor_shows_other_clients_commands(flushed):
    reader = LineReader(["redis-cli", "-p", str(flushed.port), "MONITOR"])
    try:
        assert reader.readline() == "OK"
        cli(flushed.port, "RPUSH", "monitored", "hello world")
        line = reader.wait_for(r'"RPUSH"')
    finally:
        reader.stop()
    assert re.fullmatch(r'\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "RPUSH" "monitored" "hello world"',
                        line), line
