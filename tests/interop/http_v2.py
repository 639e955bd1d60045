"""python-sdk v2 (`mcp` 2.x) as a client of `janus serve --http` (streamable HTTP).

Modes of `mcp.Client` over a URL: pinned to 2026-07-28 (no negotiation traffic), the default
`auto` (a `server/discover` probe), and `legacy` (an `initialize` session, `Mcp-Session-Id`). Each lists tools, calls echo (small and 1 MiB),
add (structuredContent), fail (isError) and an unknown tool (a JSON-RPC error), and sleep with
a progress callback (an SSE answer). The server is started here on a free loopback port and
stopped by its pid with SIGTERM, which must drain and exit 0. One result line per mode; exit
status 1 on any failure.
"""

import sys
import traceback
from importlib.metadata import version

import anyio
import wire
from mcp import Client
from mcp.shared.exceptions import MCPError

TIMEOUT = 30


def check(ok, what):
    if not ok:
        raise AssertionError(what)


async def exercise(url, mode):
    progress = []

    async def on_progress(done, total, message):
        progress.append(done)

    with anyio.fail_after(TIMEOUT):
        async with Client(url, mode=mode, read_timeout_seconds=TIMEOUT) as c:
            want = "2025-11-25" if mode == "legacy" else "2026-07-28"
            check(c.protocol_version == want, f"negotiated {c.protocol_version}")
            names = {t.name for t in (await c.list_tools()).tools}
            check({"echo", "add", "fail", "sleep"} <= names, f"tools {names}")
            r = await c.call_tool("echo", {"text": "hi"})
            check(r.content[0].text == "hi", "echo")
            big = "x" * (1 << 20)
            r = await c.call_tool("echo", {"text": big})
            check(r.content[0].text == big, "1 MiB echo")
            r = await c.call_tool("add", {"a": 2, "b": 40})
            check(r.structured_content == {"sum": 42}, f"add: {r.structured_content}")
            r = await c.call_tool("fail", {})
            check(r.is_error, "fail is isError")
            try:
                await c.call_tool("no-such-tool", {})
                check(False, "an unknown tool answered")
            except MCPError as e:
                check(e.error.code == -32602, f"unknown tool: {e.error.code}")
            r = await c.call_tool("sleep", {"ms": 250}, progress_callback=on_progress)
            check(r.content[0].text == "slept 250 ms", "sleep")
            check([int(p) for p in progress] == [100, 200], f"progress {progress}")


def main():
    print(f"interop http: mcp {version('mcp')}")
    failed = False
    proc, url = wire.start_http()
    try:
        for mode in ["2026-07-28", "auto", "legacy"]:
            try:
                anyio.run(exercise, url, mode)
                print(f"PASS http {mode}")
            except Exception:
                failed = True
                print(f"FAIL http {mode}")
                traceback.print_exc()
    finally:
        error = wire.stop_http(proc)
        if error:
            failed = True
            print(error)
    sys.exit(1 if failed else 0)


main()
