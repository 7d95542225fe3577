"""Checkpoint retention `latest`: a pruned thread keeps its history and resumes what waits.

On SQLite and PostgreSQL, each with the checkpoints on the workspace's own database. Each
resume happens in a newly opened runner, as in another process. Most tests prune after
every run (`PRUNE_ABOVE` 0), so a prune meets every state a run can leave behind.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from sqlalchemy import func, select

from checkpoints import retention
from graph.runner import Runner, TurnRequest
from tests.support.onboarding_scripts import (
    ANSWER,
    CREATE,
    CREATED,
    DRAFT,
    LOOKED,
    LOOKUP,
    PLAN,
    TITLE,
)
from tools.agency.models import Task

THREAD = "prune-1"


def ask(text: str) -> TurnRequest:
    return TurnRequest(thread_id=THREAD, user_id="U0GRACE", message=text, today="2026-11-22")


@pytest.fixture
def prune_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retention, "PRUNE_ABOVE", 0)


async def checkpoints(runner: Runner) -> Counter[str]:
    """Checkpoints of the thread by namespace ('' is the main graph)."""
    saver: Any = runner.graph.checkpointer
    listed = [c async for c in saver.alist({"configurable": {"thread_id": THREAD}})]
    return Counter(c.config["configurable"]["checkpoint_ns"].split(":")[0] for c in listed)


async def tasks(workspace: Any) -> int:
    async with workspace.session() as session:
        statement = select(func.count()).select_from(Task).where(Task.title == TITLE)
        return await session.scalar(statement) or 0


async def test_each_run_leaves_one_checkpoint_and_the_whole_history(
    prune_every_run, durable, write_script
) -> None:
    async with durable(write_script([LOOKUP, LOOKED] * 3)) as runner:
        for n in range(3):
            result = await runner.run_turn(ask(f"who owns Garlic Press? ({n})"))
            assert result.status == "completed", result.text
            assert await checkpoints(runner) == Counter({"": 1})
    async with durable(write_script([])) as runner:
        history = await runner.history(THREAD)
    assert [m.type for m in history] == ["human", "ai", "tool", "ai"] * 3
    assert [m.text for m in history if m.type == "human"] == [
        f"who owns Garlic Press? ({n})" for n in range(3)
    ]


async def test_a_pruned_pause_resumes_in_a_new_runner(
    prune_every_run, durable, write_script, workspace
) -> None:
    async with durable(write_script([LOOKUP, LOOKED, CREATE])) as runner:
        await runner.run_turn(ask("who owns Garlic Press?"))
        paused = await runner.run_turn(ask("create the kickoff task"))
        assert paused.status == "needs_confirmation", paused.text
        assert await checkpoints(runner) == Counter({"": 1})
    async with durable(write_script([CREATED])) as runner:
        pending = await runner.pending(THREAD)
        assert pending is not None and pending["proposals"][0]["args"]["title"] == TITLE
        done = await runner.resume(ask(""), {"decision": "approve"})
        assert done.status == "completed", done.text
        assert done.text == CREATED["content"]
        assert await checkpoints(runner) == Counter({"": 1})
        history = await runner.history(THREAD)
    assert await tasks(workspace) == 1
    assert [m.type for m in history] == ["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]
    assert history[0].text == "who owns Garlic Press?"


async def test_a_pause_inside_the_planner_keeps_its_namespace_until_done(
    prune_every_run, durable, write_script, workspace
) -> None:
    async with durable(write_script([PLAN, DRAFT, LOOKUP, LOOKED, CREATE])) as runner:
        paused = await runner.run_turn(ask("onboard Garlic Press"))
        assert paused.status == "needs_confirmation", paused.text
        assert await checkpoints(runner) == Counter({"": 1, "planner": 1})
    async with durable(write_script([CREATED, ANSWER])) as runner:
        done = await runner.resume(ask(""), {"decision": "approve"})
        assert done.status == "completed", done.text
        assert done.text == ANSWER["content"]
        assert await checkpoints(runner) == Counter({"": 1})
    assert await tasks(workspace) == 1


async def test_retention_all_keeps_every_step(durable, write_script) -> None:
    async with durable(write_script([LOOKUP, LOOKED]), checkpoint_retention="all") as runner:
        await runner.run_turn(ask("who owns Garlic Press?"))
        kept = await checkpoints(runner)
    # One per step: the input, guard, gather, act, tools, act, verify, finalize.
    assert kept[""] >= 8


async def test_a_thread_is_pruned_once_it_holds_more_than_the_threshold(
    durable, write_script, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two prunes within the turns this history holds before compaction would summarize it.
    monkeypatch.setattr(retention, "PRUNE_ABOVE", 24)
    turns = 12
    async with durable(write_script([LOOKUP, LOOKED] * turns)) as runner:
        held = []
        for n in range(turns):
            result = await runner.run_turn(ask(f"who owns Garlic Press? ({n})"))
            assert result.status == "completed", result.text
            held.append(sum((await checkpoints(runner)).values()))
        history = await runner.history(THREAD)
    # Steps pile up until a run ends past the threshold, which leaves only the latest.
    assert held[0] > 1
    assert held.count(1) >= 2
    assert max(held) <= retention.PRUNE_ABOVE + held[0]
    assert len(history) == 4 * turns
