"""Wave parallelism: four independent 200 ms tools in one wave, wall time of the wave."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from core.models import ModelResolver
from core.models.scripted import ScriptedChatModel, ScriptedTurn
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tools.declaration import ToolContext, declare
from tools.pack_data import upgrade_workspace
from tools.registry import ToolRegistry

TOOL_S = 0.2
CALLS = 4
REPEATS = 10
TARGET_RATIO = 1.1
"""Target: the wave's wall time is at most this multiple of its slowest tool."""


class SlowArgs(BaseModel):
    """Arguments of the slow tool."""

    n: int


@declare(pack="bench", kind="read_only")
async def slow_lookup(args: SlowArgs, ctx: ToolContext) -> dict[str, int]:
    """Take 200 ms, like a remote API."""
    await asyncio.sleep(TOOL_S)
    return {"n": args.n}


@dataclass
class WaveResult:
    """Wall times in milliseconds over the repeats."""

    wave_ms: list[float]
    turn_ms: list[float]


async def _measure(repeats: int, data_dir: Path) -> WaveResult:
    calls = [{"name": "slow_lookup", "args": {"n": i}} for i in range(CALLS)]
    turns = [{"tool_calls": calls}, {"content": "All four came back."}] * repeats
    settings = _settings(data_dir)
    models = ModelResolver(settings)
    models._models["scripted:wave"] = ScriptedChatModel(
        turns=[ScriptedTurn.model_validate(t) for t in turns]
    )
    result = WaveResult([], [])
    async with Runner.open(settings, ToolRegistry([slow_lookup]), models) as runner:
        for _ in range(repeats):
            events: list[dict[str, Any]] = []
            request = TurnRequest(thread_id=str(uuid.uuid4()), user_id="bench", message="go")
            start = time.perf_counter()
            await runner.run_turn(request, on_event=events.append)
            result.turn_ms.append((time.perf_counter() - start) * 1000)
            done = [e for e in events if e["type"] == "tool.result"]
            assert len(done) == CALLS
            wall = max(e["finished"] for e in done) - min(e["started"] for e in done)
            result.wave_ms.append(wall * 1000)
    return result


def _settings(data_dir: Path) -> Settings:
    return Settings(_env_file=None, checkpointer="memory", model="scripted:wave", data_dir=data_dir)


def run(repeats: int = REPEATS) -> WaveResult:
    """Run the wave benchmark in a migrated workspace of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        upgrade_workspace(_settings(Path(tmp)))
        return asyncio.run(_measure(repeats, Path(tmp)))


def render(result: WaveResult) -> list[str]:
    """Return the RESULTS.md section."""
    slowest_ms = TOOL_S * 1000
    wave_max = max(result.wave_ms)
    ratio = wave_max / slowest_ms
    return [
        "## Wave parallelism",
        "",
        f"{CALLS} independent tools of {slowest_ms:.0f} ms each in one wave, "
        f"{len(result.wave_ms)} repeats. Target: the wave finishes within {TARGET_RATIO}× "
        f"the slowest tool ({TARGET_RATIO * slowest_ms:.0f} ms wall).",
        "",
        "| measure | median ms | max ms |",
        "|---|---|---|",
        f"| wave wall time (first call start → last call end) "
        f"| {statistics.median(result.wave_ms):.1f} | {wave_max:.1f} |",
        f"| whole turn | {statistics.median(result.turn_ms):.1f} | {max(result.turn_ms):.1f} |",
        "",
        f"Result: {'meets' if ratio <= TARGET_RATIO else 'MISSES'} the ≤ {TARGET_RATIO}× target "
        f"(slowest wave {wave_max:.1f} ms, {ratio:.2f}× one tool).",
    ]
