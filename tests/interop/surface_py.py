"""The whole server surface of python-sdk v1's FastMCP (1.x only), as a backend of `janus
bridge` (tests/interop/bridge_surface_v2.py):

    python surface_py.py stdio | http PORT

Tools: echo(text); progress() reports 0, 50 and 100; ask_name() elicits a name; capital()
asks the client to sample; grow() adds the tool `grown` and says the tool list changed.
A text resource (demo://greeting), a template (demo://item/{id}), a prompt greet(name) whose
argument completes, from the names it knows.
"""

import sys

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import (
    Completion,
    PromptReference,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

NAMES = ["ada", "alan", "grace"]


class Name(BaseModel):
    name: str


def build(**settings):
    mcp = FastMCP("py-v1-surface", instructions="The whole surface of FastMCP v1.", **settings)

    @mcp.tool(description="Returns its text.")
    def echo(text: str) -> str:
        return text

    @mcp.tool(description="Reports progress 0, 50, 100.")
    async def progress(ctx: Context) -> str:
        for p in (0, 50, 100):
            await ctx.report_progress(p, 100)
        return "done"

    @mcp.tool(description="Asks the user's name.")
    async def ask_name(ctx: Context) -> str:
        r = await ctx.elicit("What is your name?", Name)
        name = r.data.name if r.action == "accept" and r.data else "-"
        return f"action={r.action} name={name}"

    @mcp.tool(description="Asks the client's model for a capital.")
    async def capital(ctx: Context) -> str:
        r = await ctx.session.create_message(
            [SamplingMessage(role="user", content=TextContent(type="text", text="Capital of France?"))],
            max_tokens=16,
            related_request_id=ctx.request_id,
        )
        return f"model said {r.content.text}"

    @mcp.tool(description="Adds the tool `grown`.")
    async def grow(ctx: Context) -> str:
        def grown() -> str:
            return "grown"

        mcp.add_tool(grown, name="grown", description="Added at run time.")
        await ctx.session.send_tool_list_changed()
        return "grew"

    @mcp.resource("demo://greeting", description="A greeting.")
    def greeting() -> str:
        return "Hello from FastMCP v1"

    @mcp.resource("demo://item/{id}", description="An item by id.")
    def item(id: str) -> str:
        return f"item {id}"

    @mcp.prompt(description="Greets someone.")
    def greet(name: str) -> str:
        return f"Please greet {name}."

    @mcp.completion()
    async def complete(ref, argument, context):
        if isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "name":
            return Completion(values=[n for n in NAMES if n.startswith(argument.value)])
        return None

    return mcp


def main():
    how = sys.argv[1]
    if how == "stdio":
        build().run("stdio")
        return
    build(host="127.0.0.1", port=int(sys.argv[2]), log_level="WARNING").run("streamable-http")


if __name__ == "__main__":
    main()
