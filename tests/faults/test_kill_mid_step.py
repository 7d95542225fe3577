"""SIGKILL in the middle of a step: what a resume in a new process runs again.

A step of two tasks where one has ended and the other never does. With pending writes
durable (the default) the ended task's writes are stored as it ends, so the resume runs
only the task that had not ended; deferred, they die with the process and it runs again
(the cost docs/storage.md states for that opt-in).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from checkpoints.savers import open_checkpointer, setup_checkpointer
from tests.support.cli import ROOT
from tests.support.mid_step_graph import graph, settings_for

pytestmark = pytest.mark.postgres


async def _first_is_saved(url: str, pending: str, thread: str) -> bool:
    """Whether the thread's latest checkpoint holds first's write (public saver reads)."""
    async with open_checkpointer(settings_for(url, pending)) as saver:
        found = await saver.aget_tuple({"configurable": {"thread_id": thread}})
    return found is not None and any(
        channel == "done" and value == ["first"] for _, channel, value in found.pending_writes or ()
    )


def _calls(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split() if path.exists() else []


@pytest.mark.parametrize(("pending", "first_runs"), [("durable", 1), ("deferred", 2)])
async def test_a_resume_after_a_kill_mid_step_reruns_only_what_was_not_saved(
    pg_url: str, tmp_path: Path, pending: str, first_runs: int
) -> None:
    await setup_checkpointer(settings_for(pg_url, pending))
    thread = f"killed-mid-step-{pending}"
    calls = tmp_path / "calls.txt"
    victim = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "tests.support.mid_step_graph"],
        *[pg_url, pending, str(calls), thread],
        cwd=ROOT,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not {"first", "second"} <= set(_calls(calls)) or (
            pending == "durable" and not await _first_is_saved(pg_url, pending, thread)
        ):
            assert victim.returncode is None, await victim.communicate()
            assert time.monotonic() < deadline, "the step never got under way"
            await asyncio.sleep(0.1)
    finally:
        victim.kill()  # SIGKILL: nothing of the process runs after it
        await victim.wait()

    config: Any = {"configurable": {"thread_id": thread}}
    async with open_checkpointer(settings_for(pg_url, pending)) as saver:
        state = await graph(saver, calls, hang=False).ainvoke(None, config, durability="sync")

    assert sorted(state["done"]) == ["first", "last", "second"]
    assert _calls(calls).count("first") == first_runs
    assert _calls(calls).count("second") == 2  # it had not ended: it runs again either way
