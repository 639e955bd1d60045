"""The benchmark's python-sdk v2 peer: the demo tools (echo, add, fail) on MCPServer, stdio.

`janus bench` runs it with the Python of a virtual environment that holds mcp==2.3.0
(the one the interop lane creates under target/interop/, or JANUS_BENCH_PYTHON).
"""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("python-sdk-v2-peer")


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Returns its text argument as one text block."""
    return text


@server.tool()
def add(a: float, b: float) -> dict:
    """Adds two numbers; returns the sum as text and as structured content."""
    return {"sum": a + b}


@server.tool()
def fail() -> str:
    """Always fails: a result with isError true."""
    raise ToolError("fail: this tool always fails")


if __name__ == "__main__":
    server.run("stdio")
