"""-LOADING at start-up, as Redis 7.0: the port opens before dump.rdb loads, and meanwhile
commands without the `loading` flag (PING among them) get `-LOADING Redis is loading the dataset
in memory` while INFO shows `loading:1` and the loading_* fields.

The dump.rdb is written here (300,000 small strings, about 9 MB, RDB version 9 with no
checksum, which both servers accept); listd loads it in about a second, Redis faster. Nothing
depends on timing: a client polls until it sees -LOADING or the load ended; what it saw while
loading is checked only when it saw it, the final state always. python.against_redis runs this
module against redis-server 7.0.15: the replies and the INFO fields expected are Redis' own.
"""

import os
import signal
import socket
import subprocess

from listd_testing import free_port, scaled
from listd_testing.resp import RawConn, parse_info
from listd_testing.server import listd_binary

KEYS = 300_000
LOADING = b"-LOADING Redis is loading the dataset in memory\r\n"
# 7.0's INFO persistence while loading: these six after module_fork_last_cow_size.
LOADING_FIELDS = ["loading_start_time", "loading_total_bytes", "loading_rdb_used_mem",
                  "loading_loaded_bytes", "loading_loaded_perc", "loading_eta_seconds"]


def rdb_length(n):
    assert n < 64
    return bytes([n])


def write_dump(path):
    """KEYS string keys `k:<i>` = `value:<i>` in db 0, as RDB 9 (type 0, 6-bit lengths)."""
    parts = [b"REDIS0009", b"\xfe\x00"]
    for i in range(KEYS):
        key, value = b"k:%d" % i, b"value:%d" % i
        parts.append(b"\x00" + rdb_length(len(key)) + key + rdb_length(len(value)) + value)
    parts.append(b"\xff" + b"\x00" * 8)  # EOF, checksum 0: not checked
    with open(path, "wb") as f:
        f.write(b"".join(parts))


def launch(tmp_path):
    """The server under test on a free port; returns (process, port) once it accepts."""
    for _ in range(3):
        port = free_port()
        proc = subprocess.Popen(
            [listd_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path),
             "--loading-process-events-interval-bytes", "65536",
             "--logfile", str(tmp_path / "server.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            cwd=tmp_path)
        end = scaled(30)
        waited = 0.0
        while proc.poll() is None and waited < end:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return proc, port
            except OSError:
                waited += 0.01
                proc_wait(proc, 0.01)  # not listening yet: poll again shortly
        proc.kill()
        proc.wait()
    raise AssertionError("the server did not start listening")


def proc_wait(proc, seconds):
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass


def poll_while_loading(port):
    """PINGs until +PONG; returns (PING replies seen, INFO persistence and GET at the first
    -LOADING or None)."""
    seen = []
    during = None
    with RawConn(port, timeout=scaled(30)) as c:
        for _ in range(100_000):  # each round waits for the server's next progress point
            reply = c.call("PING")
            seen.append(reply)
            if reply != LOADING:
                break
            if during is None:
                info = c.call("INFO", "persistence")
                during = (info, c.call("GET", "k:1"), c.call("ECHO", "e"))
    return seen, during


def persistence_keys(info_reply):
    body = info_reply.split(b"\r\n", 1)[1].decode()
    return [line.split(":", 1)[0] for line in body.split("\r\n")
            if ":" in line and not line.startswith("#")]


def test_clients_get_loading_while_dump_rdb_loads(tmp_path):
    write_dump(tmp_path / "dump.rdb")
    size = os.path.getsize(tmp_path / "dump.rdb")
    proc, port = launch(tmp_path)
    try:
        seen, during = poll_while_loading(port)
        print(f"-LOADING replies seen: {len(seen) - 1}")
        assert seen[-1] == b"+PONG\r\n"
        assert all(r == LOADING for r in seen[:-1])
        if during is not None:
            info, get, echo = during
            fields = parse_info(info)
            assert fields["loading"] == "1" and fields["async_loading"] == "0"
            keys = persistence_keys(info)
            assert keys[-6:] == LOADING_FIELDS, keys
            assert int(fields["loading_total_bytes"]) == size
            assert 0 <= int(fields["loading_loaded_bytes"]) <= size
            assert get == LOADING
            assert echo == b"$1\r\ne\r\n"  # ECHO has the loading flag
        with RawConn(port) as c:
            assert c.call("DBSIZE") == b":%d\r\n" % KEYS
            assert c.call("GET", "k:123") == b"$9\r\nvalue:123\r\n"
            after = parse_info(c.call("INFO", "persistence"))
            assert after["loading"] == "0" and "loading_total_bytes" not in after
    finally:
        proc.kill()
        proc.wait()


def test_sigterm_while_loading_exits_without_saving(tmp_path):
    write_dump(tmp_path / "dump.rdb")
    before = (tmp_path / "dump.rdb").read_bytes()
    proc, port = launch(tmp_path)
    try:
        with RawConn(port, timeout=scaled(30)) as c:
            loading = c.call("PING") == LOADING
        if loading:  # else the load finished first: only the final state is checked
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=scaled(30)) == 0
            assert (tmp_path / "dump.rdb").read_bytes() == before
        else:
            with RawConn(port) as c:
                assert c.call("DBSIZE") == b":%d\r\n" % KEYS
    finally:
        proc.kill()
        proc.wait()
