"""A turn ends at its deadline (plus a small grace) even when a model or tool call blocks.

A model call that blocks its thread (the local and scripted models run on one) and a tool
call that ignores being cancelled are both walked away from at the turn's deadline; what
they return later never reaches the thread, and a change such a call still makes is made
once. Bounds here are far below how long the calls block: reaching one means the turn
waited for the call.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from sqlalchemy import func, select

from graph.runner import TurnRequest
from tests.support.stubborn_tools import STUBBORN_S, create_task_then_stuck, stubborn_registry
from tests.support.task_scripts import CREATE, TITLE, ask
from tools.agency.models import Task

BLOCK_S = 6.0
"""How long the blocking model call takes."""
WITHIN_S = 4.0
"""The turns here have a 1 s deadline; a few seconds of grace covers a loaded machine."""


def request(text: str) -> TurnRequest:
    return TurnRequest(thread_id="t", user_id="u", message=text)


async def test_a_blocking_model_call_is_abandoned_at_the_deadline(
    open_runner: Any, write_script: Any
) -> None:
    spec = write_script([{"content": "Too late.", "delay_s": BLOCK_S}, {"content": "Next."}])
    async with open_runner(model=spec, turn_timeout_s=1.0) as runner:
        started = time.monotonic()
        capped = await runner.run_turn(request("what is new?"))
        elapsed = time.monotonic() - started
        await asyncio.sleep(BLOCK_S)  # the abandoned call returns meanwhile, to nobody
        after = await runner.run_turn(request("and now?"))
        history = await runner.history("t")
    assert elapsed < WITHIN_S, elapsed
    assert capped.status == "capped" and "longer than 1 seconds" in capped.text
    assert (after.status, after.text) == ("completed", "Next.")
    assert [(type(m), m.text) for m in history] == [
        (HumanMessage, "what is new?"),
        (AIMessage, capped.text),
        (HumanMessage, "and now?"),
        (AIMessage, "Next."),
    ]


async def test_a_tool_call_that_will_not_stop_is_abandoned_at_the_deadline(
    open_runner: Any, write_script: Any
) -> None:
    spec = write_script([{"tool_calls": [{"name": "stubborn", "args": {}}]}])
    async with open_runner(stubborn_registry(), model=spec, turn_timeout_s=1.0) as runner:
        started = time.monotonic()
        capped = await runner.run_turn(request("look it up"))
        elapsed = time.monotonic() - started
        await asyncio.sleep(STUBBORN_S)  # the abandoned call ends meanwhile
        history = await runner.history("t")
    assert elapsed < WITHIN_S, elapsed
    assert capped.status == "capped"
    [result] = [m for m in history if isinstance(m, ToolMessage)]
    assert "stubborn timed out" in result.text


async def test_an_approved_change_that_will_not_stop_is_made_once(
    open_runner: Any, write_script: Any, workspace: Any, workspace_url: str
) -> None:
    spec = write_script([CREATE, {"content": "unused"}])
    async with open_runner(
        create_task_then_stuck(), model=spec, database_url=workspace_url, turn_timeout_s=1.0
    ) as runner:
        asked = await runner.run_turn(ask())
        assert asked.status == "needs_confirmation"
        started = time.monotonic()
        approved = await runner.resume(ask(""), {"decision": "approve"})
        elapsed = time.monotonic() - started
        await asyncio.sleep(STUBBORN_S)  # the abandoned call ends meanwhile
        again = await runner.resume(ask(""), {"decision": "approve"})
        history = await runner.history("t1")
    assert elapsed < WITHIN_S, elapsed
    assert approved.status == "capped"
    [result] = [m for m in history if isinstance(m, ToolMessage)]
    assert "whether the change was made is not known yet" in result.text
    assert again.status == "refused"
    async with workspace.session() as session:
        made = await session.scalar(
            select(func.count()).select_from(Task).where(Task.title == TITLE)
        )
    assert made == 1
