"""python-sdk v1 (`mcp` 1.x) as a client of `janus bridge` in front of a 2026-07-28-only
backend (`janus serve`, spoken to in 2026-07-28 only: `--mode modern`), over stdio: the
`initialize` handshake is answered from the backend's `server/discover`, every call goes on
with the session's envelope, and a tool's request for input (elicitation, as the backend
asks it in `input_required`) reaches this client as a real server request. One result
line; exit status 1 on any failure.
"""

import sys
import traceback
from datetime import timedelta
from importlib.metadata import version

import anyio
from mcp import ClientSession, McpError, StdioServerParameters, stdio_client
from mcp.types import LATEST_PROTOCOL_VERSION, ElicitResult, Implementation, TextContent

import wire


def only_text(result):
    wire.check(len(result.content) == 1, f"{len(result.content)} content blocks, want 1")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def on_elicit(context, params):
    return ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


async def exercise():
    janus = wire.janus_bin()
    args = ["bridge", "--mode", "modern", "--", janus, "serve", "--tools", "conformance"]
    params = StdioServerParameters(command=janus, args=args)
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=wire.MODE_TIMEOUT),
                client_info=Implementation(name="janus-interop-bridge-v1", version="1.0.0"),
                elicitation_callback=on_elicit,
            ) as session:
                init = await session.initialize()
                negotiated = init.protocolVersion
                wire.check(init.serverInfo.name == "janus-conformance",
                           f"serverInfo {init.serverInfo.name!r}: not the backend's")
                tools = await session.list_tools()
                names = {t.name for t in tools.tools}
                wire.check("test_simple_text" in names and "test_elicitation" in names,
                           f"tools/list gave {sorted(names)}")
                r = await session.call_tool("test_simple_text", {})
                wire.check(not r.isError and only_text(r), "test_simple_text")
                r = await session.call_tool("test_elicitation", {"message": "who?"})
                wire.check(not r.isError and "ada" in only_text(r), f"test_elicitation: {r!r}")
                prompts = await session.list_prompts()
                wire.check(any(p.name == "test_simple_prompt" for p in prompts.prompts), "prompts/list")
                res = await session.read_resource("test://static-text")
                wire.check(len(res.contents) == 1, "resources/read")
                try:
                    await session.call_tool(wire.UNKNOWN_TOOL, {})
                except McpError as e:
                    wire.check(e.error.code == -32602, f"unknown tool: code {e.error.code}, want -32602")
                else:
                    raise AssertionError("calling an unknown tool did not raise McpError")
    return negotiated


def main():
    lane = f"python-sdk-v1 mcp=={version('mcp')} through janus bridge to a 2026-07-28 backend"
    report = wire.Report(lane)
    try:
        negotiated = anyio.run(exercise)
        wire.check(negotiated == LATEST_PROTOCOL_VERSION, f"negotiated {negotiated}")
        report.ok("handshake", negotiated, "through the bridge")
    except Exception as e:  # noqa: BLE001 - the lane reports its own failure
        traceback.print_exc(file=sys.stderr)
        report.fail("handshake", e)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
