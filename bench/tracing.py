"""The per-turn cost of tracing: Langfuse on (exporting to a local OTLP receiver) vs off.

Same turns as the orchestration benchmark (scripted model, one tool call, then an answer,
in-memory checkpointer), in alternating blocks so both see the same machine state. The
receiver runs in a process of its own at the lowest CPU priority, as a Langfuse server
would run on a machine of its own: decoding the spans is the server's work, not the
agent's. CPU is the agent process's own (the SDK's export thread included), from the
block's first turn to the end of its flush.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

from bench.overhead import _script, lookup
from core.models import ModelResolver
from core.models.scripted import ScriptedChatModel
from core.observability.tracing import Tracing
from core.settings import Settings
from core.settings_sections import LangfuseSection
from graph.runner import Runner, TurnRequest
from tests.support.otlp_receiver import OtlpReceiver
from tools.pack_data import upgrade_workspace
from tools.registry import ToolRegistry

TURNS = 100
BLOCKS = 4
TARGET_MS = 5.0


@dataclass
class Block:
    """One block of turns: each turn's time, and the process CPU the block used."""

    turn_ms: list[float] = field(default_factory=list)
    cpu_ms: float = 0.0


@dataclass
class TracingResult:
    """Per-turn timings and CPU with tracing off and on, and the spans the receiver got."""

    off: list[Block]
    on: list[Block]
    spans: int

    @staticmethod
    def _turns(blocks: list[Block]) -> list[float]:
        return [ms for block in blocks for ms in block.turn_ms]

    @staticmethod
    def _cpu(blocks: list[Block]) -> float:
        return sum(b.cpu_ms for b in blocks) / sum(len(b.turn_ms) for b in blocks)

    @property
    def off_ms(self) -> list[float]:
        """Every untraced turn's milliseconds."""
        return self._turns(self.off)

    @property
    def on_ms(self) -> list[float]:
        """Every traced turn's milliseconds."""
        return self._turns(self.on)

    @property
    def cost_ms(self) -> float:
        """Mean extra milliseconds per turn with tracing on."""
        return statistics.mean(self.on_ms) - statistics.mean(self.off_ms)

    @property
    def off_cpu_ms(self) -> float:
        """Process CPU per untraced turn."""
        return self._cpu(self.off)

    @property
    def on_cpu_ms(self) -> float:
        """Process CPU per traced turn, the export included."""
        return self._cpu(self.on)

    @property
    def cpu_cost_ms(self) -> float:
        """Extra CPU milliseconds per turn with tracing on."""
        return self.on_cpu_ms - self.off_cpu_ms


def _settings(data_dir: Path) -> Settings:
    return Settings(
        _env_file=None, checkpointer="memory", model="scripted:bench", data_dir=data_dir
    )


async def _turns(turns: int, tracing: Tracing, data_dir: Path) -> Block:
    settings = _settings(data_dir)
    models = ModelResolver(settings)
    models._models["scripted:bench"] = ScriptedChatModel(turns=_script(turns))
    block = Block()
    async with Runner.open(settings, ToolRegistry([lookup]), models, tracing) as runner:
        cpu = time.process_time()
        for _ in range(turns):
            request = TurnRequest(thread_id=str(uuid.uuid4()), user_id="bench", message="go")
            start = time.perf_counter()
            result = await runner.run_turn(request)
            block.turn_ms.append((time.perf_counter() - start) * 1000)
            assert result.status == "completed", result.text
        await tracing.flush()
        block.cpu_ms = (time.process_time() - cpu) * 1000
    return block


def _serve(conn: Connection) -> None:
    """The receiver process: report the address, serve until told to stop, report the count."""
    # It stands in for a Langfuse server, which runs on a machine of its own: decoding the
    # spans must not take the CPU from the agent being measured.
    os.setpriority(os.PRIO_PROCESS, 0, 19)
    with OtlpReceiver() as receiver:
        conn.send(receiver.base_url)
        conn.recv()
        conn.send(len(receiver.spans))


@contextmanager
def _receiver_process() -> Iterator[tuple[str, Connection]]:
    """Start an OTLP receiver in another process; yield its base URL and control pipe."""
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(target=_serve, args=(theirs,))
    process.start()
    try:
        yield ours.recv(), ours
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()


def run(turns: int = TURNS, blocks: int = BLOCKS) -> TracingResult:
    """Measure alternating blocks of turns with tracing off and on; warm both up first."""
    result = TracingResult([], [], 0)
    with _receiver_process() as (base_url, receiver), tempfile.TemporaryDirectory() as tmp:
        section = LangfuseSection(
            public_key=f"pk-lf-bench-{uuid.uuid4().hex[:8]}",
            secret_key="sk-lf-bench",
            base_url=base_url,
        )
        traced = Tracing(section)
        untraced = Tracing(None)
        # A migrated (empty) workspace: gather and the audit do their real work both ways,
        # so only tracing varies.
        data_dir = Path(tmp)
        upgrade_workspace(_settings(data_dir))
        asyncio.run(_turns(20, untraced, data_dir))
        asyncio.run(_turns(20, traced, data_dir))
        for _ in range(blocks):
            result.off.append(asyncio.run(_turns(turns, untraced, data_dir)))
            result.on.append(asyncio.run(_turns(turns, traced, data_dir)))
        receiver.send("stop")
        result.spans = receiver.recv()
    return result


def render(result: TracingResult) -> list[str]:
    """The RESULTS.md section."""
    met = "meets" if result.cost_ms < TARGET_MS and result.cpu_cost_ms < TARGET_MS else "MISSES"
    off, on = result.off_ms, result.on_ms
    return [
        "## Tracing cost per turn",
        "",
        f"The orchestration benchmark's turn, {len(off)} turns each way in alternating "
        f"blocks: Langfuse off (no keys) vs on, exporting through the real SDK to an OTLP "
        f"receiver on loopback ({result.spans} spans received in all). CPU is the agent "
        "process's (the SDK's export thread included) from a block's first turn to the end "
        f"of its flush. Target: < {TARGET_MS:.0f} ms added per turn, in time and in CPU.",
        "",
        "| tracing | mean ms per turn | median ms | CPU ms per turn |",
        "|---|---|---|---|",
        f"| off | {statistics.mean(off):.2f} | {statistics.median(off):.2f} "
        f"| {result.off_cpu_ms:.2f} |",
        f"| on | {statistics.mean(on):.2f} | {statistics.median(on):.2f} "
        f"| {result.on_cpu_ms:.2f} |",
        f"| *added* | *{result.cost_ms:.2f}* | | *{result.cpu_cost_ms:.2f}* |",
        "",
        f"Result: {met} the target ({result.cost_ms:.2f} ms and {result.cpu_cost_ms:.2f} ms "
        "of CPU added per turn). Spans are made in the agent's process as the run goes, by "
        "Langfuse's SDK (the root, each phase, each model call, each tool call; compact "
        "inputs and outputs), and exported by the SDK's batch processor in a background "
        "thread.",
    ]


if __name__ == "__main__":
    print("\n".join(render(run())))
