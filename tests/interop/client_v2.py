"""python-sdk v2 (`mcp` 2.x) as a client of `janus serve` over stdio.

Modes of `mcp.Client`: the default `auto` (a `server/discover` probe, falling back to
`initialize`), pinned to 2026-07-28 (no negotiation traffic), and `legacy` (the handshake).
Each mode lists tools, calls echo (small and 1 MiB), add (structuredContent), fail (isError) and
an unknown tool (a JSON-RPC error), then checks the recorded wire. One result line per mode;
exit status 1 on any failure.
"""

import sys
import traceback
from importlib.metadata import version

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation, TextContent

import wire

# mode -> (negotiated version the client must report, wire check)
MODES = {
    "auto": (wire.MODERN, lambda w: wire.check_modern(w, probe=True)),
    wire.MODERN: (wire.MODERN, lambda w: wire.check_modern(w, probe=False)),
    "legacy": (wire.LATEST_HANDSHAKE, lambda w: wire.check_legacy(w, wire.LATEST_HANDSHAKE, wire.LATEST_HANDSHAKE)),
}


def only_text(result):
    wire.check(len(result.content) == 1, f"{len(result.content)} content blocks, want 1")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def exercise(mode, log_path):
    command, args = wire.tapped_command(log_path)
    client = Client(
        StdioServerParameters(command=command, args=args),
        mode=mode,
        client_info=Implementation(name="janus-interop-py-v2", version="1.0.0"),
        read_timeout_seconds=wire.MODE_TIMEOUT,
    )
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with client:
            negotiated = client.protocol_version

            tools = await client.list_tools()
            names = {t.name for t in tools.tools}
            wire.check(names == wire.TOOLS, f"tools/list gave {sorted(names)}")
            add_tool = next(t for t in tools.tools if t.name == "add")
            wire.check(add_tool.output_schema is not None, "add lists no outputSchema")

            r = await client.call_tool("echo", {"text": wire.SMALL_TEXT})
            wire.check(not r.is_error, "echo (small) isError")
            wire.check(only_text(r) == wire.SMALL_TEXT, "echo (small) changed the text")

            big = wire.big_text()
            r = await client.call_tool("echo", {"text": big})
            wire.check(not r.is_error, "echo (1 MiB) isError")
            wire.check(only_text(r) == big, "echo (1 MiB) changed the text")

            r = await client.call_tool("add", {"a": 2, "b": 3})
            wire.check(not r.is_error, "add isError")
            wire.check(r.structured_content == {"sum": 5}, f"add structuredContent {r.structured_content!r}")
            wire.check(only_text(r) == "5", "add text is not 5")

            r = await client.call_tool("fail", {})
            wire.check(r.is_error is True, f"fail isError {r.is_error!r}")
            wire.check(only_text(r) == "fail: this tool always fails", "fail text")

            try:
                await client.call_tool(wire.UNKNOWN_TOOL, {})
            except MCPError as e:
                wire.check(e.code == -32602, f"unknown tool: code {e.code}, want -32602")
                wire.check(e.message == f"Unknown tool: {wire.UNKNOWN_TOOL}", f"unknown tool: message {e.message!r}")
            else:
                raise AssertionError("calling an unknown tool did not raise MCPError")
    return negotiated


def main():
    lane = f"python-sdk-v2 mcp=={version('mcp')}"
    report = wire.Report(lane)
    for mode, (want, check_wire) in MODES.items():
        log_path = wire.wire_dir() / f"py-v2-{mode}.log"
        try:
            negotiated = anyio.run(exercise, mode, log_path)
            wire.check(negotiated == want, f"negotiated {negotiated}, want {want}")
            note = check_wire(wire.Wire(log_path))
            report.ok(mode, negotiated, note)
        except Exception as e:  # noqa: BLE001 - each mode reports its own failure
            traceback.print_exc(file=sys.stderr)
            report.fail(mode, e)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
