"""The benchmark's python-sdk peers: the demo tools (echo, add, fail) on stdio, on v2's
MCPServer or, under a Python whose `mcp` is 1.x, on v1's FastMCP (handshake revisions only;
`janus bench` also puts `janus bridge` in front of it).

`janus bench` runs it with the Python of a virtual environment that holds mcp==2.3.0 or
mcp==1.30.0 (the ones the interop lane creates under target/interop/, or JANUS_BENCH_PYTHON
and JANUS_BENCH_PYTHON_V1).
"""

try:
    from mcp.server.mcpserver import MCPServer as Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server
    from mcp.server.fastmcp.exceptions import ToolError

server = Server("python-sdk-peer")


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
