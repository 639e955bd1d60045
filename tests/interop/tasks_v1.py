"""python-sdk v1 (`mcp` 1.x) driving Janus's legacy (2025-11-25) experimental tasks.

Through `session.experimental`: the `tasks` capability of `initialize`, `call_tool_as_task`
on the task-capable `sleep`, polling with `get_task`, `get_task_result`, `list_tasks`, cancel
twice on a completed task (Janus's cancel is idempotent), cancel of a running task, and an
unknown task id (-32602). One result line; exit status 1 on failure.
"""

import sys
import traceback
import warnings
from datetime import timedelta
from importlib.metadata import version

import anyio
from mcp import ClientSession, McpError, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, Implementation, TextContent

import wire


async def wait_terminal(session, task_id):
    with anyio.fail_after(10):
        while True:
            status = await session.experimental.get_task(task_id)
            if status.status in ("completed", "failed", "cancelled"):
                return status
            wire.check(status.status == "working", f"status {status.status!r}")
            await anyio.sleep(0.02)


async def exercise(log_path):
    command, args = wire.tapped_command(log_path)
    params = StdioServerParameters(command=command, args=args)
    with anyio.fail_after(wire.MODE_TIMEOUT):
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=wire.MODE_TIMEOUT),
                client_info=Implementation(name="janus-interop-py-v1-tasks", version="1.0.0"),
            ) as session:
                init = await session.initialize()
                wire.check(init.protocolVersion == wire.LATEST_HANDSHAKE, f"negotiated {init.protocolVersion}")
                caps = init.capabilities.tasks
                wire.check(caps is not None, "no tasks capability in initialize")

                tools = await session.list_tools()
                sleep = next(t for t in tools.tools if t.name == "sleep")
                wire.check(sleep.execution is not None and sleep.execution.taskSupport == "optional",
                           f"sleep execution {sleep.execution!r}")

                created = await session.experimental.call_tool_as_task("sleep", {"ms": 100}, ttl=60000)
                task_id = created.task.taskId
                wire.check(created.task.status == "working", f"created status {created.task.status}")
                done = await wait_terminal(session, task_id)
                wire.check(done.status == "completed", f"final status {done.status}")
                result = await session.experimental.get_task_result(task_id, CallToolResult)
                block = result.content[0]
                wire.check(isinstance(block, TextContent) and block.text == "slept 100 ms",
                           f"task result {result.content!r}")

                listed = await session.experimental.list_tasks()
                wire.check(any(t.taskId == task_id for t in listed.tasks), "tasks/list lacks the task")

                for _ in range(2):
                    again = await session.experimental.cancel_task(task_id)
                    wire.check(again.status == "completed", f"cancel changed a completed task: {again.status}")

                running = await session.experimental.call_tool_as_task("sleep", {"ms": 600000})
                cancelled = await session.experimental.cancel_task(running.task.taskId)
                wire.check(cancelled.status == "cancelled", f"cancel gave {cancelled.status}")

                try:
                    await session.experimental.get_task("no-such-task")
                except McpError as e:
                    wire.check(e.error.code == -32602, f"unknown task: code {e.error.code}, want -32602")
                else:
                    raise AssertionError("an unknown task id did not raise McpError")
    return init.protocolVersion


def main():
    # v1 marks its experimental tasks API deprecated; that is the API this lane drives.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    lane = f"python-sdk-v1 mcp=={version('mcp')} tasks"
    report = wire.Report(lane)
    mode = "legacy-tasks"
    log_path = wire.wire_dir() / "py-v1-tasks.log"
    try:
        negotiated = anyio.run(exercise, log_path)
        report.ok(mode, negotiated, "experimental tasks (2025-11-25)")
    except Exception as e:  # noqa: BLE001 - the mode reports its own failure
        traceback.print_exc(file=sys.stderr)
        report.fail(mode, e)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
