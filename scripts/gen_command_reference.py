#!/usr/bin/python3
"""Writes src/server/command_reference_data.cpp: what redis-server 7.0.15 reports about each of
its commands and subcommands that is data, not behaviour (include/listd/server/command_reference.h):
the key specs, the legacy (first, last, step), the flags listd has no behaviour for (movablekeys,
no_mandatory_keys, no_async_loading, asking), the tips, and the COMMAND DOCS map as reply tokens.

It starts its own redis-server on a free loopback port, reads COMMAND and COMMAND DOCS in RESP3
(the reply types matter: sets, maps, simple strings) and stops it. Rerun after a Redis update:

    scripts/gen_command_reference.py [/usr/bin/redis-server] > src/server/command_reference_data.cpp
    tests/check_format.sh --fix
"""
import shutil
import socket
import subprocess
import sys
import tempfile
import time

# Flags COMMAND INFO prints that listd's command table does not model (its CommandFlag bits
# are behaviour); the bit values are CommandReference::info_flags' (command_reference.h).
INFO_FLAGS = {"movablekeys": 1, "no_mandatory_keys": 2, "no_async_loading": 4, "asking": 8}
KEY_FLAGS = ["RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
             "incomplete", "variable_flags"]


class Resp3:
    """A blocking RESP3 reader: values as (kind, payload) so sets, maps and arrays stay apart."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.sock.recv(1 << 16) or sys.exit("redis-server closed the connection")
        head, self.buf = self.buf.split(b"\r\n", 1)
        return head

    def exact(self, n):
        while len(self.buf) < n + 2:
            self.buf += self.sock.recv(1 << 16)
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        head = self.line()
        kind, rest = chr(head[0]), head[1:]
        if kind == "$":
            return ("bulk", self.exact(int(rest)))
        if kind == "+":
            return ("simple", rest)
        if kind == ":":
            return ("int", int(rest))
        if kind == "_":
            return ("null", None)
        if kind == "-":
            sys.exit("redis-server: " + rest.decode())
        if kind in "*~":
            return ("array" if kind == "*" else "set", [self.read() for _ in range(int(rest))])
        if kind == "%":
            return ("map", [(self.read(), self.read()) for _ in range(int(rest))])
        sys.exit("unexpected RESP3 type " + kind)


def ask(conn, *argv):
    msg = b"*%d\r\n" % len(argv)
    for a in argv:
        msg += b"$%d\r\n%s\r\n" % (len(a), a.encode())
    conn.sock.sendall(msg)
    return conn.read()


def start_redis(binary):
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    workdir = tempfile.mkdtemp(prefix="gen_command_reference.")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir], stdout=subprocess.DEVNULL)
    for _ in range(200):
        try:
            return proc, socket.create_connection(("127.0.0.1", port)), workdir
        except OSError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("redis-server did not start")


def text(v):
    return v[1].decode() if isinstance(v[1], bytes) else v[1]


def as_dict(v):
    return {text(k): val for k, val in v[1]}


def cxx_string(data):
    """A C++ literal of `data`, octal escapes for everything but printable ASCII."""
    if isinstance(data, str):
        data = data.encode()
    out = []
    for b in data:
        ch = chr(b)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= b < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def key_spec(v):
    d = as_dict(v)
    flags = " | ".join("kKeySpec" + "".join(p.title() for p in f.split("_"))
                       for f in KEY_FLAGS if ("simple", f.encode()) in d["flags"][1]) or "0"
    bs, fk = as_dict(d["begin_search"]), as_dict(d["find_keys"])
    bs_spec, fk_spec = as_dict(bs["spec"]), as_dict(fk["spec"])
    notes = cxx_string(d["notes"][1]) if "notes" in d else "{}"
    kind = text(bs["type"])
    if kind == "index":
        begin = f'{{}}, {bs_spec["index"][1]}'
    elif kind == "keyword":
        begin = f'{cxx_string(bs_spec["keyword"][1])}, {bs_spec["startfrom"][1]}'
    else:
        assert kind == "unknown", kind
        begin = "{}, 0"
    kind = text(fk["type"])
    if kind == "range":
        find = "FindKeys::kRange, " + ", ".join(
            str(fk_spec[f][1]) for f in ("lastkey", "keystep", "limit"))
    elif kind == "keynum":
        find = "FindKeys::kKeynum, " + ", ".join(
            str(fk_spec[f][1]) for f in ("keynumidx", "firstkey", "keystep"))
    else:
        assert kind == "unknown", kind
        find = "FindKeys::kUnknown, 0, 0, 0"
    begin_kind = {"index": "BeginSearch::kIndex", "keyword": "BeginSearch::kKeyword",
                  "unknown": "BeginSearch::kUnknown"}[text(bs["type"])]
    return f"{{{flags}, {notes}, {begin_kind}, {begin}, {find}}}"


TOKEN_KINDS = {"map": "M", "set": "S", "array": "A", "bulk": "B", "int": "I", "simple": "P"}


def doc_tokens(v, out):
    kind = v[0]
    if kind == "map":
        out.append(f"{{M, {{}}, {len(v[1])}}}")
        for k, val in v[1]:
            doc_tokens(k, out)
            doc_tokens(val, out)
    elif kind in ("set", "array"):
        out.append(f"{{{TOKEN_KINDS[kind]}, {{}}, {len(v[1])}}}")
        for item in v[1]:
            doc_tokens(item, out)
    elif kind == "int":
        out.append(f"{{I, {{}}, {v[1]}}}")
    else:
        out.append(f"{{{TOKEN_KINDS[kind]}, {cxx_string(v[1])}}}")


class Tables:
    def __init__(self):
        self.specs, self.tips, self.tokens, self.rows = [], [], [], {}

    def add_info(self, entry):
        name, _arity, flags, first, last, step, _cats, tips, specs, subs = entry[1]
        info_flags = sum(bit for f, bit in INFO_FLAGS.items() if ("simple", f.encode()) in flags[1])
        row = {"first": first[1], "last": last[1], "step": step[1], "info_flags": info_flags,
               "specs": (len(self.specs), len(specs[1])), "tips": (len(self.tips), len(tips[1]))}
        self.specs += [key_spec(s) for s in specs[1]]
        self.tips += [cxx_string(t[1]) for t in tips[1]]
        self.rows[text(name)] = row
        for sub in sorted(subs[1], key=lambda e: e[1][0][1]):
            self.add_info(sub)

    def add_docs(self, name, docmap):
        entries = [(k, v) for k, v in docmap[1] if text(k) != "subcommands"]
        begin = len(self.tokens)
        for k, v in entries:
            doc_tokens(k, self.tokens)
            doc_tokens(v, self.tokens)
        self.rows[name]["docs"] = (begin, len(self.tokens) - begin, len(entries))
        for k, v in docmap[1]:
            if text(k) == "subcommands":
                for sub_name, sub_map in sorted(v[1], key=lambda kv: kv[0][1]):
                    self.add_docs(text(sub_name), sub_map)


def packed(items, indent="    "):
    """The items comma-separated, as many per line as fit in 100 columns."""
    lines, line = [], indent
    for item in items:
        if len(line) + len(item) + 2 > 100 and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += item + ", "
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


def emit(t):
    print("// Generated by scripts/gen_command_reference.py from redis-server 7.0.15's COMMAND and")
    print("// COMMAND DOCS (RESP3): the reference data of every Redis command (command_reference.h).")
    print("// Do not edit; rerun the script.")
    print('#include "listd/server/command_reference.h"\n')
    print("#include <iterator>\n")
    print("namespace listd::server {")
    print("// clang-format off")
    # A named namespace: the unity build puts other files of the part in this translation unit,
    # and their names must not meet the one-letter token kinds.
    print("namespace reference_data {\n")
    print("using BeginSearch = ReferenceKeySpec::BeginSearch;")
    print("using FindKeys = ReferenceKeySpec::FindKeys;")
    print("constexpr auto M = DocToken::kMap, S = DocToken::kSet, A = DocToken::kArray,")
    print("               B = DocToken::kBulk, I = DocToken::kInteger, P = DocToken::kSimple;\n")
    print("constexpr ReferenceKeySpec kReferenceKeySpecs[] = {")
    print("\n".join("    " + s + "," for s in t.specs))
    print("};\n")
    print("constexpr std::string_view kReferenceTips[] = {")
    print(packed(t.tips))
    print("};\n")
    print("constexpr DocToken kReferenceDocTokens[] = {")
    print(packed(t.tokens))
    print("};\n")
    print("}  // namespace reference_data\n")
    print("const CommandReference kCommandReferences[] = {")
    for name in sorted(t.rows):
        r = t.rows[name]
        docs = r.get("docs", (0, 0, 0))
        print(f'    {{{cxx_string(name)}, {r["first"]}, {r["last"]}, {r["step"]}, {r["info_flags"]}, '
              f'{r["specs"][0]}, {r["specs"][1]}, {r["tips"][0]}, {r["tips"][1]}, '
              f'{docs[0]}, {docs[1]}, {docs[2]}}},')
    print("};")
    print("const std::size_t kCommandReferenceCount = std::size(kCommandReferences);")
    print("const std::span<const ReferenceKeySpec> kCommandReferenceKeySpecs = "
          "reference_data::kReferenceKeySpecs;")
    print("const std::span<const std::string_view> kCommandReferenceTips = "
          "reference_data::kReferenceTips;")
    print("const std::span<const DocToken> kCommandReferenceDocTokens = "
          "reference_data::kReferenceDocTokens;")
    print("// clang-format on\n")
    print("}  // namespace listd::server")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/redis-server"
    proc, sock, workdir = start_redis(binary)
    try:
        conn = Resp3(sock)
        version = as_dict(ask(conn, "HELLO", "3"))["version"][1].decode()
        assert version == "7.0.15", "generate from redis-server 7.0.15, not " + version
        tables = Tables()
        # Redis lists its commands in hash order, random per start: sorted, a rerun is stable.
        for entry in sorted(ask(conn, "COMMAND")[1], key=lambda e: e[1][0][1]):
            tables.add_info(entry)
        for name, docmap in sorted(ask(conn, "COMMAND", "DOCS")[1], key=lambda kv: kv[0][1]):
            tables.add_docs(text(name), docmap)
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(workdir, ignore_errors=True)
    emit(tables)


main()
