"""python-sdk v2 (`mcp` 2.x) against the server surface of `janus serve --tools conformance`,
over stdio, or with `--http` over streamable HTTP (`janus serve --http`, started here on a free
loopback port and stopped with SIGTERM, which must drain and exit 0).

In each mode of `mcp.Client` (auto, pinned to 2026-07-28, legacy): resources (list, read text
and binary, a template), prompts (list, get with arguments), completion, a progress callback,
and the client's input: an elicitation callback and a sampling callback, which the SDK serves
as MRTR rounds in 2026-07-28 and as real server-to-client requests on a handshake session,
against the same tools. One result line per mode; exit status 1 on any failure.
"""

import sys
import traceback
from importlib.metadata import version

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import (
    CreateMessageResult,
    ElicitResult,
    Implementation,
    PromptReference,
    TextContent,
)

import wire

MODES = {"auto": wire.MODERN, wire.MODERN: wire.MODERN, "legacy": wire.LATEST_HANDSHAKE}


async def elicit(context, params):
    wire.check("requestedSchema" in params.model_dump(by_alias=True), "no requestedSchema")
    return ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


async def sample(context, params):
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text="Paris"),
        model="janus-interop",
        stop_reason="endTurn",
    )


def text_of(result):
    wire.check(len(result.content) >= 1, "no content")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def exercise(mode, log_path, url=None):
    if url is None:
        command, args = wire.tapped_command(log_path, "--tools", "conformance")
        server = StdioServerParameters(command=command, args=args)
    else:
        server = url
    client = Client(
        server,
        mode=mode,
        client_info=Implementation(name="janus-interop-py-v2-surface", version="1.0.0"),
        read_timeout_seconds=wire.MODE_TIMEOUT,
        elicitation_callback=elicit,
        sampling_callback=sample,
    )
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with client:
            negotiated = client.protocol_version

            resources = await client.list_resources()
            uris = {str(r.uri) for r in resources.resources}
            wire.check({"test://static-text", "test://static-binary"} <= uris, f"resources {sorted(uris)}")
            r = await client.read_resource("test://static-text")
            wire.check(
                r.contents[0].text == "This is the content of the static text resource.",
                f"static text {r.contents[0]!r}",
            )
            r = await client.read_resource("test://static-binary")
            wire.check(bool(r.contents[0].blob), "static binary has no blob")
            r = await client.read_resource("test://template/42/data")
            wire.check('"id":"42"' in r.contents[0].text.replace(" ", ""), f"template {r.contents[0].text!r}")

            prompts = await client.list_prompts()
            names = {p.name for p in prompts.prompts}
            wire.check("test_prompt_with_arguments" in names, f"prompts {sorted(names)}")
            p = await client.get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
            got = p.messages[0].content.text
            wire.check(got == "Prompt with arguments: arg1='hello', arg2='world'", f"prompt text {got!r}")

            c = await client.complete(
                PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "p"},
            )
            wire.check(isinstance(c.completion.values, list), "completion values")

            seen = []

            async def progress(value, total, message):
                seen.append(value)

            r = await client.call_tool("test_tool_with_progress", {}, progress_callback=progress)
            wire.check(not r.is_error, "progress tool isError")
            wire.check(seen == [0, 50, 100], f"progress seen {seen}")

            r = await client.call_tool("test_elicitation", {"message": "Who are you?"})
            text = text_of(r)
            wire.check("action=accept" in text and "ada@example.com" in text, f"elicitation {text!r}")

            r = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
            wire.check(text_of(r) == "LLM response: Paris", f"sampling {text_of(r)!r}")
    return negotiated


def main():
    http = "--http" in sys.argv[1:]
    lane = f"python-sdk-v2-surface{'-http' if http else ''} mcp=={version('mcp')}"
    report = wire.Report(lane)
    proc, url = wire.start_http("--tools", "conformance") if http else (None, None)
    try:
        for mode, want in MODES.items():
            log_path = wire.wire_dir() / f"py-v2-surface-{mode}.log"
            try:
                negotiated = anyio.run(exercise, mode, log_path, url)
                wire.check(negotiated == want, f"negotiated {negotiated}, want {want}")
                if http:
                    report.ok(mode, negotiated, "over streamable HTTP")
                    continue
                w = wire.Wire(log_path)
                methods = {m.get("method") for m in w.server if "method" in m and "id" in m}
                if want == wire.MODERN:
                    wire.check(not methods, f"server requests in 2026-07-28: {methods}")
                    note = "input as MRTR rounds"
                else:
                    wire.check(
                        {"elicitation/create", "sampling/createMessage"} <= methods,
                        f"server requests {methods}",
                    )
                    note = "input as server requests"
                report.ok(mode, negotiated, note)
            except Exception as e:  # noqa: BLE001 - each mode reports its own failure
                traceback.print_exc(file=sys.stderr)
                report.fail(mode, e)
    finally:
        if proc is not None:
            err = wire.stop_http(proc)
            if err:
                print(err, flush=True)
                report.failed += 1
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
