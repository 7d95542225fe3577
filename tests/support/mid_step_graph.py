"""A graph whose step of two tasks never ends, run on the configured PostgreSQL checkpointer.

`python -m tests.support.mid_step_graph DATABASE_URL PENDING_WRITES CALLS THREAD` runs it in
a process of its own until it is killed: `first` ends at once, `second` waits for good. Each
node run is appended to the file CALLS (one line, its name), so a test knows the step is
under way and counts what ran again after a resume.
"""

from __future__ import annotations

import asyncio
import operator
import sys
from pathlib import Path
from typing import Annotated, Any

from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from typing_extensions import TypedDict

from checkpoints.savers import open_checkpointer
from core.settings import Settings


class Steps(TypedDict, total=False):
    done: Annotated[list[str], operator.add]


def settings_for(database_url: str, pending_writes: str) -> Settings:
    """The checkpointer's settings, with pending writes `durable` or `deferred`."""
    return Settings(
        _env_file=None,
        database_url=database_url,
        checkpointer="postgres",
        checkpoint_pending_writes=pending_writes,
    )


def graph(saver: Any, calls: Path, hang: bool) -> CompiledStateGraph[Any, Any, Any, Any]:
    """START → first ‖ second → last; `second` never ends when `hang`."""

    def ran(name: str) -> None:
        with calls.open("a", encoding="utf-8") as file:
            file.write(f"{name}\n")

    async def first(state: Steps) -> Steps:
        ran("first")
        return {"done": ["first"]}

    async def second(state: Steps) -> Steps:
        ran("second")
        if hang:
            await asyncio.Event().wait()
        return {"done": ["second"]}

    async def last(state: Steps) -> Steps:
        ran("last")
        return {"done": ["last"]}

    builder = StateGraph(Steps)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_node("last", last)
    builder.add_edge(START, "first")
    builder.add_edge(START, "second")
    builder.add_edge(["first", "second"], "last")
    return builder.compile(checkpointer=saver)


async def _hang(database_url: str, pending_writes: str, calls: Path, thread: str) -> None:
    async with open_checkpointer(settings_for(database_url, pending_writes)) as saver:
        config: Any = {"configurable": {"thread_id": thread}}
        await graph(saver, calls, hang=True).ainvoke({"done": []}, config, durability="sync")


if __name__ == "__main__":
    url, pending, calls_file, thread_id = sys.argv[1:5]
    asyncio.run(_hang(url, pending, Path(calls_file), thread_id))
