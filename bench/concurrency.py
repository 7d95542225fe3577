"""100 threads × 5 turns at once on a 100 ms model: throughput and latency against the ideal.

One runner (one process, one event loop) takes every thread's turns concurrently: each
thread sends its 5 messages one after another, all 100 threads at the same time. The model
answers after 100 ms without holding the event loop (`bench.latency_model`); runs are
audited in the workspace database as in production. Shapes: a turn is one model call (a
text answer), or a tool call then an answer (two model calls).

The ideal is a system with no cost but the model: a turn takes its model calls' latency,
so the 5 turns of every thread take 5 × that, and the throughput is 100 threads / one
turn's latency. The CPU ceiling is what the process's own CPU time allows: one turn's CPU
time, measured with one turn at a time, gives at most 1 / cpu turns per second on the one
core an event loop uses (cores / cpu with a worker process per core).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.types import Command
from pydantic import BaseModel

from bench import cpu_meter, cpu_profile
from bench.cpu_meter import CpuUse
from bench.latency_model import LatencyChatModel
from bench.scratch_db import scratch_postgres
from bench.shape_floor import shape_floor
from bench.workers import BASELINE as WORKERS_BASELINE
from bench.workers import Load, WorkersRun, run_workers
from core.heap import frozen_startup
from core.models import ModelResolver
from core.observability.audit.log import BATCH_EVERY_S
from core.settings import CheckpointRetention, Settings
from core.state import OPENING_NODES
from graph.runner import Runner, TurnRequest
from tools.declaration import ToolContext, declare
from tools.pack_data import upgrade_workspace
from tools.registry import ToolRegistry

THREADS = 100
TURNS = 5
MODEL_S = 0.1
TARGET = 0.8
"""Target: throughput at least this share of the ideal."""
CPU_TURNS = 120
"""Turns run one at a time to measure one turn's CPU time, in blocks of `CPU_BLOCK`."""
CPU_BLOCK = 10
SETTLE_S = BATCH_EVERY_S + 0.1
"""After each block: the audit writes its batch within `BATCH_EVERY_S`."""
PROFILE_TURNS = 40
WARMUP_TURNS = 10
IDLE_S = 3.0
"""Seconds the agent waits before the run, to see what else keeps the machine busy."""
LOAD_REPEATS = 3
"""Each subject takes the load this many times, in rounds with the others; the median counts."""
ANSWER = "The answer is 42."
MODEL = "latency:bench"
BASELINE = "create_agent, in memory"
"""The baseline row: LangChain's agent loop alone, no database."""
PG_BASELINE = "create_agent, PostgreSQL saver"
"""LangChain's agent loop checkpointing on PostgreSQL: what the CPU ratios compare with."""
PG_FLOOR = "agent graph's steps, nodes doing nothing, PostgreSQL saver"
"""This graph's checkpointed steps and channels alone (`bench.shape_floor`), on that saver."""
CPU_RATIO_TARGET = 2.0
"""Target: agent + database CPU per turn at most this many times the PostgreSQL baseline's."""
THROUGHPUT_RATIO_TARGET = 0.5
"""Target: throughput at least this share of the PostgreSQL baseline's."""
WORKERS_TARGET = 1.5
"""Target: two worker processes give at least this many times one worker's throughput."""
WORKERS_REPEATS = 5
"""The load runs on one then two workers this many times over; their medians are compared."""
FULL_LOOP = 0.9
"""A worker whose process is at least this busy (of a core) is bound by its event loop."""

Turn = Callable[[str, int], Awaitable[tuple[float, bool]]]
"""One turn on a thread (its id, the turn's number): seconds taken, and whether it completed."""


class QuoteArgs(BaseModel):
    """Arguments of the quote tool."""

    key: str


@declare(pack="bench", kind="read_only")
async def quote(args: QuoteArgs, ctx: ToolContext) -> dict[str, str]:
    """Return the value for a key (no latency)."""
    return {"key": args.key, "value": "42"}


@dataclass(frozen=True)
class Shape:
    """What one turn does."""

    name: str
    model_calls: int
    tool: str | None


ANSWER_ONLY = Shape("text answer", 1, None)
TOOL_THEN_ANSWER = Shape("tool call + answer", 2, "quote")


@dataclass
class LoadRun:
    """One database and turn shape under the full load."""

    database: str
    retention: CheckpointRetention
    shape: Shape
    wall_s: float
    latencies_s: list[float]
    not_completed: int
    load: CpuUse
    """CPU used during the concurrent run."""
    idle: CpuUse
    """CPU used while the agent sat idle just before the run: the machine's other load."""
    alone: CpuUse
    """CPU used by `CPU_TURNS` turns run one at a time."""
    profile: list[tuple[str, float]]
    """CPU seconds by package of `PROFILE_TURNS` more turns, profiled (the first row only)."""
    repeats: list[float] = field(default_factory=list)
    """Turns per second of each of the subject's `LOAD_REPEATS` runs (this is the median one)."""

    @property
    def label(self) -> str:
        """The database, and the retention when it is not the default."""
        kept = self.retention == "all" and self.database in ("postgresql", "sqlite")
        return self.database + (", retention all" if kept else "")

    @property
    def cpu_s(self) -> float:
        """CPU per turn, one turn at a time: the agent's and the database's."""
        return self.agent_cpu_s + (self.db_cpu_s or 0.0)

    @property
    def turns(self) -> int:
        """Turns that ran."""
        return len(self.latencies_s)

    @property
    def ideal_turn_s(self) -> float:
        """A turn's latency with no cost but the model."""
        return self.shape.model_calls * MODEL_S

    @property
    def ideal_throughput(self) -> float:
        """Turns per second of the ideal system: every thread's turns back to back."""
        return THREADS / self.ideal_turn_s

    @property
    def throughput(self) -> float:
        """Turns per second achieved."""
        return self.turns / self.wall_s

    @property
    def share(self) -> float:
        """Throughput as a share of the ideal."""
        return self.throughput / self.ideal_throughput

    def quantile(self, q: float) -> float:
        """Return the q-quantile (0..1) of the turn latencies, in seconds."""
        ordered = sorted(self.latencies_s)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    @property
    def agent_cpu_s(self) -> float:
        """This process's CPU time per turn, one turn at a time."""
        return self.alone.process_s / CPU_TURNS

    @property
    def db_cpu_s(self) -> float | None:
        """The Postgres server's CPU time per turn, one turn at a time."""
        if (
            self.database not in ("postgresql", PG_BASELINE, PG_FLOOR)
            or self.alone.postgres_s is None
        ):
            return None
        return self.alone.postgres_s / CPU_TURNS

    @property
    def one_core_ceiling(self) -> float:
        """Turns per second the agent's own CPU time allows on one core (one event loop)."""
        return 1 / self.agent_cpu_s

    def machine_ceiling(self, cores: int) -> float:
        """Turns per second all cores allow for the agent's and the database's CPU time."""
        return cores / (self.agent_cpu_s + (self.db_cpu_s or 0.0))


@dataclass
class ConcurrencyResult:
    """Every database and shape measured, and the text load over worker processes."""

    runs: list[LoadRun]
    cores: int
    workers: list[WorkersRun]


@dataclass(frozen=True)
class Subject:
    """One implementation and turn shape, open and taking turns."""

    database: str
    retention: CheckpointRetention
    shape: Shape
    turn: Turn


def _settings(
    database_url: str, data_dir: Path, retention: CheckpointRetention = "latest"
) -> Settings:
    kind = "postgres" if database_url.startswith("postgresql") else "sqlite"
    return Settings(
        _env_file=None,
        database_url=database_url,
        checkpointer=kind,
        checkpoint_retention=retention,
        model=MODEL,
        data_dir=data_dir,
    )


def _model(shape: Shape) -> LatencyChatModel:
    return LatencyChatModel(
        latency_s=MODEL_S, answer=ANSWER, tool=shape.tool, tool_args={"key": "x"}
    )


async def _turn(runner: Runner, thread: str, n: int) -> tuple[float, bool]:
    request = TurnRequest(thread_id=thread, user_id="bench", message=f"What is the answer ({n})?")
    start = time.perf_counter()
    result = await runner.run_turn(request)
    return time.perf_counter() - start, result.status == "completed"


async def _invoke_turn(
    agent: Any, thread: str, n: int, *, opened: bool = False
) -> tuple[float, bool]:
    """One turn of a compiled graph taking messages, as LangChain's agents are called.

    `opened`: the message is written with the opening nodes as the next step, as the runner
    does after a turn that ended (on PostgreSQL), instead of as an input.
    """
    config: Any = {"configurable": {"thread_id": thread}}
    turn: Any = {"messages": [HumanMessage(f"What is the answer ({n})?")]}
    if opened:
        turn = Command(update=turn, goto=list(OPENING_NODES))
    start = time.perf_counter()
    state = await agent.ainvoke(turn, config)
    return time.perf_counter() - start, state["messages"][-1].text == ANSWER


@tool("quote")
def _baseline_quote(key: str) -> dict[str, str]:
    """Quote the value stored under `key`."""
    return {"key": key, "value": "42"}


@asynccontextmanager
async def _ours(
    database: str, shape: Shape, retention: CheckpointRetention = "latest"
) -> AsyncIterator[Subject]:
    """This project's runner, audited and checkpointed on PostgreSQL or SQLite."""
    async with AsyncExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if database == "postgresql":
            url = await stack.enter_async_context(scratch_postgres("concurrency"))
            settings = _settings(url, tmp, retention)
        else:
            settings = _settings(f"sqlite:///{tmp / 'workspace.sqlite'}", tmp, retention)
            await asyncio.to_thread(upgrade_workspace, settings)
        models = ModelResolver(settings)
        models._models[MODEL] = _model(shape)  # the resolver's cache is the model seam
        runner = await stack.enter_async_context(
            Runner.open(settings, ToolRegistry([quote]), models)
        )
        yield Subject(database, retention, shape, partial(_turn, runner))


@asynccontextmanager
async def _langchain(database: str, shape: Shape) -> AsyncIterator[Subject]:
    """`create_agent` in memory or on `AsyncPostgresSaver`, or this graph's steps doing nothing."""
    model = _model(shape)
    tools = [_baseline_quote] if shape.tool else []
    if database == BASELINE:
        agent = create_agent(model, tools, checkpointer=InMemorySaver())
        yield Subject(database, "all", shape, partial(_invoke_turn, agent))
        return
    async with (
        scratch_postgres("concurrency_langchain") as url,
        AsyncPostgresSaver.from_conn_string(url) as checkpointer,
    ):
        await checkpointer.setup()
        if database == PG_BASELINE:
            agent = create_agent(model, tools, checkpointer=checkpointer)
            yield Subject(database, "all", shape, partial(_invoke_turn, agent))
            return
        floor = shape_floor(model, checkpointer, _baseline_quote)
        yield Subject(database, "all", shape, partial(_invoke_turn, floor, opened=True))


_SUBJECTS: list[Callable[[], AbstractAsyncContextManager[Subject]]] = [
    partial(_ours, "postgresql", ANSWER_ONLY),
    partial(_ours, "postgresql", TOOL_THEN_ANSWER),
    partial(_ours, "postgresql", ANSWER_ONLY, "all"),
    partial(_ours, "sqlite", ANSWER_ONLY),
    partial(_langchain, BASELINE, ANSWER_ONLY),
    partial(_langchain, PG_BASELINE, ANSWER_ONLY),
    partial(_langchain, PG_BASELINE, TOOL_THEN_ANSWER),
    partial(_langchain, PG_FLOOR, ANSWER_ONLY),
    partial(_langchain, PG_FLOOR, TOOL_THEN_ANSWER),
]
"""What is measured: this project (PostgreSQL, both shapes; every checkpoint kept; SQLite),
then the baselines and this graph's steps doing nothing."""


async def _thread(turn: Turn, thread: str, outcomes: list[tuple[float, bool]]) -> None:
    for n in range(TURNS):
        outcomes.append(await turn(thread, n))


async def _alone(subjects: list[Subject]) -> list[CpuUse]:
    """Each subject's CPU time over `CPU_TURNS` turns one at a time, taken in interleaved blocks.

    Round by round every subject runs a block (two threads of five turns), then waits for
    its writes in the background (checkpoints, the audit's batch) to land in its own block:
    a machine that speeds up or slows down over the minutes this takes does so for all.
    """
    process = [0.0] * len(subjects)
    postgres: list[float | None] = [0.0] * len(subjects)
    for block in range(CPU_TURNS // CPU_BLOCK):
        for i, subject in enumerate(subjects):
            before = cpu_meter.read()
            for n in range(CPU_BLOCK):
                await subject.turn(f"alone-{block}-{n % 2}", n)
            await asyncio.sleep(SETTLE_S)
            use = cpu_meter.between(before, cpu_meter.read())
            process[i] += use.process_s
            so_far = postgres[i]
            if use.postgres_s is None or so_far is None:
                postgres[i] = None
            else:
                postgres[i] = so_far + use.postgres_s
    return [CpuUse(p, pg, None) for p, pg in zip(process, postgres, strict=True)]


async def _load(
    subject: Subject, alone: CpuUse, profile: list[tuple[str, float]], name: str
) -> LoadRun:
    """The idle machine, then every thread's turns at once (threads `name-0`, `name-1`, …)."""
    before = cpu_meter.read()
    await asyncio.sleep(IDLE_S)
    idle = cpu_meter.between(before, cpu_meter.read())
    outcomes: list[tuple[float, bool]] = []
    before, start = cpu_meter.read(), time.perf_counter()
    await asyncio.gather(*(_thread(subject.turn, f"{name}-{t}", outcomes) for t in range(THREADS)))
    wall = time.perf_counter() - start
    load = cpu_meter.between(before, cpu_meter.read())
    return LoadRun(
        database=subject.database,
        retention=subject.retention,
        shape=subject.shape,
        wall_s=wall,
        latencies_s=[seconds for seconds, _ in outcomes],
        not_completed=sum(1 for _, ok in outcomes if not ok),
        load=load,
        idle=idle,
        alone=alone,
        profile=profile,
    )


async def _measure_all(say: Callable[[str], None]) -> list[LoadRun]:
    """Open every subject, measure their CPU interleaved, then put each under the load."""
    async with AsyncExitStack() as stack:
        subjects = [await stack.enter_async_context(open_subject()) for open_subject in _SUBJECTS]
        for subject in subjects:
            for n in range(WARMUP_TURNS):
                await subject.turn(f"warm-{n}", 0)
        # As a serving process does after start-up (the Slack server), for every row alike.
        stack.enter_context(frozen_startup())
        alone = await _alone(subjects)
        with cpu_profile.profiled() as profiled:
            for n in range(PROFILE_TURNS):
                await subjects[0].turn(f"profiled-{n % 8}", n)
        profile = cpu_profile.by_package(profiled)
        loads: list[list[LoadRun]] = [[] for _ in subjects]
        for n in range(LOAD_REPEATS):
            for i, (subject, cpu) in enumerate(zip(subjects, alone, strict=True)):
                loads[i].append(await _load(subject, cpu, profile if i == 0 else [], f"load{n}"))
        runs = [_median(taken) for taken in loads]
        for run in runs:
            say(
                f"{run.label}, {run.shape.name}: {run.throughput:.1f} turns/s "
                f"({run.share:.0%} of ideal; runs {_listed(run.repeats)}), "
                f"p95 {run.quantile(0.95) * 1000:.0f} ms, CPU {run.cpu_s * 1000:.1f} ms/turn"
            )
        return runs


def _median(taken: list[LoadRun]) -> LoadRun:
    """The run of median throughput, knowing every run's."""
    ordered = sorted(taken, key=lambda run: run.throughput)
    return replace(ordered[len(ordered) // 2], repeats=[run.throughput for run in taken])


def _listed(throughputs: list[float]) -> str:
    return ", ".join(f"{value:.1f}" for value in throughputs)


def run(say: Callable[[str], None] | None = None) -> ConcurrencyResult:
    """Measure every subject (`_SUBJECTS`), then the text load over one and two workers."""
    say = say or (lambda _: None)
    runs = asyncio.run(_measure_all(say))
    load = Load(THREADS, TURNS, MODEL_S, ANSWER, _settings)
    workers = [
        run_workers(n, load, subject)
        for _ in range(WORKERS_REPEATS)
        for subject in ("agentloop", WORKERS_BASELINE)
        for n in (1, 2)
    ]
    say(", ".join(f"{w.subject} × {w.workers}: {w.throughput:.1f} turns/s" for w in workers))
    return ConcurrencyResult(runs=runs, cores=os.cpu_count() or 1, workers=workers)


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.1f}"


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{share:.0%}"


def render(result: ConcurrencyResult) -> list[str]:
    """Return the RESULTS.md section."""
    lines = [
        f"## Concurrent threads: {THREADS} threads × {TURNS} turns on a "
        f"{MODEL_S * 1000:.0f} ms model",
        "",
        f"One runner (one process, one event loop) takes all {THREADS} threads at once; each "
        f"thread sends its {TURNS} messages one after another. The model answers after "
        f"{MODEL_S * 1000:.0f} ms without holding the event loop; runs are audited in the "
        "workspace database and checkpointed on the same database, pruned as by default "
        "(retention `latest`; one row keeps every checkpoint, retention `all`, to show what "
        "pruning costs). "
        "*Ideal*: nothing costs time but the model, so a turn takes its model calls' latency "
        f"and the throughput is {THREADS} threads / that latency. Target: throughput ≥ "
        f"{TARGET:.0%} of the ideal. The `create_agent` rows are baselines: LangChain's "
        "agent loop under the same load with the same model, in memory (no database, no "
        "audit, no workspace search, no guard or verify) — what this machine gives an agent "
        "loop with nothing but LangGraph's own cost — and on the PostgreSQL saver, which the "
        "ratios below compare with. The last two rows are this graph's steps with nodes "
        "doing nothing (see below). Every subject is opened and warmed up first; then, as "
        "the Slack server does once it has started, the process's heap is frozen out of the "
        "garbage collector's walks (`core/heap.py`), for every row alike. A load of a few "
        f"seconds is easily thrown by a hiccup, so every row takes it {LOAD_REPEATS} times, "
        "in rounds with the other rows (fresh threads each time); the row shows the run of "
        "median throughput, and *runs* every run's.",
        "",
        "| database | turn | turns | wall s | turns/s (ideal) | runs | share of ideal "
        "| p50 / p95 turn ms (ideal) | target |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result.runs:
        met = "met" if r.share >= TARGET else "**missed**"
        failed = f" ({r.not_completed} not completed)" if r.not_completed else ""
        lines.append(
            f"| {r.label} | {r.shape.name} | {r.turns}{failed} | {r.wall_s:.1f} "
            f"| {r.throughput:.1f} ({r.ideal_throughput:.0f}) | {_listed(r.repeats)} "
            f"| {r.share:.1%} "
            f"| {statistics.median(r.latencies_s) * 1000:.0f} / {r.quantile(0.95) * 1000:.0f} "
            f"({r.ideal_turn_s * 1000:.0f}) | {met} |"
        )
    lines += [
        "",
        f"What bounds it: CPU time per turn, measured over {CPU_TURNS} turns run one at a "
        f"time — in blocks of {CPU_BLOCK} turns taken by every row in turn, round after "
        "round, so that the machine's drift over the minutes it takes is shared by all rows; "
        "the agent's process (all its threads) and the Postgres server (all its "
        "processes) — and the throughput that CPU time allows: on one core (an event loop "
        f"runs on one) and on all {result.cores} cores (a worker process per core, the "
        "database on the same machine). *Busy*: the agent's process during the concurrent "
        "run (100 % = one core), and the whole machine (100 % = every core) during the run "
        f"and, *before*, over {IDLE_S:g} s with the agent idle just before it (other work "
        "on the machine).",
        "",
        "| database | turn | agent CPU ms/turn | Postgres CPU ms/turn "
        "| ceiling turns/s: 1 core, all cores | turns/s achieved | agent busy "
        "| machine busy (before) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result.runs:
        lines.append(
            f"| {r.label} | {r.shape.name} | {_ms(r.agent_cpu_s)} | {_ms(r.db_cpu_s)} "
            f"| {r.one_core_ceiling:.0f}, {r.machine_ceiling(result.cores):.0f} "
            f"| {r.throughput:.1f} | {_pct(r.load.process_s / r.wall_s)} "
            f"| {_pct(r.load.machine_busy)} ({_pct(r.idle.machine_busy)}) |"
        )
    first = result.runs[0]
    total = sum(seconds for _, seconds in first.profile)
    top = ", ".join(f"{package} {seconds / total:.0%}" for package, seconds in first.profile[:8])
    budget_ms = 1000 / (first.ideal_throughput * TARGET)
    ceiling = min(first.one_core_ceiling, first.machine_ceiling(result.cores))
    cost = f"{_ms(first.agent_cpu_s)} ms in the agent" + (
        f" plus {_ms(first.db_cpu_s)} ms in Postgres" if first.db_cpu_s else ""
    )
    baseline = next((r for r in result.runs if r.database == BASELINE), None)
    if baseline is not None:
        lines += [
            "",
            f"The baseline reaches {baseline.share:.1%} of the ideal "
            f"({baseline.throughput:.1f} turns/s, {_ms(baseline.agent_cpu_s)} ms of CPU per "
            f"turn): at {THREADS} threads one event loop is CPU-bound long before the "
            "model's latency is all that counts, for LangChain's own loop as for this one.",
        ]
    lines += _against_postgres_baseline(result) + _over_workers(result)
    if all(r.share >= TARGET for r in result.runs):
        verdict = "the target is met."
    elif first.throughput >= 0.7 * ceiling or (first.load.machine_busy or 0) >= 0.9:
        verdict = (
            "the target is **missed**, and CPU time is what bounds it: reaching it would take "
            f"under {budget_ms:.2f} ms of CPU per turn on one core, and a turn costs {cost}; "
            f"during the run the machine's cores were {_pct(first.load.machine_busy)} busy "
            f"({_pct(first.idle.machine_busy)} before it, with the agent idle)."
        )
    else:
        verdict = (
            "the target is **missed**, and the throughput is also below what CPU time "
            f"allows ({ceiling:.0f} turns/s at {cost}): turns also wait on something else "
            "(connection pools, the database, other processes on the machine)."
        )
    lines += [
        "",
        f"Where the agent's CPU goes ({first.database}, {first.shape.name}; cProfile of the "
        f"event loop's thread over {PROFILE_TURNS} turns, own time by package): {top}.",
        "",
        f"Result ({first.database}, {first.shape.name}): {verdict}",
    ]
    return lines


def _over_workers(result: ConcurrencyResult) -> list[str]:
    """The text load spread over one and over two worker processes, run after run."""
    if not result.workers:
        return []
    scaling = {
        subject: _scaling(result.workers, subject) for subject in ("agentloop", WORKERS_BASELINE)
    }
    medians, ratio, pairs = scaling["agentloop"]
    verdict = "met" if ratio >= WORKERS_TARGET else "**missed**"
    ones = [w for w in result.workers if w.subject == "agentloop" and w.workers == 1]
    shares = [w.cpu.machine_busy for w in ones if w.cpu.machine_busy is not None]
    busy = statistics.median(shares) if len(shares) == len(ones) else None
    rows = []
    for w in result.workers:
        failed = f" ({w.turns - w.completed} not completed)" if w.completed < w.turns else ""
        rows.append(
            f"| {w.subject} | {w.workers} | {w.turns}{failed} | {w.wall_s:.1f} "
            f"| {w.throughput:.1f} | {_ms(w.cpu.process_s / w.turns)} "
            f"| {_ms(_per_turn(w.cpu.postgres_s, w.turns))} | {_pct(w.cpu.machine_busy)} |"
        )
    lines = [
        "",
        f"The same text load (PostgreSQL, {THREADS} threads × {TURNS} turns) spread over worker "
        "processes, each with its own runner, thread t on worker t mod n (so each thread's "
        f"turns keep their order); the database on the same {result.cores}-core machine. The "
        "`create_agent` rows run the same load on LangChain's agent, each worker with its own "
        "`AsyncPostgresSaver`: how LangChain's own loop scales on this machine. One worker then "
        f"two, agentloop then create_agent, {WORKERS_REPEATS} times over, so that the machine's "
        "drift is shared; CPU per turn is all the workers' processes and the Postgres server "
        "over the run. Each worker freezes its heap after its warm-up, as the Slack server does "
        f"after start-up. Target: two workers ≥ {WORKERS_TARGET:.1f}× one, median against "
        "median.",
        "",
        "| agent | worker processes | turns | wall s | turns/s | agent CPU ms/turn "
        "| Postgres CPU ms/turn | machine busy |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Median, agentloop: one worker {medians[1]:.1f} turns/s, two workers "
        f"{medians[2]:.1f}: {ratio:.2f}× ({verdict}). Pair by pair: {pairs}.",
    ]
    base_medians, base_ratio, base_pairs = scaling[WORKERS_BASELINE]
    if base_medians:
        lines += [
            "",
            f"Median, create_agent: one worker {base_medians[1]:.1f} turns/s, two workers "
            f"{base_medians[2]:.1f}: {base_ratio:.2f}×. Pair by pair: {base_pairs}.",
        ]
    if busy:
        lines += [
            "",
            f"One agentloop worker keeps {busy:.0%} of the machine busy (its event loop, the "
            f"database and the rest), so two can give at most {1 / busy:.2f}× one's throughput "
            "if a turn costs as much CPU with both cores busy as with one.",
        ]
    loops = {subject: _loop_busy(result.workers, subject) for subject in scaling}
    ours, theirs = loops["agentloop"], loops[WORKERS_BASELINE]
    if ours is not None and theirs is not None:
        lines += [
            "",
            f"One worker's own process is {ours:.0%} busy for agentloop and {theirs:.0%} for "
            "create_agent (100% = a core)."
            + (
                " create_agent's worker waits on its saver's single connection, which a second "
                "worker doubles; agentloop's fills its core, so a second worker adds only what "
                "the second core has left beside the database."
                if ours >= FULL_LOOP > theirs
                else ""
            ),
        ]
    return lines


def _loop_busy(runs: list[WorkersRun], subject: str) -> float | None:
    """The median share of a core one worker of `subject` kept busy."""
    shares = [w.cpu.process_s / w.wall_s for w in runs if w.subject == subject and w.workers == 1]
    return statistics.median(shares) if shares else None


def _scaling(runs: list[WorkersRun], subject: str) -> tuple[dict[int, float], float, str]:
    """One subject's median throughput by workers, two's over one's, and run by run."""
    ones = [w for w in runs if w.subject == subject and w.workers == 1]
    twos = [w for w in runs if w.subject == subject and w.workers == 2]
    if not ones or not twos:
        return {}, 0.0, ""
    medians = {
        n: statistics.median(w.throughput for w in taken) for n, taken in ((1, ones), (2, twos))
    }
    pairs = ", ".join(
        f"{two.throughput / one.throughput:.2f}×" for one, two in zip(ones, twos, strict=False)
    )
    return medians, medians[2] / medians[1], pairs


def _per_turn(seconds: float | None, turns: int) -> float | None:
    return None if seconds is None else seconds / turns


def _against_postgres_baseline(result: ConcurrencyResult) -> list[str]:
    """The ratios to `create_agent` on the same saver, shape by shape."""
    rows = []
    for base in (r for r in result.runs if r.database == PG_BASELINE):
        ours = next(
            (
                r
                for r in result.runs
                if r.database == "postgresql" and r.retention == "latest" and r.shape == base.shape
            ),
            None,
        )
        if ours is None:
            continue
        cpu = ours.cpu_s / base.cpu_s
        speed = ours.throughput / base.throughput
        rows.append(
            f"| {base.shape.name} | {_ms(ours.cpu_s)} | {_ms(base.cpu_s)} | {cpu:.1f}× "
            f"({'met' if cpu <= CPU_RATIO_TARGET else '**missed**'}) "
            f"| {ours.throughput:.1f} / {base.throughput:.1f} = {speed:.2f} "
            f"({'met' if speed >= THROUGHPUT_RATIO_TARGET else '**missed**'}) |"
        )
    if not rows:
        return []
    for floor in (r for r in result.runs if r.database == PG_FLOOR):
        base = next(r for r in result.runs if r.database == PG_BASELINE and r.shape == floor.shape)
        rows.append(
            f"| {floor.shape.name}: this graph's steps, nodes doing nothing "
            f"| {_ms(floor.cpu_s)} | {_ms(base.cpu_s)} | {floor.cpu_s / base.cpu_s:.1f}× "
            f"| {floor.throughput:.1f} / {base.throughput:.1f} = "
            f"{floor.throughput / base.throughput:.2f} |"
        )
    return [
        "",
        "Against LangChain's `create_agent` on `AsyncPostgresSaver` (same model and load, the "
        "same tool for the tool turn); this project checkpoints with its subclass of that "
        "saver (`checkpoints/postgres_saver.py`: a step's task writes are not stored once "
        "its checkpoint is, and a turn loads its thread once). CPU per turn is the agent's process "
        "plus the Postgres server, one turn at a time. Targets: CPU ≤ "
        f"{CPU_RATIO_TARGET:.1f}× the baseline's, throughput ≥ {THROUGHPUT_RATIO_TARGET:.1f}× "
        "its. The last rows (`bench/shape_floor.py`) are this graph's checkpointed steps and "
        "all its channels on `AsyncPostgresSaver` itself, with nodes that only write what the "
        "real ones write (act asks the same model, tools returns the same result): what the "
        "design's phases cost as steps on that saver before any phase does its work.",
        "",
        "| turn | agentloop CPU ms/turn | create_agent + Postgres saver CPU ms/turn "
        "| CPU ratio | throughput turns/s, ratio |",
        "|---|---|---|---|---|",
        *rows,
    ]


if __name__ == "__main__":
    print("\n".join(render(run(say=print))))
