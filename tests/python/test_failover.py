"""FAILOVER (Redis 7.0's coordinated failover): a master hands its role to a replica with nothing
lost. Pairs of the server under test, and mixed pairs with a real redis-server 7.0.15 on the
other side; a raw replica that never acknowledges keeps a failover waiting (ABORT, TIMEOUT).
python.against_redis runs it on redis-server alone.
"""

import contextlib
import socket
import threading

import pytest
import redis

from listd_testing import ListdServer, RedisServer, running, wait_until
from test_replication import in_sync, snapshot, write_every_type

# Diskless without a delay: a replica is online at once; no stream pings meanwhile.
FAST_SYNC = ["--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "3600"]



def make(kind, extra=()):
    return (ListdServer if kind == "same" else RedisServer)([*FAST_SYNC, *extra])


@contextlib.contextmanager
def pair(master_kind="same", replica_kind="same"):
    """A master and its replica, in sync."""
    with running(make(master_kind)) as (master, m):
        with running(make(replica_kind, ["--replicaof", "127.0.0.1", str(master.port)])) as (
                replica, r):
            assert wait_until(lambda: in_sync(m, r), timeout=20), r.info("replication")
            yield master, m, replica, r


def role(client):
    return client.info("replication")["role"]


def failover_state(client):
    return client.info("replication")["master_failover_state"]


def error_of(fn):
    with pytest.raises(redis.ResponseError) as e:
        fn()
    return str(e.value)


@pytest.mark.parametrize("master_kind,replica_kind",
                         [("same", "same"), ("same", "redis"), ("redis", "same")])
def test_the_replica_takes_over_with_every_write(master_kind, replica_kind):
    with pair(master_kind, replica_kind) as (master, m, replica, r):
        write_every_type(m, "before")
        for i in range(200):
            m.rpush("jobs", f"job-{i}")
        assert m.execute_command("FAILOVER") == "OK"
        assert wait_until(lambda: role(r) == "master" and role(m) == "slave", timeout=20), (
            m.info("replication"), r.info("replication"))
        assert wait_until(lambda: failover_state(m) == "no-failover")
        assert failover_state(r) == "no-failover"
        assert m.info("replication")["master_port"] == replica.port
        # The old master continued from the new one's history: no full sync, the same data.
        assert wait_until(lambda: in_sync(r, m), timeout=20)
        assert snapshot(m) == snapshot(r)
        assert r.llen("jobs") == 200
        r.rpush("jobs", "after")  # the new master takes writes and streams them
        assert wait_until(lambda: m.lindex("jobs", -1) == "after", timeout=10)
        with pytest.raises(redis.ReadOnlyError):
            m.rpush("jobs", "on the old master")


def test_writes_sent_during_the_failover_wait_and_then_meet_the_replica():
    with pair() as (master, m, replica, r):
        m.rpush("q", "a")
        # The push comes in the same read as FAILOVER, so it meets the pause: it waits.
        writer = socket.create_connection(("127.0.0.1", master.port), timeout=20)
        writer.sendall(b"*1\r\n$8\r\nFAILOVER\r\n*3\r\n$5\r\nRPUSH\r\n$1\r\nq\r\n$1\r\nb\r\n")
        reply = b""
        while reply.count(b"\r\n") < 2:
            chunk = writer.recv(4096)
            assert chunk, reply
            reply += chunk
        writer.close()
        # The push waited for the pause's end; by then this server was a replica.
        assert reply == b"+OK\r\n-READONLY You can't write against a read only replica.\r\n"
        assert wait_until(lambda: role(r) == "master")
        assert r.lrange("q", 0, -1) == ["a"]


class SilentReplica:
    """A raw replica: PSYNC, then never a REPLCONF ACK, so a failover can never reach it."""

    def __init__(self, master_port, listening_port):
        self.sock = socket.create_connection(("127.0.0.1", master_port), timeout=20)
        for cmd in ([b"REPLCONF", b"listening-port", str(listening_port).encode()],
                    [b"REPLCONF", b"capa", b"eof", b"capa", b"psync2"]):
            self.send(cmd)
            assert self.line() == b"+OK"
        self.send([b"PSYNC", b"?", b"-1"])
        assert self.line().startswith(b"+FULLRESYNC")
        self.stop = False
        self.reader = threading.Thread(target=self.drain, daemon=True)
        self.reader.start()

    def send(self, argv):
        self.sock.sendall(b"*%d\r\n" % len(argv) +
                          b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv))

    def line(self):
        data = b""
        while not data.endswith(b"\r\n"):
            data += self.sock.recv(1)
        return data[:-2]

    def drain(self):
        with contextlib.suppress(OSError):
            while not self.stop and self.sock.recv(65536):
                pass

    def close(self):
        self.stop = True
        self.sock.close()


# The silent replica's master sends `$<len>` (disk form): such a replica is online once its RDB
# is sent, where the diskless form waits for its first ACK.
DISK_SYNC = ["--repl-diskless-sync", "no"]


def silent_online(m):
    return m.info("replication").get("slave0", {}).get("state") == "online"


def test_abort_and_timeout_end_a_failover_that_cannot_complete():
    with running(make("same", DISK_SYNC)) as (master, m):
        silent = SilentReplica(master.port, 1)
        try:
            assert wait_until(lambda: silent_online(m), timeout=20), m.info("replication")
            m.set("k0", "moves the offset past the silent replica's 0")
            assert m.execute_command("FAILOVER") == "OK"
            assert failover_state(m) == "waiting-for-sync"
            assert error_of(lambda: m.execute_command("FAILOVER")) == (
                "FAILOVER already in progress.")
            assert error_of(lambda: m.execute_command("REPLICAOF", "127.0.0.1", "1")) == (
                "REPLICAOF not allowed while failing over.")
            assert error_of(lambda: m.execute_command("PSYNC", "?", "-1")).endswith(
                "Can't SYNC while failing over")
            assert m.get("k") is None  # reads go on during the pause
            assert m.execute_command("FAILOVER", "ABORT") == "OK"
            assert failover_state(m) == "no-failover"
            assert m.set("k", "v") is True  # writes again
            assert role(m) == "master"

            assert m.execute_command("FAILOVER", "TIMEOUT", "300") == "OK"
            assert wait_until(lambda: failover_state(m) == "no-failover", timeout=10)
            assert role(m) == "master"
            assert m.set("k", "v2") is True
            assert "Replica never caught up before timeout" in master.log_text()
        finally:
            silent.close()


def test_force_switches_after_the_timeout_and_a_refusing_target_aborts_it():
    # FORCE names a "replica" whose listening port is a plain server of the same kind: after
    # the timeout the master connects there, its PSYNC FAILOVER is refused (that server is a
    # master), and the failover is aborted: master again, writes open.
    with running(make("same")) as (other, _), running(make("same", DISK_SYNC)) as (master, m):
        silent = SilentReplica(master.port, other.port)
        try:
            assert wait_until(lambda: silent_online(m), timeout=20), m.info("replication")
            m.set("k0", "moves the offset past the silent replica's 0")
            assert m.execute_command("FAILOVER", "TO", "127.0.0.1", other.port, "TIMEOUT", "200",
                                     "FORCE") == "OK"
            assert wait_until(lambda: "Failover target rejected psync request" in
                              master.log_text(), timeout=20), master.log_text()[-2000:]
            assert wait_until(lambda: failover_state(m) == "no-failover")
            assert role(m) == "master"
            assert m.set("k", "v") is True
        finally:
            silent.close()


def test_the_checks_and_their_texts():
    with running(make("same")) as (master, m):
        assert error_of(lambda: m.execute_command("FAILOVER")) == (
            "FAILOVER requires connected replicas.")
        assert error_of(lambda: m.execute_command("FAILOVER", "ABORT")) == (
            "No failover in progress.")
        assert error_of(lambda: m.execute_command("FAILOVER", "TIMEOUT", "0")) == (
            "FAILOVER timeout must be greater than 0")
        assert error_of(lambda: m.execute_command("FAILOVER", "TIMEOUT", "x")) == (
            "value is not an integer or out of range")
        assert error_of(lambda: m.execute_command("FAILOVER", "TO", "h", "p")) == (
            "value is not an integer or out of range")
        assert error_of(lambda: m.execute_command("FAILOVER", "FORCE", "FORCE")) == "syntax error"
        assert error_of(lambda: m.execute_command("FAILOVER", "TO", "h")) == "syntax error"
        assert error_of(lambda: m.execute_command("PSYNC", "x", "1", "FAILOVER")) == (
            "PSYNC FAILOVER can't be sent to a master.")
        with running(make("same", ["--replicaof", "127.0.0.1", str(master.port)])) as (_, r):
            assert wait_until(lambda: in_sync(m, r), timeout=20)
            assert error_of(lambda: m.execute_command("FAILOVER", "FORCE")) == (
                "FAILOVER with force option requires both a timeout and target HOST and IP.")
            assert error_of(lambda: m.execute_command("FAILOVER", "TO", "127.0.0.1", "1")) == (
                "FAILOVER target HOST and PORT is not a replica.")
            assert error_of(lambda: r.execute_command("FAILOVER")) == (
                "FAILOVER is not valid when server is a replica.")
            assert error_of(lambda: r.execute_command("PSYNC", "0" * 40, "1", "FAILOVER")) == (
                "PSYNC FAILOVER replid must match my replid.")
            assert role(r) == "slave"
