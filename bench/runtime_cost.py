"""The runtime alone against LangChain's own loop: CPU per text turn on PostgreSQL.

agentloop runs with no pack enabled (the runtime's own tools only) through the runner, as a
surface calls it: the PostgreSQL checkpointer, the audit, every step saved. The baseline is
`langchain.agents.create_agent` with no tools on LangGraph's `AsyncPostgresSaver` (one
connection, its defaults); a second baseline binds one tool, the shape earlier baselines
used. All three run side by side in one process, in alternating blocks, each turn a new
thread answered by a scripted model at once. CPU is this process's plus that of the
PostgreSQL backends serving the benchmark's own database (read from /proc, by the database
name each backend shows), so other work on the server is not counted; the runtime's audit,
written in the background, is drained inside its own blocks so that none of its writes land
in a baseline's block (counted there, they made earlier baselines look dearer).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from bench.scratch_db import scratch_postgres
from core.models import ModelResolver
from core.models.scripted import ScriptedChatModel, ScriptedTurn
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tools.registry import registry_of

WARM_UP = 20
TURNS = 200
BLOCK = 20
TARGET = 2.0
"""The runtime's CPU per text turn, at most this multiple of create_agent's with no tools."""
OURS = "agentloop runtime, no pack (runner, audit, PooledPostgresSaver)"
DEFERRED = "the same, task writes deferred (opt-in)"
BARE = "create_agent, no tools, AsyncPostgresSaver"
TOOLED = "create_agent, one tool bound, AsyncPostgresSaver"
_PROC = Path("/proc")


@dataclass
class RuntimeCost:
    """CPU seconds and turns per implementation."""

    agent_s: dict[str, float] = field(default_factory=dict)
    postgres_s: dict[str, float] = field(default_factory=dict)
    turns: dict[str, int] = field(default_factory=dict)

    def per_turn_ms(self, name: str) -> tuple[float, float, float]:
        """(agent, PostgreSQL, total) CPU milliseconds per turn."""
        n = self.turns[name]
        agent, pg = self.agent_s[name] * 1000 / n, self.postgres_s[name] * 1000 / n
        return agent, pg, agent + pg

    def ratio(self) -> float:
        """The runtime's total CPU per turn over the no-tools baseline's."""
        return self.per_turn_ms(OURS)[2] / self.per_turn_ms(BARE)[2]


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


def _texts(n: int) -> ScriptedChatModel:
    return ScriptedChatModel(turns=[ScriptedTurn(content="It is done.") for _ in range(n)])


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return query


async def _measure(url: str) -> RuntimeCost:
    database = url.rsplit("/", 1)[1]
    total = WARM_UP + TURNS
    settings = Settings(_env_file=None, database_url=url, checkpointer="postgres", packs="")
    deferring = settings.model_copy(update={"checkpoint_pending_writes": "deferred"})
    models = ModelResolver(settings)
    models._models["scripted:runtime"] = _texts(2 * total)  # the resolver's cache: the model seam
    cost = RuntimeCost()
    async with (
        Runner.open(settings, registry_of([]), models) as runner,
        Runner.open(deferring, registry_of([]), models) as deferred,
        AsyncPostgresSaver.from_conn_string(url) as bare_saver,
        AsyncPostgresSaver.from_conn_string(url) as tooled_saver,
    ):
        bare = create_agent(_texts(total), [], checkpointer=bare_saver)
        tooled = create_agent(_texts(total), [lookup], checkpointer=tooled_saver)

        def turns_of(runtime: Runner) -> Callable[[], Awaitable[None]]:
            async def turn() -> None:
                thread = str(uuid.uuid4())
                request = TurnRequest(thread, "bench", "go", model="scripted:runtime")
                result = await runtime.run_turn(request)
                assert result.status == "completed", result.text

            return turn

        audits = {OURS: runner.driver.audit, DEFERRED: deferred.driver.audit}

        async def settled(name: str) -> None:
            # The audit is written in the background: its rows are the runtime's cost, so
            # they are written inside the runtime's own block, not during the next one's.
            audit = audits.get(name)
            if audit is not None:
                await audit.drain()

        def agent(graph: object) -> Callable[[], Awaitable[None]]:
            async def turn() -> None:
                config = {"configurable": {"thread_id": str(uuid.uuid4())}}
                turn_input = {"messages": [HumanMessage("go")]}
                await graph.ainvoke(turn_input, config)  # type: ignore[attr-defined]

            return turn

        subjects = {
            OURS: turns_of(runner),
            DEFERRED: turns_of(deferred),
            BARE: agent(bare),
            TOOLED: agent(tooled),
        }
        for name, turn in subjects.items():
            for _ in range(WARM_UP):
                await turn()
            await settled(name)
            cost.agent_s[name] = cost.postgres_s[name] = 0.0
            cost.turns[name] = 0
        for _ in range(TURNS // BLOCK):
            for name, turn in subjects.items():
                await asyncio.sleep(0.2)  # let the previous block's background writes settle
                pg, cpu = _backend_cpu_s(database), time.process_time()
                for _ in range(BLOCK):
                    await turn()
                await settled(name)
                await asyncio.sleep(0.2)
                cost.agent_s[name] += time.process_time() - cpu
                cost.postgres_s[name] += _backend_cpu_s(database) - pg
                cost.turns[name] += BLOCK
    return cost


async def _run() -> RuntimeCost:
    async with scratch_postgres("runtime") as url:
        return await _measure(url)


def run() -> RuntimeCost:
    """Measure the three side by side on a database of their own."""
    return asyncio.run(_run())


def render(result: RuntimeCost) -> list[str]:
    """The section for bench/RESULTS.md."""
    lines = [
        "## The runtime alone against create_agent (CPU per text turn, PostgreSQL)",
        "",
        f"agentloop with no pack enabled, through the runner (audit on, every step saved), "
        f"against LangChain's `create_agent` on `AsyncPostgresSaver`, with no tools and with "
        f"one tool bound; each turn a new thread, answered at once by a scripted model; "
        f"{WARM_UP} warm-up turns each, then {TURNS} each in alternating blocks of {BLOCK}. "
        "CPU: this process's and the PostgreSQL backends' serving the benchmark's database. "
        f"Target: the runtime at most {TARGET:.1f}× `create_agent` with no tools.",
        "",
        "| implementation | agent CPU ms | PostgreSQL CPU ms | CPU ms/turn | × no-tools baseline |",
        "|---|---|---|---|---|",
    ]
    base = result.per_turn_ms(BARE)[2]
    for name in (OURS, DEFERRED, BARE, TOOLED):
        agent, pg, total = result.per_turn_ms(name)
        lines.append(f"| {name} | {agent:.2f} | {pg:.2f} | {total:.2f} | {total / base:.2f} |")
    verdict = "meets" if result.ratio() <= TARGET else "**misses**"
    deferred = result.per_turn_ms(DEFERRED)[2] / base
    lines += [
        "",
        f"Result: the runtime {verdict} the target ({result.ratio():.2f}×); with its task "
        f"writes deferred (`AGENTLOOP_CHECKPOINT_PENDING_WRITES=deferred`, which gives up "
        f"LangGraph's pending-writes contract: docs/storage.md) it is {deferred:.2f}×.",
    ]
    return lines
