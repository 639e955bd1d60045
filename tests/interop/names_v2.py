"""python-sdk v2 (`mcp` 2.x) over streamable HTTP against `janus serve --http --tools names`:
a tool, a prompt and a resource whose names and URI are not plain header text (non-ASCII,
leading spaces), so a 2026-07-28 client sends them in `Mcp-Name`'s Base64 sentinel, which the
server decodes before it compares. In the modes 2026-07-28, auto and legacy: each is listed,
then called, got or read. One result line per mode; exit status 1 on any failure.
"""

import sys
import traceback
from importlib.metadata import version

import anyio
from mcp import Client

import wire

TOOL = " héllo wörld"
PROMPT = "  grüße"
URI = "file:///ünï cödé/naïve.txt"
MODES = {"2026-07-28": wire.MODERN, "auto": wire.MODERN, "legacy": wire.LATEST_HANDSHAKE}


async def exercise(url, mode):
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with Client(url, mode=mode, read_timeout_seconds=wire.MODE_TIMEOUT) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            wire.check(TOOL in names, f"tools {sorted(names)}")
            r = await c.call_tool(TOOL, {"who": "Zoë"})
            wire.check(not r.is_error, f"{TOOL!r} isError")
            wire.check(r.content[0].text == "héllo, Zoë", f"tool text {r.content[0].text!r}")
            prompts = {p.name for p in (await c.list_prompts()).prompts}
            wire.check(PROMPT in prompts, f"prompts {sorted(prompts)}")
            p = await c.get_prompt(PROMPT, {"who": "Zoë"})
            wire.check(p.messages[0].content.text == "Grüß Zoë!", f"prompt {p.messages[0].content.text!r}")
            uris = {str(r.uri) for r in (await c.list_resources()).resources}
            read = await c.read_resource(URI)
            wire.check(read.contents[0].text == "naïve café", f"resource {read.contents[0]!r} (listed: {sorted(uris)})")
            return c.protocol_version


def main():
    report = wire.Report(f"python-sdk-v2-names-http mcp=={version('mcp')}")
    proc, url = wire.start_http("--tools", "names")
    try:
        for mode, want in MODES.items():
            try:
                negotiated = anyio.run(exercise, url, mode)
                wire.check(negotiated == want, f"negotiated {negotiated}, want {want}")
                report.ok(mode, negotiated, "names and a URI that are not header text")
            except Exception as e:
                traceback.print_exc()
                report.fail(mode, e)
    finally:
        error = wire.stop_http(proc)
        if error:
            report.fail("shutdown", error)
    sys.exit(report.finish())


main()
