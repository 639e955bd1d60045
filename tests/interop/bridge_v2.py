"""python-sdk v2 (`mcp` 2.x) as a client of `janus bridge` in front of python-sdk v1's
FastMCP server (`server_py.py stdio`, run by the v1 interpreter in $JANUS_BRIDGE_PY_V1),
over stdio: pinned to 2026-07-28 (which fails against the v1 server directly) and in auto
mode. Each mode lists the tools, calls echo, add (structuredContent), fail (isError), sleep
with progress, and an unknown tool. One result line per mode; exit status 1 on any failure.
"""

import os
import sys
import traceback
from importlib.metadata import version
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation, TextContent

import wire

HERE = Path(__file__).resolve().parent
BACKEND_TOOLS = {"echo", "add", "fail", "sleep", "reads", "changes"}


def only_text(result):
    wire.check(len(result.content) == 1, f"{len(result.content)} content blocks, want 1")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def exercise(mode):
    py_v1 = os.environ["JANUS_BRIDGE_PY_V1"]
    args = ["bridge", "--mode", "legacy", "--", py_v1, "-B", str(HERE / "server_py.py"), "stdio"]
    client = Client(
        StdioServerParameters(command=wire.janus_bin(), args=args),
        mode=mode,
        client_info=Implementation(name="janus-interop-bridge-v2", version="1.0.0"),
        read_timeout_seconds=wire.MODE_TIMEOUT,
    )
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with client:
            negotiated = client.protocol_version
            tools = await client.list_tools()
            names = {t.name for t in tools.tools}
            wire.check(names == BACKEND_TOOLS, f"tools/list gave {sorted(names)}")
            reads = next(t for t in tools.tools if t.name == "reads")
            wire.check(reads.annotations is not None and reads.annotations.read_only_hint is True,
                       "the backend's hints did not pass through")

            r = await client.call_tool("echo", {"text": wire.SMALL_TEXT})
            wire.check(not r.is_error and only_text(r) == wire.SMALL_TEXT, "echo changed the text")

            r = await client.call_tool("add", {"a": 2, "b": 3})
            wire.check(not r.is_error, "add isError")
            wire.check(r.structured_content == {"sum": 5}, f"add structuredContent {r.structured_content!r}")

            r = await client.call_tool("fail", {})
            wire.check(r.is_error is True, f"fail isError {r.is_error!r}")

            heard = []

            async def on_progress(progress, total, message):
                heard.append(progress)

            r = await client.call_tool("sleep", {"ms": 50}, progress_callback=on_progress)
            wire.check(not r.is_error, "sleep isError")

            try:
                await client.call_tool(wire.UNKNOWN_TOOL, {})
            except MCPError as e:
                wire.check(e.code == -32602, f"unknown tool: code {e.code}, want -32602")
            else:
                raise AssertionError("calling an unknown tool did not raise MCPError")
    return negotiated


def main():
    lane = f"python-sdk-v2 mcp=={version('mcp')} through janus bridge to python-sdk v1 FastMCP"
    report = wire.Report(lane)
    for mode in [wire.MODERN, "auto"]:
        try:
            negotiated = anyio.run(exercise, mode)
            wire.check(negotiated == wire.MODERN, f"negotiated {negotiated}, want {wire.MODERN}")
            report.ok(mode, negotiated, "through the bridge")
        except Exception as e:  # noqa: BLE001 - each mode reports its own failure
            traceback.print_exc(file=sys.stderr)
            report.fail(mode, e)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
