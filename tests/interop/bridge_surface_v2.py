"""python-sdk v2 (`mcp` 2.x) through `janus bridge` in front of python-sdk v1's FastMCP with
its whole surface (`surface_py.py`, run by the v1 interpreter in $JANUS_BRIDGE_PY_V1): the
backend on stdio, then over streamable HTTP (`--upstream`), and the client pinned to
2026-07-28 (which a v1 server cannot serve directly) and in auto mode.

Each run lists and calls tools, reads a resource and a template, gets a prompt, completes its
argument, hears a tool's progress, answers an elicitation and a sampling request as the
bridge's `input_required` rounds, and holds a `subscriptions/listen` stream that hears the
backend's tool list change. One result line per run; exit status 1 on any failure.
"""

import os
import socket
import subprocess
import sys
import time
import traceback
from importlib.metadata import version
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CreateMessageResult, ElicitResult, Implementation, PromptReference, TextContent

import wire

HERE = Path(__file__).resolve().parent
TOOLS = {"echo", "progress", "ask_name", "capital", "grow"}


async def elicit(context, params):
    wire.check("requestedSchema" in params.model_dump(by_alias=True), "no requestedSchema")
    return ElicitResult(action="accept", content={"name": "ada"})


async def sample(context, params):
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text="Paris"),
        model="janus-interop",
        stop_reason="endTurn",
    )


def text_of(result):
    wire.check(not result.is_error, f"isError: {result!r}")
    wire.check(len(result.content) == 1, f"{len(result.content)} content blocks, want 1")
    block = result.content[0]
    wire.check(isinstance(block, TextContent), f"content is {type(block).__name__}, want text")
    return block.text


async def exercise(mode, backend):
    client = Client(
        StdioServerParameters(command=wire.janus_bin(), args=["bridge", *backend]),
        mode=mode,
        client_info=Implementation(name="janus-interop-bridge-surface", version="1.0.0"),
        read_timeout_seconds=wire.MODE_TIMEOUT,
        elicitation_callback=elicit,
        sampling_callback=sample,
    )
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with client:
            negotiated = client.protocol_version
            info = client.server_info  # NB. None when pinned: no server/discover was sent.
            wire.check(info is None or info.name == "py-v1-surface", f"serverInfo {info!r}")

            names = {t.name for t in (await client.list_tools()).tools}
            wire.check(names == TOOLS, f"tools/list gave {sorted(names)}")
            wire.check(text_of(await client.call_tool("echo", {"text": wire.SMALL_TEXT})) == wire.SMALL_TEXT,
                       "echo changed the text")

            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            wire.check(uris == {"demo://greeting"}, f"resources {sorted(uris)}")
            r = await client.read_resource("demo://greeting")
            wire.check(r.contents[0].text == "Hello from FastMCP v1", f"greeting {r.contents[0]!r}")
            templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
            wire.check(templates == {"demo://item/{id}"}, f"templates {sorted(templates)}")
            r = await client.read_resource("demo://item/42")
            wire.check(r.contents[0].text == "item 42", f"template {r.contents[0]!r}")

            p = await client.get_prompt("greet", {"name": "ada"})
            wire.check(p.messages[0].content.text == "Please greet ada.", f"prompt {p.messages[0]!r}")
            c = await client.complete(PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "a"})
            wire.check(c.completion.values == ["ada", "alan"], f"completion {c.completion.values!r}")

            seen = []

            async def progress(value, total, message):
                seen.append(value)

            wire.check(text_of(await client.call_tool("progress", {}, progress_callback=progress)) == "done",
                       "progress answer")
            wire.check(seen == [0, 50, 100], f"progress seen {seen}")

            text = text_of(await client.call_tool("ask_name", {}))
            wire.check(text == "action=accept name=ada", f"elicitation {text!r}")
            text = text_of(await client.call_tool("capital", {}))
            wire.check(text == "model said Paris", f"sampling {text!r}")

            async with client.listen(tools_list_changed=True) as sub:
                wire.check(text_of(await client.call_tool("grow", {})) == "grew", "grow")
                async for event in sub:
                    break
            names = {t.name for t in (await client.list_tools()).tools}
            wire.check(names == TOOLS | {"grown"}, f"after the change, tools/list gave {sorted(names)}")
            wire.check(text_of(await client.call_tool("grown", {})) == "grown", "the new tool")
    return negotiated


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http_backend(py_v1):
    """FastMCP v1 over streamable HTTP on a free loopback port: (process, URL)."""
    port = free_port()
    p = subprocess.Popen(
        [py_v1, "-B", str(HERE / "surface_py.py"), "http", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise RuntimeError("FastMCP v1 did not listen over HTTP")


def main():
    py_v1 = os.environ["JANUS_BRIDGE_PY_V1"]
    report = wire.Report(f"python-sdk-v2 mcp=={version('mcp')} through janus bridge to FastMCP v1's whole surface")
    stdio = ["--mode", "legacy", "--", py_v1, "-B", str(HERE / "surface_py.py"), "stdio"]
    for backend in ["stdio", "http"]:
        for mode in [wire.MODERN, "auto"]:
            # NB. A backend of its own for each run: `grow` changes the server's tools for good.
            http = None
            try:
                if backend == "http":
                    http, url = start_http_backend(py_v1)
                    args = ["--mode", "legacy", "--upstream", url]
                else:
                    args = stdio
                negotiated = anyio.run(exercise, mode, args)
                wire.check(negotiated == wire.MODERN, f"negotiated {negotiated}, want {wire.MODERN}")
                report.ok(mode, negotiated, f"backend over {backend}")
            except Exception as e:  # noqa: BLE001 - each run reports its own failure
                traceback.print_exc(file=sys.stderr)
                report.fail(f"{mode} ({backend})", e)
            finally:
                if http is not None:
                    http.kill()
                    http.wait()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
