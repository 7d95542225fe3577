"""The concurrency benchmark's load over worker processes on one PostgreSQL database.

Each worker is a process of its own with its own runner (and event loop); the threads are
spread over the workers (thread t goes to worker t mod n), so each thread's turns keep
their order in one worker, as the lanes keep them in production. The workers warm up (a
turn on each of their threads at once, so their connection pools are as large as the load
keeps them), wait at a barrier, then run their threads' turns; the throughput is all turns
over the span from the first worker's start to the last one's end. CPU is each worker's
own, and the database's and the machine's, from the first worker's start until every
worker has ended.

The same load runs on LangChain's `create_agent` over `AsyncPostgresSaver` (`BASELINE`),
each worker with its own saver: how LangChain's own loop scales over workers on the
same machine and database.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any, Literal

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from bench import cpu_meter
from bench.cpu_meter import CpuUse
from bench.latency_model import LatencyChatModel
from bench.scratch_db import scratch_postgres
from core.heap import frozen_startup
from core.models import ModelResolver
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tools.registry import ToolRegistry

WARMUP_ROUNDS = 2

Subject = Literal["agentloop", "create_agent"]

BASELINE: Subject = "create_agent"
"""LangChain's `create_agent` on `AsyncPostgresSaver`, one saver per worker."""


@dataclass(frozen=True)
class WorkersRun:
    """One load spread over `workers` processes."""

    subject: Subject
    workers: int
    turns: int
    completed: int
    wall_s: float
    cpu: CpuUse
    """The workers' CPU (all of them), the database's and the machine's share busy."""

    @property
    def throughput(self) -> float:
        """Turns per second over the whole load."""
        return self.turns / self.wall_s


@dataclass(frozen=True)
class Load:
    """What every worker runs: the threads' turns on a model of fixed latency."""

    threads: int
    turns: int
    model_s: float
    answer: str
    settings_for: Callable[[str, Path], Settings]
    """The settings of a worker, given the database URL and a data directory."""


def run_workers(workers: int, load: Load, subject: Subject = "agentloop") -> WorkersRun:
    """Run `load` on `subject` over `workers` processes on a scratch PostgreSQL database."""
    return asyncio.run(_on_postgres(workers, load, subject))


async def _on_postgres(workers: int, load: Load, subject: Subject) -> WorkersRun:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers)
    results = context.Queue()
    async with scratch_postgres("workers") as url:
        shares = [list(range(w, load.threads, workers)) for w in range(workers)]
        processes = [
            context.Process(target=_worker, args=(subject, url, share, load, barrier, results))
            for share in shares
        ]
        for process in processes:
            process.start()
        reports = [await asyncio.to_thread(results.get) for _ in processes]
        for process in processes:
            process.join()
    starts, ends, done, completed, uses = zip(*reports, strict=True)
    first = starts.index(min(starts))
    cpu = CpuUse(
        sum(use.process_s for use in uses), uses[first].postgres_s, uses[first].machine_busy
    )
    return WorkersRun(subject, workers, sum(done), sum(completed), max(ends) - min(starts), cpu)


def _worker(
    subject: Subject,
    url: str,
    threads: list[int],
    load: Load,
    barrier: Barrier,
    results: multiprocessing.Queue,
) -> None:
    serve = _serve_baseline if subject == BASELINE else _serve
    results.put(asyncio.run(serve(url, threads, load, barrier)))


Report = tuple[float, float, int, int, CpuUse]
"""A worker's start and end (epoch seconds), turns run and completed, and CPU used."""

Turn = Callable[[str, int], Awaitable[bool]]
"""One turn on a thread id, with the thread's message number; did it complete."""


async def _serve(url: str, threads: list[int], load: Load, barrier: Barrier) -> Report:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load.settings_for(url, Path(tmp))
        models = ModelResolver(settings)
        model = LatencyChatModel(latency_s=load.model_s, answer=load.answer)
        models._models[settings.model_spec()] = model  # the resolver's cache is the model seam
        async with Runner.open(settings, ToolRegistry([]), models) as runner:

            async def turn(thread: str, n: int) -> bool:
                request = TurnRequest(thread, "bench", f"What is the answer ({n})?")
                return (await runner.run_turn(request)).status == "completed"

            return await _measured(turn, threads, load, barrier)


async def _serve_baseline(url: str, threads: list[int], load: Load, barrier: Barrier) -> Report:
    model = LatencyChatModel(latency_s=load.model_s, answer=load.answer)
    async with AsyncPostgresSaver.from_conn_string(url) as saver:
        agent = create_agent(model, [], checkpointer=saver)

        async def turn(thread: str, n: int) -> bool:
            config: Any = {"configurable": {"thread_id": thread}}
            state = await agent.ainvoke(
                {"messages": [HumanMessage(f"What is the answer ({n})?")]}, config
            )
            return bool(state["messages"][-1].text == load.answer)

        return await _measured(turn, threads, load, barrier)


async def _measured(turn: Turn, threads: list[int], load: Load, barrier: Barrier) -> Report:
    """Warm up, wait for every worker, then run the threads' turns and measure them."""
    for n in range(WARMUP_ROUNDS):
        await asyncio.gather(*(turn(f"warm-{t}", n) for t in threads))
    with frozen_startup():  # as a serving process does after start-up
        await asyncio.to_thread(barrier.wait)
        before, started = cpu_meter.read(), time.time()
        outcomes = await asyncio.gather(*(_thread(turn, t, load.turns) for t in threads))
        ended = time.time()
        # Every worker's backends still open: a server process that has exited
        # takes its CPU time out of the server's total.
        await asyncio.to_thread(barrier.wait)
        use = cpu_meter.between(before, cpu_meter.read())
    completed = [ok for thread in outcomes for ok in thread]
    return started, ended, len(completed), sum(completed), use


async def _thread(turn: Turn, thread: int, turns: int) -> list[bool]:
    return [await turn(f"load-{thread}", n) for n in range(turns)]
