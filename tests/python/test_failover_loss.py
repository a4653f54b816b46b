"""Acknowledged writes across a Sentinel failover with `sync-replicas 1`: none lost, no pop
repeated. A short, bounded version of ../shared/REPLICATION.md §5's experiment E4 (the full
measurement, listd beside redis-server in every mode: bench/failover_loss.py).

Each test is one fault on a fresh set-up: a listd master A and a listd replica B, both with
`sync-replicas 1` (so B keeps the mode once promoted), no persistence, and three sentinels
(Sentinel 7.0.15 as in test_sentinel.py: quorum 2, down-after 3000 ms, its INFO and hello
periods shortened by SENTINEL DEBUG). Through `Sentinel(...).master_for("mymaster")`, two
producers push `LPUSH jobs p<k>-<seq>` about every 3 ms; an id counts as **acknowledged** when
LPUSH replied, which in this mode means B acknowledged it. An id is never pushed twice; after
any error a client re-discovers the master. One consumer runs `BRPOP jobs 1` with 10 ms of
"work" per job; an id counts as **consumed** when a BRPOP reply carried it. Faults (t from the
first push):
- kill: SIGKILL of A at 3 s;
- lagkill: B stopped (SIGSTOP) from 1.5 s to 3.7 s with 16 KB values, A killed at 3.5 s: A dies
  with megabytes of stream B never received;
- stop: SIGSTOP of A at 3 s, SIGCONT 1 s after every sentinel switched to B; Sentinel then
  converts the stalled old master into a replica of B (for a while it is a master again, with
  its clients).
After kill and lagkill a fresh listd replica C is attached to B (the operator replacing the dead
node): with sync-replicas 1 and no replica B refuses every write (-NOREPLICAS), so without C
nothing could be acknowledged after the failover. After stop, the converted A is B's replica.

At the end B's list is compared with what the clients saw. Asserted, without timing:
- the failover happened: Sentinel names B, not A;
- the run tested something: at least 50 acknowledged pushes before the fault, at least one
  acknowledged push and one pop after the failover, and some pops in all;
- no acknowledged push lost: every acknowledged id was consumed or is still in B's list. The one
  exception is not a loss of the mode but of BRPOP itself: a BRPOP whose connection failed after
  it was sent (the master died while the reply waited for B's acknowledgement) may have taken an
  element that B saw leave. Each such BRPOP may account for at most one missing id, and only for
  the oldest: one older than every id of its producer still queued (BRPOP takes the oldest).
  Without sync-replicas, E4 lost hundreds (lagkill) to thousands (stop) of acknowledged pushes;
- no pop repeated: no consumed id is still in B's list (where it would be delivered again), and
  no id was consumed twice. E4 without sync-replicas: 142-977 repeated pops, because a BRPOP's
  reply left before its RPOP reached the replica; WAIT cannot cover a pop;
- B's list holds nothing that was never pushed.
Every wait is a bounded poll with a generous deadline (scaled()).
"""

import os
import signal
import threading
import time

import pytest
import redis
import redis.sentinel

from listd_testing import scaled, wait_until
from test_sentinel import (MASTER_NAME, NODE_ARGS, FileConfiguredServer, Sentinel, client, poll,
                           sentinel_events)

QUEUE = "jobs"
SYNC_ARGS = NODE_ARGS + ["--sync-replicas", "1"]
PUSH_INTERVAL_S = 0.003   # E4: a push about every 3 ms per producer
WORK_S = 0.010            # E4: the consumer's work per job, slower than the producers
BACKOFF_S = 0.1           # after an error, as redis-py through Sentinel retried in E3
BIG_VALUE = 16 * 1024     # lagkill's values
RECOVERABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
               redis.exceptions.ResponseError, redis.sentinel.MasterNotFoundError)


class Workload:
    """Two producers and one consumer, threads with their own Sentinel-backed clients."""

    def __init__(self, sentinel_ports, value_size):
        self.sentinel = redis.sentinel.Sentinel([("127.0.0.1", p) for p in sentinel_ports],
                                                socket_timeout=5)
        self.pad = ":" + "x" * value_size if value_size else ""
        self.stop_producing = threading.Event()
        self.stop_consuming = threading.Event()
        self.lock = threading.Lock()
        self.attempted = []
        self.acknowledged = {}     # id -> time.monotonic() of its acknowledgement
        self.consumed = []         # (id, time.monotonic()) in order of receipt
        self.reply_less_pops = 0   # BRPOPs sent whose connection failed before the reply
        self.errors = []
        self.threads = [threading.Thread(target=self.produce, args=(k,)) for k in (1, 2)]
        self.threads.append(threading.Thread(target=self.consume))

    def master(self):
        # Above the longest stall (stop: down-after, the promotion, the held replies' timeout).
        return self.sentinel.master_for(MASTER_NAME, decode_responses=True,
                                        socket_timeout=scaled(30), socket_connect_timeout=5)

    def start(self):
        for t in self.threads:
            t.start()

    def stop(self):
        self.stop_producing.set()
        for t in self.threads[:2]:
            t.join(timeout=scaled(60))
        self.stop_consuming.set()
        self.threads[2].join(timeout=scaled(60))
        assert not any(t.is_alive() for t in self.threads), "a workload thread did not stop"

    def failed(self, who, r, e):
        with self.lock:
            self.errors.append(f"{who}: {e!r}")
        r.connection_pool.disconnect()  # re-discover the master through the sentinels

    def produce(self, k):
        r = self.master()
        seq = 0
        while not self.stop_producing.is_set():
            ident = f"p{k}-{seq}"
            seq += 1  # never pushed again: a failed push is indeterminate, not retried
            with self.lock:
                self.attempted.append(ident)
            try:
                r.lpush(QUEUE, ident + self.pad)
                with self.lock:
                    self.acknowledged[ident] = time.monotonic()
            except RECOVERABLE as e:
                self.failed(f"p{k}", r, e)
                self.stop_producing.wait(BACKOFF_S)
                continue
            self.stop_producing.wait(PUSH_INTERVAL_S)

    def consume(self):
        r = self.master()
        while not self.stop_consuming.is_set():
            try:
                got = r.brpop(QUEUE, 1)
            except RECOVERABLE as e:
                # Sent, then the connection failed: it may have popped. An error reply, a failed
                # connect, no master known, or READONLY ("previous master"): it did not.
                text = str(e)
                if (isinstance(e, (redis.exceptions.ConnectionError,
                                   redis.exceptions.TimeoutError))
                        and not isinstance(e, redis.sentinel.MasterNotFoundError)
                        and "connecting" not in text and "previous master" not in text):
                    with self.lock:
                        self.reply_less_pops += 1
                self.failed("consumer", r, e)
                self.stop_consuming.wait(BACKOFF_S)
                continue
            if got is not None:
                with self.lock:
                    self.consumed.append((got[1].split(":", 1)[0], time.monotonic()))
                self.stop_consuming.wait(WORK_S)


def seq_of(ident):
    k, seq = ident[1:].split("-")
    return int(k), int(seq)


def missing_acknowledged(work, final):
    """Acknowledged ids neither consumed nor in `final`, less those the reply-less BRPOPs may
    have taken (each one the oldest of its producer, at most one per such BRPOP)."""
    consumed = {i for i, _ in work.consumed}
    missing = [i for i in work.acknowledged if i not in consumed and i not in final]
    oldest_left = {}
    for i in final:
        k, seq = seq_of(i)
        oldest_left[k] = min(seq, oldest_left.get(k, seq))
    takeable = [i for i in missing if seq_of(i)[1] < oldest_left.get(seq_of(i)[0], 1 << 62)]
    if len(takeable) <= work.reply_less_pops:
        missing = [i for i in missing if i not in takeable]
    return sorted(missing, key=seq_of), takeable


def sentinels_ready(port):
    s = client(port)
    return (len(s.execute_command("SENTINEL", "REPLICAS", MASTER_NAME)) == 1
            and len(s.execute_command("SENTINEL", "SENTINELS", MASTER_NAME)) == 2)


def master_by_sentinel(port):
    addr = client(port).execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
    return int(addr[1])


def replica_of(node_port, master_port):
    info = client(node_port).info("replication")
    return (info.get("role") == "slave" and info.get("master_port") == master_port
            and info.get("master_link_status") == "up")


def describe(sentinels, nodes):
    """What the sentinels did and the nodes' roles, to explain a failure."""
    roles = {}
    for name, n in nodes.items():
        try:
            info = client(n.port).info("replication")
            roles[name] = (n.port, {k: v for k, v in info.items()
                                    if k in ("role", "master_port", "master_link_status",
                                             "connected_slaves", "slave0", "master_repl_offset",
                                             "sync_replicas_held_clients")})
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
            roles[name] = (n.port, repr(e))
    try:
        named = master_by_sentinel(sentinels[0].port)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
        named = repr(e)
    return f"nodes {roles}; Sentinel names {named}; what the sentinels did:\n" \
           f"{sentinel_events(sentinels)}"


def at(t0, seconds):
    time.sleep(max(0.0, t0 + seconds - time.monotonic()))


@pytest.mark.parametrize("fault", ["kill", "lagkill", "stop"])
def test_sync_replicas_loses_no_acknowledged_push_and_repeats_no_pop(fault):
    nodes, sentinels = [], []
    work = None
    try:
        a = FileConfiguredServer(SYNC_ARGS).start()
        nodes.append(a)
        b = FileConfiguredServer(SYNC_ARGS + ["--replicaof", "127.0.0.1", str(a.port)]).start()
        nodes.append(b)
        assert poll(lambda: replica_of(b.port, a.port), 20), "the replica never synced"
        for _ in range(3):
            sentinels.append(Sentinel(a.port).start())
        s_port = sentinels[0].port
        for s in sentinels:
            assert poll(lambda: sentinels_ready(s.port), 30), \
                f"sentinel {s.port} never found the replica and the other sentinels"

        work = Workload([s.port for s in sentinels], BIG_VALUE if fault == "lagkill" else 0)
        t0 = time.monotonic()
        work.start()
        if fault == "lagkill":
            at(t0, 1.5)
            os.kill(b.pid, signal.SIGSTOP)
            at(t0, 3.5)
            t_fault = time.monotonic()
            a.stop(signal.SIGKILL)
            at(t0, 3.7)
            os.kill(b.pid, signal.SIGCONT)
        else:
            at(t0, 3.0)
            t_fault = time.monotonic()
            if fault == "kill":
                a.stop(signal.SIGKILL)
            else:
                os.kill(a.pid, signal.SIGSTOP)
        with work.lock:
            before = sum(1 for t in work.acknowledged.values() if t <= t_fault)
        assert before >= 50, \
            f"only {before} pushes acknowledged before the fault: {work.errors[-5:]}"

        assert poll(lambda: master_by_sentinel(s_port) != a.port, 60), \
            f"no failover: {describe(sentinels, {'A': a, 'B': b})}"
        t_switch = time.monotonic()
        assert master_by_sentinel(s_port) == b.port
        if fault == "stop":
            # E4: SIGCONT 1 s after the switch, and only once every sentinel switched: a sentinel
            # that still takes A for the master when A answers again would make the promoted B
            # A's replica (+convert-to-slave), and the sentinels fail over back to A. The new
            # configuration reaches them through hello messages on B, which B holds while no
            # replica acknowledges its offset (pub/sub messages are held in this mode).
            assert poll(lambda: all(master_by_sentinel(s.port) == b.port for s in sentinels),
                        60), f"not every sentinel switched: {describe(sentinels, {'A': a, 'B': b})}"
            time.sleep(1.0)  # the fault's schedule (E4), not a wait for a condition
            os.kill(a.pid, signal.SIGCONT)
            assert poll(lambda: replica_of(a.port, b.port), 90), \
                f"Sentinel never made the stalled old master a replica: " \
                f"{describe(sentinels, {'A': a, 'B': b})}"
        else:
            c = FileConfiguredServer(SYNC_ARGS + ["--replicaof", "127.0.0.1", str(b.port)]).start()
            nodes.append(c)
            assert poll(lambda: replica_of(c.port, b.port), 30), "the replacement never synced"

        def after_failover():
            with work.lock:
                acked = sum(1 for t in work.acknowledged.values() if t > t_switch)
                popped = sum(1 for _, t in work.consumed if t > t_switch)
            return acked >= 20 and popped >= 5
        wait_until(after_failover, timeout=30, interval=0.05)
        work.stop()

        final = [v.split(":", 1)[0] for v in client(b.port).lrange(QUEUE, 0, -1)]
        acked_after = sum(1 for t in work.acknowledged.values() if t > t_switch)
        popped_after = sum(1 for _, t in work.consumed if t > t_switch)
        assert acked_after >= 1, f"nothing acknowledged by the new master: {work.errors[-5:]}"
        assert popped_after >= 1 and len(work.consumed) >= 10, \
            f"{len(work.consumed)} pops, {popped_after} after the failover: {work.errors[-5:]}"

        lost, takeable = missing_acknowledged(work, set(final))
        assert not lost, \
            f"{len(lost)} acknowledged pushes lost, e.g. {lost[:10]} (acknowledged " \
            f"{sorted(work.acknowledged[i] - t0 for i in lost)[:3]} s after the start; " \
            f"{work.reply_less_pops} BRPOPs without a reply could take {takeable[:5]})"
        consumed = [i for i, _ in work.consumed]
        repeated = sorted(set(consumed) & set(final), key=seq_of)
        assert not repeated, f"{len(repeated)} consumed ids still queued, e.g. {repeated[:10]}"
        assert len(consumed) == len(set(consumed)), "an id was consumed twice"
        assert set(final) <= set(work.attempted), "the list holds an id never pushed"
    finally:
        if work is not None:
            work.stop_producing.set()
            work.stop_consuming.set()
        for n in nodes:
            if n.pid is not None:
                os.kill(n.pid, signal.SIGCONT)  # a stopped node cannot exit on SIGTERM
        for s in sentinels:
            s.close()
        for n in nodes:
            n.close()
        if work is not None:
            for t in work.threads:
                t.join(timeout=scaled(60))
