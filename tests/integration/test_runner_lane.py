"""The runner holds the thread's lane itself: raw runner calls, at once, never fork a thread.

Two `Runner.resume` calls on one waiting thread, made together by code that takes no lane
(as a script, a test or a new surface would), in one process and in two runners (two
workers) on one database: one decision runs, the other finds nothing waiting, the change is
made once and the thread's checkpoints stay one chain. On SQLite and PostgreSQL (across
runners on PostgreSQL only: SQLite's lanes hold within a process).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from core.db.models import MutationReceipt
from graph.runner import Runner, TurnRequest
from tests.support.task_scripts import CREATE, TITLE
from tools.agency.models import Task

TRIALS = 3
DONE = {"content": "The task is in Thorinox's list."}


def asker(thread: str, text: str = "") -> TurnRequest:
    return TurnRequest(thread, "U0GRACE", text, today="2026-11-22")


async def forks(runner: Runner, thread: str) -> list[str]:
    """Checkpoints of the thread that more than one checkpoint names as its parent."""
    config: Any = {"configurable": {"thread_id": thread}}
    parents = Counter(
        [
            snapshot.parent_config["configurable"]["checkpoint_id"]
            async for snapshot in runner.graph.aget_state_history(config)
            if snapshot.parent_config
        ]
    )
    return [checkpoint for checkpoint, children in parents.items() if children > 1]


async def counts(workspace: Any, thread: str) -> tuple[int, int]:
    async with workspace.session() as session:
        tasks = await session.scalar(
            select(func.count()).select_from(Task).where(Task.title == f"{TITLE} {thread}")
        )
        receipts = await session.scalar(select(func.count()).select_from(MutationReceipt))
    return int(tasks or 0), int(receipts or 0)


def script_for(thread: str) -> list[dict[str, Any]]:
    call = CREATE["tool_calls"][0]
    create = {"tool_calls": [{**call, "args": {**call["args"], "title": f"{TITLE} {thread}"}}]}
    return [create, DONE, DONE]


async def test_two_raw_resumes_at_once_decide_once_without_forking(
    durable: Callable[..., Any], write_script: Callable[..., str], workspace: Any
) -> None:
    for trial in range(TRIALS):
        thread = f"lane-{trial}"
        async with durable(write_script(script_for(thread)), checkpoint_retention="all") as runner:
            asked = await runner.run_turn(asker(thread, "create the task"))
            assert asked.status == "needs_confirmation", asked.text
            decided = await asyncio.gather(
                runner.resume(asker(thread), {"decision": "approve"}),
                runner.resume(asker(thread), {"decision": "approve"}),
            )
            assert await forks(runner, thread) == []
        assert sorted(result.status for result in decided) == ["completed", "refused"]
        assert await counts(workspace, thread) == (1, trial + 1)


@pytest.mark.parametrize("workspace_url", [pytest.param("postgres", marks=pytest.mark.postgres)],
                         indirect=True)  # fmt: skip
async def test_two_workers_resuming_at_once_decide_once_without_forking(
    durable: Callable[..., Any], write_script: Callable[..., str], workspace: Any
) -> None:
    for trial in range(TRIALS):
        thread = f"workers-{trial}"
        # Each worker's model replays its own script: the second only ever answers.
        async with (
            durable(write_script(script_for(thread)), checkpoint_retention="all") as first,
            durable(write_script([DONE]), checkpoint_retention="all") as second,
        ):
            asked = await first.run_turn(asker(thread, "create the task"))
            assert asked.status == "needs_confirmation", asked.text
            decided = await asyncio.gather(
                first.resume(asker(thread), {"decision": "approve"}),
                second.resume(asker(thread), {"decision": "approve"}),
            )
            assert await forks(first, thread) == []
        assert sorted(result.status for result in decided) == ["completed", "refused"]
        assert await counts(workspace, thread) == (1, trial + 1)
