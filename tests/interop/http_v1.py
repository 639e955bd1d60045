"""python-sdk v1 (`mcp` 1.30.0) as a client of `janus serve --http`: `streamablehttp_client`,
a legacy session (`initialize`, `Mcp-Session-Id`), tools, echo (small and 1 MiB), add
(structuredContent), fail (isError), an unknown tool (a JSON-RPC error) and sleep with progress
(an SSE answer). The server is started here on a free loopback port and stopped by its pid with
SIGTERM, which must drain and exit 0. Exit status 1 on any failure.
"""

import sys
import traceback
from importlib.metadata import version

import anyio
import wire
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

TIMEOUT = 30


def check(ok, what):
    if not ok:
        raise AssertionError(what)


async def exercise(url):
    progress = []

    async def on_progress(done, total, message):
        progress.append(done)

    with anyio.fail_after(TIMEOUT):
        async with streamablehttp_client(url) as (read, write, session_id):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                check(init.protocolVersion == "2025-11-25", f"negotiated {init.protocolVersion}")
                sid = session_id()
                check(sid is not None and sid.startswith("n1."), f"session id {sid}")
                names = {t.name for t in (await s.list_tools()).tools}
                check({"echo", "add", "fail", "sleep"} <= names, f"tools {names}")
                r = await s.call_tool("echo", {"text": "hi"})
                check(r.content[0].text == "hi", "echo")
                big = "x" * (1 << 20)
                r = await s.call_tool("echo", {"text": big})
                check(r.content[0].text == big, "1 MiB echo")
                r = await s.call_tool("add", {"a": 2, "b": 40})
                check(r.structuredContent == {"sum": 42}, f"add: {r.structuredContent}")
                r = await s.call_tool("fail", {})
                check(r.isError, "fail is isError")
                try:
                    await s.call_tool("no-such-tool", {})
                    check(False, "an unknown tool answered")
                except McpError as e:
                    check(e.error.code == -32602, f"unknown tool: {e.error.code}")
                r = await s.call_tool("sleep", {"ms": 250}, progress_callback=on_progress)
                check(r.content[0].text == "slept 250 ms", "sleep")
                check([int(p) for p in progress] == [100, 200], f"progress {progress}")


def main():
    print(f"interop http: mcp {version('mcp')}")
    failed = False
    proc, url = wire.start_http("--node-id", "n1")
    try:
        anyio.run(exercise, url)
        print("PASS http streamablehttp_client (legacy session)")
    except Exception:
        failed = True
        print("FAIL http streamablehttp_client")
        traceback.print_exc()
    finally:
        error = wire.stop_http(proc)
        if error:
            failed = True
            print(error)
    sys.exit(1 if failed else 0)


main()
