"""A raw-socket RESP client for byte-for-byte conversations.

`RawConn.call(*args)` sends one multibulk request and returns the exact bytes of one reply
(RESP2 or RESP3: + - : $ * _ , # ( = % ~ | >), without decoding anything, so a test can
compare them with what ../shared/CLIENTS.md recorded from real Redis 7.0.15.
`parse_info` turns an INFO reply into a dict of its fields.
"""

import socket


def encode(*args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, int):
            a = str(a)
        if isinstance(a, str):
            a = a.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(parts)


class RawConn:
    def __init__(self, port, host="127.0.0.1", timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def call(self, *args):
        self.send(encode(*args))
        return self.read_reply()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk

    def _line(self, pos):
        while True:
            end = self.buf.find(b"\r\n", pos)
            if end >= 0:
                return end
            self._fill()

    def _skip(self, pos):
        """Returns the position just after the reply starting at `pos`."""
        while len(self.buf) <= pos:
            self._fill()
        kind = self.buf[pos:pos + 1]
        end = self._line(pos)
        head = self.buf[pos + 1:end]
        after = end + 2
        if kind in b"+-:_,#(":
            return after
        if kind in b"$=!":
            n = int(head)
            if n < 0:
                return after
            while len(self.buf) < after + n + 2:
                self._fill()
            return after + n + 2
        if kind in b"*~>":
            n = int(head)
            for _ in range(max(n, 0)):
                after = self._skip(after)
            return after
        if kind in b"%|":
            for _ in range(int(head) * 2):
                after = self._skip(after)
            return after
        raise ValueError(f"unknown RESP type byte {kind!r} in {self.buf[pos:pos + 40]!r}")

    def read_reply(self):
        end = self._skip(0)
        reply, self.buf = self.buf[:end], self.buf[end:]
        return reply


def parse_info(reply):
    """The `field:value` lines of an INFO reply (RESP2 bulk or RESP3 verbatim) as a dict of str."""
    body = reply.split(b"\r\n", 1)[1] if reply[:1] in b"$=" else reply
    if body.startswith(b"txt:"):
        body = body[4:]
    fields = {}
    for line in body.decode(errors="replace").splitlines():
        if line and not line.startswith("#") and ":" in line:
            name, value = line.split(":", 1)
            fields[name] = value
    return fields
