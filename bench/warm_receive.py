"""Brings a fresh server's receive path to its steady state before a memory baseline is read.

listd's io_uring backend registers a pool of 256 receive buffers of 16 KB (4 MiB, mmap'd at
start-up, docs/ARCHITECTURE.md "The io_uring backend"); the kernel fills them in turn, so their
pages become resident during the first few thousand reads of any load, whatever the load stores.
Read before that, an "RSS after loading minus RSS at start" figure charges this fixed 4 MiB to
the data loaded (it was 4.2 of the 29.9 bytes per entry of bench/memory_types.py's stream row).
Both servers get the same warm-up, so Redis' own first-use buffers are settled too."""
import socket

ROUNDS = 400          # pipelines sent, each longer than one receive buffer
PINGS = 5000          # per pipeline: 30 KB of inline PINGs, 35 KB of +PONG replies


def warm_receive_path(port, host="127.0.0.1", rounds=ROUNDS, pings=PINGS):
    """Sends `rounds` pipelines of `pings` inline PINGs, reading every reply (bounded by a timeout)."""
    request = b"PING\r\n" * pings
    expected = len(b"+PONG\r\n") * pings
    with socket.create_connection((host, port), timeout=30) as s:
        for _ in range(rounds):
            s.sendall(request)
            got = 0
            while got < expected:
                chunk = s.recv(1 << 16)
                if not chunk:
                    raise RuntimeError("warm_receive_path: the server closed the connection")
                got += len(chunk)
