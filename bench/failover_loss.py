#!/usr/bin/python3
"""Acknowledged writes across a Sentinel failover, listd and redis-server side by side (E4).

../shared/REPLICATION.md §5 measured this on Redis 7.0.15 (experiment E4); this script repeats
its method for both servers in one run and adds listd's `sync-replicas` mode:

    bench/failover_loss.py --listd build/listd [--redis-server /usr/bin/redis-server]
        [--faults kill,lagkill,stop] [--modes nowait,wait,minrep,sync] [--consumers 0,1]
        [--servers listd,redis] [--rounds 1] [--post 3] [--json out.jsonl]
        [--priority0-replica]
    bench/failover_loss.py --table out.jsonl     # the table of recorded runs again

The full default run (42 runs, one round) takes about 10.5 minutes on 2 vCPU.

Each run is fresh: one master and one replica of the server under test (`--save '' --appendonly
no --repl-diskless-sync no` on both; the mode's settings on both, so the promoted replica keeps
them), three sentinels (Debian's redis-server 7.0.15 `--sentinel`, quorum 2,
down-after-milliseconds 1000, every other Sentinel setting and period at its default), all on
127.0.0.1 on free ports in temporary directories.

Workload, through redis-py's `Sentinel(...).master_for("mymaster")` (re-discovering the master
after any error, 0.1 s back-off):
- two producers push `LPUSH jobs p<k>-<seq>` about every 3 ms (lagkill: the id, ':' and 16 KB of
  padding). An id is **acknowledged** when LPUSH replied (nowait, minrep, sync), or when LPUSH
  replied and the `WAIT 1 1000` after it returned >= 1 (wait). An id is never pushed twice.
- optionally one consumer: `BRPOP jobs 1`, then 10 ms of "work", slower than the producers.
Modes: nowait (plain); wait (WAIT 1 1000 after each push); minrep (`min-replicas-to-write 1`,
`min-replicas-max-lag 2`); sync (listd only: `sync-replicas 1`, the LPUSH reply itself is the
acknowledgement; the default sync-replicas-timeout 2000).

Faults (t from the first push):
- kill: SIGKILL of the master at 3 s, not restarted.
- lagkill: SIGSTOP of the replica from 1.5 s to 3.7 s, SIGKILL of the master at 3.5 s.
- stop: SIGSTOP of the master at 3 s, SIGCONT 1 s after Sentinel's +switch-master, then the run
  waits for Sentinel's +convert-to-slave and for the old master to follow the new one (its
  writes ended).
--priority0-replica adds a second replica C with `replica-priority 0` and the mode's settings:
Sentinel never promotes it, but the master counts its acknowledgements (WAIT, sync-replicas) like
any replica's, which is why N = 1 of 2 replicas is not enough (lagkill stalls B, C keeps
acknowledging, B is promoted without what C acknowledged).

The workload then runs --post seconds more on the new master and stops; the new master's list is
read (in sync mode after `CONFIG SET sync-replicas 0` on it: a sync master without replicas
holds every read) and compared:
- lost: acknowledged, neither consumed nor in the final list. An id the consumer's BRPOP may
  have taken although its reply never arrived (the connection failed during the command) is
  not counted lost but reported in `pops without reply`: at most one per such BRPOP, and only
  ids older than every id of their producer still in the list (BRPOP takes the oldest).
- repeated: consumed and still in the final list (it would be delivered again), plus ids
  consumed twice.
- not acknowledged (of which landed): pushes that got an error or WAIT < 1, and how many of them
  are in the final list or were consumed anyway.
- failover s: the first +switch-master seen on any sentinel minus the fault (lagkill: the kill).

Prints one markdown table (one row per run) and, with --json, appends one JSON object per run
(offsets at the fault, first errors, the lost ids and when they were acknowledged). Every wait is
bounded; every process (servers, sentinels, their children) runs in its own process group and is
killed at the end, on errors and on Ctrl-C too. Run with /usr/bin/python3 (redis-py 4.3.4).
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis
import redis.sentinel

MASTER_NAME = "mymaster"
QUEUE = "jobs"
DOWN_AFTER_MS = 1000      # E4: sentinel down-after-milliseconds
PUSH_INTERVAL_S = 0.003   # E4: a push about every 3 ms per producer
WORK_S = 0.010            # E4: the consumer's "work" per job
BACKOFF_S = 0.1           # after an error (redis-py through Sentinel retried every 0.1 s in E3)
BIG_VALUE = 16 * 1024     # lagkill's value size
FAULT_AT_S = 3.0          # kill, stop
LAG_STOP_AT_S, LAG_KILL_AT_S, LAG_CONT_AT_S = 1.5, 3.5, 3.7
CONT_AFTER_SWITCH_S = 1.0
START_TIMEOUT_S = 20      # a server answering PING
SETUP_TIMEOUT_S = 60      # replica synced, sentinels see each other and the replica
FAILOVER_TIMEOUT_S = 60   # +switch-master after the fault
CONVERT_TIMEOUT_S = 90    # stop: +convert-to-slave and the old master following the new one
JOIN_TIMEOUT_S = 30       # workload threads stopping

# The sentinels' events kept in the JSON record (times from the first push).
EVENTS_KEPT = ("+sdown", "-sdown", "+odown", "+failover-state-wait-promotion", "+promoted-slave",
               "+failover-end", "+switch-master", "+convert-to-slave",
               "-failover-abort-no-good-slave")
RECOVERABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
               redis.exceptions.ResponseError, redis.sentinel.MasterNotFoundError)

START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:7.1f}s] {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def client(port, timeout=5):
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True,
                       socket_timeout=timeout, socket_connect_timeout=timeout)


def wait_for(predicate, timeout, interval=0.05):
    """Polls predicate() (unreachable or closing servers count as "not yet") until it returns
    something truthy or `timeout` seconds pass; returns its last value."""
    end = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            value = None
        if value or time.monotonic() >= end:
            return value
        time.sleep(interval)


class Process:
    """A server or sentinel in its own process group and temporary directory, on a free port
    (checked to be ours by INFO's process_id: another process may take a free port first)."""

    registry = []  # every Process started, for the cleanup

    def __init__(self, binary, args, name, sentinel_master=None):
        self.binary, self.args, self.name = binary, list(args), name
        self.sentinel_master = sentinel_master
        self.workdir = tempfile.mkdtemp(prefix=f"failover-loss-{name}-")
        self.log_path = os.path.join(self.workdir, "server.log")
        self.proc, self.port = None, None
        Process.registry.append(self)

    def command(self, port):
        conf = os.path.join(self.workdir, "node.conf")
        if self.sentinel_master is None:
            with open(conf, "w") as f:  # a file for CONFIG REWRITE (Sentinel's reconfigurations)
                f.write("# failover_loss.py\n")
            return [self.binary, conf, "--port", str(port), "--bind", "127.0.0.1",
                    "--dir", self.workdir, *self.args]
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\ndaemonize no\ndir {self.workdir}\n"
                    f"sentinel monitor {MASTER_NAME} 127.0.0.1 {self.sentinel_master} 2\n"
                    f"sentinel down-after-milliseconds {MASTER_NAME} {DOWN_AFTER_MS}\n")
        return [self.binary, conf, "--sentinel"]

    def start(self):
        for _ in range(5):
            port = free_port()
            with open(self.log_path, "ab") as out:
                self.proc = subprocess.Popen(self.command(port), stdout=out,
                                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             cwd=self.workdir, start_new_session=True)
            end = time.monotonic() + START_TIMEOUT_S
            while time.monotonic() < end and self.proc.poll() is None:
                try:
                    pid = client(port, 1).info("server").get("process_id")
                    if pid == self.proc.pid:
                        self.port = port
                        return self
                    break  # someone else's server has this port
                except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                        redis.exceptions.ResponseError):
                    time.sleep(0.02)
            self.kill()
        raise RuntimeError(f"{self.name} did not start; log {self.log_path}:\n{self.log_text()}")

    def signal(self, sig):
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)

    def kill(self):
        """SIGKILL to the whole process group (a BGSAVE child too), then reap."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGCONT)
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            log(f"{self.name} (pid {self.proc.pid}) did not exit after SIGKILL")
        self.proc = None

    def log_text(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def cleanup(self, keep):
        self.kill()
        if not keep:
            shutil.rmtree(self.workdir, ignore_errors=True)

    @classmethod
    def cleanup_all(cls, keep=False):
        for p in cls.registry:
            p.cleanup(keep)
        cls.registry = []


class SentinelEvents(threading.Thread):
    """Every pub/sub event of the sentinels (+switch-master, +convert-to-slave, ...) with the
    monotonic time it arrived here."""

    def __init__(self, ports):
        super().__init__(daemon=True)
        self.ports = ports
        self.events = []  # (t, sentinel port, channel, data)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.subs = []
        for port in ports:
            ps = client(port).pubsub(ignore_subscribe_messages=True)
            ps.psubscribe("*")
            self.subs.append((port, ps))

    def run(self):
        while not self.stopping.is_set():
            for port, ps in self.subs:
                try:
                    m = ps.get_message(timeout=0.02)
                except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                    continue
                if m and m.get("type") == "pmessage":
                    with self.lock:
                        self.events.append((time.monotonic(), port, m["channel"], m["data"]))

    def first(self, channel, after=0.0):
        with self.lock:
            times = [t for t, _, c, _ in self.events if c == channel and t >= after]
        return min(times) if times else None

    def close(self):
        self.stopping.set()
        self.join(timeout=5)
        for _, ps in self.subs:
            try:
                ps.close()
            except Exception:  # noqa: BLE001 (best effort at the end)
                pass


class Workload:
    """The producers and the optional consumer, threads with their own Sentinel-backed clients."""

    def __init__(self, sentinel_ports, mode, consumers, value_size):
        self.sentinel = redis.sentinel.Sentinel([("127.0.0.1", p) for p in sentinel_ports],
                                                socket_timeout=2, socket_connect_timeout=2)
        self.mode = mode
        self.pad = ":" + "x" * value_size if value_size else ""
        self.stop_producing = threading.Event()
        self.stop_consuming = threading.Event()
        self.lock = threading.Lock()
        self.t0 = None
        self.attempted = []      # ids, in order of attempt
        self.acknowledged = {}   # id -> seconds after t0 of its acknowledgement
        self.consumed = []       # ids, in order of receipt
        self.unanswered_pops = []  # seconds after t0 of each BRPOP whose reply never came
        self.errors = []         # (t, thread, repr) of every error
        self.threads = [threading.Thread(target=self.produce, args=(k,), daemon=True)
                        for k in (1, 2)]
        self.threads += [threading.Thread(target=self.consume, daemon=True)
                         for _ in range(consumers)]

    def now(self):
        return time.monotonic() - self.t0

    def master(self):
        return self.sentinel.master_for(MASTER_NAME, decode_responses=True, socket_timeout=10,
                                        socket_connect_timeout=2)

    def start(self):
        self.t0 = time.monotonic()
        for t in self.threads:
            t.start()

    def error(self, who, r, e):
        with self.lock:
            self.errors.append((round(self.now(), 3), who, repr(e)[:200]))
        r.connection_pool.disconnect()  # re-discover the master through the sentinels

    def produce(self, k):
        r = self.master()
        seq = 0
        while not self.stop_producing.is_set():
            ident = f"p{k}-{seq}"
            seq += 1  # never pushed again: a push that failed is indeterminate, not retried
            with self.lock:
                self.attempted.append(ident)
            try:
                r.lpush(QUEUE, ident + self.pad)
                if self.mode != "wait" or r.wait(1, 1000) >= 1:
                    with self.lock:
                        self.acknowledged[ident] = round(self.now(), 4)
            except RECOVERABLE as e:
                self.error(f"p{k}", r, e)
                self.stop_producing.wait(BACKOFF_S)
                continue
            self.stop_producing.wait(PUSH_INTERVAL_S)

    def consume(self):
        r = self.master()
        while not self.stop_consuming.is_set():
            try:
                got = r.brpop(QUEUE, 1)
            except RECOVERABLE as e:
                # Sent and then the connection failed: the server may have popped an element
                # whose reply never arrived. Refused (an error reply) or never sent: it did not.
                sent = (isinstance(e, (redis.exceptions.ConnectionError,
                                       redis.exceptions.TimeoutError))
                        and not isinstance(e, redis.sentinel.MasterNotFoundError)
                        and "connecting to" not in str(e) and "refused" not in str(e)
                        and "previous master" not in str(e))
                if sent:
                    with self.lock:
                        self.unanswered_pops.append(round(self.now(), 3))
                self.error("c", r, e)
                self.stop_consuming.wait(BACKOFF_S)
                continue
            if got is not None:
                with self.lock:
                    self.consumed.append(got[1].split(":", 1)[0])
                self.stop_consuming.wait(WORK_S)

    def stop(self):
        self.stop_producing.set()
        for t in self.threads[:2]:
            t.join(timeout=JOIN_TIMEOUT_S)
        self.stop_consuming.set()
        for t in self.threads[2:]:
            t.join(timeout=JOIN_TIMEOUT_S)
        if any(t.is_alive() for t in self.threads):
            raise RuntimeError("a workload thread did not stop")


def node_args(mode):
    args = ["--save", "", "--appendonly", "no", "--repl-diskless-sync", "no"]
    if mode == "minrep":
        args += ["--min-replicas-to-write", "1", "--min-replicas-max-lag", "2"]
    elif mode == "sync":
        args += ["--sync-replicas", "1"]
    return args


def replica_synced(master_port, replica_port, replicas):
    rep = client(replica_port).info("replication")
    m = client(master_port).info("replication")
    return (rep.get("master_link_status") == "up" and m.get("connected_slaves") == replicas
            and rep.get("slave_repl_offset") == m.get("master_repl_offset"))


def sentinel_ready(port, replicas):
    s = client(port)
    return (len(s.execute_command("SENTINEL", "REPLICAS", MASTER_NAME)) == replicas
            and len(s.execute_command("SENTINEL", "SENTINELS", MASTER_NAME)) == 2)


def master_port_by_sentinel(port):
    return int(client(port).execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)[1])


def fault_snapshot(master, replica, replica_stopped):
    """The master's stream offset, the replica's acknowledged offset and the replica output
    buffer just before the fault (the stopped replica is not asked: it cannot answer)."""
    snap = {}
    try:
        info = client(master.port, 0.2).info()
        snap["master_repl_offset"] = info.get("master_repl_offset")
        slave0 = info.get("slave0")
        if isinstance(slave0, dict):
            snap["replica_ack_offset"] = slave0.get("offset")
            snap["replica_ack_lag_s"] = slave0.get("lag")
        snap["mem_clients_slaves"] = info.get("mem_clients_slaves")
        for k in ("sync_replicas_acked_offset", "sync_replicas_held_clients",
                  "sync_replicas_timeouts"):
            if k in info:
                snap[k] = info[k]
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
        snap["error"] = repr(e)
    if replica_stopped:
        return snap
    try:
        snap["replica_offset"] = client(replica.port, 0.2).info("replication").get(
            "slave_repl_offset")
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
        snap["replica_error"] = repr(e)
    return snap


def sleep_until(t0, at):
    delay = t0 + at - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def producer_of(ident):
    k, seq = ident[1:].split("-")
    return int(k), int(seq)


def analyse(work, final_ids):
    acked = work.acknowledged
    consumed = work.consumed
    consumed_set = set(consumed)
    final_set = set(final_ids)
    missing = [i for i in acked if i not in consumed_set and i not in final_set]
    # BRPOP takes the oldest element: an id a reply-less BRPOP may have taken is older than every
    # id of its producer still queued.
    oldest_left = {}
    for i in final_ids:
        k, seq = producer_of(i)
        oldest_left[k] = min(seq, oldest_left.get(k, seq))
    explainable = sorted((i for i in missing
                          if producer_of(i)[1] < oldest_left.get(producer_of(i)[0], 1 << 62)),
                         key=lambda i: producer_of(i)[1], reverse=True)
    explained = set(explainable[:len(work.unanswered_pops)])
    lost = sorted((i for i in missing if i not in explained), key=producer_of)
    twice = len(consumed) - len(consumed_set)
    repeated = sorted(consumed_set & final_set, key=producer_of)
    not_acked = [i for i in work.attempted if i not in acked]
    landed = [i for i in not_acked if i in final_set or i in consumed_set]
    return {
        "attempted": len(work.attempted),
        "acknowledged": len(acked),
        "lost": len(lost),
        "lost_ids": lost[:100],
        "lost_acked_at_s": [min((acked[i] for i in lost), default=None),
                            max((acked[i] for i in lost), default=None)],
        "pops_without_reply": len(work.unanswered_pops),
        "pops_without_reply_at_s": work.unanswered_pops[:20],
        "missing_taken_by_reply_less_pops": sorted(explained, key=producer_of),
        "repeated": len(repeated) + twice,
        "repeated_ids": repeated[:100],
        "consumed_twice": twice,
        "consumed": len(consumed),
        "final_len": len(final_ids),
        "not_acknowledged": len(not_acked),
        "not_acknowledged_landed": len(landed),
        "final_unknown_ids": len(final_set - set(work.attempted)),
    }


def one_run(binary, server, fault, mode, consumers, post_s, keep, priority0_replica=False):
    """One fresh set-up, one fault; returns the run's record."""
    record = {"server": server, "fault": fault, "mode": mode, "consumers": consumers}
    work = events = None
    try:
        args = node_args(mode)
        master = Process(binary, args, f"{server}-a").start()
        replica = Process(binary, args + ["--replicaof", "127.0.0.1", str(master.port)],
                          f"{server}-b").start()
        replicas = 1
        if priority0_replica:  # C: never promoted, but its acknowledgement counts
            record["priority0_replica"] = True
            replicas = 2
            Process(binary, args + ["--replicaof", "127.0.0.1", str(master.port),
                                    "--replica-priority", "0"], f"{server}-c").start()
        if not wait_for(lambda: replica_synced(master.port, replica.port, replicas),
                        SETUP_TIMEOUT_S):
            raise RuntimeError(f"the replica never synced:\n{replica.log_text()[-2000:]}")
        sentinels = [Process("/usr/bin/redis-server", [], f"sentinel{i}",
                             sentinel_master=master.port).start() for i in range(3)]
        for s in sentinels:
            if not wait_for(lambda: sentinel_ready(s.port, replicas), SETUP_TIMEOUT_S):
                raise RuntimeError(f"sentinel {s.port} never saw the replicas and the others")
        events = SentinelEvents([s.port for s in sentinels])
        events.start()

        work = Workload([s.port for s in sentinels], mode, consumers,
                        BIG_VALUE if fault == "lagkill" else 0)
        work.start()
        t0 = work.t0
        if fault == "lagkill":
            sleep_until(t0, LAG_STOP_AT_S)
            replica.signal(signal.SIGSTOP)
            sleep_until(t0, LAG_KILL_AT_S)
            record["at_fault"] = fault_snapshot(master, replica, True)
            t_fault = time.monotonic()
            master.kill()
            sleep_until(t0, LAG_CONT_AT_S)
            replica.signal(signal.SIGCONT)
        else:
            sleep_until(t0, FAULT_AT_S)
            record["at_fault"] = fault_snapshot(master, replica, False)
            t_fault = time.monotonic()
            master.kill() if fault == "kill" else master.signal(signal.SIGSTOP)
        record["fault_at_s"] = round(t_fault - t0, 3)
        record["acknowledged_before_fault"] = sum(1 for t in work.acknowledged.values()
                                                  if t <= t_fault - t0)

        t_switch = wait_for(lambda: events.first("+switch-master", t_fault), FAILOVER_TIMEOUT_S)
        if not t_switch:
            raise RuntimeError("no +switch-master")
        record["failover_s"] = round(t_switch - t_fault, 3)
        new_port = master_port_by_sentinel(sentinels[0].port)
        if new_port != replica.port:
            raise RuntimeError(f"Sentinel names {new_port}, not the replica {replica.port}")
        if fault == "stop":
            time.sleep(max(0.0, t_switch + CONT_AFTER_SWITCH_S - time.monotonic()))
            master.signal(signal.SIGCONT)
            t_cont = time.monotonic()
            record["cont_at_s"] = round(t_cont - t0, 3)
            t_conv = wait_for(lambda: events.first("+convert-to-slave", t_cont),
                              CONVERT_TIMEOUT_S)
            if not t_conv:
                raise RuntimeError("the stopped master was never converted")
            record["convert_after_cont_s"] = round(t_conv - t_cont, 3)
            # Its writes ended: it follows the new master with its link up.
            if not wait_for(lambda: client(master.port).info("replication").get(
                    "master_link_status") == "up", CONVERT_TIMEOUT_S):
                raise RuntimeError("the converted old master never followed the new one")
        time.sleep(post_s)
        work.stop()

        m = client(replica.port, 10)
        if mode == "sync":
            m.config_set("sync-replicas", 0)  # a sync master without replicas holds reads
        final = [v.split(":", 1)[0] for v in m.lrange(QUEUE, 0, -1)]
        info = m.info("replication")
        record["new_master_offset"] = info.get("master_repl_offset")
        record["new_master_replicas"] = info.get("connected_slaves")
        # The stream offset the replica had applied when it was promoted, against the old
        # master's at the fault: what never left the old master.
        record["promoted_at_offset"] = info.get("second_repl_offset", 0) - 1
        record.update(analyse(work, final))
        record["first_errors"] = work.errors[:12]
        record["errors"] = len(work.errors)
        record["events"] = [(round(t - t0, 3), p, c, d) for t, p, c, d in events.events
                            if c in EVENTS_KEPT][:60]
        return record
    finally:
        if work is not None:
            work.stop_producing.set()
            work.stop_consuming.set()
        if events is not None:
            events.close()
        if work is not None:
            try:
                work.stop()
            except RuntimeError as e:
                log(str(e))
        if "lost" not in record:
            for p in Process.registry:
                log(f"--- {p.name} log (last 1500 chars) ---\n{p.log_text()[-1500:]}")
        Process.cleanup_all(keep)


HEADER = ("| server | fault | mode | consumers | acknowledged | **lost acknowledged** | "
          "**repeated pops** | not acknowledged (of which landed) | failover s | "
          "pops without reply |\n" + "| --- " * 10 + "|")


def row(r):
    if r.get("priority0_replica"):
        r = dict(r, mode=f"{r['mode']} + a replica-priority 0 replica")
    if "error" in r:
        return (f"| {r['server']} | {r['fault']} | {r['mode']} | {r['consumers']} | "
                f"run failed: {r['error'][:80]} | | | | | |")
    return (f"| {r['server']} | {r['fault']} | {r['mode']} | {r['consumers']} | "
            f"{r['acknowledged']:,} | **{r['lost']:,}** | **{r['repeated']:,}** | "
            f"{r['not_acknowledged']:,} ({r['not_acknowledged_landed']:,}) | "
            f"{r['failover_s']:.2f} | {r['pops_without_reply']} |")


def print_table(rows):
    """Rows by fault, mode and consumers, the Redis row next to listd's."""
    order = ["kill", "lagkill", "stop", "nowait", "wait", "minrep", "sync", "redis", "listd"]
    rank = lambda v: order.index(v) if v in order else len(order)  # noqa: E731
    print(HEADER)
    for r in sorted(rows, key=lambda r: (rank(r["fault"]), rank(r["mode"]), r["consumers"],
                                         rank(r["server"]))):
        print(row(r))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--listd", help="the listd binary")
    p.add_argument("--redis-server", default="/usr/bin/redis-server")
    p.add_argument("--servers", default="listd,redis")
    p.add_argument("--faults", default="kill,lagkill,stop")
    p.add_argument("--modes", default="nowait,wait,minrep,sync",
                   help="sync runs on listd only")
    p.add_argument("--consumers", default="0,1")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--post", type=float, default=3.0,
                   help="seconds the workload runs after the failover (stop: after the "
                        "conversion)")
    p.add_argument("--json", help="append one JSON object per run to this file")
    p.add_argument("--keep", action="store_true", help="keep the servers' directories and logs")
    p.add_argument("--priority0-replica", action="store_true",
                   help="a second replica C with replica-priority 0 (Sentinel never promotes it; "
                        "lagkill stalls the other one)")
    p.add_argument("--table", metavar="JSONL",
                   help="print the table of the runs recorded in this --json file; run nothing")
    a = p.parse_args()
    if a.table:
        with open(a.table) as f:
            print_table([json.loads(line) for line in f if line.strip()])
        return
    if not a.listd:
        p.error("--listd is required")

    binaries = {"listd": os.path.abspath(a.listd), "redis": a.redis_server}
    plan = []
    for _ in range(a.rounds):
        for fault in a.faults.split(","):
            for mode in a.modes.split(","):
                for consumers in (int(c) for c in a.consumers.split(",")):
                    for server in a.servers.split(","):
                        if not (mode == "sync" and server != "listd"):
                            plan.append((server, fault, mode, consumers))

    def interrupted(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupted)

    rows = []
    try:
        for n, (server, fault, mode, consumers) in enumerate(plan, 1):
            log(f"run {n}/{len(plan)}: {server} {fault} {mode} consumers={consumers}")
            try:
                r = one_run(binaries[server], server, fault, mode, consumers, a.post, a.keep,
                            a.priority0_replica)
            except RuntimeError as e:
                r = {"server": server, "fault": fault, "mode": mode, "consumers": consumers,
                     "error": str(e)}
            rows.append(r)
            log(row(r))
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(r) + "\n")
    finally:
        Process.cleanup_all(a.keep)
    print_table(rows)


if __name__ == "__main__":
    main()
