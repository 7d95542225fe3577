"""The PostgreSQL checkpointer's writes and round trips.

By default every task's writes are stored as the task ends, so a run cut off mid-step
resumes in another process without running its finished tasks again. With pending writes
deferred (the opt-in), a step's task writes wait for its checkpoint and are not written once
it is saved; nothing a resume needs is lost on the way: a sibling's writes beside an
interrupt are saved with it, and a run cut off mid-step has its finished tasks' writes saved
by `write_held`. In both, the runner's read of a thread before a run is the run's own load,
and a kept checkpoint is never served once the thread is written or it is too old.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from checkpoints import postgres_saver
from checkpoints.postgres_saver import PooledPostgresSaver
from checkpoints.savers import open_checkpointer, setup_checkpointer
from core.settings import Settings


class Steps(TypedDict, total=False):
    done: Annotated[list[str], operator.add]


@pytest.fixture
async def saver_for(pg_url: str, make_settings: Callable[..., Settings]) -> Callable[..., Any]:
    """Open the configured PostgreSQL checkpointer (a new one stands for another process)."""
    settings = make_settings(database_url=pg_url, checkpointer="postgres")
    await setup_checkpointer(settings)

    @asynccontextmanager
    async def opener(
        retention: str = "latest", pending: str = "durable"
    ) -> AsyncIterator[PooledPostgresSaver]:
        chosen = settings.model_copy(
            update={"checkpoint_retention": retention, "checkpoint_pending_writes": pending}
        )
        async with open_checkpointer(chosen) as saver:
            assert isinstance(saver, PooledPostgresSaver)
            yield saver

    return opener


def _graph(
    saver: Any, calls: list[str], second: Callable[[Steps], Any], first_s: float = 0.0
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """START → first ‖ second → last; `calls` records each node run; first takes `first_s`."""

    async def first(state: Steps) -> Steps:
        await asyncio.sleep(first_s)
        calls.append("first")
        return {"done": ["first"]}

    async def wrapped_second(state: Steps) -> Steps:
        calls.append("second")
        return await second(state)

    def last(state: Steps) -> Steps:
        calls.append("last")
        return {"done": ["last"]}

    builder = StateGraph(Steps)
    builder.add_node("first", first)
    builder.add_node("second", wrapped_second)
    builder.add_node("last", last)
    builder.add_edge(START, "first")
    builder.add_edge(START, "second")
    builder.add_edge(["first", "second"], "last")
    return builder.compile(checkpointer=saver)


async def _second(state: Steps) -> Steps:
    return {"done": ["second"]}


async def _finished_thread(saver: PooledPostgresSaver, thread_id: str) -> RunnableConfig:
    """Run the graph once on a new thread; return the config that loads its latest."""
    latest: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    await _graph(saver, [], _second).ainvoke({"done": []}, latest)
    return latest


def _has_late_write(found: Any) -> bool:
    return ("done", ["late"]) in [(c, v) for _, c, v in found.pending_writes or []]


def _count_round_trips(saver: PooledPostgresSaver) -> list[int]:
    """Count the saver's database calls (each takes a connection from the pool)."""
    count = [0]
    pool = saver.conn
    connection = pool.connection

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return connection(*args, **kwargs)

    pool.connection = counted  # type: ignore[method-assign,union-attr]
    return count


@pytest.mark.parametrize("retention", ["all", "latest"])
async def test_each_tasks_writes_are_stored_as_it_ends(
    saver_for: Callable[..., Any], retention: str
) -> None:
    async with saver_for(retention) as saver:
        graph = _graph(saver, [], _second)
        trips = _count_round_trips(saver)
        config: Any = {"configurable": {"thread_id": f"stored-{retention}"}}
        await graph.ainvoke({"done": []}, config, durability="sync")
        round_trips = trips[0]
        checkpoints = [c async for c in saver.alist(config)]
        assert len(checkpoints) == 4  # the input, START's step, first ‖ second, last
        # the run's read of the thread, one round trip per checkpoint and one per task
        assert round_trips == 1 + len(checkpoints) + 4
        written = {
            task
            for c in checkpoints
            for task, channel, _ in (c.pending_writes or [])
            if channel == "done"
        }
        # on the checkpoint each task's step started from
        assert len(written) == 4  # START's (the input) and the three nodes'
        assert saver._held == {}


@pytest.mark.parametrize("retention", ["all", "latest"])
async def test_deferred_task_writes_go_with_their_checkpoint(
    saver_for: Callable[..., Any], retention: str
) -> None:
    async with saver_for(retention, "deferred") as saver:
        calls: list[str] = []
        graph = _graph(saver, calls, _second)
        trips = _count_round_trips(saver)
        config: Any = {"configurable": {"thread_id": f"steps-{retention}"}}
        state = await graph.ainvoke({"done": []}, config, durability="sync")
        round_trips = trips[0]
        assert sorted(state["done"]) == ["first", "last", "second"]
        checkpoints = [c async for c in saver.alist(config)]
        # the input, START's step, the step of first ‖ second, and the step of last
        assert len(checkpoints) == 4
        # the run's read of the thread, then one round trip per checkpoint; the four
        # tasks' writes (START's and the three nodes') only when history is kept
        assert round_trips == 1 + len(checkpoints) + (4 if retention == "all" else 0)
        assert saver._held == {}
        written = {
            task
            for c in checkpoints
            for task, channel, _ in (c.pending_writes or [])
            if channel == "done"
        }
        if retention == "all":
            # every task's writes are stored on the checkpoint its step started from
            assert len(written) == 4  # START's (the input) and the three nodes'
        else:
            # the checkpoint after each step holds what its tasks wrote
            assert written == set()
    async with saver_for(retention, "deferred") as other_process:
        again = await _graph(other_process, calls, _second).aget_state(config)
        assert sorted(again.values["done"]) == ["first", "last", "second"]


def _appended(value: list[str], writes: Sequence[list[str]]) -> list[str]:
    return [*value, *(item for write in writes for item in write)]


class DeltaSteps(TypedDict, total=False):
    done: Annotated[list[str], DeltaChannel(_appended)]


@pytest.mark.parametrize("pending", ["durable", "deferred"])
async def test_a_delta_channel_keeps_the_writes_it_is_rebuilt_from(
    saver_for: Callable[..., Any], pending: str
) -> None:
    """A `DeltaChannel` stores no value between snapshots: its writes are the value."""

    def step(name: str) -> Callable[[DeltaSteps], DeltaSteps]:
        return lambda state: {"done": [name]}

    builder = StateGraph(DeltaSteps)
    builder.add_node("first", step("first"))
    builder.add_node("second", step("second"))
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    config: Any = {"configurable": {"thread_id": f"delta-{pending}"}}
    async with saver_for(pending=pending) as saver:
        graph = builder.compile(checkpointer=saver)
        for n in range(2):
            await graph.ainvoke({"done": [f"input {n}"]}, config, durability="sync")
    async with saver_for(pending=pending) as other_process:
        state = await builder.compile(checkpointer=other_process).aget_state(config)
    assert state.values["done"] == ["input 0", "first", "second", "input 1", "first", "second"]


@pytest.mark.parametrize("pending", ["durable", "deferred"])
@pytest.mark.parametrize(("first_s", "second_s"), [(0.0, 0.2), (0.2, 0.0)])
async def test_a_siblings_writes_are_saved_beside_an_interrupt(
    saver_for: Callable[..., Any], first_s: float, second_s: float, pending: str
) -> None:
    """Whether the sibling ends before or after the interrupt, the resume does not rerun it."""
    calls: list[str] = []

    async def second(state: Steps) -> Steps:
        await asyncio.sleep(second_s)
        interrupt("approve?")
        return {"done": ["second"]}

    config: Any = {"configurable": {"thread_id": f"steps-interrupt-{first_s}-{pending}"}}
    async with saver_for(pending=pending) as saver:
        graph = _graph(saver, calls, second, first_s)
        await graph.ainvoke({"done": []}, config, durability="sync")
        assert saver._held == {}
    async with saver_for(pending=pending) as other_process:
        graph = _graph(other_process, calls, second)
        state = await graph.ainvoke(Command(resume="yes"), config, durability="sync")
    assert sorted(state["done"]) == ["first", "last", "second"]
    assert calls.count("first") == 1


@pytest.mark.parametrize("pending", ["durable", "deferred"])
async def test_a_run_cut_off_mid_step_keeps_its_finished_tasks(
    saver_for: Callable[..., Any], pending: str
) -> None:
    calls: list[str] = []
    hang = asyncio.Event()

    async def second(state: Steps) -> Steps:
        if not hang.is_set():
            await asyncio.sleep(30)
        return {"done": ["second"]}

    thread = f"steps-cut-{pending}"
    config: Any = {"configurable": {"thread_id": thread}}
    async with saver_for(pending=pending) as saver:
        graph = _graph(saver, calls, second)
        run = asyncio.ensure_future(graph.ainvoke({"done": []}, config, durability="async"))
        for _ in range(1000):  # cut off once first's writes are stored (or held), not at a time
            if saver._held or await _stored_writes(saver, thread):
                break
            await asyncio.sleep(0.01)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        if pending == "durable":
            assert saver._held == {}  # first's writes were stored as it ended
        else:
            await saver.write_held(thread)
    hang.set()
    async with saver_for(pending=pending) as other_process:
        graph = _graph(other_process, calls, second)
        state = await graph.ainvoke(None, config, durability="sync")
    assert sorted(state["done"]) == ["first", "last", "second"]
    assert calls.count("first") == 1


async def _stored_writes(saver: PooledPostgresSaver, thread_id: str) -> int:
    async with saver.conn.connection() as conn:  # type: ignore[union-attr]
        cur = await conn.execute(
            "select count(*) as n from checkpoint_writes where thread_id = %s", (thread_id,)
        )
        row = await cur.fetchone()
    assert row is not None
    return int(row["n"])


async def test_held_writes_wait_for_their_checkpoint_or_write_held(
    saver_for: Callable[..., Any],
) -> None:
    step: Any = {"configurable": {"thread_id": "held", "checkpoint_ns": "", "checkpoint_id": "c1"}}
    async with saver_for(pending="deferred") as saver:
        await saver.aput_writes(step, [("done", ["first"])], "task-1")
        assert await _stored_writes(saver, "held") == 0
        await saver.write_held("other-thread")
        assert await _stored_writes(saver, "held") == 0
        await saver.write_held("held")
        assert await _stored_writes(saver, "held") == 1
        # the step's checkpoint is past: a later write to it is stored at once
        await saver.aput_writes(step, [("done", ["second"])], "task-2")
        assert await _stored_writes(saver, "held") == 2

        # a deleted thread's held writes go with it
        gone: Any = {
            "configurable": {"thread_id": "gone", "checkpoint_ns": "", "checkpoint_id": "c1"}
        }
        await saver.aput_writes(gone, [("done", ["first"])], "task-1")
        await saver.adelete_thread("gone")
        await saver.write_held("gone")
        assert await _stored_writes(saver, "gone") == 0


async def test_the_read_before_a_run_is_the_runs_own_load(
    saver_for: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with saver_for() as saver:
        latest = await _finished_thread(saver, "kept")
        trips = _count_round_trips(saver)
        read = await saver.read_latest("kept")
        assert read is not None and sorted(read.checkpoint["channel_values"]["done"]) == [
            "first",
            "last",
            "second",
        ]
        assert await saver.aget_tuple(latest) is read
        assert trips[0] == 1
        assert (await saver.aget_tuple(latest)) is not read  # kept for one load only
        assert trips[0] == 2

        # a write to the thread drops what was kept: the next load reads it
        await saver.read_latest("kept")
        await saver.aput_writes(read.config, [("done", ["late"])], postgres_saver.NULL_TASK_ID)
        now = await saver.aget_tuple(latest)
        assert now is not None and now is not read and _has_late_write(now)

        # so does time
        monkeypatch.setattr(postgres_saver, "KEEP_S", 0.0)
        trips[0] = 0
        await saver.read_latest("kept")
        assert await saver.aget_tuple(latest) is not None
        assert trips[0] == 2

        # and a prune: what it deleted is not served
        monkeypatch.setattr(postgres_saver, "KEEP_S", 1.0)
        assert await saver.read_latest("kept") is not None
        await saver.aprune(["kept"], strategy="delete")
        assert await saver.aget_tuple(latest) is None


async def test_a_write_during_the_read_keeps_nothing(
    saver_for: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with saver_for() as saver:
        latest = await _finished_thread(saver, "raced")
        loaded = await saver.aget_tuple(latest)
        assert loaded is not None
        load = AsyncPostgresSaver.aget_tuple

        async def load_then_written(self: Any, config: RunnableConfig) -> Any:
            found = await load(self, config)
            # another write to the thread lands while the read is on its way back
            await saver.aput_writes(
                loaded.config, [("done", ["late"])], postgres_saver.NULL_TASK_ID
            )
            return found

        monkeypatch.setattr(AsyncPostgresSaver, "aget_tuple", load_then_written)
        read = await saver.read_latest("raced")
        monkeypatch.setattr(AsyncPostgresSaver, "aget_tuple", load)
        now = await saver.aget_tuple(latest)
        assert now is not None and now is not read and _has_late_write(now)
