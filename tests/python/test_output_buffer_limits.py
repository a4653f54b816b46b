"""client-output-buffer-limit with real sockets: CONFIG GET / SET as Redis 7.0, a subscriber that
stops reading while a publisher floods is disconnected (and logged) while a subscriber that reads
gets every message, and the server's memory stays bounded through a 100 MB flood.

python.against_redis runs this module against redis-server 7.0.15: every expectation is Redis'
(the INFO counter client_output_buffer_limit_disconnections is a later Redis' field that listd
adds; it is checked on listd only). No timing assertion: every wait is a bounded poll.
"""

import socket
import threading

import pytest
import redis

from listd_testing import RawConn, scaled, target, wait_until

DEFAULTS = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
LOG_TEXT = "scheduled to be closed ASAP for overcoming of output buffer limits."


def frame(channel, payload):
    return b"*3\r\n$7\r\nmessage\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (
        len(channel), channel, len(payload), payload)


def non_reading_subscriber(port, channel):
    """A raw socket named `slow`, subscribed to `channel` with a tiny receive buffer, and never
    read again."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$4\r\nslow\r\n"
              b"*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(channel), channel))
    return s


def numsub(r, channel):
    return r.pubsub_numsub(channel)[0][1]


def drained_to_eof(s, timeout=30.0):
    """Reads `s` until the server's close shows (EOF or reset); False if it never does."""
    s.settimeout(scaled(timeout))
    try:
        while s.recv(1 << 20):
            pass
    except ConnectionResetError:
        pass
    except socket.timeout:
        return False
    return True


class Reader(threading.Thread):
    """A subscriber that reads everything and checks it byte for byte against `expected`."""

    def __init__(self, port, channel):
        super().__init__(daemon=True)
        self.conn = RawConn(port, timeout=scaled(30))
        assert self.conn.call("SUBSCRIBE", channel.decode()) == \
            b"*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n" % (len(channel), channel)
        self.expected = bytearray()
        self.lock = threading.Lock()
        self.received = 0
        self.mismatch = None
        self.stop = False

    def expect(self, data):
        with self.lock:
            self.expected += data

    def run(self):
        sock = self.conn.sock
        while not self.stop:
            try:
                chunk = sock.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                return  # closed by the test once done
            if not chunk:
                return
            with self.lock:
                want = bytes(self.expected[self.received:self.received + len(chunk)])
            if chunk != want and self.mismatch is None:
                self.mismatch = self.received
            self.received += len(chunk)


def test_config_get_and_set_as_redis(r):
    assert r.config_get("client-output-buffer-limit") == {"client-output-buffer-limit": DEFAULTS}
    assert r.config_set("client-output-buffer-limit", "pubsub 1mb 512kb 5 normal 10k 2m 0")
    assert r.config_get("client-output-buffer-limit")["client-output-buffer-limit"] == \
        "normal 10000 2000000 0 slave 268435456 67108864 60 pubsub 1048576 524288 5"
    with pytest.raises(Exception) as err:
        r.config_set("client-output-buffer-limit", "master 1mb 1mb 1")
    assert str(err.value) == ("CONFIG SET failed (possibly related to argument "
                              "'client-output-buffer-limit') - Invalid client class specified in "
                              "buffer limit configuration.")
    assert r.config_set("client-output-buffer-limit", DEFAULTS.replace("slave", "replica"))
    assert r.config_get("client-output-buffer-limit")["client-output-buffer-limit"] == DEFAULTS


def test_non_reading_subscriber_is_closed_and_the_others_are_not(listd_factory):
    srv = listd_factory("--client-output-buffer-limit", "pubsub 2mb 0 0")
    r = redis.Redis(port=srv.port, socket_timeout=scaled(30))
    slow = non_reading_subscriber(srv.port, b"flood")
    assert wait_until(lambda: numsub(r, "flood") == 1)
    reader = Reader(srv.port, b"flood")
    reader.start()
    slow_id = next(c["id"] for c in r.client_list() if c["name"] == "slow")
    counts = []
    published = 0
    pipe = r.pipeline(transaction=False)
    # At most 256 MB: the slow subscriber goes long before (2 MB + what the sockets hold).
    for batch in range(1024):
        for i in range(16):
            payload = b"%08d" % (batch * 16 + i) + b"m" * 16376
            pipe.publish("flood", payload)
            reader.expect(frame(b"flood", payload))
        counts += pipe.execute()
        published += 16
        # Keep the reading subscriber within a few MB of the publisher (flow control, not
        # timing): it must never come near the limit itself.
        assert wait_until(lambda: len(reader.expected) - reader.received < (1 << 20),
                          timeout=30), "the reading subscriber stopped receiving"
        if counts[-1] == 1:
            break
    assert counts[-1] == 1, "the non-reading subscriber was never disconnected"
    assert counts[0] == 2 and set(counts) == {1, 2}
    assert drained_to_eof(slow), "the server did not close the non-reading subscriber"
    assert all(c["name"] != "slow" for c in r.client_list())
    # The reader got every message, in order, byte for byte; the publisher carries on.
    assert wait_until(lambda: reader.received == len(reader.expected), timeout=30)
    assert reader.mismatch is None, f"reader stream differs at byte {reader.mismatch}"
    assert r.publish("flood", "after") == 1
    assert r.ping()
    assert wait_until(lambda: LOG_TEXT in srv.log_text()), "no output-buffer-limit warning"
    line = next(ln for ln in srv.log_text().splitlines() if LOG_TEXT in ln)
    assert f"Client id={slow_id} addr=" in line and " name=slow " in line and " flags=P " in line
    if target() == "listd":
        assert r.info("stats")["client_output_buffer_limit_disconnections"] == 1
    reader.stop = True
    reader.conn.sock.shutdown(socket.SHUT_RDWR)
    reader.join(scaled(30))
    reader.conn.close()
    slow.close()


def vm_bytes(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def test_memory_stays_bounded_through_a_100mb_flood(listd_factory):
    # Default limits: pubsub 32mb hard. Margin: the peak resident size may grow by at most
    # 64 MB (the 32 MB limit, plus the same again for buffer growth and the socket writer's
    # copy) while 100 MB are published to a subscriber that never reads; unbounded buffering
    # would hold all 100 MB. (An ASan build keeps freed buffers in its quarantine: the bound is
    # for the optimized build these tests run against.)
    srv = listd_factory()
    r = redis.Redis(port=srv.port, socket_timeout=scaled(30))
    slow = non_reading_subscriber(srv.port, b"big")
    assert wait_until(lambda: numsub(r, "big") == 1)
    before = vm_bytes(srv.pid, "VmRSS")
    payload = b"b" * 65536
    pipe = r.pipeline(transaction=False)
    for _ in range(100):  # 100 x 16 x 64 KB = 100 MB
        for _ in range(16):
            pipe.publish("big", payload)
        pipe.execute()
    assert wait_until(lambda: numsub(r, "big") == 0), "the subscriber was never disconnected"
    peak_growth = vm_bytes(srv.pid, "VmHWM") - before
    after_growth = vm_bytes(srv.pid, "VmRSS") - before
    assert peak_growth < 64 * 2**20, f"peak RSS grew by {peak_growth >> 20} MB"
    assert after_growth < 64 * 2**20, f"RSS grew by {after_growth >> 20} MB"
    slow.close()


def client_fields(r, name):
    return next((c for c in r.client_list() if c["name"] == name), None)


def test_client_list_reports_the_output_a_subscriber_holds(listd_factory):
    # obl / oll / omem as Redis 7.0 defines them: the static reply buffer's bytes, the reply
    # blocks queued after it and their size. Redis sizes blocks by its allocator (20504 bytes a
    # 16 KB block), listd by the bytes held, so only the relations are compared.
    srv = listd_factory()
    r = redis.Redis(port=srv.port, socket_timeout=scaled(30), decode_responses=True)
    slow = non_reading_subscriber(srv.port, b"held")
    assert wait_until(lambda: numsub(r, "held") == 1)
    pipe = r.pipeline(transaction=False)
    published = 0
    for _ in range(64):  # up to 16 MB, under the 32 MB limit; stops once a backlog shows
        for _ in range(16):
            pipe.publish("held", "h" * 16384)
        pipe.execute()
        published += 16 * 16384
        info = client_fields(r, "slow")
        if int(info["oll"]) >= 4:
            break
    assert info["flags"] == "P" and info["sub"] == "1"
    obl, oll, omem = int(info["obl"]), int(info["oll"]), int(info["omem"])
    assert oll >= 4, f"no backlog after {published} bytes: {info}"
    assert 0 <= obl <= 16384  # Redis empties its static buffer first, then the blocks
    assert (oll - 1) * 16384 < omem <= published
    assert int(info["tot-mem"]) > omem
    own = r.execute_command("CLIENT", "INFO")
    assert " obl=0 oll=0 omem=0 " in own
    slow.close()


def test_client_kill_type_pubsub_kills_subscribers_only(listd_factory):
    srv = listd_factory()
    r = redis.Redis(port=srv.port, socket_timeout=scaled(30), decode_responses=True)
    other = redis.Redis(port=srv.port, socket_timeout=scaled(30))
    other.client_setname("other")
    p = r.pubsub()
    p.subscribe("k")
    assert wait_until(lambda: numsub(r, "k") == 1)
    p.psubscribe("k*")
    assert wait_until(lambda: r.pubsub_numpat() == 1)
    assert [c["name"] for c in r.client_list(_type="pubsub")] == [""]
    assert r.client_kill_filter(_type="normal") == 1  # `other`; skipme spares this one
    assert client_fields(r, "other") is None
    assert numsub(r, "k") == 1
    assert r.client_kill_filter(_type="pubsub") == 1
    assert wait_until(lambda: numsub(r, "k") == 0 and r.pubsub_numpat() == 0)
    assert r.client_list(_type="pubsub") == []
    p.close()


def test_monitor_shows_the_pubsub_commands(listd_factory):
    srv = listd_factory()
    with RawConn(srv.port) as mon, RawConn(srv.port) as sub, RawConn(srv.port) as pub:
        assert mon.call("MONITOR") == b"+OK\r\n"
        sub.call("SUBSCRIBE", "ch")
        sub.call("PSUBSCRIBE", "c*")
        sub.call("PING")
        sub.call("SSUBSCRIBE", "s")
        sub.call("UNSUBSCRIBE", "ch")
        pub.call("PUBLISH", "ch", "hi there")
        pub.call("SPUBLISH", "s", "m")
        pub.call("PUBSUB", "NUMSUB", "ch")
        sub.call("RESET")
        lines = [mon.read_reply() for _ in range(9)]
    # "+<unix time> [<db> <addr>] <args>": only the arguments are compared.
    args = [ln.split(b"] ", 1)[1] for ln in lines]
    assert args == [b'"SUBSCRIBE" "ch"\r\n', b'"PSUBSCRIBE" "c*"\r\n', b'"PING"\r\n',
                    b'"SSUBSCRIBE" "s"\r\n', b'"UNSUBSCRIBE" "ch"\r\n',
                    b'"PUBLISH" "ch" "hi there"\r\n', b'"SPUBLISH" "s" "m"\r\n',
                    b'"PUBSUB" "NUMSUB" "ch"\r\n', b'"RESET"\r\n']
    assert all(ln.startswith(b"+") and b" [0 127.0.0.1:" in ln for ln in lines)
