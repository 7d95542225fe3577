"""How a message enters its thread: as the reply to what waits, or as a new turn.

The runner reads the thread's latest checkpoint (`checkpoints.tables.latest`: its row on
SQLite, on PostgreSQL the checkpoint the run then loads again without a query): whether it
holds an interrupt, and (on PostgreSQL) how the last turn ended. After a turn that ended, a message
opens the next turn at guard and gather directly; after one cut off mid-way it enters at
START, which drops what that turn left to run. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from checkpoints import tables
from graph.runner import Runner, TurnRequest
from tests.support.onboarding_scripts import ANSWER, CREATE, CREATED, DRAFT, LOOKED, LOOKUP, PLAN

THREAD = "open-1"


def ask(text: str, model: str | None = None) -> TurnRequest:
    return TurnRequest(THREAD, "U0GRACE", text, today="2026-11-22", model=model)


async def latest(runner: Runner) -> tuple[bool, Any]:
    row = await tables.latest(runner.graph.checkpointer, THREAD, "status")
    assert row is not None
    return row.interrupted, row.value


async def test_the_latest_row_says_what_the_thread_waits_on(
    durable, write_script, workspace_url
) -> None:
    # Only PostgreSQL keeps the status in the checkpoint's row.
    postgres = workspace_url.startswith("postgresql")

    def status(value: str) -> str | None:
        return value if postgres else None

    script = [LOOKUP, LOOKED, CREATE, CREATED, PLAN, DRAFT, LOOKUP, LOOKED, CREATE, CREATED, ANSWER]
    async with durable(write_script(script)) as runner:
        new = await tables.latest(runner.graph.checkpointer, THREAD, "status")
        assert new == tables.Latest(exists=False, interrupted=False, value=None)
        await runner.run_turn(ask("who owns Garlic Press?"))
        assert await latest(runner) == (False, status("completed"))
        assert await runner.pending(THREAD) is None
        await runner.run_turn(ask("create the kickoff task"))
        assert await latest(runner) == (True, status("running"))
        assert await runner.pending(THREAD) is not None
        await runner.run_turn(ask("yes"))  # read as the reply: the change is made
        assert await latest(runner) == (False, status("completed"))
        paused = await runner.run_turn(ask("onboard Garlic Press"))
        assert paused.status == "needs_confirmation", paused.text
        assert await latest(runner) == (True, status("running"))  # inside the planner
        assert await runner.pending(THREAD) is not None
        done = await runner.run_turn(ask("yes"))
        assert done.status == "completed", done.text
        assert await latest(runner) == (False, status("completed"))


async def test_a_turn_after_one_cut_off_mid_way_starts_afresh(
    durable, write_script, tmp_path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    async with durable(write_script([]), scripted_transcript=transcript) as runner:
        failed = await runner.run_turn(ask("who owns Garlic Press?"))
        assert failed.status == "failed"  # the model's call raised: act is left to run
        assert (await runner.graph.aget_state({"configurable": {"thread_id": THREAD}})).next
        done = await runner.run_turn(ask("who owns Garlic Press, then?", write_script([LOOKED])))
        history = await runner.history(THREAD)
    # One model call for the new turn: the cut-off turn's act did not run beside it.
    assert done.status == "completed" and done.text == LOOKED["content"], done.text
    assert [m.type for m in history] == ["human", "human", "ai"]


async def test_a_turn_after_an_ended_one_opens_at_its_first_nodes(
    durable, write_script, workspace_url
) -> None:
    async with durable(write_script([LOOKED, LOOKED]), checkpoint_retention="all") as runner:
        saver: Any = runner.graph.checkpointer
        config = {"configurable": {"thread_id": THREAD}}
        for n in range(2):
            done = await runner.run_turn(ask(f"who owns Garlic Press? ({n})"))
            assert done.status == "completed", done.text
        sources = [c.metadata.get("source") async for c in saver.alist(config)]
    # Newest first: the second turn, then the first (a new thread's first message enters
    # at START). On PostgreSQL the second turn's message was written with guard and gather
    # as its next step: no input checkpoint and no START step, four checkpoints in all.
    first = ["loop"] * 5 + ["input"]
    if workspace_url.startswith("postgresql"):
        assert sources == ["loop"] * 4 + first
    else:
        assert sources == first + first
