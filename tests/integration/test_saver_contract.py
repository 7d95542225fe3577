"""What the PostgreSQL checkpointer takes from LangGraph beyond its public API, checked.

`checkpoints/postgres_saver.py` spells the null task's id and the reserved channels' names
(LangGraph keeps them private), and `checkpoints/tables.py` reads the saver's tables. The
versions are pinned exactly in pyproject.toml; an upgrade that changes any of this fails
here before it reaches a thread.
"""

from __future__ import annotations

import operator
import re
import tomllib
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Annotated, Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph._internal import _constants
from langgraph.checkpoint.base import WRITES_IDX_MAP
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from checkpoints import postgres_saver
from checkpoints.savers import open_checkpointer, setup_checkpointer
from core.settings import Settings
from tests.support.cli import ROOT

PINNED = ("langgraph", "langgraph-checkpoint", "langgraph-checkpoint-postgres")


def test_the_versions_relied_on_are_pinned_and_installed() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = {}
    for requirement in pyproject["project"]["dependencies"]:
        found = re.fullmatch(r"([a-z-]+)==([0-9.]+)", requirement)
        if found:
            pins[found[1]] = found[2]
    for name in PINNED:
        assert pins.get(name) == metadata.version(name), name


def test_the_private_names_are_langgraphs() -> None:
    assert postgres_saver.NULL_TASK_ID == _constants.NULL_TASK_ID
    assert postgres_saver.INTERRUPT == _constants.INTERRUPT
    assert postgres_saver.ERROR == _constants.ERROR
    assert set(WRITES_IDX_MAP) == postgres_saver.RESERVED_CHANNELS


class Steps(TypedDict, total=False):
    done: Annotated[list[str], operator.add]
    status: str


async def test_langgraph_writes_what_the_saver_tells_apart(
    pg_url: str, make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An input's writes come as the null task's, a task's under its own id, an interrupt
    on its reserved channel; every checkpoint but the first names its parent."""
    settings = make_settings(database_url=pg_url, checkpointer="postgres")
    await setup_checkpointer(settings)
    writes: list[tuple[str, tuple[str, ...]]] = []
    parents: list[str | None] = []
    saver_class = postgres_saver.PooledPostgresSaver
    put_writes, put = saver_class.aput_writes, saver_class.aput

    async def noted_writes(
        self: Any, config: RunnableConfig, w: Sequence[tuple[str, Any]], task: str, path: str = ""
    ) -> None:
        writes.append((task, tuple(channel for channel, _ in w)))
        await put_writes(self, config, w, task, path)

    async def noted_put(self: Any, config: RunnableConfig, *args: Any) -> RunnableConfig:
        parents.append(config["configurable"].get("checkpoint_id"))
        return await put(self, config, *args)

    monkeypatch.setattr(saver_class, "aput_writes", noted_writes)
    monkeypatch.setattr(saver_class, "aput", noted_put)

    def ask(state: Steps) -> Steps:
        return {"done": [interrupt("approve?")]}

    builder = StateGraph(Steps)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    config: Any = {"configurable": {"thread_id": "contract"}}
    async with open_checkpointer(settings) as saver:
        graph = builder.compile(checkpointer=saver)
        await graph.ainvoke({"done": []}, config, durability="sync")
        interrupted = [channels for task, channels in writes if task != _constants.NULL_TASK_ID]
        assert (postgres_saver.INTERRUPT,) in interrupted
        writes.clear()
        await graph.ainvoke(Command(resume="yes"), config, durability="sync")
    assert writes[0] == (postgres_saver.NULL_TASK_ID, ("__resume__",))
    assert parents[0] is None and all(parents[1:])


async def test_the_tables_read_directly_hold_what_is_read(
    pg_url: str, make_settings: Callable[..., Settings]
) -> None:
    """`checkpoints/tables.py` reads plain channel values inline and writes by channel."""
    settings = make_settings(database_url=pg_url, checkpointer="postgres")
    await setup_checkpointer(settings)
    async with open_checkpointer(settings) as saver:
        builder = StateGraph(Steps)
        builder.add_node("mark", lambda state: {"status": "asked", "done": ["mark"]})
        builder.add_node("ask", lambda state: {"done": [interrupt("approve?")]})
        builder.add_edge(START, "mark")
        builder.add_edge("mark", "ask")
        config: Any = {"configurable": {"thread_id": "contract-tables"}}
        await builder.compile(checkpointer=saver).ainvoke({"done": []}, config)
        async with saver.conn.connection() as conn:  # type: ignore[union-attr]
            cur = await conn.execute(
                "select c.checkpoint->'channel_values'->>'status' as status,"
                " c.checkpoint->'channel_values' ? 'done' as inline_list, exists ("
                " select 1 from checkpoint_writes w where w.thread_id = c.thread_id"
                " and w.checkpoint_ns = '' and w.checkpoint_id = c.checkpoint_id"
                " and w.channel = %s) as interrupted"
                " from checkpoints c where c.thread_id = %s and c.checkpoint_ns = ''"
                " order by c.checkpoint_id desc limit 1",
                (postgres_saver.INTERRUPT, "contract-tables"),
            )
            row = await cur.fetchone()
    # a plain value is inline, a list a blob; the interrupt is a write of the latest checkpoint
    assert row == {"status": "asked", "inline_list": False, "interrupted": True}
