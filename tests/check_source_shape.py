#!/usr/bin/python3
"""Checks the shape rules of docs/CONVENTIONS.md on src/ and include/: no source file over 800
lines (one-data-structure files listed in EXEMPT_FILES), no function body over 80 lines.
Registered in ctest as `architecture.source_shape`.

    tests/check_source_shape.py <source_dir>   # checks <source_dir>/src and <source_dir>/include
    tests/check_source_shape.py --self-test    # proves the scanner finds functions (run first)

A function is a brace block opened at namespace or class level whose head is not a class, struct,
union, enum, namespace, extern block or an initializer (`= {`, `{` after `=`). Its length runs from
the line of its head's opening brace to the line of its closing brace. Lambdas and local blocks are
part of the function they are in. Comments and string/char literals are ignored by the brace count.
Exit status 1 and one `file:line: message` per violation; 0 when clean.
"""
import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80
# One data structure per file (docs/ARCHITECTURE.md): splitting it would scatter one invariant.
# Generated tables (their generator named in their first line) are data, rewritten whole.
EXEMPT_FILES = {"src/store/packed_list.cpp", "src/server/command_reference_data.cpp"}

_NOT_FUNCTION = re.compile(r"^\s*(template\s*<.*>\s*)?(class|struct|union|enum|namespace|extern)\b")


def strip_comments_and_literals(text):
    """Same length per line: comments and literals become spaces, so braces inside them vanish."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    # Preprocessor lines (with their continuations) are not code either.
    lines = "".join(out).split("\n")
    continued = False
    for k, l in enumerate(lines):
        if continued or l.lstrip().startswith("#"):
            continued = l.rstrip().endswith("\\")
            lines[k] = " " * len(l)
    return "\n".join(lines)


def long_functions(text, limit=MAX_FUNCTION_LINES):
    """Yields (first_line, length, head) for each function body longer than `limit` lines."""
    code = strip_comments_and_literals(text)
    # Each open block: (kind, line, head). kind: "scope" (namespace/class-like) or "function"
    # or "other" (inside a function, or an initializer).
    stack = []
    head_start = 0
    line = 1
    for pos, ch in enumerate(code):
        if ch == "\n":
            line += 1
        elif ch == "{":
            head = code[head_start:pos]
            inside_function = any(kind != "scope" for kind, _, _ in stack)
            if inside_function:
                kind = "other"
            elif _NOT_FUNCTION.match(" ".join(head.split())):
                kind = "scope"
            elif re.search(r"=\s*(\[.*)?$", head, re.S) or re.search(r"[^=!<>]=[^=]", head.split(")")[-1]):
                kind = "other"  # an initializer or a lambda at namespace level
            elif "(" not in head:
                kind = "other"  # `T x{...}` braced initializer, `requires` blocks
            else:
                kind = "function"
            stack.append((kind, line, " ".join(head.split())))
            head_start = pos + 1
        elif ch == "}":
            if stack:
                kind, first, head = stack.pop()
                if kind == "function" and line - first + 1 > limit:
                    yield first, line - first + 1, head
            head_start = pos + 1
        elif ch == ";":
            if not any(kind != "scope" for kind, _, _ in stack):
                head_start = pos + 1
        elif ch == ":" and not any(kind != "scope" for kind, _, _ in stack):
            # `public:` / `private:` inside a class end the previous head.
            if re.search(r"\b(public|private|protected)\s*$", code[head_start:pos]):
                head_start = pos + 1


def check_tree(root):
    violations = 0
    for top in ("src", "include"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                lines = text.count("\n")
                if lines > MAX_FILE_LINES and rel not in EXEMPT_FILES:
                    print(f"{rel}:1: {lines} lines (limit {MAX_FILE_LINES}): split along a seam")
                    violations += 1
                for first, length, head in long_functions(text):
                    print(f"{rel}:{first}: function of {length} lines (limit {MAX_FUNCTION_LINES}): "
                          f"{head[:70]}")
                    violations += 1
    return violations


def self_test():
    body = "\n".join(["  x();"] * 85)
    cases = [
        ("long free function", f"void f() {{\n{body}\n}}\n", 1),
        ("long member in a class", f"class A {{\n public:\n  void f() {{\n{body}\n  }}\n}};\n", 1),
        ("long function in a namespace",
         f"namespace a {{\nnamespace {{\nint g(int y) {{\n{body}\n}}\n}}\n}}\n", 1),
        ("long class is not a function", f"struct S {{\n{body.replace('x();', 'int x;')}\n}};\n", 0),
        ("long initializer is not a function", f"const int t[] = {{\n{body.replace('x();', '1,')}\n}};\n", 0),
        ("short function", "void f() {\n  if (a) { b(); }\n}\n", 0),
        ("braces in strings and comments are ignored",
         "void f() {\n  s = \"}}}\"; // }\n  /* { */ c = '{';\n" + body + "\n}\n", 1),
        ("lambda inside a long function counts once",
         f"void f() {{\n  auto l = [] {{ return 1; }};\n{body}\n}}\n", 1),
    ]
    failed = 0
    for name, text, expected in cases:
        got = len(list(long_functions(text)))
        if got != expected:
            print(f"self-test failed: {name}: found {got} long functions, expected {expected}")
            failed += 1
    return failed


def main(argv):
    if self_test():
        return 1
    if argv[1:] == ["--self-test"]:
        print("self-test passed")
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    return 1 if check_tree(argv[1]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
