#!/usr/bin/env python3
"""Generates the seed corpora of the fuzz targets, and the dictionary.

Sources (nothing is copied by hand):
- ../tests/conformance/decisions.json, the repository's own scenarios (one per rule of
  decisions.md), and the files named in $JANUS_SCENARIOS (colon-separated; CI names the
  project's shared scenarios.json beside the checkout): every line a client sends;
- ../codec/src/tests/seeds.rs: the `SEEDS` table of the codec, whose Rust byte-string
  literals (and the `const`s they name) are decoded here.

Writes fuzz/corpus/<target>/seed-* (fuzz/corpus is git-ignored) and fuzz/mcp.dict.
Each target's input format is described at the top of its fuzz_targets/<target>.rs.

Usage: python3 fuzz/seeds.py   (from anywhere; paths are relative to this file)
"""

import hashlib
import json
import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Nothing outside the repository is needed: more scenario files come only when named.
SCENARIOS = [os.path.join(ROOT, "tests", "conformance", "decisions.json")] + [
    p for p in os.environ.get("JANUS_SCENARIOS", "").split(":") if p
]
SEEDS_RS = os.path.join(ROOT, "codec", "src", "tests", "seeds.rs")
CORPUS = os.path.join(HERE, "corpus")
DICT = os.path.join(HERE, "mcp.dict")

TARGETS = ["frame", "message", "era", "encode", "connection"]
# Seeds stay small, so libFuzzer's default -max_len (the largest seed, at least 4096) stays
# small and mutations stay fast. Longer lines (the 2 MB echo, the 100 000-deep nesting) are
# left out: the codec's seed table has the depth boundaries, and the frame target makes
# oversize lines with a small limit.
MAX_LINE = 8 * 1024
MAX_SEED = 16 * 1024
PER_SCENARIO = 12

BOM = b"\xef\xbb\xbf"


# ---------------------------------------------------------------------------------------------
# Rust literals of seeds.rs.
# ---------------------------------------------------------------------------------------------


class Lexer:
    """Reads Rust expressions of seeds.rs: literals, `&NAME`, `NAME`, `nest(a, n, b)` and
    `nest_around(a, n, core, b)`."""

    def __init__(self, text, consts):
        self.s = text
        self.i = 0
        self.consts = consts

    def ws(self):
        while True:
            while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
                self.i += 1
            if self.s.startswith("//", self.i):
                self.i = self.s.index("\n", self.i)
                continue
            return

    def eat(self, tok):
        self.ws()
        if not self.s.startswith(tok, self.i):
            raise ValueError(f"expected {tok!r} at {self.s[self.i:self.i + 60]!r}")
        self.i += len(tok)

    def expr(self):
        """A byte-string expression; returns bytes."""
        self.ws()
        s, i = self.s, self.i
        m = re.compile(r"b?r(#*)\"").match(s, i)
        if m:  # raw (byte) string: br#"..."#
            hashes = m.group(1)
            end = s.index('"' + hashes, m.end())
            self.i = end + 1 + len(hashes)
            raw = s[m.end():end].encode("utf-8")
            return self.suffix(raw)
        if s.startswith('b"', i):
            self.i = i + 1
            return self.suffix(self.quoted(byte=True))
        if s.startswith('"', i):
            return self.suffix(self.quoted(byte=False))
        if s.startswith("&", i):
            self.i += 1
            return self.expr()
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(s, i)
        if m:
            name = m.group(0)
            self.i = m.end()
            if name in ("nest", "nest_around"):
                self.eat("(")
                prefix = self.expr()
                self.eat(",")
                self.ws()
                n = re.compile(r"\d+").match(self.s, self.i)
                self.i = n.end()
                self.eat(",")
                core = b""
                if name == "nest_around":
                    core = self.expr()
                    self.eat(",")
                suffix = self.expr()
                self.eat(")")
                levels = int(n.group(0))
                return prefix + b"[" * levels + core + b"]" * levels + suffix
            if name not in self.consts:
                raise ValueError(f"unknown constant {name}")
            return self.consts[name]
        raise ValueError(f"cannot read an expression at {s[i:i + 60]!r}")

    def suffix(self, value):
        """`.as_bytes()` after a string literal changes nothing here."""
        if self.s.startswith(".as_bytes()", self.i):
            self.i += len(".as_bytes()")
        return value

    def quoted(self, byte):
        """A "..." literal with its escapes, the cursor on the opening quote."""
        s = self.s
        assert s[self.i] == '"'
        self.i += 1
        out = bytearray()
        while True:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return bytes(out)
            if c != "\\":
                out += c.encode("utf-8")
                self.i += 1
                continue
            e = s[self.i + 1]
            self.i += 2
            simple = {"n": b"\n", "r": b"\r", "t": b"\t", "0": b"\0", "\\": b"\\",
                      '"': b'"', "'": b"'"}
            if e in simple:
                out += simple[e]
            elif e == "x":
                out.append(int(s[self.i:self.i + 2], 16))
                self.i += 2
            elif e == "u" and not byte:
                end = s.index("}", self.i)
                out += chr(int(s[self.i + 1:end], 16)).encode("utf-8")
                self.i = end + 1
            elif e == "\n":  # a line continuation skips the white space after it
                while s[self.i] in " \t\r\n":
                    self.i += 1
            else:
                raise ValueError(f"unknown escape \\{e}")


def seed_table():
    """[(name, input bytes)] of the codec's SEEDS table."""
    text = open(SEEDS_RS, encoding="utf-8").read()
    consts = {}
    for m in re.finditer(r"^const ([A-Z0-9_]+): [^=]+=\s+", text, re.M):
        lex = Lexer(text, consts)
        lex.i = m.end()
        try:
            consts[m.group(1)] = lex.expr()
        except (ValueError, IndexError):
            pass  # not a byte-string constant (a table of outcomes, say)
    start = text.index("pub(super) static SEEDS")
    end = text.index("\n];", start)
    table = text[start:end]
    seeds = []
    for m in re.finditer(r"\bseed\(", table):
        lex = Lexer(table, consts)
        lex.i = m.end()
        lex.ws()
        name = lex.quoted(byte=False).decode("utf-8")
        lex.eat(",")
        seeds.append((name, lex.expr()))
    if len(seeds) < 100:
        sys.exit(f"seeds.py: only {len(seeds)} seeds read from {SEEDS_RS}")
    return seeds


# ---------------------------------------------------------------------------------------------
# Conformance scenarios.
# ---------------------------------------------------------------------------------------------


def scenarios():
    """[(name, [step])]: a step is ('send', bytes) or ('wait',)."""
    out = []
    for path in SCENARIOS:
        with open(path, encoding="utf-8") as f:
            out.extend(scenarios_of(json.load(f)))
    return out


def scenarios_of(data):
    """The scenarios of one file."""
    out = []
    for sc in data["scenarios"]:
        steps = []
        for st in sc["steps"]:
            if "send" in st:
                steps.append(("send", st["send"].encode("utf-8")))
            elif "send_hex" in st:
                steps.append(("send", bytes.fromhex(st["send_hex"])))
            else:
                steps.append(("wait",))
        out.append((sc["name"], steps))
    return out


def sends(steps):
    return [s[1] for s in steps if s[0] == "send"]


# ---------------------------------------------------------------------------------------------
# Inputs, in each target's format.
# ---------------------------------------------------------------------------------------------


def frame_input(stream, limit=0xFF, chunking=0x9E3779B9):
    """frame: limit byte (0xff: default), 4 bytes of chunking seed, the stream."""
    return bytes([limit]) + struct.pack("<I", chunking) + stream


def connection_input(steps, header=0x00):
    """connection: header byte, then raw-bytes steps (tag 0) and run-every-job steps (0xff)."""
    out = bytearray([header])
    for st in steps:
        if st[0] == "send":
            line = st[1] + b"\n"
            if len(line) > 0xFFFF or len(line) > MAX_LINE:
                continue
            step = b"\x00" + struct.pack("<H", len(line)) + line
        else:
            step = b"\xff"
        if len(out) + len(step) > MAX_SEED:
            break
        out += step
    return bytes(out)


def meta_and_params(line):
    """The `_meta` and `params` of a call, as compact JSON text, when it has them."""
    if len(line) > MAX_LINE:
        return []
    try:
        v = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    items = v if isinstance(v, list) else [v]
    out = []
    for m in items:
        p = m.get("params") if isinstance(m, dict) else None
        if isinstance(p, dict) and "_meta" in p:
            out.append((1, json.dumps(p["_meta"], separators=(",", ":")).encode("utf-8")))
        if p is not None:
            out.append((4, json.dumps(p, separators=(",", ":")).encode("utf-8")))
    return out


def write(target, data, tag):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = f"seed-{tag}-{hashlib.sha1(data).hexdigest()[:16]}"
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---------------------------------------------------------------------------------------------
# The dictionary.
# ---------------------------------------------------------------------------------------------


def dict_entry(b):
    out = ""
    for c in b:
        if c in (0x22, 0x5C) or c < 0x20 or c > 0x7E:
            out += f"\\x{c:02x}"
        else:
            out += chr(c)
    return f'"{out}"'


def collect_tokens(value, keys, strings):
    if isinstance(value, dict):
        for k, v in value.items():
            keys.add(k)
            collect_tokens(v, keys, strings)
    elif isinstance(value, list):
        for v in value:
            collect_tokens(v, keys, strings)
    elif isinstance(value, str) and len(value) <= 48:
        strings.add(value)


def dictionary(all_sends):
    keys, strings = set(), set()
    for line in all_sends:
        if len(line) > MAX_LINE:
            continue
        try:
            collect_tokens(json.loads(line), keys, strings)
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass
    # Methods and versions are strings of the scenarios; keep those that look like protocol
    # words, not the free text of tool arguments.
    protocol = {s for s in strings if re.fullmatch(r"[a-z]+(/[a-zA-Z]+)+|\d{4}-\d\d-\d\d|2\.0", s)}
    tokens = set()
    for k in keys:
        tokens.add(json.dumps(k).encode() + b":")
    for s in protocol:
        tokens.add(json.dumps(s).encode())
    # JSON and JSON-RPC syntax the scenarios do not spell out.
    tokens |= {
        b'{"jsonrpc":"2.0",', b'"id":null', b'"id":"1"', b"null", b"true", b"false",
        b"-0", b"1e309", b"1.7976931348623158e308", b"18446744073709551616",
        b"-9223372036854775809", b"\\u0000", b"\\ud800", b"\\udc00", b"\\ud83d\\ude00",
        b"\\/", b'\\"', b"\\\\", b"\\u005f", b"\r\n", BOM, b"[]", b"{}", b"[[[[", b"]]]]",
    }
    # The server surface, which the scenarios do not all reach.
    for m in ["prompts/list", "prompts/get", "resources/list", "resources/read",
              "resources/templates/list", "resources/subscribe", "completion/complete",
              "logging/setLevel", "ref/prompt", "ref/resource", "fuzz://item/7", "greet"]:
        tokens.add(json.dumps(m).encode())
    for k in ["uri", "ref", "argument", "context", "cursor", "level"]:
        tokens.add(json.dumps(k).encode() + b":")
    with open(DICT, "w", encoding="ascii") as f:
        f.write("# MCP keys, methods and versions (from the conformance scenarios), and JSON\n")
        f.write("# edge cases. Generated by seeds.py: do not edit.\n")
        for t in sorted(tokens):
            f.write(dict_entry(t) + "\n")
    return len(tokens)


# ---------------------------------------------------------------------------------------------


def main():
    table = seed_table()
    scs = scenarios()
    if os.path.isdir(CORPUS):
        for t in TARGETS:
            d = os.path.join(CORPUS, t)
            if os.path.isdir(d):
                for f in os.listdir(d):
                    if f.startswith("seed-"):
                        os.remove(os.path.join(d, f))
    lines = [s for _, steps in scs for s in sends(steps)]
    # The distinct short lines of each scenario, a dozen at most (pipelined-1000 sends a
    # thousand lines that differ only in their id).
    short = []
    for _, steps in scs:
        mine = [line for line in dict.fromkeys(sends(steps)) if len(line) <= MAX_LINE]
        short += [line for line in mine[:PER_SCENARIO] if line not in short]
    frames = [inp for _, inp in table] + short

    # message: every frame as it is.
    for f in frames:
        write("message", f, "m")

    # era: every frame (mode 0), and the _meta (mode 1..3) and params (mode 4) of each call.
    for f in frames:
        write("era", b"\x00" + f, "e")
        for mode, text in meta_and_params(f):
            write("era", bytes([mode]) + text, "e")
            if mode == 1:
                write("era", b"\x02" + text, "e")

    # frame: each scenario's stream whole; each frame behind a BOM, with CRLF and blank lines,
    # twice; and the same with a limit that makes the first copy oversize.
    for name, steps in scs:
        stream = b"".join(s + b"\n" for s in sends(steps) if len(s) <= MAX_LINE)
        write("frame", frame_input(stream[:MAX_SEED]), "s")
    for f in frames:
        stream = BOM + f + b"\r\n\n \r\n" + f + b"\n"
        write("frame", frame_input(stream), "f")
        if 0 < len(f) < 0xFF:
            write("frame", frame_input(b"x" * len(f) + b"x\n" + f + b"\n", limit=len(f)), "f")

    # encode: the target reads its input through `arbitrary`, so a frame seeds realistic
    # strings (ids, methods, escapes) rather than one exact structure.
    for f in frames:
        write("encode", f, "t")

    # connection: each scenario as its client sends it, with every expectation a point where
    # the jobs in flight are run; each table frame alone and after the opening line of a
    # 2025-03-26 session (batches) and of a modern session.
    for name, steps in scs:
        write("connection", connection_input(steps), "s")
    openers = []
    for name, steps in scs:
        first = sends(steps)[:1]
        if first and b'"2025-03-26"' in first[0] and b'"initialize"' in first[0]:
            openers.append([("send", first[0]), ("wait",)])
            break
    for name, steps in scs:
        first = sends(steps)[:1]
        if first and b"io.modelcontextprotocol/protocolVersion" in first[0]:
            openers.append([("send", first[0]), ("wait",)])
            break
    for _, inp in table:
        write("connection", connection_input([("send", inp), ("wait",)]), "t")
        for opener in openers:
            write("connection", connection_input(opener + [("send", inp), ("wait",)]), "t")

    n = dictionary(lines)
    counts = {t: len(os.listdir(os.path.join(CORPUS, t))) for t in TARGETS}
    print(f"seeds.py: {len(table)} table seeds, {len(scs)} scenarios, {n} dictionary entries")
    print("seeds.py: corpus files " + ", ".join(f"{t} {c}" for t, c in counts.items()))


if __name__ == "__main__":
    main()
