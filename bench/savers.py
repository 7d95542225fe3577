"""The PostgreSQL checkpointer: LangGraph's stock saver under each durability mode against ours.

Every subject is the runner (audited, the workspace searched, as every surface runs a turn)
on one PostgreSQL database created for the run: `AsyncPostgresSaver` as LangGraph ships it
(its public `lock` a semaphore of the pool's size) under durability `sync`, `async` and
`exit`; this project's saver under `sync` and `async`, and under `sync` with pending writes
deferred (the opt-in; the default before the saver kept LangGraph's contract); for the
ratio, `create_agent` on `AsyncPostgresSaver`. Measured in interleaved blocks of turns: CPU
(the agent's process and the database's backends) and the checkpointer's round trips,
counted by a proxy in a process of its own (`bench/wire.py`); last, what a lane costs.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.types import Durability

from bench import cpu_meter
from bench.concurrency import ANSWER, ANSWER_ONLY, MODEL, TOOL_THEN_ANSWER, Shape, quote
from bench.latency_model import LatencyChatModel
from bench.scratch_db import scratch_postgres
from bench.wire import Wire, counting_proxy
from checkpoints.lanes import Lanes
from checkpoints.postgres_saver import PooledPostgresSaver
from checkpoints.savers import READS_KEPT, open_postgres_pool
from core.db.engine import open_database
from core.heap import frozen_startup
from core.models import ModelResolver
from core.observability.audit import AuditLog
from core.observability.audit.log import BATCH_EVERY_S
from core.settings import Settings
from graph.builder import build_graph
from graph.runner import Runner, TurnRequest
from tools.registry import ToolRegistry

MODEL_S = 0.005
CPU_TURNS = 100
BLOCK = 10
WARMUP_TURNS = 10
SETTLE_S = BATCH_EVERY_S + 0.1
"""After each block: the audit's batch and any checkpoint saved in the background land."""
LANE_HOLDS = 200
TARGET = 2.0
"""CPU per text turn at most this many times the baseline's (docs/performance.md's target)."""
BASELINE = "create_agent + AsyncPostgresSaver"
STOCK = "AsyncPostgresSaver, lock → semaphore"
OURS = "this project's saver"
DEFERRED = "this project's saver, writes deferred (opt-in)"

Turn = Callable[[str, int], Awaitable[bool]]


@dataclass(frozen=True)
class Subject:
    """One checkpointer under one durability mode, taking one shape of turn."""

    saver: str
    durability: Durability | None
    """None: the baseline's own default."""
    shape: Shape


@dataclass
class Measured:
    """A subject's CPU time and round trips over `CPU_TURNS` turns."""

    subject: Subject
    agent_s: float = 0.0
    postgres_s: float = 0.0
    round_trips: int = 0

    @property
    def cpu_ms(self) -> float:
        """Agent and Postgres CPU per turn."""
        return (self.agent_s + self.postgres_s) * 1000 / CPU_TURNS

    @property
    def trips(self) -> float:
        """Checkpointer round trips per turn."""
        return self.round_trips / CPU_TURNS


@dataclass
class LaneCost:
    """What one hold and release of an idle lane costs."""

    cpu_ms: float
    round_trips: float


@dataclass
class SaversResult:
    """Every subject, and the lanes."""

    rows: list[Measured]
    lane: LaneCost


CONFIGS: tuple[tuple[str, Durability | None], ...] = (
    (STOCK, "sync"),
    (STOCK, "async"),
    (STOCK, "exit"),
    (OURS, "sync"),
    (OURS, "async"),
    (DEFERRED, "sync"),
    (BASELINE, None),
)
SHAPES = (ANSWER_ONLY, TOOL_THEN_ANSWER)
SUBJECTS = [Subject(saver, mode, shape) for shape in SHAPES for saver, mode in CONFIGS]


def _model(shape: Shape) -> LatencyChatModel:
    return LatencyChatModel(
        latency_s=MODEL_S, answer=ANSWER, tool=shape.tool, tool_args={"key": "x"}
    )


@tool("quote")
def _lc_quote(key: str) -> dict[str, str]:
    """Quote the value stored under `key`."""
    return {"key": key, "value": "42"}


@asynccontextmanager
async def _subject(subject: Subject, url: str, wire: Wire, tmp: Path) -> AsyncIterator[Turn]:
    """Open the subject; yield its turn."""
    through = wire.url(url)
    if subject.saver == BASELINE:
        async with AsyncPostgresSaver.from_conn_string(through) as own:
            tools = [_lc_quote] if subject.shape.tool else []
            agent = create_agent(_model(subject.shape), tools, checkpointer=own)

            async def invoke(thread: str, n: int) -> bool:
                config: Any = {"configurable": {"thread_id": thread}}
                state = await agent.ainvoke({"messages": [HumanMessage(f"Answer ({n})?")]}, config)
                return bool(state["messages"][-1].text == ANSWER)

            yield invoke
        return
    settings = Settings(
        _env_file=None, database_url=url, checkpointer="postgres", model=MODEL, data_dir=tmp
    )
    models = ModelResolver(settings)
    models._models[MODEL] = _model(subject.shape)  # the resolver's cache is the model seam
    registry = ToolRegistry([quote])
    saver_settings = settings.model_copy(update={"database_url": through})
    async with open_postgres_pool(saver_settings) as pool:
        concurrent = settings.checkpoint_pool_size - READS_KEPT
        if subject.saver == STOCK:
            saver: Any = AsyncPostgresSaver(pool)
            saver.lock = asyncio.Semaphore(concurrent)
        else:
            saver = PooledPostgresSaver(pool, concurrent, defer_writes=subject.saver == DEFERRED)
        db = open_database(settings)
        audit = AuditLog(db)
        compiled = build_graph(models, db, registry).compile(checkpointer=saver, name="agent")
        runner = Runner(compiled, settings, registry, models, db=db, audit=audit)
        if subject.durability is not None:
            runner.turn_durability = subject.durability

        async def turn(thread: str, n: int) -> bool:
            request = TurnRequest(thread_id=thread, user_id="bench", message=f"Answer ({n})?")
            return (await runner.run_turn(request)).status == "completed"

        try:
            yield turn
        finally:
            await audit.drain()
            await db.dispose()


async def _blocks(turns: list[Turn], wire: Wire, database: str) -> list[Measured]:
    measured = [Measured(subject) for subject in SUBJECTS]
    for block in range(CPU_TURNS // BLOCK):
        for row_n, (turn, row) in enumerate(zip(turns, measured, strict=True)):
            before, trips = cpu_meter.read(database), wire.round_trips
            for n in range(BLOCK):
                # threads of the row's own: another row's turns would lengthen its history
                assert await turn(f"{row_n}-turns-{block}-{n % 2}", n)
            await asyncio.sleep(SETTLE_S)
            use = cpu_meter.between(before, cpu_meter.read(database))
            row.agent_s += use.process_s
            row.postgres_s += use.postgres_s or 0.0
            row.round_trips += wire.round_trips - trips
    return measured


async def _lane_cost(url: str, wire: Wire, tmp: Path) -> LaneCost:
    settings = Settings(
        _env_file=None, database_url=wire.url(url), checkpointer="postgres", data_dir=tmp
    )
    async with Lanes.open(settings) as lanes:
        for n in range(WARMUP_TURNS):
            async with lanes.hold(f"warm-{n}"):
                pass
        database = url.rsplit("/", 1)[1]
        before, trips = cpu_meter.read(database), wire.round_trips
        for n in range(LANE_HOLDS):
            async with lanes.hold(f"lane-{n % 4}"):
                pass
        use = cpu_meter.between(before, cpu_meter.read(database))
        spent = use.process_s + (use.postgres_s or 0.0)
        return LaneCost(spent * 1000 / LANE_HOLDS, (wire.round_trips - trips) / LANE_HOLDS)


async def _measure() -> SaversResult:
    with counting_proxy() as wire, tempfile.TemporaryDirectory() as tmp:
        async with scratch_postgres("savers") as url, AsyncExitStack() as stack:
            turns = [
                await stack.enter_async_context(_subject(subject, url, wire, Path(tmp)))
                for subject in SUBJECTS
            ]
            for row_n, turn in enumerate(turns):
                for n in range(WARMUP_TURNS):
                    await turn(f"{row_n}-warm-{n % 2}", n)
            # As a serving process does after start-up (the Slack server), for every row.
            with frozen_startup():
                rows = await _blocks(turns, wire, url.rsplit("/", 1)[1])
            lane = await _lane_cost(url, wire, Path(tmp))
    return SaversResult(rows, lane)


def run(say: Callable[[str], None] | None = None) -> SaversResult:
    """Measure every subject, then the lanes."""
    started = time.perf_counter()
    result = asyncio.run(_measure())
    if say is not None:
        say(f"savers measured in {time.perf_counter() - started:.0f} s")
    return result


def _row(result: SaversResult, saver: str, shape: Shape) -> Measured:
    """The row of `saver` under `sync` (the baseline under its own default)."""
    durability: Durability | None = None if saver == BASELINE else "sync"
    return next(r for r in result.rows if r.subject == Subject(saver, durability, shape))


def render(result: SaversResult) -> list[str]:
    """Return the RESULTS.md section."""
    lines = [
        "## PostgreSQL checkpointer: the stock saver's durability modes against ours",
        "",
        "The runner (audited, the workspace searched) on one PostgreSQL database, with "
        "LangGraph's `AsyncPostgresSaver` on the checkpoint pool (its public `lock` a "
        "semaphore of the pool's size, so threads share the pool) under each durability "
        "mode; with this project's saver (`checkpoints/postgres_saver.py`: each task's writes "
        "stored as the task ends, LangGraph's checkpointer contract) and with its opt-in of "
        "deferred pending writes (a step's task writes held until its checkpoint, then "
        "dropped: a process killed mid-step runs that step's finished tasks again); the "
        "baseline is LangChain's `create_agent` on `AsyncPostgresSaver` (one connection, its "
        f"default durability). A model answering after {MODEL_S * 1000:g} ms. {CPU_TURNS} "
        f"turns a row, one at a time, in blocks of {BLOCK} (two new threads of the row's own, "
        f"{BLOCK // 2} turns each) taken by every row in turn. *CPU*: the agent's process and "
        "the Postgres backends of the run's database (not the server's other work), per "
        "turn. *Round trips*: the checkpointer's, per turn, counted on the wire by a proxy in "
        "a process of its own (the pool's connection checks included; the workspace and "
        "audit go straight to the server). Durability: `sync` saves each step before the "
        "next starts; `async` while the next runs; `exit` only when the run ends.",
        "",
        "| checkpointer | durability | turn | agent CPU ms | Postgres CPU ms | CPU ms/turn "
        "| × baseline | round trips/turn |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in result.rows:
        s = row.subject
        ratio = row.cpu_ms / _row(result, BASELINE, s.shape).cpu_ms
        lines.append(
            f"| {s.saver} | {s.durability or 'default (async)'} | {s.shape.name} "
            f"| {row.agent_s * 1000 / CPU_TURNS:.1f} | {row.postgres_s * 1000 / CPU_TURNS:.1f} "
            f"| {row.cpu_ms:.1f} | {ratio:.2f} | {row.trips:.1f} |"
        )
    ours = _row(result, OURS, ANSWER_ONLY)  # what the runner runs
    deferred = _row(result, DEFERRED, ANSWER_ONLY)
    ratio = ours.cpu_ms / _row(result, BASELINE, ANSWER_ONLY).cpu_ms
    verdict = "met" if ratio <= TARGET else "**missed**"
    lines += [
        "",
        f"Holding a thread's lane (`checkpoints/lanes.py`), idle, {LANE_HOLDS} times: "
        f"{result.lane.cpu_ms:.2f} ms of CPU (agent and Postgres) and "
        f"{result.lane.round_trips:.1f} round trips per hold and release.",
        "",
        f"Result: the runner's configuration (this project's saver, `sync`) costs "
        f"{ours.cpu_ms:.1f} ms of CPU per text turn, {ratio:.2f}× the baseline's "
        f"(target ≤ {TARGET:g}×: {verdict}), with {ours.trips:.1f} checkpointer round trips; "
        f"with pending writes deferred, {deferred.cpu_ms:.1f} ms and {deferred.trips:.1f}.",
    ]
    return lines
