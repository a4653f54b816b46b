"""redis-cli 7.0 SUBSCRIBE / PSUBSCRIBE against listd: the raw (pipe) rendering, and on a
terminal the `Reading messages... (press Ctrl-C to quit)` banner with numbered elements.

Expected texts are what redis-cli 7.0.15 prints against redis-server 7.0.15 (tools.against_redis
runs this module there too). A subscription has taken effect once redis-cli printed its
subscribe reply; every read has a deadline.
"""

import os
import pty
import select
import subprocess
import time

from conftest import LineReader, cli
from listd_testing import scaled, wait_until


def read_lines(reader, n):
    return [reader.readline(timeout=scaled(10)) for _ in range(n)]


def test_subscribe_prints_replies_and_messages(flushed):
    p = flushed.port
    reader = LineReader(["redis-cli", "-p", str(p), "SUBSCRIBE", "c1", "c2"])
    try:
        assert read_lines(reader, 6) == ["subscribe", "c1", "1", "subscribe", "c2", "2"]
        assert cli(p, "PUBLISH", "c1", "hello")[0] == "1\n"
        assert cli(p, "PUBLISH", "c2", "two words")[0] == "1\n"
        assert read_lines(reader, 6) == ["message", "c1", "hello", "message", "c2", "two words"]
    finally:
        reader.stop()


def test_psubscribe_prints_pmessages(flushed):
    p = flushed.port
    reader = LineReader(["redis-cli", "-p", str(p), "PSUBSCRIBE", "c*"])
    try:
        assert read_lines(reader, 3) == ["psubscribe", "c*", "1"]
        assert cli(p, "PUBLISH", "c1", "hello")[0] == "1\n"
        assert read_lines(reader, 4) == ["pmessage", "c*", "c1", "hello"]
        assert cli(p, "PUBSUB", "NUMPAT")[0] == "1\n"
    finally:
        reader.stop()


class Terminal:
    """redis-cli on a pseudo-terminal, its output collected with deadlines."""

    def __init__(self, args):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: exec, never return
            try:
                os.execvp(args[0], args)
            finally:
                os._exit(127)
        self.out = b""

    def wait_for(self, text, timeout=10):
        end = time.monotonic() + scaled(timeout)
        while text not in self.out:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{text!r} not printed; got {self.out!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # EIO: the child is gone
                    chunk = b""
                if not chunk:
                    raise EOFError(f"redis-cli ended; got {self.out!r}")
                self.out += chunk
        return self.out

    def close(self):
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def test_subscribe_on_a_terminal_prints_reading_messages(flushed):
    p = flushed.port
    term = Terminal(["redis-cli", "-p", str(p), "SUBSCRIBE", "c1"])
    try:
        term.wait_for(b'3) (integer) 1\r\n')
        assert term.out == (b'Reading messages... (press Ctrl-C to quit)\r\n'
                            b'1) "subscribe"\r\n2) "c1"\r\n3) (integer) 1\r\n')
        assert cli(p, "PUBLISH", "c1", "hi")[0] == "1\n"
        term.wait_for(b'3) "hi"\r\n')
        assert term.out.endswith(b'1) "message"\r\n2) "c1"\r\n3) "hi"\r\n')
    finally:
        term.close()


def test_psubscribe_on_a_terminal(flushed):
    p = flushed.port
    term = Terminal(["redis-cli", "-p", str(p), "PSUBSCRIBE", "ev.*"])
    try:
        term.wait_for(b'3) (integer) 1\r\n')
        assert term.out.startswith(b'Reading messages... (press Ctrl-C to quit)\r\n'
                                   b'1) "psubscribe"\r\n2) "ev.*"\r\n')
        assert cli(p, "PUBLISH", "ev.x", "payload")[0] == "1\n"
        term.wait_for(b'4) "payload"\r\n')
        assert term.out.endswith(b'1) "pmessage"\r\n2) "ev.*"\r\n3) "ev.x"\r\n4) "payload"\r\n')
    finally:
        term.close()


def test_one_shot_publish_and_pubsub_numsub(flushed):
    p = flushed.port
    assert cli(p, "PUBLISH", "nobody", "x") == ("0\n", "")
    assert cli(p, "PUBSUB", "NUMSUB", "nobody") == ("nobody\n0\n", "")
    # the earlier tests' redis-cli subscribers are gone once the server saw them close
    assert wait_until(lambda: cli(p, "--no-raw", "PUBSUB", "CHANNELS") == ("(empty array)\n", ""))
    proc = subprocess.run(["redis-cli", "-p", str(p), "PUBSUB", "HELP"], capture_output=True,
                          timeout=scaled(30))
    assert proc.stdout.decode().splitlines()[0] == \
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
