"""python-sdk v1 (`mcp` 1.x) as a client of `janus bridge` in front of a 2026-07-28-only
backend (`janus serve`, spoken to in 2026-07-28 only: `--mode modern`), over stdio and over
streamable HTTP (`janus serve --http`, spoken to in 2026-07-28 only too): the `initialize` handshake is
answered from the backend's `server/discover`, every call goes on with the session's
envelope, a tool's request for input (elicitation and sampling, as the backend asks them in
`input_required`) reaches this client as a real server request, progress reaches its
callback, prompts, completion and resources pass through, and the backend's tool list change
reaches the session as `notifications/tools/list_changed`. One result line per backend;
exit status 1 on any failure.
"""

import sys
import traceback
from datetime import timedelta
from importlib.metadata import version

import anyio
from mcp import ClientSession, McpError, StdioServerParameters, stdio_client
from mcp.types import (
    LATEST_PROTOCOL_VERSION,
    CreateMessageResult,
    ElicitResult,
    Implementation,
    PromptReference,
    ServerNotification,
    TextContent,
    ToolListChangedNotification,
)

import wire


def only_text(result):
    wire.check(len(result.content) == 1, f"{len(result.content)} content blocks, want 1")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def on_elicit(context, params):
    return ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


async def on_sample(context, params):
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text="Paris"),
        model="janus-interop",
        stopReason="endTurn",
    )


async def exercise(backend):
    janus = wire.janus_bin()
    params = StdioServerParameters(command=janus, args=["bridge", *backend])
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, ServerNotification) and isinstance(message.root, ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=wire.MODE_TIMEOUT),
                client_info=Implementation(name="janus-interop-bridge-v1", version="1.0.0"),
                elicitation_callback=on_elicit,
                sampling_callback=on_sample,
                message_handler=on_message,
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
                r = await session.call_tool("test_sampling", {"prompt": "Capital of France?"})
                wire.check(not r.isError and only_text(r) == "LLM response: Paris", f"test_sampling: {r!r}")
                seen = []

                async def progress(value, total, message):
                    seen.append(value)

                r = await session.call_tool("test_tool_with_progress", {}, progress_callback=progress)
                wire.check(not r.isError and seen == [0, 50, 100], f"progress seen {seen}")
                prompts = await session.list_prompts()
                wire.check(any(p.name == "test_simple_prompt" for p in prompts.prompts), "prompts/list")
                p = await session.get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
                got = p.messages[0].content.text
                wire.check(got == "Prompt with arguments: arg1='hello', arg2='world'", f"prompt text {got!r}")
                c = await session.complete(
                    PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                    {"name": "arg1", "value": "p"},
                )
                wire.check(c.completion.values == ["paris", "park", "party"], f"completion {c.completion.values!r}")
                res = await session.read_resource("test://static-text")
                wire.check(len(res.contents) == 1, "resources/read")
                r = await session.call_tool("test_trigger_tool_change", {})
                wire.check(not r.isError and only_text(r) == "Added test_dynamic_tool", f"tool change: {r!r}")
                with anyio.fail_after(10):
                    await changed.wait()
                names = {t.name for t in (await session.list_tools()).tools}
                wire.check("test_dynamic_tool" in names, "the new tool is not listed")
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
    janus = wire.janus_bin()
    for name in ["stdio", "http"]:
        http = None
        try:
            if name == "http":
                http, url = wire.start_http("--tools", "conformance")
                backend = ["--mode", "modern", "--upstream", url]
            else:
                backend = ["--mode", "modern", "--", janus, "serve", "--tools", "conformance"]
            negotiated = anyio.run(exercise, backend)
            wire.check(negotiated == LATEST_PROTOCOL_VERSION, f"negotiated {negotiated}")
            report.ok("handshake", negotiated, f"backend over {name}")
        except Exception as e:  # noqa: BLE001 - each run reports its own failure
            traceback.print_exc(file=sys.stderr)
            report.fail(f"handshake ({name})", e)
        finally:
            if http is not None:
                http.kill()
                http.wait()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
