#!/usr/bin/python3
"""listd vs redis-server vs the epoll floor, side by side, in one command.

    bench/side_by_side.py                 # full run (about 15-20 minutes on 2 cores)
    bench/side_by_side.py --quick         # smoke run (R=1, tiny N); ctest bench.quick runs it
    bench/side_by_side.py --listd-bin /usr/bin/redis-server --only listd,redis   # harness check

Builds listd and the bench tools in Release (build-bench/), then measures, each server fresh and
pinned to core 0 with the load generator on core 1:
  - redis-benchmark lpush, rpush, lpop, rpop, lrange_100 at -P 1 and -P 32: ops/s and the server's
    own CPU time per request (from /proc/PID/task/*/schedstat), over R interleaved rounds, with
    paired per-round ratios listd/redis and listd/floor;
  - the same for lpush and rpop with --appendonly yes under each appendfsync policy (listd, redis);
  - hand-off latency (bench/handoff) for W = 1, 10, 1000 blocked workers;
  - resident memory per element (one list of 1,000,000, and 100,000 lists of 10, 12-byte elements);
  - BRPOP timeout precision (bench/timeout_precision);
  - scale: 10,000 idle connections next to 50 busy ones.
Prints a markdown report to stdout, writes it to bench/results/latest.md (+ raw.json and SVG
charts drawn by gnuplot when it is installed). Progress goes to stderr. Method: docs/BENCHMARKS.md.

Standard library only (redis-py is not needed). Run with /usr/bin/python3.
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import math
import os
import platform
import resource
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from warm_receive import warm_receive_path   # bench/ is the script's directory

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
TESTS = ["lpush", "rpush", "lpop", "rpop", "lrange_100"]
AOF_TESTS = ["lpush", "rpop"]   # issue 8's durability benchmark: one write, one pop
SERVERS = ["listd", "redis", "floor"]
SERVER_CORE = "0"
CLIENT_CORE = "1"
START = time.monotonic()
QUIET = False


# --------------------------------------------------------------------------------------------
# small helpers


def log(msg: str) -> None:
    """Progress line on stderr, with the elapsed time."""
    if not QUIET:
        print(f"[{time.monotonic() - START:7.1f}s] {msg}", file=sys.stderr, flush=True)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ns(pid: int) -> int:
    """On-CPU time (user + system) of every thread of `pid`, in ns, from schedstat."""
    total = 0
    task_dir = f"/proc/{pid}/task"
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # thread exited between listdir and open
    return total


TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def core_busy_ns() -> dict:
    """Busy time (everything but idle and iowait, steal included) of each core, in ns."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                parts = line.split()
                v = [int(x) for x in parts[1:9]]
                out[parts[0][3:]] = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * TICK_NS
    return out


def wait_quiet(max_wait: float, notes: list, label: str) -> None:
    """Waits (at most max_wait s) until the machine's cores are nearly idle: other people's builds
    and tests share these 2 cores, and a run next to them measures the contention, not the server."""
    if max_wait <= 0:
        return
    deadline = time.monotonic() + max_wait
    said = False
    while True:
        b0, t0 = core_busy_ns(), time.monotonic()
        time.sleep(0.5)
        b1, t1 = core_busy_ns(), time.monotonic()
        load = sum(b1[c] - b0[c] for c in b1 if c in b0) / ((t1 - t0) * 1e9)
        if load < 0.15:
            if said:
                log(f"machine quiet again (other load {load:.0%} of a core)")
            return
        if time.monotonic() > deadline:
            BUSY_STARTS.append((label, load))
            log(f"still {load:.0%} of a core busy after {max_wait:.0f} s; going on ({label})")
            return
        if not said:
            log(f"other processes use {load:.0%} of a core; waiting up to {max_wait:.0f} s "
                f"before {label}")
            said = True


def children_cpu_ns() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru.ru_utime + ru.ru_stime) * 1e9


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def resp(*args) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if not isinstance(a, bytes):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def roundtrip(port: int, *args, timeout: float = 5.0) -> bytes:
    """Sends one command on a fresh connection and returns the first reply line (or bulk)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(resp(*args))
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        if data.startswith(b"$") and b"\r\n" in data:
            n = int(data[1:data.index(b"\r\n")])
            need = data.index(b"\r\n") + 2 + max(n, 0) + 2
            while n >= 0 and len(data) < need:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        return data


class RespError(str):
    """An error reply (`-ERR ...`), returned rather than raised."""


def read_reply(f):
    """Reads one whole RESP2 reply from the buffered socket file `f`."""
    line = f.readline()
    if not line.endswith(b"\r\n"):
        raise OSError(f"connection closed in a reply ({line[:40]!r})")
    kind, body = line[:1], line[1:-2]
    if kind == b"+":
        return body.decode(errors="replace")
    if kind == b"-":
        return RespError(body.decode(errors="replace"))
    if kind == b":":
        return int(body)
    if kind == b"$":
        n = int(body)
        if n < 0:
            return None
        data = f.read(n + 2)
        if len(data) != n + 2:
            raise OSError("connection closed in a bulk reply")
        return data[:-2]
    if kind == b"*":
        n = int(body)
        return None if n < 0 else [read_reply(f) for _ in range(n)]
    raise OSError(f"not a RESP reply: {line[:40]!r}")


def command(port: int, *args, timeout: float = 5.0):
    """Sends one command on a fresh connection and returns its whole reply, parsed."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(resp(*args))
        with s.makefile("rb") as f:
            return read_reply(f)


def info_fields(port: int, section: str) -> dict:
    reply = command(port, "INFO", section)
    if not isinstance(reply, bytes):
        return {}
    out = {}
    for line in reply.decode(errors="replace").splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v.strip()
    return out


def config_get(port: int, name: str) -> str | None:
    """CONFIG GET name -> its value, or None when the server does not report it."""
    reply = command(port, "CONFIG", "GET", name)
    if isinstance(reply, list) and len(reply) == 2 and isinstance(reply[1], bytes):
        return reply[1].decode(errors="replace")
    return None


def list_sanity(port: int) -> str | None:
    """A few list commands with known answers; returns None when all match, else what differed.
    redis-benchmark does not check replies, so a server answering anything would otherwise pass."""
    key = b"sanity:%d" % int(time.time() * 1e6)
    cmds = [(b"DEL", key), (b"RPUSH", key, b"a", b"b", b"c"), (b"LRANGE", key, b"0", b"-1"),
            (b"LPOP", key), (b"RPOP", key), (b"LLEN", key), (b"DEL", key)]
    want = (b":0\r\n:3\r\n*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nc\r\n"
            b":1\r\n:1\r\n")
    got = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"".join(resp(*c) for c in cmds))
            while len(got) < len(want):
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
                if not want.startswith(got):
                    break
    except OSError as e:
        return f"{e} after {got[:120]!r}"
    return None if got == want else f"expected {want!r}, got {got[:120]!r}"


def kv_line(line: str) -> dict:
    out = {}
    for tok in line.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def fmt_int(x) -> str:
    return "—" if x is None else f"{x:,.0f}"


def fmt_f(x, digits=2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def fmt_ratio(rs) -> str:
    rs = [r for r in rs if r is not None]
    if not rs:
        return "—"
    if len(rs) == 1:
        return f"{rs[0]:.2f}"
    return f"{statistics.median(rs):.2f} ({min(rs):.2f}..{max(rs):.2f})"


# --------------------------------------------------------------------------------------------
# servers


@dataclass
class ServerSpec:
    name: str                      # listd | redis | floor
    binary: str
    argsets: list                  # candidate argument lists ("{port}" is substituted), tried in order
    note: str = ""


@dataclass
class Server:
    spec: ServerSpec
    proc: subprocess.Popen
    port: int
    args: list
    logfile: Path
    tls_port: int = 0              # --tls: redis-benchmark's port; the harness checks use `port`

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None


LIVE: list = []
TLS_CLIENT_ARGS: list = []     # --tls: redis-benchmark's --tls --cacert/--cert/--key
UNSTARTABLE: set = set()
BUSY_STARTS: list = []         # (label, load) of rounds/phases started on a busy machine
WRONG_ANSWERS: set = set()     # servers that failed list_sanity: their figures are not comparable


class Notes(list):
    """Notes for the report; `problem` also remembers which server had one."""

    def __init__(self):
        super().__init__()
        self.failed = set()

    def problem(self, server: str, msg: str) -> None:
        self.failed.add(server)
        self.append(msg)


def redis_style_args(extra=()) -> list:
    return ["--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", *extra]


PORT_TRIES = 3   # a port taken by someone else between free_port() and the bind: try another


def start_server(spec: ServerSpec, logdir: Path, extra: tuple = (), tag: str = "") -> tuple:
    """Starts a fresh `spec` server on a free port pinned to SERVER_CORE.

    Tries each argument set in turn (the first with `extra` appended); returns (Server, None) or
    (None, reason). A server that failed to start once is not tried again in this run.

    free_port() closes its socket before the server binds, so another process can take the port
    in between; our server then fails to bind while the other one answers PING. After PONG the
    harness therefore checks that INFO server's process_id is our child's pid (taskset execs the
    server, so the pids are the same) and otherwise starts again on a new port."""
    if spec.name in UNSTARTABLE:
        return None, "failed to start earlier in this run"
    reasons = []
    attempts = []
    for argset in spec.argsets:
        if extra:
            attempts.append(list(argset) + list(extra))
        attempts.append(list(argset))
    seen = set()
    for argset in attempts:
        if tuple(argset) in seen:
            continue
        seen.add(tuple(argset))
        for attempt in range(PORT_TRIES):
            srv, why, retry = start_once(spec, argset, logdir, tag)
            if srv is not None:
                return srv, None
            if not retry or attempt == PORT_TRIES - 1:
                reasons.append(why + (f" ({attempt + 1} tries)" if attempt else ""))
                break
            log(f"{spec.name}: {why}; starting again on a new port")
    UNSTARTABLE.add(spec.name)
    return None, "; ".join(reasons)


def start_once(spec: ServerSpec, argset: list, logdir: Path, tag: str) -> tuple:
    """One start on a new port: (Server, None, False), or (None, reason, retry on a new port)."""
    port = free_port()
    tls_port = free_port() if "{tls_port}" in argset else 0
    args = [a.replace("{port}", str(port)).replace("{tls_port}", str(tls_port)) for a in argset]
    logfile = logdir / f"{spec.name}{tag}-{port}.log"
    workdir = tempfile.mkdtemp(prefix=f"bench-{spec.name}-", dir=logdir)
    with open(logfile, "wb") as lf:
        try:
            proc = subprocess.Popen(["taskset", "-c", SERVER_CORE, spec.binary, *args],
                                    stdout=lf, stderr=subprocess.STDOUT, cwd=workdir,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as e:
            return None, f"{shlex.join(args)}: {e}", False
    srv = Server(spec, proc, port, args, logfile, tls_port)
    LIVE.append(srv)
    deadline = time.monotonic() + 10
    ok = False
    last = ""
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            reply = roundtrip(port, "PING", timeout=1.0)
            if reply.startswith(b"+PONG"):
                ok = True
                break
            last = reply[:80].decode(errors="replace").strip()
        except OSError as e:
            last = str(e)
        time.sleep(0.05)   # polling: the server is still starting
    if ok:
        try:
            owner = info_fields(port, "server").get("process_id")
        except (OSError, ValueError) as e:
            owner = f"no INFO reply ({e})"
        if owner == str(proc.pid):
            return srv, None, False
        stop_server(srv)
        return None, (f"port {port} was answered by process_id {owner}, not by our "
                      f"{spec.name} (pid {proc.pid}): the port was taken, trying another"), True
    tail = ""
    try:
        tail = logfile.read_text(errors="replace").strip().splitlines()[-1:]
        tail = tail[0] if tail else ""
    except OSError:
        pass
    stop_server(srv)
    # An early exit may be a failed bind (port taken) as well as rejected options: worth a retry.
    return None, (f"`{spec.binary} {shlex.join(args)}` did not answer PING "
                  f"({'exited ' + str(proc.returncode) if proc.returncode is not None else last}"
                  f"{'; log: ' + tail[:160] if tail else ''})"), proc.returncode is not None


def stop_server(srv: Server) -> None:
    if srv.proc.poll() is None:
        srv.proc.terminate()
        try:
            srv.proc.wait(5)
        except subprocess.TimeoutExpired:
            srv.proc.kill()
            srv.proc.wait(5)
    if srv in LIVE:
        LIVE.remove(srv)


def stop_all() -> None:
    for srv in list(LIVE):
        try:
            stop_server(srv)
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


# --------------------------------------------------------------------------------------------
# build


def run_logged(cmd, logf, cwd=REPO) -> bool:
    logf.write(f"\n$ {shlex.join(cmd)}\n")
    logf.flush()
    r = subprocess.run(cmd, cwd=cwd, stdout=logf, stderr=subprocess.STDOUT)
    return r.returncode == 0


def build(args, notes: list) -> dict:
    """Builds listd and the tools. Returns paths {listd, epoll_floor, handoff, timeout_precision};
    listd is None when it does not build (the tools then come from a bench-only build)."""
    build_dir = Path(args.build_dir).resolve()   # servers run in their own temporary directory
    tools = ["epoll_floor", "handoff", "timeout_precision"]
    paths = {"listd": None}
    build_log = Path(args.results) / "build.log"
    with open(build_log, "w") as lf:
        full_ok = False
        if not args.no_build:
            log(f"configuring {build_dir} (Release)")
            full_ok = run_logged(["cmake", "-S", str(REPO), "-B", str(build_dir),
                                  "-DCMAKE_BUILD_TYPE=Release", "-DLISTD_BUILD_TESTS=OFF",
                                  "-DLISTD_BUILD_BENCH=ON"], lf)
            if full_ok:
                log("building bench tools")
                full_ok = run_logged(["cmake", "--build", str(build_dir), "-j2", "--target", *tools],
                                     lf)
            if full_ok and not args.listd_bin:
                log("building listd (Release)")
                if run_logged(["cmake", "--build", str(build_dir), "-j2", "--target", "listd"], lf):
                    paths["listd"] = str(build_dir / "listd")
                else:
                    notes.append(f"listd did not build (see {build_log}); its column is empty.")
            elif not full_ok and not args.listd_bin:
                notes.append(f"the project does not configure/build yet (see {build_log}); listd "
                             "skipped, bench tools built on their own.")
            if not full_ok:
                only_dir = build_dir / "tools-only"
                log(f"building bench tools alone in {only_dir}")
                ok = run_logged(["cmake", "-S", str(BENCH), "-B", str(only_dir),
                                 "-DCMAKE_BUILD_TYPE=Release"], lf) and \
                    run_logged(["cmake", "--build", str(only_dir), "-j2"], lf)
                if not ok:
                    sys.exit(f"side_by_side: the bench tools do not build; see {build_log}")
                for t in tools:
                    paths[t] = str(only_dir / t)
            else:
                for t in tools:
                    paths[t] = str(build_dir / "bench" / t)
        else:
            for t in tools:
                for cand in (build_dir / "bench" / t, build_dir / "tools-only" / t):
                    if cand.exists():
                        paths[t] = str(cand)
                        break
                else:
                    sys.exit(f"side_by_side: --no-build but {t} not found under {build_dir}")
            if (build_dir / "listd").exists():
                paths["listd"] = str(build_dir / "listd")
    if args.listd_bin:
        found = shutil.which(args.listd_bin) if "/" not in args.listd_bin else args.listd_bin
        if not found or not os.access(found, os.X_OK):
            sys.exit(f"side_by_side: --listd-bin {args.listd_bin}: not an executable")
        paths["listd"] = os.path.abspath(found)   # servers run in their own temporary directory
    return paths


def tls_setup(args) -> list:
    """--tls: makes a CA, a server and a client certificate (tests/support/make-test-certs.sh,
    the same files for both servers) and returns the server options; sets TLS_CLIENT_ARGS. The
    servers keep their plain port for the harness's checks; redis-benchmark uses the TLS one,
    with a client certificate, as `tls-auth-clients yes` (the default) wants."""
    certs = Path(tempfile.mkdtemp(prefix="bench-certs-"))
    subprocess.run([str(REPO / "tests" / "support" / "make-test-certs.sh"), str(certs)],
                   check=True, stdout=subprocess.DEVNULL)
    TLS_CLIENT_ARGS[:] = ["--tls", "--cacert", str(certs / "ca.crt"), "--cert",
                          str(certs / "client.crt"), "--key", str(certs / "client.key")]
    return ["--tls-port", "{tls_port}", "--tls-cert-file", str(certs / "server.crt"),
            "--tls-key-file", str(certs / "server.key"), "--tls-ca-cert-file", str(certs / "ca.crt")]


def make_specs(args, paths) -> dict:
    specs = {}
    tls = tls_setup(args) if args.tls else []
    if paths.get("listd"):
        lb = paths["listd"]
        if args.listd_args:
            argsets = [shlex.split(args.listd_args) + tls]
        elif os.path.basename(lb).startswith("redis-server") or tls:
            argsets = [redis_style_args(tls)]
        else:
            # listd takes redis.conf-style options; fall back to the port alone if it rejects the rest.
            argsets = [redis_style_args(), ["--port", "{port}"]]
        note = ""
        if os.path.basename(lb).startswith("redis-server"):
            note = f"the listd slot runs {lb} (harness check, not listd)"
        specs["listd"] = ServerSpec("listd", lb, argsets, note)
    specs["redis"] = ServerSpec("redis", args.redis_bin, [redis_style_args(tls)])
    if not tls:  # the floor speaks no TLS
        specs["floor"] = ServerSpec("floor", paths["epoll_floor"], [["--port", "{port}"]])
    return specs


# --------------------------------------------------------------------------------------------
# redis-benchmark with per-test CPU


def run_redis_benchmark(srv: Server, test: str, pipeline: int, requests: int, clients: int = 50):
    """One redis-benchmark invocation for one test. Returns dict(rps, cpu_ns_per_req) or an error.

    LRANGE_100 makes redis-benchmark first run N LPUSH ("needed to benchmark LRANGE"); the CPU
    reading is taken when that line is printed (stdout line-buffered via stdbuf), so only the
    LRANGE part is counted."""
    cmd = ["taskset", "-c", CLIENT_CORE, "stdbuf", "-oL", "redis-benchmark", "-h", "127.0.0.1",
           "-p", str(srv.tls_port or srv.port), *TLS_CLIENT_ARGS, "-t", test, "-c", str(clients), "-n", str(requests),
           "-P", str(pipeline), "-q", "--csv", "-e"]
    timeout = 120 + requests / 2000
    cpu_start = cpu_ns(srv.pid)
    busy_start = core_busy_ns()
    children_start = children_cpu_ns()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    lines = []
    errors = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith('"LPUSH (needed'):
                cpu_start = cpu_ns(srv.pid)
                busy_start = core_busy_ns()
                t0 = time.monotonic()
            elif "Error from server" in line or line.startswith("ERR"):
                errors.append(line.strip())
        cpu_end = cpu_ns(srv.pid) if srv.alive() else None
        busy_end = core_busy_ns()
        t1 = time.monotonic()
        proc.wait()
    finally:
        timer.cancel()
    bench_ns = children_cpu_ns() - children_start
    stderr = proc.stderr.read()
    if proc.returncode != 0:
        why = "timed out (server stopped answering?)" if proc.returncode == -9 else \
            f"exit {proc.returncode}: {stderr.strip()[:200]}"
        return {"error": f"redis-benchmark {test} -P {pipeline}: {why}"}
    if cpu_end is None:
        return {"error": f"server died during {test} -P {pipeline}"}
    rps = None
    for row in csv.reader(io.StringIO("".join(lines))):
        if not row or row[0] == "test" or "needed" in row[0]:
            continue
        if row[0].split()[0].upper() == test.upper():
            rps = float(row[1])
    if rps is None:
        return {"error": f"no result row for {test} in: {''.join(lines)[:200]!r}"}
    if not math.isfinite(rps):
        rps = None   # "inf": the run was too short for redis-benchmark's clock (tiny N)
    wall_ns = (t1 - t0) * 1e9
    server_ns = cpu_end - cpu_start
    out = {"rps": rps, "cpu_ns_per_req": server_ns / requests, "wall_s": t1 - t0}
    # Interference: the share of each core that something other than this server (core 0) or this
    # load generator (core 1) used meanwhile: other processes, interrupts, hypervisor steal.
    # (For LRANGE_100 the load generator's CPU includes its LPUSH part: core 1 is then understated.)
    if wall_ns > 0 and SERVER_CORE in busy_end and CLIENT_CORE in busy_end:
        out["foreign_core0"] = max(0.0, (busy_end[SERVER_CORE] - busy_start[SERVER_CORE]
                                         - server_ns) / wall_ns)
        out["foreign_core1"] = max(0.0, (busy_end[CLIENT_CORE] - busy_start[CLIENT_CORE]
                                         - bench_ns) / wall_ns)
    if errors:
        out["error"] = f"{test} -P {pipeline}: server replied with errors, e.g. {errors[0][:120]}"
    return out


def aof_check(policy: str):
    """Returns a check for the AOF phase: None when the server really logs with `policy` (INFO
    persistence aof_enabled:1 and CONFIG GET appendfsync = policy), else what differed. A server
    that ignored the options must not be measured as if it had persisted with that policy."""
    def check(srv: Server) -> str | None:
        try:
            enabled = info_fields(srv.port, "persistence").get("aof_enabled")
            fsync = config_get(srv.port, "appendfsync")
        except (OSError, ValueError) as e:
            return f"INFO/CONFIG GET failed: {e}"
        if enabled != "1":
            return f"INFO persistence aof_enabled:{enabled}, not 1"
        if fsync != policy:
            return f"CONFIG GET appendfsync = {fsync!r}, not {policy!r}"
        return None
    return check


def run_order(names: list, rnd: int, ti: int) -> list:
    """The order the servers run test number `ti` in round `rnd`: reversed from one test to the
    next and, for each test, from one round to the next, whatever the number of tests."""
    return list(reversed(names)) if (rnd + ti) % 2 == 1 else list(names)


def throughput_phase(args, specs, order_names, notes, raw, tests=None, extra=(), key="throughput",
                     label="", check=None):
    """R rounds; each round and pipeline depth starts every server fresh; tests are run one per
    redis-benchmark invocation, the server order alternating (A B, B A, ...) test by test and
    round by round (run_order). Each result records its position in the run order.

    `extra` are server options appended to every start (the AOF phase passes --appendonly yes
    --appendfsync P) and `check(srv)` verifies that a started server took them: when it does not,
    the whole phase is aborted (raw[key + "_aborted"] says why) and nothing of it is measured."""
    tests = tests or TESTS
    results = []   # dicts: round, P, test, server, pos, rps, cpu
    raw[key] = results      # partial results survive an interrupted run
    skipped = set()
    total = args.rounds * len(args.pipelines) * len(tests) * len(order_names)
    done = 0
    for rnd in range(args.rounds):
        for pipeline in args.pipelines:
            n = args.requests if pipeline == 1 else args.requests_pipelined
            wait_quiet(args.quiet_wait, notes, f"round {rnd + 1} -P {pipeline}")
            live = {}
            for name in order_names:
                if name in skipped:
                    continue
                srv, why = start_server(specs[name], args.logdir, extra=extra,
                                        tag=f"{label}-r{rnd + 1}-P{pipeline}")
                if srv is None:
                    notes.problem(name, f"{name}: failed to start, skipped ({why})")
                    log(f"{name}: failed to start, skipped: {why}")
                    skipped.add(name)
                    continue
                live[name] = srv
                bad = check(srv) if check else None
                if bad:
                    why = (f"{label.strip('-') or key}: {name} did not apply "
                           f"`{shlex.join(extra)}` ({bad}); the phase is aborted, nothing of it "
                           f"is measured")
                    notes.problem(name, why)
                    log(why)
                    for other in live.values():
                        stop_server(other)
                    raw[key + "_aborted"] = why
                    results.clear()
                    return results
                if name != "floor" and rnd == 0 and pipeline == args.pipelines[0]:
                    bad = list_sanity(srv.port)
                    if bad:
                        WRONG_ANSWERS.add(name)
                        notes.problem(name, f"{name} gave wrong answers to a list sanity check "
                                            f"({bad}); its figures are not comparable")
                        log(f"{name}: WRONG ANSWERS to the list sanity check: {bad}")
            for ti, test in enumerate(tests):
                names = run_order([x for x in order_names if x in live], rnd, ti)
                for pos, name in enumerate(names):
                    srv = live[name]
                    done += 1
                    if not srv.alive():
                        results.append(dict(round=rnd, P=pipeline, test=test, server=name,
                                            pos=pos, order=names, rps=None, cpu=None))
                        continue
                    r = run_redis_benchmark(srv, test, pipeline, n)
                    if "error" in r:
                        notes.problem(name, f"{name} round {rnd + 1}: {r['error']}")
                    results.append(dict(round=rnd, P=pipeline, test=test, server=name,
                                        pos=pos, order=names,
                                        rps=r.get("rps"), cpu=r.get("cpu_ns_per_req"),
                                        error=r.get("error"), wall_s=r.get("wall_s"),
                                        foreign_core0=r.get("foreign_core0"),
                                        foreign_core1=r.get("foreign_core1")))
                    busy = ""
                    if r.get("foreign_core0") is not None:
                        busy = (f"  other load core0 {r['foreign_core0']:4.0%} "
                                f"core1 {r['foreign_core1']:4.0%}")
                    log(f"{label.strip('-') + ' ' if label else ''}"
                        f"round {rnd + 1}/{args.rounds} P={pipeline} {test:<10} {name:<5} "
                        f"#{pos + 1} {fmt_int(r.get('rps')):>11} ops/s  "
                        f"{fmt_int(r.get('cpu_ns_per_req')):>7} ns/req{busy}  [{done}/{total}]")
            for srv in live.values():
                if not srv.alive():
                    notes.problem(srv.spec.name, f"{srv.spec.name} exited during round {rnd + 1} "
                                 f"(code {srv.proc.returncode}); log {srv.logfile}")
                stop_server(srv)
    raw[key] = results
    return results


def summarize_throughput(results, order_names, args, tests=None, ops_ratio=False):
    """Returns markdown lines and {P: {test: {server or pair: value}}}; with ops_ratio the table
    also has the paired throughput ratio listd/redis (the AOF phase's target is on both)."""
    tests = tests or TESTS
    md = []
    have = [s for s in SERVERS if s in order_names]
    pairs = [p for p in (("listd", "redis"), ("listd", "floor"), ("redis", "floor"))
             if p[0] in have and p[1] in have]

    def cell(P, test, server, key):
        return [r[key] for r in results if r["P"] == P and r["test"] == test
                and r["server"] == server and r.get(key) is not None
                and not r.get("error")]

    def ratios(P, test, a, b, key="cpu"):
        out = []
        for rnd in range(args.rounds):
            ra = [r for r in results if r["P"] == P and r["test"] == test and r["server"] == a
                  and r["round"] == rnd and r.get(key) and not r.get("error")]
            rb = [r for r in results if r["P"] == P and r["test"] == test and r["server"] == b
                  and r["round"] == rnd and r.get(key) and not r.get("error")]
            if ra and rb:
                out.append(ra[0][key] / rb[0][key])
        return out

    summary = {}
    for P in args.pipelines:
        n = args.requests if P == 1 else args.requests_pipelined
        md.append(f"\n#### -P {P} (-c 50, -n {n:,}; {args.rounds} round(s))\n")
        lab = {s: s + (" (WRONG ANSWERS)" if s in WRONG_ANSWERS else "") for s in have}
        head = ["test"] + [f"{lab[s]} ops/s" for s in have] + \
            [f"{lab[s]} CPU ns/req" for s in have] + [f"CPU {a}/{b}" for a, b in pairs]
        rps_pairs = [p for p in pairs if p == ("listd", "redis")] if ops_ratio else []
        head += [f"ops/s {a}/{b}" for a, b in rps_pairs]
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "---|" * len(head))
        for test in tests:
            row = [test]
            for s in have:
                row.append(fmt_int(median(cell(P, test, s, "rps"))))
            for s in have:
                v = median(cell(P, test, s, "cpu"))
                row.append(fmt_int(v))
                summary.setdefault(P, {}).setdefault(test, {})[s] = v
            for a, b in pairs:
                rs = ratios(P, test, a, b)
                row.append(fmt_ratio(rs))
                summary[P][test][f"{a}/{b}"] = median(rs)
                summary[P][test][f"{a}/{b} rounds"] = rs   # the verdicts use every round
            for a, b in rps_pairs:
                rs = ratios(P, test, a, b, key="rps")
                row.append(fmt_ratio(rs))
                summary[P][test][f"ops {a}/{b}"] = median(rs)
                summary[P][test][f"ops {a}/{b} rounds"] = rs
            md.append("| " + " | ".join(row) + " |")
    f0 = [r["foreign_core0"] for r in results if r.get("foreign_core0") is not None]
    f1 = [r["foreign_core1"] for r in results if r.get("foreign_core1") is not None]
    if f0 and f1:
        md.append(f"\nOther load during these runs (CPU used by anything but the measured server on "
                  f"core {SERVER_CORE} / the load generator on core {CLIENT_CORE}): core "
                  f"{SERVER_CORE} median {statistics.median(f0):.0%}, max {max(f0):.0%}; core "
                  f"{CLIENT_CORE} median {statistics.median(f1):.0%}, max {max(f1):.0%}.")
        if max(f0) > 0.10 or max(f1) > 0.10:
            md.append("**Warning: other processes competed for the cores in some runs (over 10% of "
                      "a core); figures from this run are noisier than usual.**")
    return md, summary


# --------------------------------------------------------------------------------------------
# hand-off, timeouts, memory, scale


def handoff_once(args, srv: Server, W: int, paths, notes, name: str) -> dict:
    """One bench/handoff run against `srv`: its key=value result line, plus rc and error."""
    cmd = ["taskset", "-c", CLIENT_CORE, paths["handoff"], "--port", str(srv.port),
           "--workers", str(W), "--count", str(args.handoff_count),
           "--mode", args.handoff_mode]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=120 + args.handoff_count / 200)
    except subprocess.TimeoutExpired:
        notes.problem(name, f"hand-off W={W} {name}: timed out")
        return {"rc": None, "error": "timed out"}
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    res = kv_line(line)
    res["rc"] = r.returncode
    if r.returncode != 0:
        res["error"] = (r.stderr.strip() or line).replace("\n", " / ")[:300]
        notes.problem(name, f"hand-off W={W} {name}: exit {r.returncode}: {res['error']}")
    return res


def handoff_phase(args, specs, names, paths, notes, raw):
    """R rounds (--handoff-rounds, default --rounds) of bench/handoff for each W, every run on a
    fresh server; the order of the servers alternates from one W to the next and, for each W,
    from one round to the next. Returns markdown and {(server, W): summary} where the summary has
    the medians over rounds and "rounds": the per-round results (paired by round index)."""
    runs = {}   # (server, W) -> [per-round dict]
    order_log = []
    for rnd in range(args.handoff_rounds):
        for wi, W in enumerate(args.handoff_workers):
            wait_quiet(args.quiet_wait, notes, f"hand-off round {rnd + 1} W={W}")
            order = run_order(list(names), rnd, wi)
            order_log.append(dict(round=rnd, W=W, order=order))
            for pos, name in enumerate(order):
                srv, why = start_server(specs[name], args.logdir, tag=f"-handoff-r{rnd + 1}-W{W}")
                if srv is None:
                    notes.problem(name, f"hand-off W={W}: {name} failed to start ({why})")
                    continue
                try:
                    res = handoff_once(args, srv, W, paths, notes, name)
                finally:
                    stop_server(srv)
                res.update(round=rnd, pos=pos)
                runs.setdefault((name, W), []).append(res)
                log(f"hand-off round {rnd + 1}/{args.handoff_rounds} W={W:<5} {name:<5} "
                    f"#{pos + 1} p50={res.get('p50_us', '—')}us p99={res.get('p99_us', '—')}us "
                    f"{fmt_int(res.get('handoffs_per_s'))}/s "
                    f"exactly_once={res.get('exactly_once', '—')}")
    raw["handoff"] = {f"{k[0]}:W={k[1]}": v for k, v in runs.items()}
    raw["handoff_order"] = order_log

    def vals(rs, q):
        return [r[q] for r in rs if isinstance(r.get(q), float) and r.get("rc") == 0]

    out = {}
    for (name, W), rs in runs.items():
        once = [r.get("exactly_once") for r in rs]
        out[(name, W)] = {
            "rounds": rs,
            "p50_us": median(vals(rs, "p50_us")), "p99_us": median(vals(rs, "p99_us")),
            "exactly_once": "yes" if once and all(x == "yes" for x in once) and
                            len(rs) == args.handoff_rounds else
                            ", ".join(str(x or "error") for x in once)}
    what = ("consumer-group hand-off, `--mode stream`: XADD to consumers blocked in XREADGROUP"
            if args.handoff_mode == "stream" else "BRPOP hand-off")
    md = [f"\n#### Hand-off latency (`bench/handoff`, {what}, {args.handoff_count:,} elements "
          "per run, "
          f"{args.handoff_rounds} round(s), a fresh server per run, the order alternating)\n",
          "Latencies are medians over rounds (min..max); the listd/redis rows are the paired "
          "per-round ratios.\n",
          "| W | server | p50 µs | p99 µs | p99.9 µs | max µs | hand-offs/s | exactly once |",
          "|---|---|---|---|---|---|---|---|"]

    def spread(xs, digits=1):
        if not xs:
            return "—"
        if len(xs) == 1:
            return f"{xs[0]:,.{digits}f}"
        return f"{median(xs):,.{digits}f} ({min(xs):,.{digits}f}..{max(xs):,.{digits}f})"

    for W in args.handoff_workers:
        for name in names:
            rs = runs.get((name, W))
            if not rs:
                md.append(f"| {W} | {name} | — | — | — | — | — | not run |")
                continue
            once = out[(name, W)]["exactly_once"]
            errs = [str(r.get("error"))[:80] for r in rs if r.get("error")]
            worst = max(vals(rs, "max_us"), default=None)
            worst = "—" if worst is None else f"{worst:,.1f}"
            md.append(f"| {W} | {name} | {spread(vals(rs, 'p50_us'))} | {spread(vals(rs, 'p99_us'))}"
                      f" | {spread(vals(rs, 'p999_us'))} | {worst}"
                      f" | {spread(vals(rs, 'handoffs_per_s'), 0)} | "
                      f"{once}{' (error: ' + errs[0] + ')' if errs else ''} |")
        if "listd" in names and "redis" in names:
            r50 = handoff_ratios(out, W, "p50_us")
            r99 = handoff_ratios(out, W, "p99_us")
            md.append(f"| {W} | listd/redis | {fmt_ratio(r50)} | {fmt_ratio(r99)} | | | | |")
    return md, out


def handoff_ratios(handoff: dict, W: int, q: str) -> list:
    """Paired per-round ratios listd/redis of hand-off metric `q` at W workers."""
    a = {r["round"]: r.get(q) for r in handoff.get(("listd", W), {}).get("rounds", [])
         if r.get("rc") == 0}
    b = {r["round"]: r.get(q) for r in handoff.get(("redis", W), {}).get("rounds", [])
         if r.get("rc") == 0}
    return [a[k] / b[k] for k in sorted(a) if k in b and isinstance(a[k], float)
            and isinstance(b[k], float) and b[k] > 0]


def timeout_phase(args, specs, names, paths, notes, raw):
    """BRPOP lateness for each server at its default hz, and for redis also at each of
    --redis-hz (Redis expires blocked clients' timeouts in serverCron, hz times a second, so its
    lateness is mostly its cron period). Returns markdown and {(column, T): result}."""
    out = {}
    columns = []   # (column label, server name, extra options)
    for name in names:
        columns.append((name, name, ()))
        if name == "redis":
            columns += [(f"redis@hz{hz}", name, ("--hz", str(hz))) for hz in args.redis_hz]
    hz_of = {}
    for col, name, extra in columns:
        wait_quiet(args.quiet_wait, notes, f"timeout precision {col}")
        srv, why = start_server(specs[name], args.logdir, extra=extra,
                                tag="-timeouts" + "".join(extra).replace("-", "_"))
        if srv is None:
            notes.problem(name, f"timeout precision: {col} failed to start ({why})")
            continue
        try:
            try:
                hz_of[col] = config_get(srv.port, "hz")
            except (OSError, ValueError):
                hz_of[col] = None
            if extra and hz_of[col] != extra[1]:
                notes.problem(name, f"timeout precision: {col} reports hz {hz_of[col]}; skipped")
                continue
            cmd = ["taskset", "-c", CLIENT_CORE, paths["timeout_precision"], "--port",
                   str(srv.port), "--samples", str(args.timeout_samples)]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                for line in r.stdout.splitlines():
                    kv = kv_line(line)
                    if "timeout_s" in kv and r.returncode == 0:
                        out[(col, kv["timeout_s"])] = kv
                        log(f"timeout precision {col:<5} (hz {hz_of[col]}) T={kv['timeout_s']}s "
                            f"p50 late {kv['p50_late_ms']:.2f} ms, max {kv['max_late_ms']:.2f} ms")
                if r.returncode != 0:
                    first = (r.stderr.strip().splitlines() or [""])[0]
                    notes.problem(name, f"timeout precision {col}: exit {r.returncode}: "
                                        f"{first[:200]}")
            except subprocess.TimeoutExpired:
                notes.problem(name, f"timeout precision {col}: timed out")
        finally:
            stop_server(srv)
    raw["timeouts"] = {f"{k[0]}:T={k[1]}": v for k, v in out.items()}
    raw["timeouts_hz"] = hz_of
    heads = [f"{name} (hz {hz_of.get(col) or '?'})" for col, name, _ in columns]
    md = [f"\n#### BRPOP timeout precision (`bench/timeout_precision`, "
          f"{args.timeout_samples} samples each; lateness = reply time - T)\n",
          "hz is each server's CONFIG GET hz. Redis expires blocked clients' timeouts in its "
          "serverCron, which runs hz times a second: at its default hz 10 a timeout fires up to "
          "100 ms late; the `--hz` columns show how much of the gap that one setting closes.\n",
          "| T (s) | " + " | ".join(f"{h} p50 late ms | {h} max late ms" for h in heads) + " |",
          "|---|" + "---|---|" * len(columns)]
    for T in (0.01, 0.1, 0.25):
        row = [str(T)]
        for col, _, _ in columns:
            kv = out.get((col, T))
            row += [fmt_f(kv and kv["p50_late_ms"]), fmt_f(kv and kv["max_late_ms"])]
        md.append("| " + " | ".join(row) + " |")
    return md, out


def pipelined_load(port: int, commands, expect: int) -> tuple:
    """Sends the byte chunks in `commands` on one connection while reading replies; returns
    (replies, errors)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    err = []

    def writer():
        try:
            for chunk in commands:
                s.sendall(chunk)
        except OSError as e:
            err.append(str(e))

    t = threading.Thread(target=writer)
    t.start()
    replies = errors = 0
    buf = b""
    while replies < expect:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        buf += chunk
        lines = buf.split(b"\r\n")
        buf = lines.pop()
        for ln in lines:
            replies += 1
            if ln.startswith(b"-"):
                errors += 1
    t.join()
    s.close()
    if err:
        raise RuntimeError(err[0])
    return replies, errors


def element(i: int) -> bytes:
    return b"e%011d" % i     # 12 bytes, not an integer (Redis would store integers compactly)


def load_one_list(port: int, n: int, per_cmd: int = 100):
    def gen():
        batch = []
        for start in range(0, n, per_cmd):
            cnt = min(per_cmd, n - start)
            batch.append(resp(b"RPUSH", b"biglist", *[element(start + j) for j in range(cnt)]))
            if len(batch) == 100:
                yield b"".join(batch)
                batch = []
        if batch:
            yield b"".join(batch)
    return pipelined_load(port, gen(), (n + per_cmd - 1) // per_cmd)


def load_many_lists(port: int, keys: int, per_key: int = 10):
    def gen():
        batch = []
        for k in range(keys):
            batch.append(resp(b"RPUSH", b"list:%06d" % k,
                              *[element(k * per_key + j) for j in range(per_key)]))
            if len(batch) == 1000:
                yield b"".join(batch)
                batch = []
        if batch:
            yield b"".join(batch)
    return pipelined_load(port, gen(), keys)


def memory_phase(args, specs, names, notes, raw):
    out = {}
    scenarios = [("one list", args.mem_elements, 1), ("lists of 10", args.mem_lists * 10,
                                                       args.mem_lists)]
    runs = {}   # (server, scenario) -> [per-round result]
    for rnd in range(args.mem_rounds):
        for si, (scen, elements, keys) in enumerate(scenarios):
            order = run_order(list(names), rnd, si)
            for pos, name in enumerate(order):
                srv, why = start_server(specs[name], args.logdir, tag=f"-memory-r{rnd + 1}")
                if srv is None:
                    notes.problem(name, f"memory {scen}: {name} failed to start ({why})")
                    continue
                try:
                    warm_receive_path(srv.port)   # io_uring's fixed 4 MiB of receive buffers
                    time.sleep(0.2)
                    base = rss_bytes(srv.pid)
                    t0 = time.monotonic()
                    if scen == "one list":
                        replies, errors = load_one_list(srv.port, elements)
                        check = roundtrip(srv.port, "LLEN", "biglist")
                        ok = check.strip() == b":%d" % elements
                    else:
                        replies, errors = load_many_lists(srv.port, keys)
                        check = roundtrip(srv.port, "LLEN", b"list:%06d" % (keys - 1))
                        ok = check.strip() == b":10"
                    time.sleep(0.5)   # let the server shrink the loader's query buffer
                    loaded = rss_bytes(srv.pid)
                    per = (loaded - base) / elements
                    res = dict(base_rss=base, loaded_rss=loaded, elements=elements,
                               bytes_per_element=per, load_s=time.monotonic() - t0,
                               verified=ok and errors == 0)
                    if not res["verified"]:
                        notes.problem(name, f"memory {scen} {name}: load check failed "
                                     f"(errors={errors}, check reply {check[:60]!r})")
                    res.update(round=rnd, pos=pos)
                    runs.setdefault((name, scen), []).append(res)
                    log(f"memory round {rnd + 1}/{args.mem_rounds} {scen:<11} {name:<5} #{pos + 1} "
                        f"{per:.1f} bytes/element "
                        f"(RSS {base / 1e6:.1f} -> {loaded / 1e6:.1f} MB)")
                except (OSError, RuntimeError) as e:
                    notes.problem(name, f"memory {scen} {name}: {e}")
                finally:
                    stop_server(srv)
    raw["memory"] = {f"{k[0]}:{k[1]}": v for k, v in runs.items()}
    for key, rs in runs.items():   # medians over rounds; verified only if every round was
        per = [r["bytes_per_element"] for r in rs if r["verified"]]
        out[key] = dict(bytes_per_element=median(per), rounds=rs,
                        verified=len(per) == len(rs) == args.mem_rounds)
    md = [f"\n#### Memory (VmRSS after loading minus VmRSS of the fresh server, per 12-byte element; "
          f"{args.mem_rounds} round(s), medians, the listd/redis ratio paired per round)\n",
          "| data | " + " | ".join(f"{n} bytes/element" for n in names) +
          (" | listd/redis |" if "listd" in names and "redis" in names else " |"),
          "|---|" + "---|" * len(names) + ("---|" if "listd" in names and "redis" in names else "")]
    for scen, elements, keys in scenarios:
        label = (f"{elements:,} elements in one list" if scen == "one list"
                 else f"{keys:,} lists of 10")
        row = [label]
        for n in names:
            m = out.get((n, scen), {})
            row.append(fmt_f(m.get("bytes_per_element"), 1) +
                       ("" if m.get("verified", True) else " (data check failed)"))
        if "listd" in names and "redis" in names:
            row.append(fmt_ratio(memory_ratios(out, scen)))
        md.append("| " + " | ".join(row) + " |")
    return md, out


def memory_ratios(memory: dict, scen: str) -> list:
    """Paired per-round ratios listd/redis of bytes per element (verified loads only)."""
    a = {r["round"]: r["bytes_per_element"] for r in memory.get(("listd", scen), {}).get("rounds", [])
         if r["verified"]}
    b = {r["round"]: r["bytes_per_element"] for r in memory.get(("redis", scen), {}).get("rounds", [])
         if r["verified"]}
    return [a[k] / b[k] for k in sorted(a) if k in b and b[k] > 0]


def open_idle(port: int, count: int) -> list:
    socks = []
    try:
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            socks.append(s)
        # One PING each, so every connection is known to be accepted and registered.
        ping = resp("PING")
        for s in socks:
            s.sendall(ping)
        for s in socks:
            data = b""
            while not data.endswith(b"\r\n"):
                chunk = s.recv(64)
                if not chunk:
                    raise OSError("idle connection closed by server")
                data += chunk
            if not data.startswith(b"+PONG"):
                raise OSError(f"idle connection got {data[:40]!r}")
    except OSError:
        for s in socks:
            s.close()
        raise
    return socks


def scale_phase(args, specs, names, notes, raw):
    out = {}   # (name, P) -> list of (base rps, base cpu, idle rps, idle cpu)
    for name in names:
        extra = () if name == "floor" else ("--maxclients", str(args.idle + 1000))
        for rnd in range(args.scale_rounds):
            wait_quiet(args.quiet_wait, notes, f"scale {name} round {rnd + 1}")
            srv, why = start_server(specs[name], args.logdir, extra=extra, tag="-scale")
            if srv is None:
                notes.problem(name, f"scale: {name} failed to start ({why})")
                break
            try:
                for P in (1, 32):
                    n = args.scale_requests if P == 1 else args.scale_requests * 5
                    runs = {}
                    modes = ["base", "idle"] if rnd % 2 == 0 else ["idle", "base"]
                    for mode in modes:
                        socks = []
                        if mode == "idle":
                            t0 = time.monotonic()
                            try:
                                socks = open_idle(srv.port, args.idle)
                            except OSError as e:
                                notes.problem(name, f"scale {name}: could not hold {args.idle} idle "
                                             f"connections: {e}")
                                runs = {}
                                break
                            log(f"scale {name}: {args.idle} idle connections open "
                                f"({time.monotonic() - t0:.1f}s)")
                        try:
                            runs[mode] = run_redis_benchmark(srv, "lpush", P, n)
                        finally:
                            for s in socks:
                                s.close()
                        if "error" in runs[mode]:
                            notes.problem(name, f"scale {name} {mode}: {runs[mode]['error']}")
                    if "base" in runs and "idle" in runs and "error" not in runs["base"] \
                            and "error" not in runs["idle"] and runs["base"]["rps"] \
                            and runs["idle"]["rps"]:   # rps None: a run too short to time
                        b, i = runs["base"], runs["idle"]
                        out.setdefault((name, P), []).append(
                            (b["rps"], b["cpu_ns_per_req"], i["rps"], i["cpu_ns_per_req"]))
                        log(f"scale round {rnd + 1}/{args.scale_rounds} {name:<5} P={P:<2} "
                            f"throughput x{i['rps'] / b['rps']:.2f}, "
                            f"CPU/req x{i['cpu_ns_per_req'] / b['cpu_ns_per_req']:.2f} with idle")
                    time.sleep(0.2)   # let the server drop the closed idle connections
            finally:
                stop_server(srv)
    raw["scale"] = {f"{k[0]}:P={k[1]}": v for k, v in out.items()}
    md = [f"\n#### Scale: 50 busy clients (LPUSH) next to {args.idle:,} idle connections "
          f"({args.scale_rounds} round(s); ratio = with idle / without)\n",
          "| server | P | ops/s without | ops/s with idle | throughput ratio | CPU ns/req without"
          " | CPU ns/req with idle | CPU/req ratio |",
          "|---|---|---|---|---|---|---|---|"]
    for name in names:
        for P in (1, 32):
            rows = out.get((name, P))
            if not rows:
                md.append(f"| {name} | {P} | — | — | — | — | — | — |")
                continue
            md.append(f"| {name} | {P} | {fmt_int(median([r[0] for r in rows]))} | "
                      f"{fmt_int(median([r[2] for r in rows]))} | "
                      f"{fmt_ratio([r[2] / r[0] for r in rows])} | "
                      f"{fmt_int(median([r[1] for r in rows]))} | "
                      f"{fmt_int(median([r[3] for r in rows]))} | "
                      f"{fmt_ratio([r[3] / r[1] for r in rows])} |")
    return md, out


# --------------------------------------------------------------------------------------------
# charts


COLORS = {"listd": ("#7b2cbf", "#c8a2f0"), "redis": ("#d62828", "#f4a3a3"),
          "floor": ("#2a9d8f", "#a8dcd5")}


def draw_charts(results_dir: Path, summary, handoff, names_tp, names_ho, pipelines) -> list:
    gp = shutil.which("gnuplot")
    if not gp:
        return ["gnuplot not installed (`apt-get install -y gnuplot-nox`): no charts drawn."]
    made = []
    notes = []
    names_tp = [s for s in names_tp
                if any(summary.get(P, {}).get(t, {}).get(s) is not None
                       for P in pipelines for t in TESTS)]
    names_ho = [s for s in names_ho
                if any(isinstance(v.get("p50_us"), float) for (n, _), v in handoff.items() if n == s)]
    # CPU per request: one panel per pipeline depth, clustered bars per test.
    if names_tp:
        with open(results_dir / "cpu_per_request.dat", "w") as f:
            f.write("# test " + " ".join(f"{s}_P{P}" for P in pipelines for s in names_tp) + "\n")
            for test in TESTS:
                vals = []
                for P in pipelines:
                    for s in names_tp:
                        v = summary.get(P, {}).get(test, {}).get(s)
                        vals.append("NaN" if v is None else f"{v:.1f}")
                f.write(test + " " + " ".join(vals) + "\n")
        k = len(names_tp)
        plots = []
        for pi, P in enumerate(pipelines):
            cols = ", ".join(f"'' using {2 + pi * k + j}:xtic(1) title '{s}' "
                             f"lc rgb '{COLORS.get(s, ('#888888',))[0]}'"
                             for j, s in enumerate(names_tp))
            cols = cols.replace("''", "'cpu_per_request.dat'", 1)
            plots.append(f"set title 'server CPU ns/request, -P {P} (log scale; lower is better)'\n"
                         f"plot {cols}\n")
        script = ("set terminal svg size 1100,450 dynamic font 'sans,11'\n"
                  "set output 'cpu_per_request.svg'\n"
                  "set style data histograms\nset style histogram clustered gap 1\n"
                  "set style fill solid 0.8 border -1\nset key top left\nset grid ytics\n"
                  "set termoption noenhanced\nset logscale y\nset yrange [100:*]\n"
                  "set ylabel 'ns/request'\n"
                  f"set multiplot layout 1,{len(pipelines)}\n" + "".join(plots) +
                  "unset multiplot\n")
        (results_dir / "cpu_per_request.gp").write_text(script)
        r = subprocess.run([gp, "cpu_per_request.gp"], cwd=results_dir, capture_output=True,
                           text=True)
        if r.returncode == 0:
            made.append("cpu_per_request.svg")
        else:
            notes.append(f"gnuplot (cpu chart) failed: {r.stderr.strip()[:200]}")
    if names_ho:
        ws = sorted({w for (_, w) in handoff})
        with open(results_dir / "handoff.dat", "w") as f:
            f.write("# W " + " ".join(f"{s}_p50 {s}_p99" for s in names_ho) + "\n")
            for w in ws:
                vals = []
                for s in names_ho:
                    r = handoff.get((s, w), {})
                    for key in ("p50_us", "p99_us"):
                        v = r.get(key)
                        vals.append("NaN" if not isinstance(v, float) else f"{v:.1f}")
                f.write(f"W={w} " + " ".join(vals) + "\n")
        cols = []
        for j, s in enumerate(names_ho):
            dark, light = COLORS.get(s, ("#888888", "#cccccc"))
            cols.append(f"'' using {2 + 2 * j}:xtic(1) title '{s} p50' lc rgb '{dark}'")
            cols.append(f"'' using {3 + 2 * j} title '{s} p99' lc rgb '{light}'")
        cols[0] = cols[0].replace("''", "'handoff.dat'", 1)
        script = ("set terminal svg size 800,450 dynamic font 'sans,11'\n"
                  "set output 'handoff_latency.svg'\n"
                  "set style data histograms\nset style histogram clustered gap 1\n"
                  "set style fill solid 0.8 border -1\nset key top left\nset grid ytics\n"
                  "set termoption noenhanced\nset logscale y\nset yrange [1:*]\n"
                  "set key outside right top\n"
                  "set title 'BRPOP hand-off latency by blocked workers W (lower is better)'\n"
                  "set ylabel 'microseconds (log scale)'\n"
                  "plot " + ", ".join(cols) + "\n")
        (results_dir / "handoff_latency.gp").write_text(script)
        r = subprocess.run([gp, "handoff_latency.gp"], cwd=results_dir, capture_output=True,
                           text=True)
        if r.returncode == 0:
            made.append("handoff_latency.svg")
        else:
            notes.append(f"gnuplot (hand-off chart) failed: {r.stderr.strip()[:200]}")
    try:
        shown = results_dir.resolve().relative_to(REPO)
    except ValueError:
        shown = results_dir
    lines = [f"Charts: " + ", ".join(f"`{shown}/{m}`" for m in made)] if made else []
    return lines + notes


# --------------------------------------------------------------------------------------------
# targets (issue 7), evaluated only when listd ran


NOISE = 0.10        # the noise band the report states: treat differences within ±10 % as noise
MIN_ROUNDS = 3      # fewer rounds than this: the worst/best round says nothing, only the band

VERDICT_RULE = (
    "Verdicts, from the per-round values (paired per-round ratios where two servers are "
    f"compared; one value when the measurement is made once): **met** when the median beats the "
    f"limit by more than the ±{NOISE:.0%} noise band (of the limit), or when there are at least "
    f"{MIN_ROUNDS} rounds and the worst round meets the limit; **not met** when the median misses "
    f"the limit by more than the band, or when there are at least {MIN_ROUNDS} rounds and even the "
    "best round misses it; **within noise** otherwise. A target whose measurement is missing "
    "(phase not run, server failed, option not applied) is listed as **not measured**.")


def verdict(values, limit: float, op: str) -> str:
    """met / within noise / not met for per-round `values` against `limit` (op "<=" or ">=")."""
    vs = [v for v in values if v is not None]
    if not vs:
        return "not measured"
    med = statistics.median(vs)
    enough = len(vs) >= MIN_ROUNDS
    if op == "<=":
        beats, misses = med <= limit * (1 - NOISE), med > limit * (1 + NOISE)
        all_meet, none_meet = max(vs) <= limit, min(vs) > limit
    else:
        beats, misses = med >= limit * (1 + NOISE), med < limit * (1 - NOISE)
        all_meet, none_meet = min(vs) >= limit, max(vs) < limit
    if beats or (enough and all_meet):
        return "met"
    if misses or (enough and none_meet):
        return "not met"
    return "within noise"


def targets_md(summary, handoff, memory, timeouts, scale, args, aof=None, aborted=None) -> list:
    """Issue 7's and 8's targets: one row for every expected target, measured or not."""
    if "listd" in WRONG_ANSWERS:
        return ["\n#### Targets (issue 7)\n",
                "Not evaluated: listd failed the list sanity check in this run (see notes)."]
    rows = []
    aborted = aborted or {}

    def add(what, values, limit, op, fmt="{:.2f}", missing="not measured"):
        vs = [v for v in values if v is not None]
        if not vs:
            rows.append(f"| {what} | — | not measured ({missing}) |")
            return
        if len(vs) == 1:
            shown = fmt.format(vs[0]) + " (1 sample)"
        else:
            shown = (fmt.format(statistics.median(vs)) + f" ({fmt.format(min(vs))}.."
                     f"{fmt.format(max(vs))}, {len(vs)} rounds)")
        v = verdict(vs, limit, op)
        rows.append(f"| {what} | {shown} | {'**not met**' if v == 'not met' else v} |")

    def why_missing(phase, need_p=None, need_w=None):
        if phase not in args.phases:
            return f"the {phase} phase was not run"
        if need_p is not None and need_p not in args.pipelines:
            return f"-P {need_p} was not run"
        if need_w is not None and need_w not in args.handoff_workers:
            return f"W={need_w} was not run"
        return "no result: see the notes"

    if args.tls:  # issue 21: CPU/request over TLS <= 0.8 x redis at both depths
        for P in (1, 32):
            for test in TESTS:
                rs = summary.get(P, {}).get(test, {}).get("listd/redis rounds", [])
                add(f"TLS CPU/req -P {P} {test}: listd/redis <= 0.8", rs, 0.8, "<=",
                    missing=why_missing("throughput", need_p=P))
        return ["\n#### Targets (issue 21, TLS), from this run\n", VERDICT_RULE, "",
                "| target | measured: median (min..max) | verdict |", "|---|---|---|", *rows]
    for test in TESTS:
        rs = summary.get(32, {}).get(test, {}).get("listd/redis rounds", [])
        limit = 0.5 if test == "lrange_100" else 0.6
        add(f"CPU/req -P 32 {test}: listd/redis <= {limit}", rs, limit, "<=",
            missing=why_missing("throughput", need_p=32))
    for test in TESTS:
        rs = summary.get(1, {}).get(test, {}).get("listd/floor rounds", [])
        add(f"CPU/req -P 1 {test}: listd/floor <= 1.0", rs, 1.0, "<=",
            missing=why_missing("throughput", need_p=1))
    mode = " (stream)" if args.handoff_mode == "stream" else ""
    for W in (1, 10, 1000):
        for q in ("p50_us", "p99_us"):
            add(f"hand-off{mode} W={W} {q[:3]}: listd/redis <= 1.0 (paired per round)",
                handoff_ratios(handoff, W, q), 1.0, "<=",
                missing=why_missing("handoff", need_w=W))
        a = handoff.get(("listd", W))
        if a:
            once = a.get("exactly_once")
            rows.append(f"| hand-off{mode} W={W}: exactly once, every round | {once} | "
                        f"{'met' if once == 'yes' else '**not met**'} |")
        else:
            rows.append(f"| hand-off{mode} W={W}: exactly once, every round | — | not measured "
                        f"({why_missing('handoff', need_w=W)}) |")
    for scen, limit in (("one list", 1.0), ("lists of 10", 0.8)):
        add(f"memory {scen}: listd/redis <= {limit} (paired per round)",
            memory_ratios(memory, scen), limit, "<=", missing=why_missing("memory"))
    for T in (0.01, 0.1, 0.25):
        kv = timeouts.get(("listd", T))
        add(f"timeout {T}s p50 lateness <= 2 ms", [kv["p50_late_ms"]] if kv else [], 2.0, "<=",
            fmt="{:.2f} ms", missing=why_missing("timeouts"))
    for P in (1, 32):
        rs = scale.get(("listd", P)) or []
        add(f"scale P={P}: throughput with idle / without >= 0.95", [r[2] / r[0] for r in rs],
            0.95, ">=", missing=why_missing("scale"))
        add(f"scale P={P}: CPU/req with idle / without <= 1/0.95", [r[3] / r[1] for r in rs],
            1 / 0.95, "<=", missing=why_missing("scale"))
    for policy in ("always", "everysec", "no"):   # issue 8: with the AOF, ops/s >= and CPU <= redis
        for P in (1, 32):
            for test in AOF_TESTS:
                v = (aof or {}).get(policy, {}).get(P, {}).get(test, {})
                if policy in aborted:
                    missing = f"a server did not apply appendfsync {policy}: see the notes"
                elif policy not in args.aof_policies:
                    missing = f"policy {policy} was not run"
                else:
                    missing = why_missing("aof", need_p=P)
                add(f"AOF {policy} -P {P} {test}: ops/s listd/redis >= 1.0",
                    v.get("ops listd/redis rounds", []), 1.0, ">=", missing=missing)
                add(f"AOF {policy} -P {P} {test}: CPU/req listd/redis <= 1.0",
                    v.get("listd/redis rounds", []), 1.0, "<=", missing=missing)
    title = "\n#### Targets (issues 7 and 8), from this run\n"
    if args.quick:
        title = "\n#### Targets (issues 7 and 8) — --quick run: tiny N, NOT meaningful\n"
    return [title, VERDICT_RULE, "", "| target | measured: median (min..max) | verdict |",
            "|---|---|---|", *rows]


# --------------------------------------------------------------------------------------------


def machine_md(args, paths, specs) -> list:
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    def ver(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"
    rev = ver(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]) or "(no commit)"
    if ver(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no", "--",
            "src", "include", "CMakeLists.txt"]):
        rev += " + uncommitted changes in src/include"
    return [f"- date: {dt.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}; "
            f"listd tree at {rev}",
            f"- machine: {model}, {os.cpu_count()} cores, kernel {platform.release()}",
            f"- servers: listd = `{specs['listd'].binary if 'listd' in specs else 'not available'}`"
            f"{' (' + specs['listd'].note + ')' if 'listd' in specs and specs['listd'].note else ''}"
            f"; redis = {ver([args.redis_bin, '--version']).split(' sha=')[0]}; "
            f"floor = `bench/epoll_floor`",
            f"- server pinned to core {SERVER_CORE}, load generator to core {CLIENT_CORE}; "
            f"{ver(['redis-benchmark', '--version'])}",
            f"- command: `{shlex.join(['bench/side_by_side.py', *sys.argv[1:]])}`"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=None,
                   help="interleaved rounds of the redis-benchmark phases (default 5, quick 1)")
    p.add_argument("--requests", type=int, default=200_000, help="-n at -P 1 (default 200000)")
    p.add_argument("--requests-pipelined", type=int, default=None,
                   help="-n at -P 32 (default 5 x --requests, so each run lasts about a second)")
    p.add_argument("--pipelines", default="1,32", help="pipeline depths (default 1,32)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 1 round, tiny N and sizes (numbers meaningless)")
    p.add_argument("--only", default="listd,redis,floor",
                   help="subset of servers, e.g. redis,floor")
    p.add_argument("--phases", default="throughput,aof,handoff,memory,timeouts,scale",
                   help="subset of phases to run")
    p.add_argument("--aof-policies", default="always,everysec,no",
                   help="appendfsync policies measured by the aof phase (listd vs redis only)")
    p.add_argument("--listd-bin", default=None,
                   help="use this binary in the listd slot instead of building listd "
                        "(e.g. /usr/bin/redis-server to test the harness)")
    p.add_argument("--listd-args", default=None,
                   help="listd arguments, '{port}' substituted (default: redis-style "
                        "--port/--bind/--save ''/--appendonly no, then --port alone)")
    p.add_argument("--redis-bin", default="redis-server")
    p.add_argument("--build-dir", default=str(REPO / "build-bench"))
    p.add_argument("--no-build", action="store_true", help="use what is in --build-dir")
    p.add_argument("--results", default=str(BENCH / "results"))
    p.add_argument("--handoff-count", type=int, default=20_000)
    p.add_argument("--handoff-workers", default="1,10,1000")
    p.add_argument("--tls", action="store_true",
                   help="the throughput phase over TLS (issue 21): listd and redis on the same "
                        "test certificates, redis-benchmark --tls with a client certificate; "
                        "no floor (it speaks no TLS)")
    p.add_argument("--handoff-mode", choices=("list", "stream"), default="list",
                   help="list: workers block in BRPOP (issue 7's and 19's targets); stream: "
                        "consumers of one group block in XREADGROUP (issue 15's p50 target)")
    p.add_argument("--handoff-rounds", type=int, default=None,
                   help="rounds of the hand-off phase, the order alternating (default --rounds)")
    p.add_argument("--redis-hz", default="100",
                   help="the timeout phase also runs redis at these hz values (comma-separated; "
                        "'' for none), next to its default hz (default 100)")
    p.add_argument("--mem-elements", type=int, default=1_000_000)
    p.add_argument("--mem-lists", type=int, default=100_000)
    p.add_argument("--mem-rounds", type=int, default=None,
                   help="rounds of the memory phase, a fresh server each, order alternating "
                        "(default 3, quick 1)")
    p.add_argument("--timeout-samples", type=int, default=20)
    p.add_argument("--idle", type=int, default=10_000, help="idle connections in the scale test")
    p.add_argument("--scale-requests", type=int, default=200_000)
    p.add_argument("--scale-rounds", type=int, default=3)
    p.add_argument("--quiet-wait", type=float, default=60,
                   help="before each round/phase, wait up to this many seconds for the cores to be "
                        "idle (other load < 15%% of a core); 0 disables (default 60, quick 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    a = p.parse_args()
    if a.rounds is None:
        a.rounds = 1 if a.quick else 5
    if a.quick:
        a.requests = min(a.requests, 2000)
        if a.requests_pipelined is None:
            a.requests_pipelined = 4000
        # Smaller figures given on the command line win (bench.quick makes it smaller still).
        a.handoff_count = min(a.handoff_count, 300)
        a.mem_elements = min(a.mem_elements, 20_000)
        a.mem_lists = min(a.mem_lists, 2_000)
        a.timeout_samples = min(a.timeout_samples, 3)
        a.idle = min(a.idle, 1000)
        a.scale_requests = min(a.scale_requests, 2000)
        a.scale_rounds = 1
        a.quiet_wait = 0
    if a.mem_rounds is None:
        a.mem_rounds = 1 if a.quick else 3
    if a.handoff_rounds is None:
        a.handoff_rounds = a.rounds
    a.redis_hz = [int(x) for x in a.redis_hz.split(",") if x.strip()]
    if a.requests_pipelined is None:
        a.requests_pipelined = a.requests * 5
    a.pipelines = [int(x) for x in a.pipelines.split(",") if x]
    a.aof_policies = [x for x in a.aof_policies.split(",") if x]
    bad = [x for x in a.aof_policies if x not in ("always", "everysec", "no")]
    if bad:
        p.error(f"--aof-policies: unknown policy {bad}")
    a.handoff_workers = [int(x) for x in a.handoff_workers.split(",") if x]
    a.only = [x.strip() for x in a.only.split(",") if x.strip()]
    a.phases = {x.strip() for x in a.phases.split(",") if x.strip()}
    if a.tls:
        if a.phases - {"throughput"}:
            p.error("--tls measures the throughput phase only: add --phases throughput")
        a.only = [x for x in a.only if x != "floor"]
    bad = [x for x in a.only if x not in SERVERS]
    if bad:
        p.error(f"--only: unknown server(s) {bad}; choose from {SERVERS}")
    return a


def main() -> int:
    global QUIET
    args = parse_args()
    QUIET = args.quiet
    results_dir = Path(args.results)
    results_dir.mkdir(parents=True, exist_ok=True)
    args.logdir = results_dir / "logs"
    shutil.rmtree(args.logdir, ignore_errors=True)
    args.logdir.mkdir()

    # The scale test holds ~10,000 sockets here and in the server: raise the soft limit
    # (what `ulimit -n` would do); children inherit it.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = args.idle + 2000
    if soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(hard, max(want, soft))
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        if new < want:
            args.idle = max(0, new - 2000)
            log(f"open-file limit {new}: scale test reduced to {args.idle} idle connections")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    notes = Notes()
    raw: dict = {"args": {k: (v if not isinstance(v, (set, Path)) else str(v))
                          for k, v in vars(args).items()}}
    try:
        paths = build(args, notes)
        specs = make_specs(args, paths)
        names = [s for s in SERVERS if s in args.only and s in specs]
        if "listd" in args.only and "listd" not in specs:
            log("listd: no binary, skipped (see notes)")
        if not names:
            sys.exit("side_by_side: no server to run")
        log(f"servers: {', '.join(f'{n}={specs[n].binary}' for n in names)}")
        md = ["## Side-by-side results", "", *machine_md(args, paths, specs)]
        if args.quick:
            md.append("- **--quick smoke run: tiny N and sizes; the numbers mean nothing.**")
        summary, handoff, memory, timeouts, scale = {}, {}, {}, {}, {}
        aof_summary, aof_aborted = {}, {}
        blockers = [n for n in names if n != "floor"]
        interrupted = None
        tp_done = False
        try:
            if "throughput" in args.phases:
                md.append("\n### Throughput and server CPU per request (redis-benchmark)\n")
                md.append("ops/s and CPU ns/req are medians over rounds; ratios are of CPU ns/req, "
                          "median of the per-round paired ratios (min..max). Treat ±10% as noise. "
                          "The server order is reversed from one test to the next and, for each "
                          "test, from one round to the next (raw.json: `pos`, `order`).")
                interrupted = "throughput"
                res = throughput_phase(args, specs, names, notes, raw)
                tmd, summary = summarize_throughput(res, names, args)
                md += tmd
                tp_done = True
            aof_names = [n for n in names if n != "floor"]
            if "aof" in args.phases and aof_names:
                md.append("\n### With the append-only file (redis-benchmark lpush, rpop)\n")
                md.append("Both servers `--appendonly yes --appendfsync P`, fresh data directory per "
                          "start; same method and ratios as above, plus the paired ops/s ratio.")
                for policy in args.aof_policies:
                    interrupted = f"aof {policy}"
                    res = throughput_phase(args, specs, aof_names, notes, raw, tests=AOF_TESTS,
                                           extra=("--appendonly", "yes", "--appendfsync", policy),
                                           key=f"aof_{policy}", label=f"-aof-{policy}",
                                           check=aof_check(policy))
                    md.append(f"\n**appendfsync {policy}**")
                    if raw.get(f"aof_{policy}_aborted"):
                        aof_aborted[policy] = raw[f"aof_{policy}_aborted"]
                        md.append(f"\nNot measured: {aof_aborted[policy]}.")
                        continue
                    amd, asum = summarize_throughput(res, aof_names, args, tests=AOF_TESTS,
                                                     ops_ratio=True)
                    aof_summary[policy] = asum
                    md += amd
            md.append("\n### Blocking, memory, timeouts, scale\n")
            if "handoff" in args.phases and blockers:
                interrupted = "hand-off"
                hmd, handoff = handoff_phase(args, specs, blockers, paths, notes, raw)
                md += hmd
            if "memory" in args.phases and blockers:
                interrupted = "memory"
                mmd, memory = memory_phase(args, specs, blockers, notes, raw)
                md += mmd
            if "timeouts" in args.phases and blockers:
                interrupted = "timeouts"
                omd, timeouts = timeout_phase(args, specs, blockers, paths, notes, raw)
                md += omd
            if "scale" in args.phases:
                interrupted = "scale"
                smd, scale = scale_phase(args, specs, names, notes, raw)
                md += smd
            interrupted = None
        except (KeyboardInterrupt, SystemExit):
            # Stopped (Ctrl-C, SIGTERM): report what completed rather than nothing.
            stop_all()
            if "throughput" in args.phases and not tp_done and raw.get("throughput"):
                tmd, summary = summarize_throughput(raw["throughput"], names, args)
                md += ["(partial: the run was stopped during this phase)", *tmd]
            notes.append(f"the run was stopped during the {interrupted} phase; later phases are "
                         "missing and the targets below cover only what completed")
            log(f"stopped during the {interrupted} phase; writing a partial report")
        if "listd" in names and specs["listd"].note == "":
            md += targets_md(summary, handoff, memory, timeouts, scale, args, aof_summary,
                             aof_aborted)
        chart_lines = draw_charts(results_dir, summary, handoff, names, blockers, args.pipelines)
        if chart_lines:
            md += ["", *chart_lines]
        if BUSY_STARTS:
            loads = [x[1] for x in BUSY_STARTS]
            notes.append(f"{len(BUSY_STARTS)} round(s)/phase(s) started after waiting "
                         f"{args.quiet_wait:.0f} s in vain for idle cores (other load median "
                         f"{statistics.median(loads):.0%} of a core, max {max(loads):.0%}): "
                         + ", ".join(x[0] for x in BUSY_STARTS))
        if notes:
            md += ["\n#### Notes from this run\n", *[f"- {n}" for n in dict.fromkeys(notes)]]
        text = "\n".join(md) + "\n"
        (results_dir / "latest.md").write_text(text)
        raw["notes"] = notes
        (results_dir / "raw.json").write_text(json.dumps(raw, indent=1, default=str))
        print(text, end="")
        log(f"done: {results_dir / 'latest.md'}")
        broken = sorted(notes.failed & {"redis", "floor"})
        if interrupted:
            return 130
        if broken:
            # The reference servers must always work: if they do not, the harness is broken.
            log(f"FAILED: problems with reference server(s) {', '.join(broken)} (see notes)")
            return 1
        if "listd" in notes.failed:
            log("listd had problems in this run (see notes); not a harness failure")
        return 0
    finally:
        stop_all()


if __name__ == "__main__":
    sys.exit(main())
