#!/usr/bin/env python3
"""Module import cycles in the workspace's crates.

Checked at every level of a crate: among the top-level modules, and among the child modules
of each folder module (`engine/` holds `connection`, `server`, ...; `connection` holds
`connection/jobs.rs`). An edge A -> B is a path (`crate::...`, `super::...`, or through a
name the crate root re-exports) written in a file of A or below that names B or below. A
cycle is a strongly connected set of two or more siblings. Prints each cycle and exits 1
when there is any.

    python3 .ci/cycles.py [CRATE_SRC ...]   (default: every crate of the workspace)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["codec/src", "model/src", "server-core/src", "client/src", "bridge/src", "redis-store/src", "benches/src", "src"]
PATH = re.compile(r"\b(crate|super)((?:::\w+)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::\w+)*)::\{([^;]*)\}", re.S)


def module_of(src: Path, f: Path) -> list[str]:
    """The module path of file `f` in crate `src` (`[]` for lib.rs or main.rs)."""
    rel = f.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in ("lib", "main")):
        parts = parts[:-1]
    return parts


def strip_comments(text: str) -> str:
    """The code of a file without comments and without its unit tests (a `#[cfg(test)]`
    module, at the bottom of a file by the house style)."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    cut = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
    return text[: cut.start()] if cut else text


def reexports(src: Path) -> dict[str, list[str]]:
    """Names the crate root re-exports (`pub use a::b::{C, D}`, `pub use a::b;`), and the path
    each stands for: `crate::C` is a path into `a::b`."""
    out: dict[str, list[str]] = {}
    for root in ("lib.rs", "main.rs"):
        f = src / root
        if not f.exists():
            continue
        text = strip_comments(f.read_text())
        for prefix, body in re.findall(r"pub use ((?:\w+::)*\w+)::\{([^}]*)\}", text):
            for item in re.split(r"[,\s]+", body):
                parts = item.split(" as ")
                name = parts[-1].strip()
                if name and name != "self":
                    out[name] = prefix.split("::") + [parts[0].strip()]
        for path in re.findall(r"pub use ((?:\w+::)+\w+);", text):
            segs = path.split("::")
            out[segs[-1]] = segs
    # A re-export may name another (`pub use connection::{Connection}` after
    # `pub use engine::connection`): expand until the path starts at a real module.
    for _ in range(4):
        for name, segs in out.items():
            if segs[0] in out and out[segs[0]][-1] == segs[0] and out[segs[0]] != [segs[0]]:
                out[name] = out[segs[0]] + segs[1:]
    return out


def targets(module: list[str], kind: str, rest: str) -> list[str] | None:
    """The absolute path a `crate::` or `super::...` path names."""
    segs = [s for s in rest.split("::") if s]
    if kind == "crate":
        return segs
    base = module[:]
    # `super` climbs one level; the path may go on with more `super`s.
    base = base[:-1]
    while segs and segs[0] == "super":
        base = base[:-1]
        segs = segs[1:]
    return base + segs


def modules(src: Path) -> set[tuple[str, ...]]:
    """Every module of the crate that is a file (or a folder), by path. `tests` is the crate's
    cfg(test) support (oracles, seeds), not part of its layers."""
    out: set[tuple[str, ...]] = set()
    for f in src.rglob("*.rs"):
        m = module_of(src, f)
        if m and m[0] != "tests":
            for i in range(1, len(m) + 1):
                out.add(tuple(m[:i]))
    return out


def edges(src: Path) -> dict[tuple[str, ...], dict[str, set[str]]]:
    """For each folder module (the crate root is `()`), the graph of its child modules: an edge
    A -> B when a file in A (or below) names a path in B (or below). A path from a module to
    its own ancestor or descendant is no edge: a parent holds its children."""
    mods = modules(src)
    roots = reexports(src)
    graphs: dict[tuple[str, ...], dict[str, set[str]]] = {}
    for m in mods:
        graphs.setdefault(m[:-1], {})[m[-1]] = set()
    for f in src.rglob("*.rs"):
        module = module_of(src, f)
        if not module or module[0] == "tests":
            continue
        text = strip_comments(f.read_text())
        paths = [(k, r) for k, r in PATH.findall(text)]
        for kind, prefix, group in USE_GROUP.findall(text):
            for item in re.split(r"[,\s]+", group):
                item = item.strip().split("::")[0]
                if item and item not in ("self", "{", "}"):
                    paths.append((kind, f"{prefix}::{item}"))
        for kind, rest in paths:
            t = targets(module, kind, rest)
            if not t:
                continue
            if (t[0],) not in mods and t[0] in roots:
                t = roots[t[0]] + t[1:]
            # The longest module the path names (the rest is an item).
            while t and tuple(t) not in mods:
                t = t[:-1]
            if not t:
                continue
            n = 0
            while n < min(len(t), len(module)) and t[n] == module[n]:
                n += 1
            if n < len(t) and n < len(module):
                graphs[tuple(module[:n])][module[n]].add(t[n])
    return graphs


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected sets of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    crates = sys.argv[1:] or CRATES
    found = 0
    for c in crates:
        src = ROOT / c
        for level, graph in sorted(edges(src).items()):
            where = "/".join((c,) + level)
            for scc in cycles(graph):
                found += 1
                links = [f"{a} -> {b}" for a in scc for b in sorted(graph[a]) if b in scc]
                print(f"{where}: cycle among {', '.join(scc)} ({'; '.join(links)})")
    if found:
        print(f"cycles: {found} module import cycle(s)")
        return 1
    print("cycles: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
