"""Janus behind a real balancer (the scale lane): one Redis, three `janus serve --http
--store redis://... --node-id rN --metrics ...` replicas, and nginx then HAProxy in front, with
the configurations of deploy/ (their ports changed to free ones). Through each balancer:

- 2026-07-28 requests spread over all three replicas (counted by each replica's /metrics);
- a task made through the balancer is polled to its end through it (other replicas);
- python-sdk v2 (legacy mode) and v1 (streamablehttp_client) sessions stay on the replica
  that minted them for their whole life (each replica's legacy counts);
- the replica of the v1 session is killed (SIGKILL): modern requests that a client retries
  all succeed, the v1 session fails and a new one is served by another replica;
- the killed replica is restarted: a session it mints is served through the balancer at
  once (nginx), or within a health check (HAProxy);
- the same with a python-sdk v2 legacy session (its replica restarted first, then killed):
  the session's next call gets 404 from another replica, and the client re-initialises
  there (or fails, and a new client does).

Every process is started here on loopback and stopped by its pid. Exit status 1 on any
failure.
"""

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

import anyio
from mcp import Client

ROOT = Path(__file__).resolve().parent.parent.parent
JANUS = os.environ["JANUS_BIN"]
PY_V1 = os.environ["JANUS_SCALE_PY_V1"]
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


def check(ok, what):
    if not ok:
        raise AssertionError(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, what, proc=None):
    deadline = time.time() + 15
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} never listened on {port}")


def http(url, body=None, headers=None, timeout=15):
    """One request on its own connection: (status, text)."""
    req = urllib.request.Request(url, data=body.encode() if body else None, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def answer_of(text):
    """The JSON-RPC answer in a JSON body or the last event of an SSE body."""
    lines = [l[5:].strip() if l.startswith("data:") else l.strip() for l in text.splitlines()]
    lines = [l for l in lines if l.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def modern(url, rid, method, params, name=None, caps=None):
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps or {},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    if name:
        headers["mcp-name"] = name
    status, text = http(url, body, headers)
    return status, answer_of(text)


def echo(url, rid, text):
    return modern(url, rid, "tools/call", {"name": "echo", "arguments": {"text": text}}, "echo")


LEGACY = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def legacy_session(url):
    """A 2025-11-25 session opened at `url` (initialize, then initialized): its id."""
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "balancer", "version": "0"}}})
    req = urllib.request.Request(url, data=body.encode(), headers=LEGACY)
    with urllib.request.urlopen(req, timeout=15) as r:
        session = r.headers["mcp-session-id"]
        r.read()
    headers = dict(LEGACY, **{"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
    status, _ = http(url, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                     headers)
    check(status == 202, f"initialized: {status}")
    return session


def legacy_echo(url, session, rid, text):
    headers = dict(LEGACY, **{"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": text}}})
    status, text = http(url, body, headers)
    return status, answer_of(text)


class Replicas:
    def __init__(self, redis_port):
        self.redis = f"redis://127.0.0.1:{redis_port}"
        self.key = secrets.token_hex(32)
        self.ports = [(free_port(), free_port()) for _ in range(3)]
        self.procs = [None, None, None]
        for i in range(3):
            self.start(i)

    def start(self, i):
        http_port, metrics_port = self.ports[i]
        env = dict(os.environ, JANUS_STATE_KEY=self.key)
        self.procs[i] = subprocess.Popen(
            [JANUS, "serve", "--http", f"127.0.0.1:{http_port}", "--node-id", f"r{i}",
             "--store", self.redis, "--metrics", f"127.0.0.1:{metrics_port}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        wait_port(http_port, f"replica r{i}", self.procs[i])
        wait_port(metrics_port, f"replica r{i}'s metrics", self.procs[i])

    def kill(self, i):
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait()

    def counts(self, method, era, outcome="ok"):
        """Each replica's count of answered `method` requests of `era` with `outcome`."""
        series = f'mcp_requests_total{{method="{method}",era="{era}",outcome="{outcome}"}} '
        out = []
        for i, (_, metrics_port) in enumerate(self.ports):
            if self.procs[i].poll() is not None:
                out.append(None)
                continue
            _, page = http(f"http://127.0.0.1:{metrics_port}/metrics")
            value = 0.0
            for line in page.splitlines():
                if line.startswith(series):
                    value = float(line[len(series):])
            out.append(value)
        return out

    def stop(self):
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            if p is not None:
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()


def deltas(before, after):
    return [None if a is None or b is None else a - b for b, a in zip(before, after)]


def front_config(kind, replicas, port, workdir):
    """deploy/'s configuration with the replicas' and the balancer's ports."""
    text = (ROOT / "deploy" / ("nginx.conf" if kind == "nginx" else "haproxy.cfg")).read_text()
    for i, (http_port, metrics_port) in enumerate(replicas.ports):
        text = text.replace(f"127.0.0.1:700{i + 1}", f"127.0.0.1:{http_port}")
        text = text.replace(f"port 910{i + 1}", f"port {metrics_port}")
    text = re.sub(r"127\.0\.0\.1:808[01]", f"127.0.0.1:{port}", text)
    path = workdir / ("nginx.conf" if kind == "nginx" else "haproxy.cfg")
    path.write_text(text)
    return path


def start_front(kind, replicas, workdir):
    port = free_port()
    path = front_config(kind, replicas, port, workdir)
    if kind == "nginx":
        tmp = workdir / "tmp"
        tmp.mkdir(exist_ok=True)
        os.chmod(tmp, 0o777)
        cmd = ["nginx", "-p", str(workdir), "-c", str(path), "-g", "daemon off;"]
    else:
        cmd = ["haproxy", "-f", str(path), "-db"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    wait_port(port, kind, proc)
    if kind == "haproxy":
        time.sleep(1.5)  # its first health checks
    return proc, f"http://127.0.0.1:{port}/mcp"


async def v2_session(url, calls):
    with anyio.fail_after(60):
        async with Client(url, mode="legacy", read_timeout_seconds=30) as c:
            for i in range(calls):
                r = await c.call_tool("echo", {"text": f"v2 {i}"})
                check(r.content[0].text == f"v2 {i}", f"v2 echo {i}")


async def v2_killed(url, replicas):
    """A v2 legacy session whose replica is killed: what its next call does, then a new
    session. Returns what happened, as a sentence."""
    before = replicas.counts("tools/call", "legacy")
    outcome = None
    try:
        with anyio.fail_after(60):
            async with Client(url, mode="legacy", read_timeout_seconds=30) as c:
                r = await c.call_tool("echo", {"text": "v2 before"})
                check(r.content[0].text == "v2 before", f"{r}")
                d = deltas(before, replicas.counts("tools/call", "legacy"))
                check(sorted(d) == [0, 0, 1], f"v2 session calls per replica {d}")
                node = d.index(1)
                replicas.kill(node)
                try:
                    r = await c.call_tool("echo", {"text": "v2 after"})
                    check(r.content[0].text == "v2 after", f"{r}")
                    outcome = f"r{node} killed: the session's next call was served (the client re-initialised)"
                except Exception as e:  # noqa: BLE001 - a failure is the other allowed outcome
                    outcome = f"r{node} killed: the session's next call failed ({type(e).__name__})"
    except Exception as e:  # noqa: BLE001
        # NB. Closing a session whose replica is gone may raise; the call's outcome stands.
        if outcome is None:
            raise
        print(f"  (closing the old v2 session: {type(e).__name__})")
    with anyio.fail_after(60):
        async with Client(url, mode="legacy", read_timeout_seconds=30) as c:
            r = await c.call_tool("echo", {"text": "v2 new"})
            check(r.content[0].text == "v2 new", f"{r}")
    return outcome + "; a new session was served"


def exercise(kind, replicas, url):
    # Modern requests spread over every replica.
    before = replicas.counts("tools/call", "2026-07-28")
    for i in range(30):
        status, a = echo(url, i, f"spread {i}")
        check(status == 200 and a["result"]["content"][0]["text"] == f"spread {i}", f"{status} {a}")
    spread = deltas(before, replicas.counts("tools/call", "2026-07-28"))
    check(sum(spread) == 30 and all(d >= 1 for d in spread), f"modern calls per replica {spread}")
    print(f"  modern calls per replica: {spread}")

    # A task made through the balancer, polled to its end through it.
    status, a = modern(url, 100, "tools/call", {"name": "sleep", "arguments": {"ms": 300}}, "sleep", TASKS)
    check(a["result"]["resultType"] == "task", f"{a}")
    task = a["result"]["taskId"]
    before = replicas.counts("tasks/get", "2026-07-28")
    deadline = time.time() + 15
    while True:
        _, a = modern(url, 101, "tasks/get", {"taskId": task}, task, TASKS)
        if a["result"]["status"] != "working":
            break
        check(time.time() < deadline, "the task never ended")
        time.sleep(0.05)
    check(a["result"]["status"] == "completed", f"{a}")
    polls = deltas(before, replicas.counts("tasks/get", "2026-07-28"))
    check(sum(1 for d in polls if d) >= 2, f"polls landed on one replica only: {polls}")
    print(f"  task polls per replica: {polls}")

    # A python-sdk v2 legacy session stays on its replica.
    before = replicas.counts("tools/call", "legacy")
    anyio.run(v2_session, url, 9)
    sticky = deltas(before, replicas.counts("tools/call", "legacy"))
    check(sorted(sticky) == [0, 0, 9], f"v2 session calls per replica {sticky}")
    print(f"  v2 legacy session calls per replica: {sticky}")

    # A python-sdk v1 session stays on its replica; then that replica is killed.
    before = replicas.counts("tools/call", "legacy")
    v1 = subprocess.Popen([PY_V1, "-B", str(ROOT / "tests/interop/balancer_v1.py"), url, "6"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = v1.stdout.readline().strip()
    check(line.startswith("session r"), f"v1 said {line!r}")
    node = int(line.split()[1][1])
    sticky = deltas(before, replicas.counts("tools/call", "legacy"))
    check(sticky[node] == 6 and sum(sticky) == 6, f"v1 session calls per replica {sticky}")
    print(f"  v1 legacy session calls per replica: {sticky} (session on r{node})")

    replicas.kill(node)
    v1.stdin.write("kill\n")
    v1.stdin.flush()
    retried = 0
    for i in range(12):
        for attempt in range(3):
            try:
                status, a = echo(url, 200 + i, f"after {i}")
            except OSError:
                status, a = 0, None
            if status == 200 and a and a.get("result", {}).get("content", [{}])[0].get("text") == f"after {i}":
                break
            retried += 1
            time.sleep(0.2)
        else:
            raise AssertionError(f"a modern request failed three times after the kill: {status} {a}")
    out, _ = v1.communicate(timeout=90)
    check("PASS" in out, f"v1 after the kill: {out}")
    print(f"  after SIGKILL of r{node}: 12 modern requests served ({retried} retries); "
          f"v1: {' / '.join(out.strip().splitlines())}")

    # The killed replica is back: a session it mints is served through the balancer at once
    # (nginx: its own pool tries it first again, whatever failures it counted while it was
    # down; HAProxy: it is back in once its health check passes, one second at most).
    # First, while it is down, its sessions get 404 from another replica (not a 502), on
    # fresh connections: each of nginx's workers counts the failure on its own.
    for i in range(6):
        status, a = legacy_echo(url, f"r{node}.gone", 300 + i, "gone")
        check(status == 404, f"a session of the dead r{node}: {status} {a}")
    replicas.start(node)
    session = legacy_session(f"http://127.0.0.1:{replicas.ports[node][0]}/mcp")
    check(session.startswith(f"r{node}."), f"a session of the restarted r{node}: {session}")
    before = replicas.counts("tools/call", "legacy")
    deadline = time.time() + (3 if kind == "haproxy" else 0)
    while True:
        status, a = legacy_echo(url, session, 310, "back")
        if status == 200 or time.time() > deadline:
            break
        time.sleep(0.2)
    check(status == 200 and a["result"]["content"][0]["text"] == "back", f"{status} {a}")
    for i in range(5):
        status, a = legacy_echo(url, session, 311 + i, f"back {i}")
        check(status == 200 and a["result"]["content"][0]["text"] == f"back {i}", f"{status} {a}")
    d = deltas(before, replicas.counts("tools/call", "legacy"))
    check(d[node] == 6 and sum(d) == 6, f"the restarted replica's session calls per replica {d}")
    print(f"  r{node} restarted: a session it minted is served through the balancer (6 calls)")

    # A python-sdk v2 legacy session whose replica is killed.
    print(f"  v2: {anyio.run(v2_killed, url, replicas)}")


def main():
    failed = False
    redis_port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    replicas = None
    try:
        wait_port(redis_port, "redis-server", redis)
        replicas = Replicas(redis_port)
        for kind in ["nginx", "haproxy"]:
            with tempfile.TemporaryDirectory() as d:
                front, url = start_front(kind, replicas, Path(d))
                try:
                    print(f"balancer {kind} at {url}")
                    exercise(kind, replicas, url)
                    print(f"PASS balancer {kind}")
                except Exception:
                    failed = True
                    print(f"FAIL balancer {kind}")
                    traceback.print_exc()
                finally:
                    for i, p in enumerate(replicas.procs):
                        if p.poll() is not None:
                            replicas.start(i)
                    front.send_signal(signal.SIGTERM)
                    try:
                        front.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        front.kill()
    finally:
        if replicas is not None:
            replicas.stop()
        redis.kill()
        redis.wait()
    sys.exit(1 if failed else 0)


main()
