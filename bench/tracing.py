"""The per-turn cost of tracing: Langfuse on (exporting to a local OTLP receiver) vs off.

Same turns as the orchestration benchmark (scripted model, one tool call, then an answer,
in-memory checkpointer), in alternating blocks so both see the same machine state.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from app.models import ModelResolver
from app.models.scripted import ScriptedChatModel
from app.observability.langfuse_client import LangfuseSettings
from app.observability.tracing import Tracing
from app.settings import Settings
from bench.overhead import _script, lookup
from graph.runner import Runner, TurnRequest
from tests.support.otlp_receiver import OtlpReceiver
from tools.registry import ToolRegistry

TURNS = 100
BLOCKS = 4
TARGET_MS = 5.0


@dataclass
class TracingResult:
    """Per-turn timings with tracing off and on, and how many spans the receiver got."""

    off_ms: list[float]
    on_ms: list[float]
    spans: int

    @property
    def cost_ms(self) -> float:
        """Mean extra milliseconds per turn with tracing on."""
        return statistics.mean(self.on_ms) - statistics.mean(self.off_ms)

    @property
    def ratio(self) -> float:
        """Mean turn time on divided by off."""
        return statistics.mean(self.on_ms) / statistics.mean(self.off_ms)


async def _turns(turns: int, tracing: Tracing, data_dir: Path) -> list[float]:
    settings = Settings(
        _env_file=None, checkpointer="memory", model="scripted:bench", data_dir=data_dir
    )
    models = ModelResolver(settings)
    models._models["scripted:bench"] = ScriptedChatModel(turns=_script(turns))
    timings = []
    async with Runner.open(settings, ToolRegistry([lookup]), models, tracing) as runner:
        for _ in range(turns):
            request = TurnRequest(thread_id=str(uuid.uuid4()), user_id="bench", message="go")
            start = time.perf_counter()
            result = await runner.run_turn(request)
            timings.append((time.perf_counter() - start) * 1000)
            assert result.status == "completed", result.text
    return timings


def run(turns: int = TURNS, blocks: int = BLOCKS) -> TracingResult:
    """Measure alternating blocks of turns with tracing off and on; warm both up first."""
    off: list[float] = []
    on: list[float] = []
    with OtlpReceiver() as receiver, tempfile.TemporaryDirectory() as tmp:
        settings = LangfuseSettings(
            _env_file=None,
            public_key=f"pk-lf-bench-{uuid.uuid4().hex[:8]}",
            secret_key="sk-lf-bench",
            base_url=receiver.base_url,
        )
        traced = Tracing.from_settings(settings)
        untraced = Tracing(None)
        # The audit needs migrated tables; the temp workspace has none, so only tracing varies.
        data_dir = Path(tmp)
        asyncio.run(_turns(20, untraced, data_dir))
        asyncio.run(_turns(20, traced, data_dir))
        for _ in range(blocks):
            off += asyncio.run(_turns(turns, untraced, data_dir))
            on += asyncio.run(_turns(turns, traced, data_dir))
        spans = len(receiver.spans)
    return TracingResult(off, on, spans)


def render(result: TracingResult) -> list[str]:
    """The RESULTS.md section."""
    met = "meets" if result.cost_ms < TARGET_MS else "MISSES"
    return [
        "## Tracing cost per turn",
        "",
        f"The orchestration benchmark's turn, {len(result.off_ms)} turns each way in "
        f"alternating blocks: Langfuse off (no keys) vs on, exporting through the real SDK to "
        f"an OTLP receiver on loopback ({result.spans} spans received). "
        f"Target: < {TARGET_MS:.0f} ms per turn.",
        "",
        "| tracing | mean ms per turn | median ms |",
        "|---|---|---|",
        f"| off | {statistics.mean(result.off_ms):.2f} | {statistics.median(result.off_ms):.2f} |",
        f"| on | {statistics.mean(result.on_ms):.2f} | {statistics.median(result.on_ms):.2f} |",
        f"| *ratio (on / off)* | *{result.ratio:.2f}* | |",
        "",
        f"Result: {met} the < {TARGET_MS:.0f} ms target ({result.cost_ms:.2f} ms per turn).",
    ]


if __name__ == "__main__":
    print("\n".join(render(run())))
