"""python-sdk v1 (`mcp` 1.x) as a client of `janus serve` over stdio.

v1 knows one lifecycle: the `initialize` handshake at its latest version. The connection lists
tools, calls echo (small and 1 MiB), add (structuredContent), fail (isError) and an unknown tool
(a JSON-RPC error), then checks the recorded wire. One result line; exit status 1 on failure.
"""

import sys
import traceback
from datetime import timedelta
from importlib.metadata import version

import anyio
from mcp import ClientSession, McpError, StdioServerParameters, stdio_client
from mcp.types import LATEST_PROTOCOL_VERSION, Implementation, TextContent

import wire


def only_text(result):
    wire.check(len(result.content) == 1, f"{len(result.content)} content blocks, want 1")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def exercise(log_path):
    command, args = wire.tapped_command(log_path)
    params = StdioServerParameters(command=command, args=args)
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=wire.MODE_TIMEOUT),
                client_info=Implementation(name="janus-interop-py-v1", version="1.0.0"),
            ) as session:
                init = await session.initialize()
                negotiated = init.protocolVersion

                tools = await session.list_tools()
                names = {t.name for t in tools.tools}
                wire.check(names == wire.TOOLS, f"tools/list gave {sorted(names)}")
                add_tool = next(t for t in tools.tools if t.name == "add")
                wire.check(add_tool.outputSchema is not None, "add lists no outputSchema")

                r = await session.call_tool("echo", {"text": wire.SMALL_TEXT})
                wire.check(not r.isError, "echo (small) isError")
                wire.check(only_text(r) == wire.SMALL_TEXT, "echo (small) changed the text")

                big = wire.big_text()
                r = await session.call_tool("echo", {"text": big})
                wire.check(not r.isError, "echo (1 MiB) isError")
                wire.check(only_text(r) == big, "echo (1 MiB) changed the text")

                r = await session.call_tool("add", {"a": 2, "b": 3})
                wire.check(not r.isError, "add isError")
                wire.check(r.structuredContent == {"sum": 5}, f"add structuredContent {r.structuredContent!r}")
                wire.check(only_text(r) == "5", "add text is not 5")

                r = await session.call_tool("fail", {})
                wire.check(r.isError is True, f"fail isError {r.isError!r}")
                wire.check(only_text(r) == "fail: this tool always fails", "fail text")

                try:
                    await session.call_tool(wire.UNKNOWN_TOOL, {})
                except McpError as e:
                    wire.check(e.error.code == -32602, f"unknown tool: code {e.error.code}, want -32602")
                    wire.check(
                        e.error.message == f"Unknown tool: {wire.UNKNOWN_TOOL}",
                        f"unknown tool: message {e.error.message!r}",
                    )
                else:
                    raise AssertionError("calling an unknown tool did not raise McpError")
    return negotiated


def main():
    lane = f"python-sdk-v1 mcp=={version('mcp')}"
    report = wire.Report(lane)
    mode = "legacy"
    log_path = wire.wire_dir() / "py-v1-legacy.log"
    try:
        wire.check(LATEST_PROTOCOL_VERSION == wire.LATEST_HANDSHAKE, f"v1 offers {LATEST_PROTOCOL_VERSION}")
        negotiated = anyio.run(exercise, log_path)
        wire.check(negotiated == wire.LATEST_HANDSHAKE, f"negotiated {negotiated}, want {wire.LATEST_HANDSHAKE}")
        note = wire.check_legacy(wire.Wire(log_path), LATEST_PROTOCOL_VERSION, wire.LATEST_HANDSHAKE)
        report.ok(mode, negotiated, note)
    except Exception as e:  # noqa: BLE001 - the mode reports its own failure
        traceback.print_exc(file=sys.stderr)
        report.fail(mode, e)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
