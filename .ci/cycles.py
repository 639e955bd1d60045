#!/usr/bin/env python3
"""Module import cycles in the workspace's crates.

A crate's modules are grouped by their top-level module (`connection` holds
`connection/tasks_wire.rs`): an edge A -> B is a path `crate::B...` (or a `super::` path
that climbs out of A to B) written in a file of A. A cycle is a strongly connected set of
two or more top-level modules. Prints each cycle and exits 1 when there is any.

    python3 .ci/cycles.py [CRATE_SRC ...]   (default: every crate of the workspace)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["codec/src", "server-core/src", "client/src", "benches/src", "src"]
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


def reexports(src: Path) -> dict[str, str]:
    """Names the crate root re-exports (`pub use m::{A, B}`), and the module each is from:
    `crate::A` is an edge to `m`."""
    out: dict[str, str] = {}
    for root in ("lib.rs", "main.rs"):
        f = src / root
        if not f.exists():
            continue
        text = strip_comments(f.read_text())
        for m, body in re.findall(r"pub use (\w+)::\{([^}]*)\}", text):
            for item in re.split(r"[,\s]+", body):
                name = item.split(" as ")[-1].strip()
                if name:
                    out[name] = m
        for m, item in re.findall(r"pub use (\w+)(?:::\w+)*::(\w+);", text):
            out[item] = m
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


def edges(src: Path) -> dict[str, set[str]]:
    mods = {p.stem for p in src.glob("*.rs")} | {p.name for p in src.iterdir() if p.is_dir()}
    # NB. `tests` is the crate's cfg(test) support (oracles, seeds), not part of its layers.
    mods -= {"lib", "main", "tests"}
    roots = reexports(src)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for f in src.rglob("*.rs"):
        module = module_of(src, f)
        if not module or module[0] not in mods:
            continue
        here = module[0]
        text = strip_comments(f.read_text())
        paths = [(k, r) for k, r in PATH.findall(text)]
        for kind, prefix, group in USE_GROUP.findall(text):
            for item in re.split(r"[,\s]+", group):
                item = item.strip().split("::")[0]
                if item and item not in ("self", "{", "}"):
                    paths.append((kind, f"{prefix}::{item}"))
        for kind, rest in paths:
            t = targets(module, kind, rest)
            if t and t[0] not in mods:
                t = [roots[t[0]]] if t[0] in roots else None
            if t and t[0] in mods and t[0] != here:
                graph[here].add(t[0])
    return graph


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
        graph = edges(src)
        for scc in cycles(graph):
            found += 1
            links = [f"{a} -> {b}" for a in scc for b in sorted(graph[a]) if b in scc]
            print(f"{c}: cycle among {', '.join(scc)} ({'; '.join(links)})")
    if found:
        print(f"cycles: {found} module import cycle(s)")
        return 1
    print("cycles: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
