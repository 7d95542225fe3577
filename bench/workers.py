"""The concurrency benchmark's load over worker processes on one PostgreSQL database.

Each worker is a process of its own with its own runner (and event loop); the threads are
spread over the workers (thread t goes to worker t mod n), so each thread's turns keep
their order in one worker, as the lanes keep them in production. The workers warm up,
wait at a barrier, then run their threads' turns; the throughput is all turns over the
span from the first worker's start to the last one's end.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier
from pathlib import Path

from bench.latency_model import LatencyChatModel
from bench.scratch_db import scratch_postgres
from core.models import ModelResolver
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tools.registry import ToolRegistry

WARMUP_TURNS = 10


@dataclass(frozen=True)
class WorkersRun:
    """One load spread over `workers` processes."""

    workers: int
    turns: int
    completed: int
    wall_s: float

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


def run_workers(workers: int, load: Load) -> WorkersRun:
    """Run `load` over `workers` processes on a scratch PostgreSQL database."""
    return asyncio.run(_on_postgres(workers, load))


async def _on_postgres(workers: int, load: Load) -> WorkersRun:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers)
    results = context.Queue()
    async with scratch_postgres("workers") as url:
        shares = [list(range(w, load.threads, workers)) for w in range(workers)]
        processes = [
            context.Process(target=_worker, args=(url, share, load, barrier, results))
            for share in shares
        ]
        for process in processes:
            process.start()
        reports = [await asyncio.to_thread(results.get) for _ in processes]
        for process in processes:
            process.join()
    starts, ends, done, completed = zip(*reports, strict=True)
    return WorkersRun(workers, sum(done), sum(completed), max(ends) - min(starts))


def _worker(
    url: str, threads: list[int], load: Load, barrier: Barrier, results: multiprocessing.Queue
) -> None:
    results.put(asyncio.run(_serve(url, threads, load, barrier)))


async def _serve(
    url: str, threads: list[int], load: Load, barrier: Barrier
) -> tuple[float, float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = load.settings_for(url, Path(tmp))
        models = ModelResolver(settings)
        model = LatencyChatModel(latency_s=load.model_s, answer=load.answer)
        models._models[settings.model_spec()] = model  # the resolver's cache is the model seam
        async with Runner.open(settings, ToolRegistry([]), models) as runner:
            for n in range(WARMUP_TURNS):
                await runner.run_turn(TurnRequest(f"warm-{threads[0]}-{n}", "bench", "hi"))
            await asyncio.to_thread(barrier.wait)
            started = time.time()
            outcomes = await asyncio.gather(*(_thread(runner, t, load.turns) for t in threads))
            ended = time.time()
    completed = [ok for thread in outcomes for ok in thread]
    return started, ended, len(completed), sum(completed)


async def _thread(runner: Runner, thread: int, turns: int) -> list[bool]:
    done = []
    for n in range(turns):
        request = TurnRequest(f"load-{thread}", "bench", f"What is the answer ({n})?")
        done.append((await runner.run_turn(request)).status == "completed")
    return done
