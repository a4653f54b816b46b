#!/usr/bin/env python3
"""Crash test for listd's durability (docs/DURABILITY.md), stdlib only.

Producers LPUSH unique ids into `jobs` and record each as acknowledged or indeterminate;
consumers run `BLMOVE jobs processing RIGHT LEFT 1` then `LREM processing 1 id`. Each cycle is
one server lifetime of 0.2-3 s (longer if the epoch has not yet made MIN_ACKS acknowledged
pushes and MIN_COMPLETED completed jobs); then listd and its children are SIGKILLed, a fault is
applied, listd is restarted on a new port and `processing` is requeued (reaper). The cycles are
shuffled among three kinds, so about half of them send BGREWRITEAOF at a random moment:
  plain     no BGREWRITEAOF (automatic rewrites still happen: auto-aof-rewrite-min-size 64kb);
  hold      BGREWRITEAOF, and the shim stops the rewrite child at its first sync: the kill lands
            during the rewrite, after the parent switched to a new incr file, every time;
  complete  BGREWRITEAOF, wait for it to finish, keep running: the restart loads a new base
            that holds data, and the history files were deleted.
Before each kill INFO persistence (aof_rewrite_in_progress, aof_rewrites) and the manifest are
sampled; after each restart the manifest is read again. At the end the state re-read from disk
must satisfy, for `--mode kill` and `--mode powerloss`:
  1 no acknowledged push lost   2 no completed job back (neither at the end nor delivered again)
  3 no element duplicated       4 no element never sent     5 FIFO per producer (never-delivered)
"Delivered again" is judged by lifetimes (epochs), not by the order in which the client threads
record replies (a thread may record a delivery from a killed server after the next server
redelivered and completed that job): a job completed in epoch e must not be delivered in a later
epoch or completed twice, and no job may be delivered twice in one epoch. Clients check INFO
process_id when they connect, so an event is never counted in the wrong epoch.
and the run must prove that it tested something: every epoch added MIN_ACKS acknowledged
pushes and MIN_COMPLETED completed jobs, at least cycles//4 kills (and at least 1) landed during
a rewrite and as many restarts loaded a base that holds data, requests were in flight at the
kills (indeterminate >= cycles) and, for power loss, at least a third of the kills found
unsynced state to undo. Any error reply fails the run; the only errors that count as expected
are transport errors (connection reset or refused, EOF, broken pipe) on a connection to a
server the harness has killed (the harness connects only after a restart has loaded, so
-LOADING is not expected either).

`--mode powerloss` needs the LD_PRELOAD shim (syncshim.c), which logs every sync and every name
operation (create, mkdir, rename, unlink) in the data directory. After the kill, name operations
not followed by a fsync of their directory are undone, newest first (half the time all of them,
otherwise all but a random prefix: a journaling file system commits them in order); then every
file is cut back to what its last successful fsync/fdatasync covered, half the time keeping a
random part of the unsynced tail (a torn write). This checks docs/DURABILITY.md's "directory
metadata is fsynced when listd creates or renames AOF files". `--expect-loss` inverts the
verdict for invariant 1: the harness must prove it can see loss (everysec under power loss;
`--drop-dir-fsyncs`, where the shim hides listd's directory fsyncs from the second lifetime on).
`--mode fsyncfail` makes fdatasync fail with EIO (the shim's SYNCSHIM_FAIL_FROM) and checks that
listd exits 1 without acknowledging; `--mode fiu` checks the same with Debian's libfiu (fiu-run
-x, then fiu-ctrl enables posix/io/sync/fdatasync in the running listd).

  /usr/bin/python3 crashtest.py --listd build/listd --shim build/tests/crash/syncshim.so \\
      --fsync always --mode powerloss --cycles 10 --seed 1
"""
import argparse
import math
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

MIN_ACKS = 100  # acknowledged pushes every epoch must add
MIN_COMPLETED = 10  # completed jobs (BLMOVE + LREM) every epoch must add
MIN_ACKS_AFTER_REWRITE = 20  # acknowledged pushes after BGREWRITEAOF before the kill
PROGRESS_DEADLINE = 120.0  # s beyond the drawn cycle length before "no progress" fails the run


class WrongServer(OSError):
    """A connection to a published port reached another process: the epoch's server is gone and
    the port was taken again (by the next lifetime's listd or someone else's server)."""


# Transport errors on a killed server's connections: the only errors that may happen.
EXPECTED_TRANSPORT = (ConnectionResetError, ConnectionRefusedError, BrokenPipeError, EOFError,
                      WrongServer)


class Conn:
    """A minimal RESP2 client with timeouts. A closed connection raises EOFError, other
    transport errors raise OSError; an error reply is returned as a RuntimeError."""

    def __init__(self, port, timeout=30.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.s.settimeout(timeout)
        self.timeout = timeout
        self.buf = b""

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass

    def _recv(self):
        d = self.s.recv(65536)
        if not d:
            raise EOFError("connection closed by the server")
        self.buf += d

    def _line(self):
        while b"\r\n" not in self.buf:
            self._recv()
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
                self._recv()
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
        self.s.settimeout(timeout if timeout is not None else self.timeout)
        self.s.sendall(out)
        return self._read()

    def info(self, section):
        r = self.call("INFO", section)
        if not isinstance(r, str):
            raise OSError("INFO %s answered %r" % (section, r))
        return dict(l.split(":", 1) for l in r.splitlines() if ":" in l and not l.startswith("#"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_ready(proc, port, logpath, deadline_s=60.0):
    """Wait until *our* listd answers on `port`: PING, then INFO server process_id must be
    proc.pid (another test's server may have taken the port first). Returns a connection, or
    None when the port turned out to be someone else's (the caller retries on another port)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            text = open(logpath, errors="replace").read()[-4000:]
            if "Could not create server TCP listening socket" in text:
                return None  # the port was taken between free_port() and listen()
            raise SystemExit("FAIL: listd exited with %s at start (see %s)"
                             % (proc.returncode, logpath))
        try:
            c = Conn(port, 5)
            if c.call("PING") == "PONG":
                pid = int(c.info("server").get("process_id", "-1"))
                if pid == proc.pid:
                    c.timeout = 30.0
                    return c
                print("note: port %d is answered by pid %d, not by our listd %d: retrying on "
                      "another port" % (port, pid, proc.pid))
                c.close()
                return None
            c.close()
        except (OSError, EOFError, ValueError):
            pass
        time.sleep(0.02)  # polling for the server to come up, bounded by the deadline
    raise SystemExit("FAIL: listd did not answer within %d s (see %s)" % (deadline_s, logpath))


def proc_table():
    """{pid: (ppid, pgrp, state)} from /proc."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        out[int(name)] = (int(rest[1]), int(rest[2]), rest[0])
    return out


def read_manifest(aofdir):
    """(base name, base seq, [incr names]) of appendonly.aof.manifest, or None if absent."""
    path = os.path.join(aofdir, "appendonly.aof.manifest")
    try:
        text = open(path).read()
    except FileNotFoundError:
        return None
    base, seq, incrs = None, 0, []
    for line in text.splitlines():
        w = line.split()
        kv = dict(zip(w[0::2], w[1::2]))
        if kv.get("type") == "b":
            base, seq = kv["file"], int(kv["seq"])
        elif kv.get("type") == "i":
            incrs.append(kv["file"])
    return base, seq, incrs


class Run:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        # The harness' own files (shim log, listd log, hold flag) stay outside listd's --dir.
        self.top = os.path.realpath(tempfile.mkdtemp(prefix="listd-crash-"))
        self.dir = os.path.join(self.top, "data")
        os.mkdir(self.dir)
        self.aofdir = os.path.join(self.dir, "appendonlydir")
        self.synclog = os.path.join(self.top, "synclog")
        self.hold = os.path.join(self.top, "hold-rewrite-child")
        self.logpath = os.path.join(self.top, "listd.log")
        self.proc = None
        self.port = 0
        self.live = None  # (port, epoch, pid) the clients may use; None while restarting
        self.dead = set()  # epochs whose server was killed (marked before the signal)
        self.stop = False
        self.lock = threading.Lock()
        self.sent, self.acked, self.indeterminate = set(), set(), set()
        self.completed, self.lrem_indeterminate = set(), set()
        self.delivered = set()
        # id -> [(event, epoch)]: deliveries and LREM outcomes, in the order the threads recorded
        # them (not the servers' order: a thread may record a reply long after it came).
        self.trail = {}
        self.unexpected = []  # error replies and transport errors on a live server
        self.acks, self.done = [], []  # per epoch
        self.cut_bytes = 0  # bytes actually cut (the torn-write draw may keep some)
        self.reverted_ops = 0  # name operations undone
        self.kills_unsynced = 0  # power-loss kills that found unsynced bytes or name operations
        self.kills = 0
        self.kills_during_rewrite = 0
        self.kills_by_kind = {}
        self.rewrites_completed = 0  # aof_rewrites summed over lifetimes (sampled before kills)
        self.restarts = 0
        self.restarts_data_base = 0
        self.empty_base_size = None
        self.base_seqs = []

    # ---- server -----------------------------------------------------------------------------
    def start(self):
        env = dict(os.environ)
        if self.a.shim:
            env["LD_PRELOAD"] = os.path.abspath(self.a.shim)
            env["SYNCSHIM_HOLD_CHILD"] = self.hold
            if self.a.mode == "powerloss":
                env["SYNCSHIM_LOG"] = self.synclog
                env["SYNCSHIM_ROOT"] = self.dir
                if self.a.drop_dir_fsyncs and len(self.acks) > 0:
                    env["SYNCSHIM_DROP_DIRSYNC"] = "1"
        for _ in range(5):
            port = free_port()
            args = [self.a.listd, "--port", str(port), "--bind", "127.0.0.1", "--dir", self.dir,
                    "--appendonly", "yes", "--appendfsync", self.a.fsync,
                    "--auto-aof-rewrite-min-size", "64kb", "--auto-aof-rewrite-percentage", "100"]
            with open(self.logpath, "ab") as log:
                # Its own process group: the kill takes the rewrite child too (power loss).
                self.proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)
            self.ctl = wait_ready(self.proc, port, self.logpath)
            if self.ctl is not None:
                self.port = port
                return
            self.kill_group()
        raise SystemExit("FAIL: no free port for listd in 5 attempts")

    def kill_group(self):
        """SIGKILL listd and its children at once, and wait until none of them runs."""
        pgid = self.proc.pid
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        deadline = time.monotonic() + 30
        while any(g == pgid and st != "Z" for _, g, st in proc_table().values()):
            if time.monotonic() > deadline:
                raise SystemExit("FAIL: a process of listd's group survived SIGKILL for 30 s")
            time.sleep(0.01)

    def rewrite_children(self):
        return [(pid, st) for pid, (pp, _, st) in proc_table().items() if pp == self.proc.pid]

    def persistence(self):
        i = self.ctl.info("persistence")
        return int(i["aof_rewrite_in_progress"]), int(i["aof_rewrites"])

    # ---- power loss -------------------------------------------------------------------------
    def powerloss(self):
        """Undo the name operations no directory fsync made durable, then cut every file back
        to its last synced size (sometimes keeping part of the rest). Returns True if there was
        anything unsynced to undo."""
        synced, ops, dsync = {}, [], {}
        lines = open(self.synclog).read().splitlines() if os.path.exists(self.synclog) else []
        for i, line in enumerate(lines):
            f = line.split("\t")
            if f[0] == "S":  # durable stays durable (concurrent syncs may log out of order)...
                synced[int(f[1])] = max(synced.get(int(f[1]), 0), int(f[2]))
            elif f[0] == "T":  # ... unless the file is truncated
                synced[int(f[1])] = min(synced.get(int(f[1]), 0), int(f[2]))
            elif f[0] == "D":
                dsync[os.path.normpath(f[1])] = i
            elif f[0] in ("C", "M", "U", "R"):
                if f[0] == "C":
                    synced[int(f[1])] = 0  # a new file: records of a reused inode number are void
                names = f[2:3] if f[0] == "C" else f[1:3] if f[0] == "R" else f[1:2]
                paths = [os.path.normpath(p) for p in names]
                ops.append((i, f, paths))
        unsynced = [op for op in ops
                    if any(dsync.get(os.path.dirname(p), -1) < op[0] for p in op[2])]
        keep = 0 if self.rng.random() < 0.5 else self.rng.randint(0, len(unsynced))
        if self.a.drop_dir_fsyncs:
            keep = 0  # the canary undoes everything, so that it cannot miss by luck
        for _, f, p in reversed(unsynced[keep:]):
            self.reverted_ops += 1
            if f[0] == "C" and os.path.lexists(p[0]):
                os.unlink(p[0])
            elif f[0] == "M" and os.path.isdir(p[0]):
                shutil.rmtree(p[0])
            elif f[0] == "U" and f[2] != "-" and os.path.exists(f[2]):
                os.rename(f[2], p[0])
            elif f[0] == "R":
                if os.path.lexists(p[1]):
                    os.rename(p[1], p[0])
                if f[3] != "-" and os.path.exists(f[3]):
                    os.rename(f[3], p[1])
        shutil.rmtree(os.path.join(self.dir, "shim-keep"), ignore_errors=True)
        unsynced_bytes = 0
        baseline = []
        for root, dirs, files in os.walk(self.dir):
            for name in files:
                p = os.path.join(root, name)
                st = os.stat(p)
                keep_bytes = synced.get(st.st_ino, 0)
                if st.st_size > keep_bytes:
                    unsynced_bytes += st.st_size - keep_bytes
                    if self.rng.random() < 0.5:
                        keep_bytes += self.rng.randint(0, st.st_size - keep_bytes)
                    self.cut_bytes += st.st_size - keep_bytes
                    os.truncate(p, keep_bytes)
                baseline.append("S\t%d\t%d\t%s\n" % (st.st_ino, min(keep_bytes, st.st_size), p))
        with open(self.synclog, "w") as f:  # the cut state is the new durable baseline
            f.writelines(baseline)
        return unsynced_bytes > 0 or len(unsynced) > 0

    def fault(self, kind):
        """Sample INFO persistence and the manifest, kill, apply the fault."""
        in_progress, rewrites = self.persistence()
        before = read_manifest(self.aofdir)
        with self.lock:
            self.dead.add(len(self.acks) - 1)
        self.ctl.close()
        self.kill_group()
        after = read_manifest(self.aofdir)  # as the kill left it, before the power loss
        self.kills += 1
        self.rewrites_completed += rewrites
        # During a rewrite: INFO said a child was running and the manifest had not switched.
        if in_progress and before and after and before[1] == after[1]:
            self.kills_during_rewrite += 1
            self.kills_by_kind[kind] = self.kills_by_kind.get(kind, 0) + 1
        elif kind == "hold":
            raise SystemExit("FAIL: a hold cycle's kill did not land during the rewrite "
                             "(in_progress=%d, manifest %s -> %s)" % (in_progress, before, after))
        if self.a.mode == "powerloss":
            if self.powerloss():
                self.kills_unsynced += 1
        elif os.path.exists(self.synclog):
            os.unlink(self.synclog)
        if os.path.exists(self.hold):
            os.unlink(self.hold)

    def restart(self):
        self.start()
        m = read_manifest(self.aofdir)
        if m is None:
            raise SystemExit("FAIL: no AOF manifest after a restart (see %s)" % self.top)
        size = os.path.getsize(os.path.join(self.aofdir, m[0]))
        if self.empty_base_size is None:
            self.empty_base_size = size  # the first start wrote a base of an empty data set
        self.base_seqs.append(m[1])
        if self.restarts_count_base and size > self.empty_base_size:
            self.restarts_data_base += 1
        self.restarts += self.restarts_count_base
        self.reap()

    def reap(self):
        while True:
            r = self.ctl.call("LMOVE", "processing", "jobs", "RIGHT", "RIGHT")
            if r is None:
                return
            if not isinstance(r, str):
                raise SystemExit("FAIL: reaper LMOVE answered %r" % (r,))

    def begin_epoch(self):
        with self.lock:
            self.acks.append(0)
            self.done.append(0)
            self.live = (self.port, len(self.acks) - 1, self.proc.pid)

    # ---- clients ----------------------------------------------------------------------------
    def connect(self, live):
        """A connection to the server `live` published. `live` may have been read just before a
        kill, and the restart may give the next lifetime (or another test's server) the same
        port: the server must be that epoch's listd, or its events would be counted in the
        wrong epoch. Raises OSError/EOFError (WrongServer for another process)."""
        port, _, pid = live
        c = Conn(port)
        try:
            got = int(c.info("server").get("process_id", "-1"))
        except BaseException:
            c.close()
            raise
        if got != pid:
            c.close()
            raise WrongServer("port %d is answered by pid %d, not by the epoch's listd %d"
                              % (port, got, pid))
        return c

    def transport_error(self, epoch, what, e):
        with self.lock:
            if epoch in self.dead and isinstance(e, EXPECTED_TRANSPORT):
                return
            self.unexpected.append("%s on epoch %d (server %s): %r"
                                   % (what, epoch, "killed" if epoch in self.dead else "alive", e))

    def follow_live(self, c, epoch, who):
        """The (connection, epoch) a client uses next. The connection is kept until it fails or a
        new server is published, so requests are in flight at the kill; a new one goes only to
        a server the restart has published (None while there is none, or the connect failed)."""
        live = self.live
        if c is not None and (live is None or live[1] == epoch):
            return c, epoch
        if c is not None:
            c.close()
        if live is None or live[1] == epoch:
            time.sleep(0.005)  # waiting for the restart to publish the new server
            return None, epoch
        epoch = live[1]
        try:
            return self.connect(live), epoch
        except (OSError, EOFError) as e:
            self.transport_error(epoch, who + " connect", e)
            return None, epoch

    def producer(self, k):
        seq = 0
        c, epoch = None, -1
        while not self.stop:
            c, epoch = self.follow_live(c, epoch, "producer")
            if c is None:
                continue
            ident = "p%d-%d" % (k, seq)
            seq += 1
            with self.lock:
                self.sent.add(ident)
            try:
                r = c.call("LPUSH", "jobs", ident)
            except (OSError, EOFError) as e:
                with self.lock:
                    self.indeterminate.add(ident)
                self.transport_error(epoch, "LPUSH", e)
                c.close()
                c = None
                continue
            with self.lock:
                if isinstance(r, int):
                    self.acked.add(ident)
                    self.acks[epoch] += 1
                else:
                    self.indeterminate.add(ident)
                    self.unexpected.append("LPUSH %s on epoch %d answered %r" % (ident, epoch, r))

    def consumer(self):
        c, epoch = None, -1
        while not self.stop:
            c, epoch = self.follow_live(c, epoch, "consumer")
            if c is None:
                continue
            try:
                v = c.call("BLMOVE", "jobs", "processing", "RIGHT", "LEFT", "1")
                if v is None:
                    continue
                if not isinstance(v, str):
                    with self.lock:
                        self.unexpected.append("BLMOVE on epoch %d answered %r" % (epoch, v))
                    continue
                # Only recorded here: whether this delivery came after a completion is decided
                # at the end from the epochs (redelivered()), because this thread may get here
                # after the server was killed, the reaper requeued v and another consumer
                # completed it on the next server.
                with self.lock:
                    self.delivered.add(v)
                    self.trail.setdefault(v, []).append(("delivered", epoch))
                try:
                    r = c.call("LREM", "processing", "1", v)
                except (OSError, EOFError):
                    with self.lock:
                        self.lrem_indeterminate.add(v)
                        self.trail[v].append(("lrem-indeterminate", epoch))
                    raise
                with self.lock:
                    self.trail[v].append(("lrem=%r" % (r,), epoch))
                    if r == 1:
                        self.completed.add(v)
                        self.done[epoch] += 1
                    else:
                        self.unexpected.append("LREM %s on epoch %d answered %r" % (v, epoch, r))
            except (OSError, EOFError) as e:
                self.transport_error(epoch, "consumer", e)
                c.close()
                c = None

    # ---- the run ----------------------------------------------------------------------------
    def wait_until(self, cond, what, deadline_s=60.0):
        deadline = time.monotonic() + deadline_s
        while not cond():
            if time.monotonic() > deadline:
                raise SystemExit("FAIL: %s within %d s (see %s)" % (what, deadline_s, self.top))
            time.sleep(0.01)

    def bgrewriteaof(self, kind):
        """hold: make sure a rewrite child is stopped at its sync; complete: make sure a rewrite
        started after this call has finished."""
        # No automatic rewrite may start from here on in this lifetime (it would answer "already
        # in progress" or be the one held); the restart's command line turns them on again.
        r = self.ctl.call("CONFIG", "SET", "auto-aof-rewrite-percentage", "0")
        if r != "OK":
            raise SystemExit("FAIL: CONFIG SET auto-aof-rewrite-percentage 0 answered %r" % (r,))
        self.wait_until(lambda: self.persistence()[0] == 0, "the running rewrite did not finish")
        r0 = self.persistence()[1]
        if kind == "hold":
            open(self.hold, "w").close()
        r = self.ctl.call("BGREWRITEAOF")
        if r != "Background append only file rewriting started":
            raise SystemExit("FAIL: BGREWRITEAOF answered %r" % (r,))
        if kind == "hold":
            self.wait_until(lambda: any(st == "T" for _, st in self.rewrite_children()),
                            "the rewrite child did not stop at its sync")
            if self.persistence()[0] != 1:
                raise SystemExit("FAIL: a rewrite child is stopped but INFO says no rewrite runs")
        else:
            self.wait_until(lambda: self.persistence()[1] > r0 and self.persistence()[0] == 0,
                            "BGREWRITEAOF did not complete")

    def lifetime(self, kind):
        """Run the current epoch for a drawn 0.2-3 s (BGREWRITEAOF at a random moment in it),
        and at least until it made MIN_ACKS acknowledged pushes and MIN_COMPLETED jobs."""
        t0 = time.monotonic()
        length = self.rng.uniform(0.2, 3.0)
        ep = len(self.acks) - 1
        after_rewrite = 0
        if kind != "plain":
            at = self.rng.uniform(0, length)
            time.sleep(at)
            self.bgrewriteaof(kind)
            # The kill must find acknowledged pushes in the incr file the rewrite opened.
            after_rewrite = self.acks[ep] + MIN_ACKS_AFTER_REWRITE
        remaining = length - (time.monotonic() - t0)
        if remaining > 0:
            time.sleep(remaining)  # the kill moment: random, not a synchronisation point
        self.wait_until(lambda: self.acks[ep] >= max(MIN_ACKS, after_rewrite)
                        and self.done[ep] >= MIN_COMPLETED,
                        "epoch %d did not reach %d acks and %d completed jobs (it has %d and %d)"
                        % (ep, MIN_ACKS, MIN_COMPLETED, self.acks[ep], self.done[ep]),
                        PROGRESS_DEADLINE)

    def go(self):
        t_start = time.monotonic()
        n = self.a.cycles
        # About half the cycles send BGREWRITEAOF: a quarter hold it, a quarter complete it.
        quarter = max(1, n // 4)
        kinds = ["hold"] * quarter + ["complete"] * quarter
        kinds += ["plain"] * max(0, n - len(kinds))
        self.rng.shuffle(kinds)
        self.restarts_count_base = False
        self.restart()
        self.restarts_count_base = True
        self.begin_epoch()
        threads = [threading.Thread(target=self.producer, args=(k,), daemon=True) for k in range(4)]
        threads += [threading.Thread(target=self.consumer, daemon=True) for _ in range(2)]
        for t in threads:
            t.start()
        for kind in kinds:
            self.lifetime(kind)
            with self.lock:
                self.live = None
            self.fault(kind)
            self.restart()
            self.begin_epoch()
        self.lifetime("plain")
        self.stop = True
        for t in threads:
            t.join(timeout=60)
            if t.is_alive():
                raise SystemExit("FAIL: a client thread did not stop within 60 s")
        self.fault("final")
        self.restart()
        jobs = self.ctl.call("LRANGE", "jobs", "0", "-1")
        processing = self.ctl.call("LRANGE", "processing", "0", "-1")
        self.ctl.close()
        self.kill_group()
        return self.check(jobs, processing, len(kinds), time.monotonic() - t_start)

    def redelivered(self):
        """Jobs some server delivered more than its state allows, judged by epochs (server
        lifetimes, which are ordered: one is killed before the next starts), never by the order
        in which the client threads recorded replies. Returns (after_completion, twice):
        after_completion  completed (LREM answered 1) more than once, or delivered in an epoch
                          after the one that completed it: the completion was lost;
        twice             delivered twice in one epoch, which no loss explains: each id is
                          pushed once, and the reaper runs before clients connect."""
        after_completion, twice = [], []
        for v, t in sorted(self.trail.items()):
            deliveries = [e for ev, e in t if ev == "delivered"]
            completions = [e for ev, e in t if ev == "lrem=1"]
            if len(completions) > 1 or (completions and max(deliveries) > completions[0]):
                after_completion.append(v)
            if len(deliveries) != len(set(deliveries)):
                twice.append(v)
        return after_completion, twice

    def check(self, jobs, processing, cycles, secs):
        final = jobs + processing
        redelivered, delivered_twice = self.redelivered()
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
        if redelivered and not self.a.expect_loss:
            problems.append("%d completed jobs were delivered again (later lifetime) or completed "
                            "twice, e.g. %s"
                            % (len(redelivered), [(v, self.trail[v]) for v in redelivered[:5]]))
        if delivered_twice:
            problems.append("%d jobs were delivered twice in one lifetime, e.g. %s"
                            % (len(delivered_twice),
                               [(v, self.trail[v]) for v in delivered_twice[:5]]))
        if dups:
            problems.append("%d duplicated elements" % dups)
        if phantoms:
            problems.append("%d elements never sent" % len(phantoms))
        if order and not self.a.drop_dir_fsyncs:  # (an undone rewrite reorders what comes back)
            problems.append("%d FIFO violations" % order)
        if self.unexpected:
            problems.append("%d unexpected errors, e.g. %s"
                            % (len(self.unexpected), self.unexpected[:5]))
        # The faults must have hit something.
        need = max(1, cycles // 4)
        if self.kills_during_rewrite < need:
            problems.append("only %d kills during a rewrite (need %d)"
                            % (self.kills_during_rewrite, need))
        if self.restarts_data_base < need and not self.a.drop_dir_fsyncs:  # (it undoes them)
            problems.append("only %d restarts loaded a base that holds data (need %d)"
                            % (self.restarts_data_base, need))
        if len(self.indeterminate) < cycles:
            problems.append("only %d requests in flight at %d kills (need >= cycles)"
                            % (len(self.indeterminate), self.kills))
        if self.a.mode == "powerloss" and self.kills_unsynced < math.ceil(cycles / 3):
            problems.append("only %d of %d power losses found unsynced state (need a third)"
                            % (self.kills_unsynced, cycles))
        # Per epoch: lifetime() already failed the run if one fell short; this is the record.
        short = [i for i, (k, d) in enumerate(zip(self.acks, self.done))
                 if k < MIN_ACKS or d < MIN_COMPLETED]
        if short:
            problems.append("epochs %s made too little progress" % short)
        print("fsync=%s mode=%s cycles=%d seed=%d%s: sent=%d acked=%d indeterminate=%d "
              "delivered=%d completed=%d final=%d lost_acked=%d resurrected=%d "
              "redelivered=%d unexpected_errors=%d"
              % (self.a.fsync, self.a.mode, cycles, self.a.seed,
                 " drop-dir-fsyncs" if self.a.drop_dir_fsyncs else "", len(self.sent),
                 len(self.acked), len(self.indeterminate), len(self.delivered), len(self.completed),
                 len(final), len(lost), len(resurrected), len(redelivered),
                 len(self.unexpected)))
        print("  acks per epoch: %s" % self.acks)
        print("  completed per epoch: %s" % self.done)
        print("  kills=%d during_rewrite=%d %s rewrites_completed=%d restarts=%d "
              "from_base_with_data=%d base_seq_per_start=%s"
              % (self.kills, self.kills_during_rewrite, self.kills_by_kind, self.rewrites_completed,
                 self.restarts, self.restarts_data_base, self.base_seqs))
        if self.a.mode == "powerloss":
            print("  power losses with unsynced state=%d/%d cut_bytes=%d reverted_name_ops=%d"
                  % (self.kills_unsynced, self.kills, self.cut_bytes, self.reverted_ops))
        print("  %.1f s, dir=%s" % (secs, self.top))
        if self.a.expect_loss:
            if not lost and not resurrected and not redelivered:
                problems.append("expected lost acknowledged writes (the harness must see loss: "
                                "pushes lost or completed jobs back) but found none")
        elif lost:
            problems.append("%d acknowledged pushes lost, e.g. %s" % (len(lost), sorted(lost)[:5]))
        for p in problems:
            print("FAIL: " + p)
        if not problems:
            print("PASS")
            shutil.rmtree(self.top, ignore_errors=True)
        return 0 if not problems else 1


def start_checked(make_launch, env, logpath):
    """Start the server `make_launch(port)` describes on a free port and return (proc, port,
    connection) once INFO server process_id is its pid; another port if someone else answered."""
    for _ in range(5):
        port = free_port()
        with open(logpath, "ab") as log:
            p = subprocess.Popen(make_launch(port), env=env, stdout=log, stderr=subprocess.STDOUT)
        c = wait_ready(p, port, logpath)
        if c is not None:
            return p, port, c
        p.kill()
        p.wait()
    raise SystemExit("FAIL: no free port for listd in 5 attempts")


def fsync_failure(a, injector):
    """fdatasync fails from some point on: listd must exit 1 without acknowledging the command
    whose fsync failed, log the error, and every earlier acknowledged push must be there after a
    restart. `injector` is "shim" (syncshim.so fails the 8th and later syncs with EIO) or "fiu"
    (Debian's libfiu: listd runs under `fiu-run -x`, and after 20 acknowledged pushes
    `fiu-ctrl` enables the failure point posix/io/sync/fdatasync in the running process)."""
    d = tempfile.mkdtemp(prefix="listd-fsyncfail-")

    def args(port):
        return [a.listd, "--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                "--appendonly", "yes", "--appendfsync", "always"]

    env = dict(os.environ)
    launch = args
    if injector == "shim":
        env.update(LD_PRELOAD=os.path.abspath(a.shim), SYNCSHIM_FAIL_FROM="8")
    else:
        fifo = os.path.join(d, "fiu-ctrl")
        launch = lambda port: ["fiu-run", "-x", "-f", fifo] + args(port)  # noqa: E731
    logpath = os.path.join(d, "listd.log")
    # fiu-run execs listd, so p.pid is listd's pid (checked against INFO) and the fifo is
    # <fifo>-<pid>.
    p, port, c = start_checked(launch, env, logpath)
    acked, failed_on = [], None
    for i in range(100):
        if injector == "fiu" and i == 20:
            ctl = subprocess.run(["fiu-ctrl", "-f", fifo, "-c",
                                  "enable name=posix/io/sync/fdatasync", str(p.pid)],
                                 capture_output=True, text=True, timeout=30)
            if ctl.returncode != 0:
                print("FAIL: fiu-ctrl: %s" % (ctl.stderr or ctl.stdout).strip())
                p.kill()
                return 1
        try:
            r = c.call("LPUSH", "jobs", "id%d" % i)
        except (OSError, EOFError):
            failed_on = i
            break
        if not isinstance(r, int):
            print("FAIL: unexpected reply %r" % (r,))
            p.kill()
            return 1
        acked.append("id%d" % i)
    try:
        rc = p.wait(timeout=30)
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
    q, port, c = start_checked(args, env, logpath)
    try:
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
    ap.add_argument("--shim", required=True)
    ap.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    ap.add_argument("--mode", default="powerloss",
                    choices=["kill", "powerloss", "fsyncfail", "fiu"])
    ap.add_argument("--cycles", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--expect-loss", action="store_true")
    ap.add_argument("--drop-dir-fsyncs", action="store_true",
                    help="canary: the shim hides listd's directory fsyncs from the second "
                         "lifetime on (use with --mode powerloss --expect-loss)")
    a = ap.parse_args()
    if a.drop_dir_fsyncs and a.mode != "powerloss":
        ap.error("--drop-dir-fsyncs needs --mode powerloss")
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
