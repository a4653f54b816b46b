#!/usr/bin/env python3
"""Crash test for listd's durability (docs/DURABILITY.md), stdlib only.

Producers LPUSH unique ids into `jobs` and record each as acknowledged or indeterminate;
consumers run `BLMOVE jobs processing RIGHT LEFT 1` then `LREM processing 1 id`. A killer sends
SIGKILL at random moments (auto-aof-rewrite-min-size is small, so many kills land during a
rewrite), applies a fault, restarts listd and requeues `processing` (reaper). At the end the
state re-read from disk must satisfy, for `--mode kill` and `--mode powerloss`:
  1 no acknowledged push lost   2 no completed job back      3 no element duplicated
  4 no element never sent       5 FIFO per producer among never-delivered ids
`--mode powerloss` needs the LD_PRELOAD shim (syncshim.c): after the kill every file is cut back
to what its last successful fsync/fdatasync covered, half the time keeping a random part of the
unsynced tail (a torn write). `--expect-loss` inverts the verdict for invariant 1: the harness
must prove it can see loss (everysec under power loss). `--mode fsyncfail` makes fdatasync fail
with EIO (the shim's SYNCSHIM_FAIL_FROM) and checks that listd exits 1 without acknowledging;
`--mode fiu` checks the same with Debian's libfiu (fiu-run -x, then fiu-ctrl enables
posix/io/sync/fdatasync in the running listd).

  python3 crashtest.py --listd build/listd --shim build/tests/libsyncshim.so \
      --fsync always --mode powerloss --cycles 10 --seed 1
"""
import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


class Conn:
    """A minimal RESP2 client with timeouts; any error raises OSError."""

    def __init__(self, port, timeout=5.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.s.settimeout(timeout)
        self.buf = b""

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass

    def _line(self):
        while b"\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                raise OSError("eof")
            self.buf += d
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            return RuntimeError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                d = self.s.recv(65536)
                if not d:
                    raise OSError("eof")
                self.buf += d
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v.decode()
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        raise OSError("bad reply %r" % line)

    def call(self, *args, timeout=None):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.settimeout(timeout if timeout is not None else 5.0)
        self.s.sendall(out)
        return self._read()


class Run:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.dir = tempfile.mkdtemp(prefix="listd-crash-")
        self.synclog = os.path.join(self.dir, "synclog")
        self.port = 0
        self.proc = None
        self.epoch = 0
        self.stop = False
        self.lock = threading.Lock()
        self.sent, self.acked, self.indeterminate = set(), set(), set()
        self.completed, self.lrem_indeterminate = set(), set()
        self.delivered = set()
        self.delivered_after_complete = 0
        self.cut_bytes = 0

    # ---- server -----------------------------------------------------------------------------
    def free_port(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        return p

    def start(self):
        self.port = self.free_port()
        env = dict(os.environ)
        if self.a.shim:
            env["LD_PRELOAD"] = os.path.abspath(self.a.shim)
            env["SYNCSHIM_LOG"] = self.synclog
        args = [self.a.listd, "--port", str(self.port), "--dir", self.dir, "--appendonly", "yes",
                "--appendfsync", self.a.fsync, "--auto-aof-rewrite-min-size", "64kb",
                "--auto-aof-rewrite-percentage", "100"]
        self.log = open(os.path.join(self.dir, "listd.log"), "ab")
        self.proc = subprocess.Popen(args, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit("FAIL: listd exited with %s at start (see %s/listd.log)" % (self.proc.returncode, self.dir))
            try:
                c = Conn(self.port, 1)
                if c.call("PING") == "PONG":
                    c.close()
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("FAIL: listd did not come back within 20 s")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log.close()

    def powerloss(self):
        """Cut every file back to its last synced size (sometimes keeping part of the rest)."""
        synced = {}
        if os.path.exists(self.synclog):
            with open(self.synclog) as f:
                for line in f:
                    parts = line.split(" ", 2)
                    if len(parts) >= 2:
                        ino, size = int(parts[0]), int(parts[1])
                        synced[ino] = size  # the last sync wins (a truncate + sync shrinks it)
        entries = []
        for root in (self.dir, os.path.join(self.dir, "appendonlydir")):
            if not os.path.isdir(root):
                continue
            for name in os.listdir(root):
                p = os.path.join(root, name)
                if not os.path.isfile(p) or name in ("synclog", "listd.log"):
                    continue
                st = os.stat(p)
                keep = synced.get(st.st_ino, 0)
                if st.st_size > keep:
                    if self.rng.random() < 0.5:
                        keep += self.rng.randint(0, st.st_size - keep)
                    self.cut_bytes += st.st_size - keep
                    os.truncate(p, keep)
                entries.append("%d %d %s\n" % (st.st_ino, min(keep, st.st_size), p))
        with open(self.synclog, "w") as f:  # the cut state is the new durable baseline
            f.writelines(entries)

    def reap(self):
        c = Conn(self.port)
        while c.call("LMOVE", "processing", "jobs", "RIGHT", "RIGHT") is not None:
            pass
        c.close()

    # ---- clients ----------------------------------------------------------------------------
    def producer(self, k):
        seq = 0
        c, epoch = None, -1
        while not self.stop:
            try:
                if c is None or epoch != self.epoch:
                    if c:
                        c.close()
                    epoch = self.epoch
                    c = Conn(self.port, 2)
                ident = "p%d-%d" % (k, seq)
                seq += 1
                with self.lock:
                    self.sent.add(ident)
                try:
                    r = c.call("LPUSH", "jobs", ident)
                except OSError:
                    with self.lock:
                        self.indeterminate.add(ident)
                    raise
                with self.lock:
                    if isinstance(r, int):
                        self.acked.add(ident)
                    else:
                        self.indeterminate.add(ident)
            except OSError:
                c = None
                time.sleep(0.02)

    def consumer(self):
        c, epoch = None, -1
        while not self.stop:
            try:
                if c is None or epoch != self.epoch:
                    if c:
                        c.close()
                    epoch = self.epoch
                    c = Conn(self.port, 3)
                v = c.call("BLMOVE", "jobs", "processing", "RIGHT", "LEFT", "1", timeout=3)
                if v is None or isinstance(v, RuntimeError):
                    continue
                with self.lock:
                    if v in self.completed:
                        self.delivered_after_complete += 1
                    self.delivered.add(v)
                try:
                    r = c.call("LREM", "processing", "1", v)
                except OSError:
                    with self.lock:
                        self.lrem_indeterminate.add(v)
                    raise
                if r == 1:
                    with self.lock:
                        self.completed.add(v)
            except OSError:
                c = None
                time.sleep(0.02)

    # ---- the run ----------------------------------------------------------------------------
    def fault(self):
        self.kill()
        if self.a.mode == "powerloss":
            self.powerloss()

    def go(self):
        self.start()
        threads = [threading.Thread(target=self.producer, args=(k,), daemon=True) for k in range(4)]
        threads += [threading.Thread(target=self.consumer, daemon=True) for _ in range(2)]
        for t in threads:
            t.start()
        for cycle in range(self.a.cycles):
            time.sleep(self.rng.uniform(0.2, 1.0))
            self.fault()
            self.start()
            self.reap()
            self.epoch += 1
        time.sleep(0.3)
        self.stop = True
        for t in threads:
            t.join(timeout=10)
        self.fault()
        self.start()
        c = Conn(self.port)
        jobs = c.call("LRANGE", "jobs", "0", "-1")
        processing = c.call("LRANGE", "processing", "0", "-1")
        c.close()
        self.kill()
        return self.check(jobs, processing)

    def check(self, jobs, processing):
        final = jobs + processing
        fs = set(final)
        problems = []
        lost = self.acked - fs - self.completed - self.lrem_indeterminate
        resurrected = self.completed & fs
        dups = len(final) - len(fs)
        phantoms = fs - self.sent
        order = 0
        last = {}
        for v in reversed(jobs):  # consumer end first
            if v in self.delivered:
                continue
            p, s = v.split("-")
            s = int(s)
            if p in last and s < last[p]:
                order += 1
            last[p] = s
        if resurrected and not self.a.expect_loss:  # a lost LREM brings its job back
            problems.append("%d completed jobs came back" % len(resurrected))
        if dups:
            problems.append("%d duplicated elements" % dups)
        if phantoms:
            problems.append("%d elements never sent" % len(phantoms))
        if order:
            problems.append("%d FIFO violations" % order)
        print("fsync=%s mode=%s cycles=%d seed=%d: sent=%d acked=%d indeterminate=%d delivered=%d "
              "completed=%d final=%d lost_acked=%d resurrected=%d cut_bytes=%d dir=%s"
              % (self.a.fsync, self.a.mode, self.a.cycles, self.a.seed, len(self.sent), len(self.acked),
                 len(self.indeterminate), len(self.delivered), len(self.completed), len(final),
                 len(lost), len(resurrected), self.cut_bytes, self.dir))
        if self.a.expect_loss:
            if not lost:
                problems.append("expected lost acknowledged pushes (the harness must see loss) but found none")
        elif lost:
            problems.append("%d acknowledged pushes lost, e.g. %s" % (len(lost), sorted(lost)[:5]))
        for p in problems:
            print("FAIL: " + p)
        if not problems:
            print("PASS")
            shutil.rmtree(self.dir, ignore_errors=True)
        return 0 if not problems else 1


def fsync_failure(a, injector):
    """fdatasync fails from some point on: listd must exit 1 without acknowledging the command
    whose fsync failed, log the error, and every earlier acknowledged push must be there after a
    restart. `injector` is "shim" (syncshim.so fails the 8th and later syncs with EIO) or "fiu"
    (Debian's libfiu: listd runs under `fiu-run -x`, and after 20 acknowledged pushes
    `fiu-ctrl` enables the failure point posix/io/sync/fdatasync in the running process)."""
    d = tempfile.mkdtemp(prefix="listd-fsyncfail-")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    args = [a.listd, "--port", str(port), "--dir", d, "--appendonly", "yes", "--appendfsync", "always"]
    env = dict(os.environ)
    launch = list(args)
    if injector == "shim":
        env.update(LD_PRELOAD=os.path.abspath(a.shim), SYNCSHIM_FAIL_FROM="8")
    else:
        fifo = os.path.join(d, "fiu-ctrl")
        launch = ["fiu-run", "-x", "-f", fifo] + args
    logpath = os.path.join(d, "listd.log")
    with open(logpath, "wb") as log:
        p = subprocess.Popen(launch, env=env, stdout=log, stderr=subprocess.STDOUT)
        for _ in range(200):
            try:
                c = Conn(port, 2)
                break
            except OSError:
                time.sleep(0.05)
        acked, failed_on = [], None
        for i in range(100):
            if injector == "fiu" and i == 20:
                # fiu-run execs listd, so p.pid is listd's pid and the fifo is <fifo>-<pid>.
                ctl = subprocess.run(["fiu-ctrl", "-f", fifo, "-c",
                                      "enable name=posix/io/sync/fdatasync", str(p.pid)],
                                     capture_output=True, text=True, timeout=30)
                if ctl.returncode != 0:
                    print("FAIL: fiu-ctrl: %s" % (ctl.stderr or ctl.stdout).strip())
                    p.kill()
                    return 1
            try:
                r = c.call("LPUSH", "jobs", "id%d" % i)
            except OSError:
                failed_on = i
                break
            if not isinstance(r, int):
                print("FAIL: unexpected reply %r" % (r,))
                return 1
            acked.append("id%d" % i)
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
    text = open(logpath, errors="replace").read()
    problems = []
    if injector == "fiu" and failed_on != 20:
        problems.append("the first push after the failure point was enabled was %s, expected "
                        "push 20 to go unacknowledged" % ("acknowledged" if failed_on is None
                                                           or failed_on > 20 else failed_on))
    if failed_on is None:
        problems.append("no command went unacknowledged")
    if rc != 1:
        problems.append("exit status %s, expected 1" % rc)
    if "Can't persist AOF for fsync error" not in text:
        problems.append("no fsync error in the log")
    env.pop("SYNCSHIM_FAIL_FROM", None)
    env.pop("LD_PRELOAD", None)
    q = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(200):
            try:
                c = Conn(port, 2)
                if c.call("PING") == "PONG":
                    break
            except OSError:
                time.sleep(0.05)
        have = set(c.call("LRANGE", "jobs", "0", "-1") or [])
        missing = [x for x in acked if x not in have]
        if missing:
            problems.append("acknowledged pushes lost after restart: %s" % missing[:5])
    finally:
        q.send_signal(signal.SIGKILL)
        q.wait()
    print("fsync failure (%s): %d acknowledged, failed on push %s, exit status %s"
          % (injector, len(acked), failed_on, rc))
    for pr in problems:
        print("FAIL: " + pr)
    if not problems:
        print("PASS")
        shutil.rmtree(d, ignore_errors=True)
    return 0 if not problems else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listd", required=True)
    ap.add_argument("--shim")
    ap.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    ap.add_argument("--mode", default="powerloss",
                    choices=["kill", "powerloss", "fsyncfail", "fiu"])
    ap.add_argument("--cycles", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--expect-loss", action="store_true")
    a = ap.parse_args()
    if a.mode in ("powerloss", "fsyncfail") and not a.shim:
        ap.error("--mode %s needs --shim" % a.mode)
    if a.mode == "fsyncfail":
        sys.exit(fsync_failure(a, "shim"))
    if a.mode == "fiu":
        if not shutil.which("fiu-run") or not shutil.which("fiu-ctrl"):
            print("FAIL: fiu-run/fiu-ctrl not found (Debian package fiu-utils)")
            sys.exit(1)
        sys.exit(fsync_failure(a, "fiu"))
    sys.exit(Run(a).go())


if __name__ == "__main__":
    main()
