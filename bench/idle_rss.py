#!/usr/bin/python3
"""Resident memory per idle connection, listd vs redis-server (issue 19).

For each server (a fresh process each), opens N connections that each send one PING and read
+PONG, and reports (VmRSS with the N clients - VmRSS before them) / N twice: right after the
last +PONG ("busy", every client has just read), and after the clients have been idle for
--idle-wait seconds (Redis and listd give an idle client's read buffer back in their cron once
it has been idle for more than 2 s). VmRSS is read from /proc/<pid>/status (Linux). Usage:

  bench/idle_rss.py --listd build/dev/listd [--redis /usr/bin/redis-server] [-n 10000]
                    [--idle-wait 5] [--only listd|redis] [--io-backend epoll|io_uring]

The client side needs N file descriptors (ulimit -n); maxclients is raised to N + 32 on both.
"""
import argparse
import socket
import subprocess
import sys
import time

from memory_types import free_port, rss_kb  # the same helpers, in this folder


def ping(sock):
    sock.sendall(b"*1\r\n$4\r\nPING\r\n")
    reply = b""
    while not reply.endswith(b"\r\n"):
        chunk = sock.recv(64)
        if not chunk:
            raise RuntimeError("connection closed")
        reply += chunk
    if reply != b"+PONG\r\n":
        raise RuntimeError(f"unexpected reply {reply!r}")


def start(kind, binary, n, extra):
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--maxclients", str(n + 32),
            "--save", "", "--appendonly", "no"] + extra
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):  # bounded: 10 s
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                ping(s)
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{kind} did not start on port {port}")


def measure(kind, binary, n, idle_wait, extra=()):
    proc, port = start(kind, binary, n, list(extra))
    try:
        time.sleep(0.5)  # the start-up probe's connection is gone
        before = rss_kb(proc.pid)
        clients = []
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            ping(s)
            clients.append(s)
        busy = rss_kb(proc.pid)
        time.sleep(idle_wait)
        idle = rss_kb(proc.pid)
        for s in clients:
            s.close()
        return before, busy, idle
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listd", required=True)
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("-n", type=int, default=10000)
    ap.add_argument("--idle-wait", type=float, default=5.0)
    ap.add_argument("--only", choices=["listd", "redis"])
    ap.add_argument("--io-backend", choices=["auto", "epoll", "io_uring"],
                    help="listd's io-backend (default: listd's own default)")
    a = ap.parse_args()
    print(f"{'server':6} {'before KB':>10} {'busy B/conn':>12} {'idle B/conn':>12}")
    for kind, binary in (("listd", a.listd), ("redis", a.redis)):
        if a.only and a.only != kind:
            continue
        extra = ["--io-backend", a.io_backend] if kind == "listd" and a.io_backend else []
        before, busy, idle = measure(kind, binary, a.n, a.idle_wait, extra)
        print(f"{kind:6} {before:>10} {(busy - before) * 1024 / a.n:>12.0f} "
              f"{(idle - before) * 1024 / a.n:>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
