"""redis-benchmark 7.0 (Debian redis-tools) against listd.

redis-benchmark exits 1 at the first error reply, and prints a WARNING when its start-up probes
(CONFIG GET save / appendonly) do not answer [name, value]. Every test here fails on any line
mentioning an error or a warning, as well as on a non-zero exit status.

redis-benchmark prints `inf requests per second` when a test ends within its 1 ms clock, so the
parser accepts it; pipelined runs use -n 50,000 (5,000 for the slow LRANGE_300..600, which take
far longer per request) so that each test lasts well over 10 ms anyway.
"""

import re
import subprocess

from conftest import NOFILE_NEEDED, PASSWORD, RawConn, raise_nofile_limit

DEFAULT_TESTS = ["PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP",
                 "RPOP", "SADD", "HSET", "SPOP", "ZADD", "ZPOPMIN",
                 "LPUSH (needed to benchmark LRANGE)", "LRANGE_100 (first 100 elements)",
                 "LRANGE_300 (first 300 elements)", "LRANGE_500 (first 500 elements)",
                 "LRANGE_600 (first 600 elements)", "MSET (10 keys)"]
SLOW_LRANGES = ["LRANGE_300 (first 300 elements)", "LRANGE_500 (first 500 elements)",
                "LRANGE_600 (first 600 elements)"]
LRANGE_PREFILL = "LPUSH (needed to benchmark LRANGE)"
RESULT = re.compile(r"^(.*?): (inf|[\d.]+) requests per second")


def bench(port, *args, timeout=150):
    proc = subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), *args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    out = proc.stdout.decode(errors="replace")
    # -q progress lines end in \r; keep the final per-test lines
    lines = [ln.strip() for ln in re.split(r"[\r\n]", out) if ln.strip()]
    bad = [ln for ln in lines if re.search(r"error|warning|NOAUTH|WRONGTYPE", ln, re.I)]
    assert not bad, f"redis-benchmark printed: {bad}"
    assert proc.returncode == 0, f"redis-benchmark exited {proc.returncode}:\n{out}"
    results = {}
    for ln in lines:
        if "requests per second" not in ln:
            continue  # -q progress lines say rps=...
        m = RESULT.match(ln)
        assert m, f"unparsed result line {ln!r} in:\n{out}"
        results[m.group(1).strip()] = float(m.group(2))
    return results, out


def test_default_suite(flushed):
    results, out = bench(flushed.port, "-q", "-n", "2000")
    assert list(results) == DEFAULT_TESTS, out
    assert all(rps > 0 for rps in results.values())


def test_list_subset_pipelined(flushed):
    results, out = bench(flushed.port, "-q", "-n", "50000", "-P", "16",
                         "-t", "ping,lpush,rpush,lpop,rpop,lrange_100")
    assert list(results) == ["PING_INLINE", "PING_MBULK", "LPUSH", "RPUSH", "LPOP", "RPOP",
                             LRANGE_PREFILL, "LRANGE_100 (first 100 elements)"], out


def test_default_suite_pipelined(flushed):
    """The default suite at -P 16, in two runs: LRANGE_300..600 with a smaller -n."""
    fast = [t for t in DEFAULT_TESTS if t not in SLOW_LRANGES]
    results, out = bench(flushed.port, "-q", "-n", "50000", "-P", "16", "-t",
                         "ping,set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,"
                         "lrange_100,mset")
    assert list(results) == fast, out
    results, out = bench(flushed.port, "-q", "-n", "5000", "-P", "16",
                         "-t", "lrange_300,lrange_500,lrange_600")
    assert list(results) == [LRANGE_PREFILL, *SLOW_LRANGES], out
    with RawConn(flushed.port) as c:  # the prefill ran: LRANGE_600 read 600 real elements
        assert int(c.call("LLEN", "mylist")[1:-2]) >= 600


def test_t_subset(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "2000", "-t", "lpush,rpop")
    assert list(results) == ["LPUSH", "RPOP"]


def test_many_clients(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "5000", "-c", "200", "-t", "lpush,lpop")
    assert list(results) == ["LPUSH", "LPOP"]


def nofile_limit_of(pid):
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files"):
                soft = line.split()[3]
                return float("inf") if soft == "unlimited" else int(soft)
    raise AssertionError(f"no 'Max open files' in /proc/{pid}/limits")


def test_thousand_clients(flushed):
    # conftest raised the limit before listd started; fail (never skip) if it could not
    soft = raise_nofile_limit()
    assert soft >= NOFILE_NEEDED, (f"RLIMIT_NOFILE is {soft} and the hard limit does not allow "
                                   f"{NOFILE_NEEDED}: -c 1000 needs about 2100 descriptors")
    assert nofile_limit_of(flushed.pid) >= NOFILE_NEEDED, "listd runs with a lower limit"
    results, _ = bench(flushed.port, "-q", "-n", "10000", "-c", "1000", "-t", "lpush,rpop")
    assert list(results) == ["LPUSH", "RPOP"]


def test_threads(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "10000", "--threads", "2",
                       "-t", "ping,lpush,lpop")
    assert list(results) == ["PING_INLINE", "PING_MBULK", "LPUSH", "LPOP"]


def test_random_keys(flushed):
    # custom command mode: __rand_int__ is replaced by a random 12-digit number
    results, _ = bench(flushed.port, "-q", "-n", "5000", "-r", "100000",
                       "LPUSH", "q:__rand_int__", "hello")
    assert len(results) == 1
    with RawConn(flushed.port) as c:
        n = int(c.call("DBSIZE")[1:-2])
        key = c.call("RANDOMKEY")
    assert n > 1000, f"only {n} distinct keys"
    assert re.fullmatch(rb"\$14\r\nq:\d{12}\r\n", key), key


def test_random_keys_builtin_tests(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "3000", "-r", "100000", "-t", "set,get,incr")
    assert list(results) == ["SET", "GET", "INCR"]
    with RawConn(flushed.port) as c:
        assert int(c.call("DBSIZE")[1:-2]) > 1000


def test_data_size(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "2000", "-d", "1024", "-t", "lpush,lrange_100")
    assert list(results) == ["LPUSH", "LPUSH (needed to benchmark LRANGE)",
                             "LRANGE_100 (first 100 elements)"]
    with RawConn(flushed.port) as c:
        element = c.call("LINDEX", "mylist", "0")  # random payload bytes in 7.0
        assert element.startswith(b"$1024\r\n") and len(element) == 1024 + 9


def test_password(listd_auth):
    results, _ = bench(listd_auth.port, "-q", "-n", "2000", "-a", PASSWORD,
                       "-t", "ping,lpush,rpop")
    assert list(results) == ["PING_INLINE", "PING_MBULK", "LPUSH", "RPOP"]


def test_resp3(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "2000", "-3", "-t", "ping,lpush,lpop")
    assert list(results) == ["PING_INLINE", "PING_MBULK", "LPUSH", "LPOP"]


def test_one_million_requests(flushed):
    results, _ = bench(flushed.port, "-q", "-n", "1000000", "-P", "64", "-t", "lpush")
    assert list(results) == ["LPUSH"]
    with RawConn(flushed.port) as c:
        assert c.call("LLEN", "mylist") == b":1000000\r\n"


def test_csv_output(flushed):
    proc = subprocess.run(["redis-benchmark", "-p", str(flushed.port), "-n", "1000",
                           "-t", "lpush", "--csv"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=60)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    assert out.splitlines()[0].startswith('"test","rps"')
    assert out.splitlines()[1].startswith('"LPUSH","')
