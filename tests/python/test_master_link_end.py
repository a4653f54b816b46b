"""A replica keeps what its dead master sent: the end of the link is where the stream ends.

A master that dies (SIGKILL, a crashed host) leaves its last stream bytes in the replica's
socket. A replica that was stalled (SIGSTOP, a VM pause) while they arrived answers the first
`REPLCONF GETACK` among them with an ACK, which the closed socket meets with a reset, and its
next write fails; the bytes still unread in its socket are the master's last acknowledged
writes and must be applied all the same (listd closed the link at the failed write and lost
them: 91-95 repeated pops in docs/DURABILITY.md's lagkill/wait row; Redis keeps them).

The master here is this test, on a raw socket: the handshake, an empty RDB, then, while the
replica is stopped, 200 RPUSHes with a GETACK after every 10, then it closes its socket. After
SIGCONT the replica must hold all 200 elements once its link is down. No sleeps: bounded polls.
"""

import os
import signal
import socket

import redis

from listd_testing import ListdServer, encode, wait_until, scaled

EMPTY_RDB = b"REDIS0009\xff" + b"\x00" * 8  # no keys; a zero checksum is "not computed"
REPLID = "a" * 40


def read_request(conn, buf):
    """One RESP array request from `conn`: (argv, rest of buf)."""
    while True:
        if buf.startswith(b"*") and b"\r\n" in buf:
            try:
                n = int(buf[1:buf.index(b"\r\n")])
                pos = buf.index(b"\r\n") + 2
                argv = []
                for _ in range(n):
                    end = buf.index(b"\r\n", pos)
                    size = int(buf[pos + 1:end])
                    argv.append(buf[end + 2:end + 2 + size])
                    if len(buf) < end + 4 + size:
                        raise ValueError
                    pos = end + 4 + size
                return argv, buf[pos:]
            except ValueError:
                pass
        chunk = conn.recv(4096)
        assert chunk, "the replica closed the link during the handshake"
        buf += chunk


def test_the_bytes_a_dead_master_left_in_the_socket_are_applied():
    master = socket.socket()
    master.bind(("127.0.0.1", 0))
    master.listen(1)
    master.settimeout(scaled(20))
    port = master.getsockname()[1]
    with ListdServer(["--replicaof", "127.0.0.1", str(port)]) as replica:
        r = redis.Redis(port=replica.port, decode_responses=True, socket_timeout=scaled(20))
        conn, _ = master.accept()
        conn.settimeout(scaled(20))
        buf = b""
        while True:  # PING, AUTH?, REPLCONF ..., then PSYNC
            argv, buf = read_request(conn, buf)
            name = argv[0].lower()
            if name == b"ping":
                conn.sendall(b"+PONG\r\n")
            elif name in (b"psync", b"sync"):
                conn.sendall(f"+FULLRESYNC {REPLID} 0\r\n".encode() +
                             f"${len(EMPTY_RDB)}\r\n".encode() + EMPTY_RDB)
                break
            else:
                conn.sendall(b"+OK\r\n")
        assert wait_until(lambda: r.info("replication")["master_link_status"] == "up",
                          timeout=scaled(20))
        os.kill(replica.pid, signal.SIGSTOP)
        try:
            stream = encode("SELECT", "0")
            for i in range(200):
                stream += encode("RPUSH", "jobs", f"job-{i}-" + "x" * 200)
                if i % 10 == 0:
                    stream += encode("REPLCONF", "GETACK", "*")
            conn.sendall(stream)  # ~50 KB: the socket buffers take it all while it is stopped
            conn.close()  # the master is gone; its socket answers the replica's ACK with a reset
            master.close()
        finally:
            os.kill(replica.pid, signal.SIGCONT)
        assert wait_until(lambda: r.info("replication")["master_link_status"] == "down",
                          timeout=scaled(20))
        assert r.llen("jobs") == 200
        assert r.lindex("jobs", -1) == "job-199-" + "x" * 200
        r.connection_pool.disconnect()
