"""The same tools served by python-sdk v1 (FastMCP) or v2 (MCPServer), whichever this
interpreter's `mcp` is: the servers of janus-client's interop matrix (tests/client_matrix.rs).

    python server_py.py stdio | http PORT | sse PORT

Tools: echo(text), add(a, b) -> {sum}, fail(), sleep(ms), and two with hints: reads
(readOnlyHint) and changes (destructiveHint false).
"""

import asyncio
import sys

from mcp.types import ToolAnnotations
from pydantic import BaseModel

try:
    from mcp.server.mcpserver import MCPServer as Server

    V2 = True
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server

    V2 = False


class Sum(BaseModel):
    sum: int


def build(**settings):
    mcp = Server("py-matrix", **settings)

    @mcp.tool(description="Returns its text.")
    def echo(text: str) -> str:
        return text

    @mcp.tool(description="Adds two integers.")
    def add(a: int, b: int) -> Sum:
        return Sum(sum=a + b)

    @mcp.tool(description="Always fails.")
    def fail() -> str:
        raise ValueError("this tool always fails")

    @mcp.tool(description="Waits ms milliseconds.")
    async def sleep(ms: int) -> str:
        await asyncio.sleep(ms / 1000)
        return f"slept {ms} ms"

    @mcp.tool(description="Only reads.", annotations=ToolAnnotations(readOnlyHint=True))
    def reads() -> str:
        return "read"

    @mcp.tool(description="Changes, destroys nothing.", annotations=ToolAnnotations(destructiveHint=False))
    def changes() -> str:
        return "changed"

    return mcp


def main():
    how = sys.argv[1]
    if how == "stdio":
        build().run("stdio")
        return
    port = int(sys.argv[2])
    transport = {"http": "streamable-http", "sse": "sse"}[how]
    if V2:
        build().run(transport, host="127.0.0.1", port=port)
    else:
        build(host="127.0.0.1", port=port, log_level="WARNING").run(transport)


if __name__ == "__main__":
    main()
