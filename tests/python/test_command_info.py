"""COMMAND INFO, COMMAND DOCS and COMMAND GETKEYSANDFLAGS against redis-server 7.0.15: for every
command both servers have, the entries are Redis' own in RESP2 and RESP3 (reply types included),
each subcommand compared on its own (Redis lists them in hash order, random per start). The
commands listd lacks, and its own extras, are listed below; any other difference fails.
"""

import os

import pytest

from listd_testing import RedisServer
from listd_testing.resp import RawConn
from test_command_getkeys import SAMPLES

# Redis 7.0.15's commands and subcommands listd does not have (docs/COMPATIBILITY.md); a
# container listed here stands for its subcommands too.
LISTD_LACKS = {
    "module", "script|debug",
}
# listd's commands Redis 7.0.15 does not have: the 7.2 CLIENT SETINFO / NO-TOUCH and QUEUES,
# its own (docs/COMPATIBILITY.md, "Deliberate differences").
LISTD_EXTRAS = {"client|setinfo", "client|no-touch", "queues"}


def parse(data, pos=0):
    """One RESP value from `data` at `pos` as (kind, payload), and the position after it."""
    kind = data[pos:pos + 1].decode()
    end = data.index(b"\r\n", pos)
    head, pos = data[pos + 1:end], end + 2
    if kind == "$":
        n = int(head)
        return (("null", None), pos) if n < 0 else (("bulk", data[pos:pos + n]), pos + n + 2)
    if kind in "+-":
        return (kind, head), pos
    if kind == ":":
        return ("int", int(head)), pos
    if kind == "_":
        return ("null", None), pos
    if kind in "*~%":
        n = int(head) * (2 if kind == "%" else 1)
        items = []
        for _ in range(max(n, 0)):
            item, pos = parse(data, pos)
            items.append(item)
        return (kind, items), pos
    raise ValueError(f"unexpected RESP type {kind!r}")


def name_of(entry):
    return entry[1][0][1].decode()


def flat_info(entries, out=None):
    """name -> a COMMAND INFO entry with its subcommands replaced by their reply type, every
    subcommand an entry of its own (Redis lists subcommands in hash order)."""
    out = {} if out is None else out
    for entry in entries:
        subs_kind, subs = entry[1][9]
        out[name_of(entry)] = (entry[0], entry[1][:9] + [subs_kind])
        flat_info(subs, out)
    return out


def flat_docs(items, out=None):
    """name -> a COMMAND DOCS map with its "subcommands" map replaced by its type, each subcommand
    a map of its own."""
    out = {} if out is None else out
    for name, docmap in zip(items[::2], items[1::2]):
        fields = []
        for key, value in zip(docmap[1][::2], docmap[1][1::2]):
            if key == ("bulk", b"subcommands"):
                flat_docs(value[1], out)
                value = value[0]
            fields += [key, value]
        out[name[1].decode()] = (docmap[0], fields)
    return out


@pytest.fixture(scope="module")
def servers(listd):
    oracle = RedisServer().start()
    conns = {}
    for who, port in (("redis", oracle.port), ("listd", listd.port)):
        for proto in (2, 3):
            conn = RawConn(port, timeout=30)
            conn.call("HELLO", str(proto))
            conns[who, proto] = conn
    yield conns
    for conn in conns.values():
        conn.close()
    oracle.stop()
    oracle.close()


def call(conn, *argv):
    return parse(conn.call(*argv))[0]


def compare(want, got):
    differ = [name for name in sorted(set(want) & set(got)) if want[name] != got[name]]
    assert differ == [], [(n, want[n], got[n]) for n in differ[:2]]
    if os.environ.get("LISTD_TEST_TARGET", "listd") == "listd":
        lacks = set(want) - set(got)
        assert {n for n in lacks if n.split("|")[0] not in lacks or "|" not in n} == LISTD_LACKS
        assert set(got) - set(want) == LISTD_EXTRAS


@pytest.mark.parametrize("proto", [2, 3])
def test_command_info_matches_redis_for_every_command(servers, proto):
    want, got = (flat_info(call(servers[w, proto], "COMMAND")[1]) for w in ("redis", "listd"))
    compare(want, got)


@pytest.mark.parametrize("proto", [2, 3])
def test_command_docs_matches_redis_for_every_command(servers, proto):
    want, got = (flat_docs(call(servers[w, proto], "COMMAND", "DOCS")[1])
                 for w in ("redis", "listd"))
    compare(want, got)


NAMED = [["COMMAND", "INFO", "get", "nosuch", "config|get", "CONFIG|GET", "config|nosuch"],
         ["COMMAND", "DOCS", "get", "nosuch", "Object|Encoding", "xreadgroup"],
         ["COMMAND", "DOCS", "nosuch"], ["COMMAND", "HELP"],
         ["COMMAND", "GETKEYSANDFLAGS"], ["COMMAND", "GETKEYSANDFLAGS", "get"],
         ["COMMAND", "GETKEYS", "config", "get", "x"]]

FLAG_SAMPLES = [
    ["SET", "k", "v"], ["SET", "k", "v", "GET"], ["SET", "k", "v", "EX", "1", "get"],
    ["BITFIELD", "k", "GET", "u8", "0"], ["BITFIELD", "k", "GET", "u8", "0", "OVERFLOW", "SAT"],
    ["BITFIELD", "k", "INCRBY", "u8", "0", "1"], ["BITFIELD", "k", "GET", "u8"],
    ["ZUNION", "2x", "a", "b"], ["ZUNIONSTORE", "d", " 2", "a", "b"], ["EVAL", "s", "1x", "k"],
    ["LMPOP", "-1", "a", "LEFT"], ["XREAD", "STREAMS", "s1"], ["SORT", "k", "STORE", "d"],
    ["SORT_RO", "k", "GET", "#"], ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"],
    ["OBJECT", "FREQ", "k"], ["DEL", "a", "b"], ["LMOVE", "a", "b", "LEFT", "LEFT"],
    # more keys than Redis' 256-key static buffer
    ["DEL"] + [f"k{i}" for i in range(300)], ["ZUNION", "300"] + [f"z{i}" for i in range(300)],
]


@pytest.mark.parametrize("proto", [2, 3])
def test_named_lookups_help_and_errors_match_redis(servers, proto):
    for argv in NAMED:
        want, got = (servers[w, proto].call(*argv) for w in ("redis", "listd"))
        assert got == want, argv


@pytest.mark.parametrize("proto", [2, 3])
def test_getkeysandflags_matches_redis(servers, proto):
    diffs = []
    for argv in SAMPLES + FLAG_SAMPLES:
        want, got = (servers[w, proto].call("COMMAND", "GETKEYSANDFLAGS", *argv)
                     for w in ("redis", "listd"))
        if want != got:
            diffs.append((argv, want, got))
    assert diffs == []
