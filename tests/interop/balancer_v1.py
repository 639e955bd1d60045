"""python-sdk v1 (`mcp` 1.30.0) through the balancer (driven by balancer.py): opens a legacy
session with `streamablehttp_client`, calls echo COUNT times, prints `session <id>`, then
waits for a line on stdin. On `kill`, its replica is gone: the next call on the session must
fail, and a new session (another replica) must serve; it prints `PASS` or `FAIL <why>`.
"""

import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

TIMEOUT = 30


async def session(url, count, then_wait):
    state = {"told": False}
    try:
        await use(url, count, then_wait, state)
    except BaseException as e:
        # NB. Once the session is told, its replica may be killed at any time: the session's
        # own tasks (its GET stream) may fail first, and closing it may raise. What must
        # work is the new session after it.
        if not state["told"]:
            raise
        print(f"old session ended: {type(e).__name__}", flush=True)


async def use(url, count, then_wait, state):
    async with streamablehttp_client(url) as (read, write, session_id):
        async with ClientSession(read, write) as s:
            await s.initialize()
            for i in range(count):
                r = await s.call_tool("echo", {"text": f"v1 {i}"})
                assert r.content[0].text == f"v1 {i}", r
            print(f"session {session_id()}", flush=True)
            if not then_wait:
                return
            state["told"] = True
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            if line.strip() != "kill":
                return
            try:
                with anyio.fail_after(TIMEOUT):
                    await s.call_tool("echo", {"text": "after"})
            except Exception as e:  # noqa: BLE001 - any failure is the expected one
                print(f"old session failed: {type(e).__name__}", flush=True)
            else:
                raise AssertionError("the session of a killed replica still answered")


async def main(url, count):
    try:
        with anyio.fail_after(TIMEOUT * 3):
            await session(url, count, True)
            # The client opens a new session; it lands on a replica that is alive.
            await session(url, 1, False)
        print("PASS", flush=True)
    except BaseException as e:  # noqa: BLE001
        print(f"FAIL {type(e).__name__}: {e}", flush=True)


anyio.run(main, sys.argv[1], int(sys.argv[2]))
