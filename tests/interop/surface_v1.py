"""python-sdk v1 (`mcp` 1.x) against the server surface of `janus serve --tools conformance`.

One handshake session: resources (list, read text and binary, a template), prompts (list, get
with arguments), completion, a progress callback, an elicitation callback and a sampling
callback (real server-to-client requests, answered by the SDK), and a resource subscription.
One result line; exit status 1 on failure.
"""

import sys
import traceback
from datetime import timedelta
from importlib.metadata import version

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import (
    CreateMessageResult,
    ElicitResult,
    Implementation,
    PromptReference,
    TextContent,
)
from pydantic import AnyUrl

import wire


async def elicit(context, params):
    return ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


async def sample(context, params):
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text="Paris"),
        model="janus-interop",
        stopReason="endTurn",
    )


def text_of(result):
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def exercise(log_path):
    command, args = wire.tapped_command(log_path, "--tools", "conformance")
    params = StdioServerParameters(command=command, args=args)
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=wire.MODE_TIMEOUT),
                client_info=Implementation(name="janus-interop-py-v1-surface", version="1.0.0"),
                elicitation_callback=elicit,
                sampling_callback=sample,
            ) as session:
                init = await session.initialize()
                negotiated = init.protocolVersion
                caps = init.capabilities
                wire.check(caps.resources is not None and caps.resources.subscribe, "resources.subscribe")

                resources = await session.list_resources()
                uris = {str(r.uri) for r in resources.resources}
                wire.check("test://static-text" in uris, f"resources {sorted(uris)}")
                r = await session.read_resource(AnyUrl("test://static-text"))
                wire.check(
                    r.contents[0].text == "This is the content of the static text resource.",
                    f"static text {r.contents[0]!r}",
                )
                r = await session.read_resource(AnyUrl("test://static-binary"))
                wire.check(bool(r.contents[0].blob), "no blob")
                r = await session.read_resource(AnyUrl("test://template/7/data"))
                wire.check('"id":"7"' in r.contents[0].text.replace(" ", ""), "template")
                await session.subscribe_resource(AnyUrl("test://watched-resource"))
                await session.unsubscribe_resource(AnyUrl("test://watched-resource"))

                p = await session.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
                got = p.messages[0].content.text
                wire.check(got == "Prompt with arguments: arg1='a', arg2='b'", f"prompt {got!r}")
                c = await session.complete(
                    PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                    {"name": "arg1", "value": "p"},
                )
                wire.check(isinstance(c.completion.values, list), "completion values")

                seen = []

                async def progress(value, total, message):
                    seen.append(value)

                r = await session.call_tool("test_tool_with_progress", {}, progress_callback=progress)
                wire.check(seen == [0, 50, 100], f"progress seen {seen}")

                r = await session.call_tool("test_elicitation", {"message": "Who are you?"})
                text = text_of(r)
                wire.check("action=accept" in text and "ada@example.com" in text, f"elicitation {text!r}")
                r = await session.call_tool("test_sampling", {"prompt": "Capital of France?"})
                wire.check(text_of(r) == "LLM response: Paris", f"sampling {text_of(r)!r}")
    return negotiated


def main():
    lane = f"python-sdk-v1-surface mcp=={version('mcp')}"
    report = wire.Report(lane)
    log_path = wire.wire_dir() / "py-v1-surface.log"
    try:
        negotiated = anyio.run(exercise, log_path)
        w = wire.Wire(log_path)
        methods = {m.get("method") for m in w.server if "method" in m and "id" in m}
        wire.check({"elicitation/create", "sampling/createMessage"} <= methods, f"server requests {methods}")
        report.ok("handshake", negotiated, "input as server requests")
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        report.fail("handshake", e)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
