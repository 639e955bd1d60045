"""Shared by the Python interop clients: the server command (through tap.py), the test data,
the checks on the recorded wire, and the result lines. Standard library only."""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

MODERN = "2026-07-28"
LATEST_HANDSHAKE = "2025-11-25"
PV_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
TOOLS = {"echo", "add", "fail", "sleep"}
UNKNOWN_TOOL = "no-such-tool"
# How long one mode may take, all calls included (seconds).
MODE_TIMEOUT = 60

SMALL_TEXT = 'héllo, janus: "quoted" \\ back\tslash\nline ✓ 🦀 \u2028 \u0001'


def big_text():
    """Exactly 1 MiB (1,048,576 bytes of UTF-8), with escapes and multi-byte characters."""
    unit = 'janus "echo" \\ tab\t nl\n é ✓ 🦀 ctl\u0001 '
    out = []
    size = 0
    target = 1 << 20
    while size < target:
        for ch in unit:
            n = len(ch.encode("utf-8"))
            if size + n > target:
                break
            out.append(ch)
            size += n
        else:
            continue
        break
    text = "".join(out)
    # Pad with ASCII to the exact size (a multi-byte character may not have fitted).
    text += "x" * (target - len(text.encode("utf-8")))
    assert len(text.encode("utf-8")) == target
    return text


def janus_bin():
    path = os.environ.get("JANUS_BIN") or str(ROOT / "target" / "release" / "janus")
    if not os.access(path, os.X_OK):
        raise SystemExit(f"interop: no janus binary at {path} (build it, or set JANUS_BIN)")
    return path


def wire_dir():
    d = Path(os.environ.get("JANUS_INTEROP_WIRE") or ROOT / "target" / "interop" / "wire")
    d.mkdir(parents=True, exist_ok=True)
    return d


def tapped_command(log_path, *extra):
    """(command, args) that start `janus serve` (with `extra` arguments) behind the wire
    recorder."""
    return sys.executable, [str(HERE / "tap.py"), str(log_path), "--", janus_bin(), "serve", *extra]


class Wire:
    """The recorded lines of one connection."""

    def __init__(self, path):
        self.client = []  # parsed messages the client wrote
        self.server = []  # parsed messages the server wrote
        self.exit_code = None
        self.torn = []
        with open(path, "rb") as f:
            for raw in f:
                tag, _, body = raw.rstrip(b"\n").partition(b" ")
                if tag == b"C":
                    self.client.append(json.loads(body))
                elif tag == b"S":
                    self.server.append(json.loads(body))
                elif tag == b"X":
                    self.exit_code = int(body)
                else:
                    self.torn.append(tag)

    def requests(self):
        return [m for m in self.client if isinstance(m, dict) and "method" in m and "id" in m]

    def notifications(self):
        return [m for m in self.client if isinstance(m, dict) and "method" in m and "id" not in m]

    def response(self, req_id):
        found = [m for m in self.server if isinstance(m, dict) and m.get("id") == req_id and "method" not in m]
        check(len(found) == 1, f"{len(found)} responses to request id {req_id!r}")
        return found[0]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def envelope_of(req):
    meta = (req.get("params") or {}).get("_meta")
    return meta if isinstance(meta, dict) else None


def check_common(w):
    """Every request answered once, lines intact, and `janus serve` exited 0 at end of input."""
    check(not w.torn, f"partial or unknown lines on the wire: {w.torn}")
    check(all(isinstance(m, dict) for m in w.server), "the server wrote a batch")
    for req in w.requests():
        w.response(req["id"])
    check(w.exit_code == 0, f"janus serve exit code {w.exit_code} (want 0 at end of input)")
    unknown = [r for r in w.requests() if r["method"] == "tools/call" and r["params"].get("name") == UNKNOWN_TOOL]
    check(len(unknown) == 1, "no tools/call of the unknown tool on the wire")
    err = w.response(unknown[0]["id"]).get("error") or {}
    check(err.get("code") == -32602, f"unknown tool answered {err} on the wire (want -32602)")


def check_legacy(w, offered, negotiated):
    """The initialize handshake: what was offered and what the server answered; no envelope after."""
    check_common(w)
    reqs = w.requests()
    check(reqs and reqs[0]["method"] == "initialize", f"first request is {reqs[0]['method'] if reqs else None}, want initialize")
    check(not any(r["method"] == "server/discover" for r in reqs), "server/discover sent in legacy mode")
    check(reqs[0]["params"].get("protocolVersion") == offered, f"initialize offered {reqs[0]['params'].get('protocolVersion')}, want {offered}")
    result = w.response(reqs[0]["id"]).get("result") or {}
    check(result.get("protocolVersion") == negotiated, f"initialize answered {result.get('protocolVersion')}, want {negotiated}")
    check(
        any(n["method"] == "notifications/initialized" for n in w.notifications()),
        "no notifications/initialized",
    )
    for r in reqs[1:]:
        env = envelope_of(r)
        check(not (env and PV_KEY in env), f"{r['method']} carried the modern envelope on a legacy connection")
        res = w.response(r["id"]).get("result")
        if isinstance(res, dict):
            check("resultType" not in res, f"a legacy {r['method']} result carries resultType")
    return f"initialize {offered}->{result.get('protocolVersion')}"


def check_modern(w, probe):
    """Every request enveloped at 2026-07-28, no initialize; with `probe`, server/discover first."""
    check_common(w)
    reqs = w.requests()
    check(not any(r["method"] == "initialize" for r in reqs), "initialize sent in a modern mode")
    discovers = [r for r in reqs if r["method"] == "server/discover"]
    if probe:
        check(reqs and reqs[0]["method"] == "server/discover", "the first request is not server/discover")
        res = w.response(reqs[0]["id"]).get("result") or {}
        check(MODERN in res.get("supportedVersions", []), f"discover answered {res}")
    else:
        check(not discovers, "server/discover sent in the pinned mode")
    for r in reqs:
        env = envelope_of(r) or {}
        check(env.get(PV_KEY) == MODERN, f"{r['method']} envelope version {env.get(PV_KEY)!r}")
        check(isinstance(env.get(CAPS_KEY), dict), f"{r['method']} envelope lacks clientCapabilities")
        res = w.response(r["id"]).get("result")
        if res is not None:
            check(res.get("resultType") == "complete", f"{r['method']} result lacks resultType")
            check(SERVER_INFO_KEY in (res.get("_meta") or {}), f"{r['method']} result lacks serverInfo")
    first = reqs[0]["method"]
    return f"{first} first, every request enveloped {MODERN}"


class Report:
    """One result line per mode; a summary; the exit status."""

    def __init__(self, lane):
        self.lane = lane
        self.passed = 0
        self.failed = 0

    def ok(self, mode, negotiated, wire_note):
        self.passed += 1
        print(f"{self.lane} mode={mode} negotiated={negotiated} wire=[{wire_note}]: PASS", flush=True)

    def fail(self, mode, err):
        self.failed += 1
        # Task groups wrap the failure: report the innermost one.
        while isinstance(getattr(err, "exceptions", None), tuple) and len(err.exceptions) == 1:
            err = err.exceptions[0]
        print(f"{self.lane} mode={mode}: FAIL: {type(err).__name__}: {err}", flush=True)

    def finish(self):
        print(f"{self.lane.split()[0]}: {self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 and self.passed > 0 else 1


def start_http(*extra):
    """Starts `janus serve --http` on a free loopback port; returns (process, endpoint URL)."""
    import subprocess
    env = dict(os.environ, JANUS_LOG="info")
    p = subprocess.Popen(
        [os.environ["JANUS_BIN"], "serve", "--http", "127.0.0.1:0", *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    for _ in range(50):
        line = p.stderr.readline()
        if not line:
            break
        if "listening (HTTP)" in line and "addr=" in line:
            return p, f"http://{line.split('addr=')[1].split()[0]}/mcp"
    p.kill()
    raise RuntimeError("janus serve --http did not say where it listens")


def stop_http(p):
    """SIGTERM must drain and exit 0; returns an error line, or None."""
    import signal
    import subprocess
    p.send_signal(signal.SIGTERM)
    try:
        code = p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        code = "timeout"
    return None if code == 0 else f"FAIL janus serve --http exited {code} after SIGTERM"
