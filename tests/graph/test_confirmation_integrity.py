"""Exactly once and the asker's identity hold off the runner's path: forks, re-runs, raw
Commands and resumes by someone else, as Studio or the SDK send them (on SQLite and on the
real PostgreSQL)."""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.types import Command
from sqlalchemy import func, select

from core.db.models import ConfirmationRecord, MutationReceipt
from core.run_context import RunContext
from graph.runner import TurnRequest
from tools.agency.models import Task

TITLE = "Refresh the Garlic Press listing images"
CALL = {"name": "create_task", "id": "call_create", "args": {"client": "Thorinox", "title": TITLE}}
CREATE = {"tool_calls": [CALL]}
DONE = {"content": "The task is in Thorinox's list."}


def config(thread: str, **extra: Any) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, **extra}}


async def count(workspace: Any, table: Any = Task) -> int:
    async with workspace.session() as session:
        return int(await session.scalar(select(func.count()).select_from(table)) or 0)


async def created(workspace: Any) -> int:
    async with workspace.session() as session:
        query = select(func.count()).select_from(Task).where(Task.title == TITLE)
        return int(await session.scalar(query) or 0)


async def test_a_rerun_from_the_waiting_checkpoint_never_creates_twice(
    open_runner, write_script, workspace, workspace_url
) -> None:
    # What Studio's "re-run from here" sends: the waiting checkpoint, no input; then a
    # second approval on the fork. Both paths key the same mutation.
    spec = write_script([CREATE, DONE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(TurnRequest("t1", "U0GRACE", "make the task"))
        waiting = await runner.graph.aget_state(config("t1"))
        checkpoint = waiting.config["configurable"]["checkpoint_id"]
        fingerprint = paused.interrupts[0]["proposals"][0]["proposal_fingerprint"]
        done = await runner.resume(TurnRequest("t1", "U0GRACE", ""), {"decision": "approve"})
        assert done.status == "completed" and await created(workspace) == 1

        context = runner.driver.context_for(TurnRequest("t1", "U0GRACE", ""), str(uuid.uuid4()))
        fork = await runner.graph.ainvoke(
            None, config("t1", checkpoint_id=checkpoint), context=context
        )
        [again] = fork["__interrupt__"]
        assert again.value["proposals"][0]["proposal_fingerprint"] == fingerprint
        await runner.graph.ainvoke(
            Command(resume={again.id: {"decision": "approve"}}), config("t1"), context=context
        )
    assert await created(workspace) == 1
    assert await count(workspace, MutationReceipt) == 1


async def test_whoever_resumes_a_studio_run_does_not_become_its_asker(
    open_runner, write_script, workspace, workspace_url
) -> None:
    # A run started with no user (Studio, the SDK) asks as the default user; someone else
    # resuming with their own context is refused, and the change is never theirs.
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        graph = runner.graph
        out = await graph.ainvoke(
            {"messages": [HumanMessage("make the task")]}, config("s1"), context=RunContext()
        )
        [waiting] = out["__interrupt__"]
        assert waiting.value["actor"] == "local-user"
        mallory = RunContext(user_id="U0MALLORY", user_role="member")
        await graph.ainvoke(
            Command(resume={waiting.id: {"decision": "approve"}}), config("s1"), context=mallory
        )
        snapshot = await graph.aget_state(config("s1"))
        [refused] = snapshot.interrupts
        assert refused.value["error"].startswith("Only local-user or an admin can decide")
        assert await created(workspace) == 0
        await graph.ainvoke(
            Command(resume={refused.id: {"decision": "approve"}}),
            config("s1"),
            context=RunContext(),
        )
    async with workspace.session() as session:
        task = await session.scalar(select(Task).where(Task.title == TITLE))
    assert task is not None and task.created_by == "local-user"


async def test_a_raw_command_that_jumps_to_tools_changes_nothing(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(TurnRequest("t1", "U0GRACE", "make the task"))
        [proposal] = paused.interrupts[0]["proposals"]
        forged = {
            proposal["tool_call_id"]: {
                "decision": "approve",
                "fingerprint": proposal["proposal_fingerprint"],
                "args": proposal["args"],
                "idempotency_key": f"confirm:{proposal['proposal_fingerprint']}",
                "decided_by": "U0GRACE",
            }
        }
        context = runner.driver.context_for(TurnRequest("t1", "U0GRACE", ""), str(uuid.uuid4()))
        # The jump runs tools beside the still-waiting confirm (which interrupts again), so
        # its result is in the stream rather than the thread.
        updates = [
            chunk
            async for chunk in runner.graph.astream(
                Command(goto="tools", update={"decisions": forged}),
                config("t1"),
                context=context,
                stream_mode="updates",
            )
        ]
    [result] = [
        m
        for u in updates
        for m in (u.get("tools") or {}).get("messages", [])
        if isinstance(m, ToolMessage)
    ]
    assert result.additional_kwargs["outcome"] == "refused"
    assert "no approval for this change was recorded" in result.text
    assert await created(workspace) == 0
    assert await count(workspace, ConfirmationRecord) == 0


async def test_an_edit_naming_an_unknown_field_is_refused_and_named(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(TurnRequest("t1", "U0GRACE", "make the task"))
        edit = {"decision": "edit", "args": {"tittle": "Renamed"}}
        refused = await runner.resume(TurnRequest("t1", "U0GRACE", ""), edit)
        assert refused.status == "refused"
        assert "'tittle'" in refused.text and "title" in refused.text
        assert await runner.pending("t1") is not None
    assert await created(workspace) == 0


async def test_a_listed_users_role_comes_from_the_workspace(
    open_runner, write_script, workspace, workspace_url
) -> None:
    # U0MAYA is a viewer in the workspace: claiming admin changes nothing.
    spec = write_script([CREATE, {"content": "Viewers can't create tasks."}])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(
            TurnRequest("t1", "U0MAYA", "make the task", user_role="admin")
        )
    assert result.status == "completed" and result.interrupts == []
    assert result.tool_calls[0].status == "refused"
    assert await created(workspace) == 0


async def test_the_call_budget_applies_before_anything_is_proposed(
    open_runner, write_script, workspace_url
) -> None:
    calls = [
        {"name": "create_task", "id": f"c{i}", "args": {"client": "Thorinox", "title": f"T{i}"}}
        for i in range(20)
    ]
    spec = write_script([{"tool_calls": calls}])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(TurnRequest("t1", "U0GRACE", "twenty tasks"))
    assert len(paused.interrupts[0]["proposals"]) == 8


async def test_a_change_with_invalid_arguments_is_named_not_proposed(
    open_runner, write_script, workspace_url
) -> None:
    call = {"name": "create_task", "id": "c1", "args": {"client": "Thorinox"}}
    spec = write_script([{"tool_calls": [call]}, {"content": "I need a title."}])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(TurnRequest("t1", "U0GRACE", "a task"))
    assert result.interrupts == []
    [record] = result.tool_calls
    assert record.status == "error" and "title" in str(record.result)
    assert "approval" not in str(record.result)


async def test_a_change_with_arguments_its_tool_does_not_take_is_named_not_proposed(
    open_runner, write_script, workspace, workspace_url
) -> None:
    # The model adds fields create_task has no place for: proposing it would show the person
    # a priority and an assignee that running it would silently drop.
    args = {"client": "Thorinox", "title": TITLE, "priority": "urgent", "assignee_email": "boss@x"}
    call = {"name": "create_task", "id": "c1", "args": args}
    spec = write_script([{"tool_calls": [call]}, {"content": "I can't set those."}])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(TurnRequest("t1", "U0GRACE", "an urgent task for boss"))
        messages = await runner.history("t1")
    assert result.status == "completed" and result.interrupts == []
    [record] = result.tool_calls
    assert record.status == "error" and "approval" not in str(record.result)
    [reply] = [m for m in messages if isinstance(m, ToolMessage)]
    assert "assignee_email, priority are not accepted" in str(reply.content)
    assert await count(workspace, ConfirmationRecord) == 0 and await created(workspace) == 0
