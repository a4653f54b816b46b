#!/usr/bin/python3
"""Where a stream's memory goes (issue 15): the memory_types.py stream row, taken apart.

Loads the same stream as `bench/memory_types.py --scenarios stream` (1,000,000 entries
`job <12 digits> state queued`, XADD jobs * in pipelines of 1,000) into a fresh server, reads
every id back (XRANGE in pages), and rebuilds the nodes' listpack bytes as Redis 7.0 lays them
out (stream-node-max-entries 100 / -max-bytes 4096; both servers keep this layout in memory),
per element role. Then it sets the RSS growth against that sum: what is left is the node index
and the allocator (chunk headers, size-class slack, freed buffers of growing nodes).

  bench/stream_memory_breakdown.py --listd build/dev/listd [--redis /usr/bin/redis-server]
                                   [--only listd|redis|listd,redis] [--entries 1000000]

Needs /usr/bin/python3 with redis-py; ports are free ones on 127.0.0.1.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory_types import rss_kb, start  # noqa: E402

MAX_ENTRIES = 100
MAX_BYTES = 4096


def int_size(v):
    """listpack.c's integer encodings: 7-bit uint, 13/16/24/32/64-bit int."""
    if 0 <= v <= 127:
        return 1
    for bits, size in ((13, 2), (16, 3), (24, 4), (32, 5)):
        if -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
            return size
    return 9


def is_strict_int(s):
    if s == "0":
        return True
    body = s[1:] if s.startswith("-") else s
    return (body != "" and body[0] in "123456789" and body.isdigit() and len(s) <= 20
            and -(1 << 63) <= int(s) < (1 << 63))


def element_size(value):
    """(encoding + data, backlen) bytes of one listpack element."""
    if isinstance(value, int) or is_strict_int(value):
        enc = int_size(int(value))
    else:
        n = len(value.encode())
        enc = n + (1 if n < 64 else 2 if n < 4096 else 5)
    back = 1 if enc <= 127 else 2 if enc < 16383 else 3 if enc < 2097151 else 4
    return enc, back


class Tally:
    def __init__(self):
        self.by_role = {}

    def add(self, role, value):
        enc, back = element_size(value)
        self.by_role[role] = self.by_role.get(role, 0) + enc
        self.by_role["backlens"] = self.by_role.get("backlens", 0) + back
        return enc + back


def simulate(ids, fields, values):
    """Redis' streamAppendItem for entries with the same fields; returns (tally, nodes)."""
    t = Tally()
    nodes = 0
    node_bytes = count = 0
    master = None
    totelelen = sum(len(x) for x in fields) + sum(len(x) for x in values)
    for ms, seq in ids:
        if master is None or node_bytes + totelelen >= MAX_BYTES or count >= MAX_ENTRIES:
            nodes += 1
            master = (ms, seq)
            count = 0
            node_bytes = 6 + 1  # header, terminator
            t.by_role["listpack headers"] = t.by_role.get("listpack headers", 0) + 7
            for role, v in (("master entry", 1), ("master entry", 0),
                            ("master entry", len(fields))):
                node_bytes += t.add(role, v)
            for f in fields:
                node_bytes += t.add("master entry", f)
            node_bytes += t.add("master entry", 0)
        count += 1
        node_bytes += t.add("flags", 2)
        node_bytes += t.add("ms delta", ms - master[0])
        node_bytes += t.add("seq delta", seq - master[1])
        for v in values:
            node_bytes += t.add("values", v)
        node_bytes += t.add("lp-count", len(fields) + 3)
    return t, nodes


def read_ids(r, n):
    ids = []
    start_id = "-"
    while len(ids) < n:
        page = r.xrange("jobs", min=start_id, count=100_000)
        if not page:
            break
        for i, _ in page:
            ms, seq = i.decode().split("-")
            ids.append((int(ms), int(seq)))
        start_id = "(" + page[-1][0].decode()
    return ids


def load(r, entries):
    p = r.pipeline(transaction=False)
    for i in range(entries):
        p.execute_command("XADD", "jobs", "*", "job", f"{i:012d}", "state", "queued")
        if i % 1000 == 999:
            p.execute()
    p.execute()


def measure(kind, binary, entries):
    proc, r = start(kind, binary)
    try:
        before = rss_kb(proc.pid)
        load(r, entries)
        time.sleep(0.2)
        growth = (rss_kb(proc.pid) - before) * 1024
        used = int(r.info("memory")["used_memory"])
        ids = read_ids(r, entries)
    finally:
        proc.terminate()
        proc.wait(10)
    assert len(ids) == entries, (len(ids), entries)
    # Every entry's values have the shape of entry 0's (12 digits with leading zeros, "queued").
    tally, nodes = simulate(ids, ["job", "state"], ["000000000000", "queued"])
    listpacks = sum(tally.by_role.values())
    print(f"{kind}: {entries} entries in {nodes} nodes; RSS growth {growth / 2**20:.1f} MiB "
          f"= {growth / entries:.2f} B/entry; used_memory {used / 2**20:.1f} MiB")
    for role, b in sorted(tally.by_role.items(), key=lambda x: -x[1]):
        print(f"  {role:18s} {b / entries:6.2f} B/entry")
    print(f"  {'listpacks, total':18s} {listpacks / entries:6.2f} B/entry "
          f"({listpacks / nodes:.0f} B/node)")
    print(f"  {'rest (index, allocator)':18s} {(growth - listpacks) / entries:6.2f} B/entry "
          f"({(growth - listpacks) / nodes:.0f} B/node)")
    return growth


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listd", default="build/dev/listd")
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--only", default="listd,redis")
    ap.add_argument("--entries", type=int, default=1_000_000)
    a = ap.parse_args()
    growth = {k: measure(k, a.listd if k == "listd" else a.redis, a.entries)
              for k in a.only.split(",")}
    if "listd" in growth and "redis" in growth:
        print(f"listd/redis RSS growth {growth['listd'] / growth['redis']:.3f}; the 0.9 target "
              f"is {0.9 * growth['redis'] / a.entries:.2f} B/entry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
