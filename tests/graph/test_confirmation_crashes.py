"""A crash between an approved change and its checkpoint: the change runs once, and only a
decision from someone allowed finishes it (a rejection or an edit then is refused)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import func, select

from core.db.models import MutationReceipt
from graph.runner import TurnRequest
from tests.support.dying_tools import ProcessDied, dying_after_create_task
from tests.support.task_scripts import CREATE, TITLE, ask
from tools.agency.models import Task

DONE = {"content": "The task is in Thorinox's list."}


async def tasks(workspace: Any) -> int:
    async with workspace.session() as session:
        query = select(func.count()).select_from(Task).where(Task.title == TITLE)
        return int(await session.scalar(query) or 0)


async def test_a_crash_after_the_side_effect_replays_instead_of_repeating(
    open_runner, write_script, workspace, workspace_url
) -> None:
    """The task is committed, then the run dies before the tools step is checkpointed:
    the next resume finishes the run, and the idempotency key returns the first result."""
    spec = write_script([CREATE, DONE])
    async with open_runner(
        dying_after_create_task(), model=spec, database_url=workspace_url
    ) as runner:
        await runner.run_turn(ask())
        with pytest.raises(ProcessDied):
            await runner.resume(ask(), {"decision": "approve"})
        assert await tasks(workspace) == 1
        snapshot = await runner.graph.aget_state({"configurable": {"thread_id": "t1"}})
        assert snapshot.next == ("tools",) and not snapshot.interrupts

        finished = await runner.resume(ask(), {"decision": "approve"})
    assert finished.status == "completed" and finished.text == DONE["content"]
    assert finished.tool_calls[0].result["replayed"] is True
    assert await tasks(workspace) == 1
    async with workspace.session() as session:
        assert await session.scalar(select(func.count()).select_from(MutationReceipt)) == 1


async def test_a_decision_for_a_run_a_crash_cut_off_is_checked(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    grace = TurnRequest("t1", "U0GRACE", "")
    async with open_runner(
        dying_after_create_task(), model=spec, database_url=workspace_url
    ) as runner:
        await runner.run_turn(replace(grace, message="make the task"))
        with pytest.raises(ProcessDied):
            await runner.resume(grace, {"decision": "approve"})
        viewer = await runner.resume(
            TurnRequest("t1", "U0MAYA", "", user_role="admin"), {"decision": "reject"}
        )
        assert viewer.status == "refused" and "Only U0GRACE or an admin" in viewer.text
        rejected = await runner.resume(grace, {"decision": "reject"})
        assert rejected.status == "refused" and "already approved" in rejected.text
        finished = await runner.resume(grace, {"decision": "approve"})
        assert finished.status == "completed"
        nothing = await runner.resume(grace, {"decision": "reject"})
        assert nothing.status == "refused" and "nothing waiting" in nothing.text
    async with workspace.session() as session:
        assert (
            await session.scalar(select(func.count()).select_from(Task).where(Task.title == TITLE))
            == 1
        )
