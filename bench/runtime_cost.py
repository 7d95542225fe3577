"""The runtime alone against LangChain's own loop: CPU per text turn on PostgreSQL.

agentloop runs with no pack enabled (the runtime's own tools only) through the runner, as a
surface calls it: the PostgreSQL checkpointer, the audit, every step saved. The baseline is
`langchain.agents.create_agent` with no tools on LangGraph's `AsyncPostgresSaver` (one
connection, its defaults); a second baseline binds one tool. Each turn is a new thread
answered at once by the same scripted model.

Each subject runs in a fresh process of its own (bench/runtime_turns.py) with a database of
its own, and the parent runs them side by side in alternating blocks: CPU is that process's
plus that of the PostgreSQL backends serving its database (read from /proc). The no-tools
baseline is run twice: alone, and inside the runtime's process. Hosted beside the runtime it
costs more (the runtime's larger heap makes every garbage collection dearer, and its
background work lands in the baseline's blocks): that is why a baseline measured in the
runtime's process was dearer than one measured from outside. The target is against the
baseline alone, the cheaper one.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from bench.runtime_turns import (
    BARE,
    BARE_MEMORY,
    BLOCK,
    DEFERRED,
    GRAPH,
    RUNTIME,
    TOOLED,
    WARM_UP,
)
from bench.scratch_db import scratch_postgres

TURNS = 200
TARGET = 2.0
"""The runtime's CPU per text turn, at most this multiple of create_agent's with no tools."""
BESIDE = "beside"
LABELS = {
    RUNTIME: "agentloop runtime, no pack (runner, audit, PooledPostgresSaver)",
    DEFERRED: "the same, task writes deferred (opt-in)",
    BARE: "create_agent, no tools, AsyncPostgresSaver, a process of its own",
    BESIDE: "create_agent, no tools, in the runtime's process",
    TOOLED: "create_agent, one tool bound, AsyncPostgresSaver",
    GRAPH: "agentloop's graph alone: nothing saved (in memory), no lanes, no audit",
    BARE_MEMORY: "create_agent alone: nothing saved (in memory)",
}
PROCESSES = ((RUNTIME, BESIDE), (DEFERRED,), (BARE,), (TOOLED,), (GRAPH,), (BARE_MEMORY,))
"""Which subjects share a process: the runtime hosts the second no-tools baseline."""
_PROC = Path("/proc")


@dataclass
class RuntimeCost:
    """CPU seconds and turns per subject."""

    agent_s: dict[str, float] = field(default_factory=dict)
    postgres_s: dict[str, float] = field(default_factory=dict)
    turns: dict[str, int] = field(default_factory=dict)

    def per_turn_ms(self, name: str) -> tuple[float, float, float]:
        """(agent, PostgreSQL, total) CPU milliseconds per turn."""
        n = self.turns[name]
        agent, pg = self.agent_s[name] * 1000 / n, self.postgres_s[name] * 1000 / n
        return agent, pg, agent + pg

    def ratio(self, name: str = RUNTIME) -> float:
        """A subject's total CPU per turn over the no-tools baseline's (alone)."""
        return self.per_turn_ms(name)[2] / self.per_turn_ms(BARE)[2]


def _backend_cpu_s(database: str) -> float:
    """CPU seconds of the PostgreSQL backends connected to `database` (utime + stime)."""
    ticks = 0
    for proc in _PROC.glob("[0-9]*"):
        try:
            shown = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
            if f" {database} ".encode() not in shown:
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _worker(subjects: dict[str, str]) -> subprocess.Popen[str]:
    # The baseline hosted beside the runtime is a plain create_agent subject to the worker.
    pairs = [f"{BARE if name == BESIDE else name}={url}" for name, url in subjects.items()]
    return subprocess.Popen(
        [sys.executable, "-m", "bench.runtime_turns", *pairs, str(WARM_UP + TURNS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _ask(worker: subprocess.Popen[str], line: str | None = None) -> str:
    assert worker.stdin is not None and worker.stdout is not None
    if line is not None:
        worker.stdin.write(line + "\n")
        worker.stdin.flush()
    answer = worker.stdout.readline()
    if not answer:
        raise RuntimeError(f"a benchmark process ended early (exit {worker.wait()})")
    return answer.strip()


async def _run() -> RuntimeCost:
    cost = RuntimeCost()
    async with AsyncExitStack() as stack:
        urls = {name: await stack.enter_async_context(scratch_postgres(name)) for name in LABELS}
        workers = {}
        for hosted in PROCESSES:
            worker = _worker({name: urls[name] for name in hosted})
            workers.update(dict.fromkeys(hosted, worker))
            stack.callback(worker.wait)
            stack.callback(worker.stdin.close)  # type: ignore[union-attr]
        for worker in set(workers.values()):
            assert _ask(worker) == "ready"
        for name in LABELS:
            cost.agent_s[name] = cost.postgres_s[name] = 0.0
            cost.turns[name] = 0
        for _ in range(TURNS // BLOCK):
            for name, worker in workers.items():
                await asyncio.sleep(0.2)  # let the previous block's background writes settle
                database = urls[name].rsplit("/", 1)[1]
                pg = _backend_cpu_s(database)
                subject = BARE if name == BESIDE else name
                cost.agent_s[name] += json.loads(_ask(worker, subject))["cpu_s"]
                await asyncio.sleep(0.2)
                cost.postgres_s[name] += _backend_cpu_s(database) - pg
                cost.turns[name] += BLOCK
    return cost


def run() -> RuntimeCost:
    """Measure every subject side by side, each on a database of its own."""
    return asyncio.run(_run())


def render(result: RuntimeCost) -> list[str]:
    """The section for bench/RESULTS.md."""
    lines = [
        "## The runtime alone against create_agent (CPU per text turn, PostgreSQL)",
        "",
        "agentloop with no pack enabled, through the runner (audit on, every step saved), "
        "against LangChain's `create_agent` on `AsyncPostgresSaver`; each turn a new thread, "
        "answered at once by the same scripted model. Each subject runs in a fresh process of "
        f"its own, on a database of its own; {WARM_UP} warm-up turns each, then {TURNS} each "
        f"in alternating blocks of {BLOCK}. CPU: the subject's process and the PostgreSQL "
        "backends serving its database. The no-tools baseline also runs inside the "
        "runtime's process, to show why a baseline measured there costs more. "
        f"Target: the runtime at most {TARGET:.1f}× `create_agent` with no tools, alone.",
        "",
        "| implementation | agent CPU ms | PostgreSQL CPU ms | CPU ms/turn | × no-tools baseline |",
        "|---|---|---|---|---|",
    ]
    for name, label in LABELS.items():
        agent, pg, total = result.per_turn_ms(name)
        lines.append(
            f"| {label} | {agent:.2f} | {pg:.2f} | {total:.2f} | {result.ratio(name):.2f} |"
        )
    verdict = "meets" if result.ratio() <= TARGET else "**misses**"
    deferred, beside = result.ratio(DEFERRED), result.ratio(BESIDE)
    graph, bare_memory = result.per_turn_ms(GRAPH)[2], result.per_turn_ms(BARE_MEMORY)[2]
    lines += [
        "",
        f"Result: the runtime {verdict} the target ({result.ratio():.2f}×); with its task "
        "writes deferred (`AGENTLOOP_CHECKPOINT_PENDING_WRITES=deferred`, which gives up "
        f"LangGraph's pending-writes contract: docs/storage.md) it is {deferred:.2f}×. "
        f"Hosted in the runtime's process the same baseline costs {beside:.2f}× itself alone.",
        "",
        f"The floor: with nothing saved, no lane and no audit, agentloop's graph costs "
        f"{graph:.2f} ms a turn against {bare_memory:.2f} for `create_agent` alone "
        f"({graph / bare_memory:.2f}×), {result.ratio(GRAPH):.2f}× the target's baseline before "
        "any checkpoint is written (docs/performance.md).",
    ]
    return lines
