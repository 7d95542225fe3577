"""Orchestration overhead per turn: our graph vs `langchain.agents.create_agent`, same script.

Both run a zero-latency scripted model and a zero-latency tool on an in-memory
checkpointer; each turn is a fresh thread: one tool call, then a text answer.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

from app.models import ModelResolver
from app.models.scripted import ScriptedChatModel, ScriptedTurn
from app.settings import Settings
from graph.runner import Runner, TurnRequest
from tools.declaration import ToolContext, declare
from tools.registry import ToolRegistry

TURNS = 300
WARMUP = 20


class LookupArgs(BaseModel):
    """Arguments of the benchmark tool."""

    key: str


@declare(pack="bench", kind="read_only")
async def lookup(args: LookupArgs, ctx: ToolContext) -> dict[str, str]:
    """Return a value for the key (no latency)."""
    return {"key": args.key, "value": "42"}


@tool("lookup")
async def lc_lookup(key: str) -> dict[str, str]:
    """Return a value for the key (no latency)."""
    return {"key": key, "value": "42"}


def _script(turns: int) -> list[ScriptedTurn]:
    one = [
        {"tool_calls": [{"name": "lookup", "args": {"key": "answer"}}]},
        {"content": "The answer is 42."},
    ]
    return [ScriptedTurn.model_validate(t) for _ in range(turns) for t in one]


@dataclass
class OverheadResult:
    """Per-turn timings of both implementations."""

    ours_ms: float
    create_agent_ms: float
    turns: int

    @property
    def ratio(self) -> float:
        """Ours divided by create_agent (1.0 = same cost)."""
        return self.ours_ms / self.create_agent_ms


async def _ours(turns: int) -> list[float]:
    settings = Settings(_env_file=None, checkpointer="memory", model="scripted:bench")
    models = ModelResolver(settings)
    model = ScriptedChatModel(turns=_script(turns))
    models._models["scripted:bench"] = model  # the resolver's cache is the model seam
    timings = []
    async with Runner.open(settings, ToolRegistry([lookup]), models) as runner:
        for _ in range(turns):
            request = TurnRequest(thread_id=str(uuid.uuid4()), user_id="bench", message="go")
            start = time.perf_counter()
            result = await runner.run_turn(request)
            timings.append(time.perf_counter() - start)
            assert result.status == "completed", result.text
    return timings


async def _create_agent(turns: int) -> list[float]:
    model = ScriptedChatModel(turns=_script(turns))
    agent = create_agent(model, [lc_lookup], checkpointer=InMemorySaver())
    timings = []
    for _ in range(turns):
        config: Any = {"configurable": {"thread_id": str(uuid.uuid4())}}
        start = time.perf_counter()
        state = await agent.ainvoke({"messages": [HumanMessage("go")]}, config)
        timings.append(time.perf_counter() - start)
        assert state["messages"][-1].text == "The answer is 42."
    return timings


def run(turns: int = TURNS) -> OverheadResult:
    """Measure both, interleaved warm-up first; return the mean per-turn milliseconds."""
    asyncio.run(_ours(WARMUP))
    asyncio.run(_create_agent(WARMUP))
    ours = asyncio.run(_ours(turns))
    theirs = asyncio.run(_create_agent(turns))
    return OverheadResult(
        ours_ms=statistics.mean(ours) * 1000,
        create_agent_ms=statistics.mean(theirs) * 1000,
        turns=turns,
    )


def render(result: OverheadResult) -> list[str]:
    """Return the RESULTS.md section."""
    return [
        "## Orchestration overhead per turn (scripted model, no latency)",
        "",
        f"Each turn: a fresh thread, one tool call, then a text answer; {result.turns} turns,",
        "in-memory checkpointer, mean wall time per turn.",
        "",
        "| implementation | ms per turn |",
        "|---|---|",
        f"| agentloop graph (guard → gather → act ⇄ tools → verify → finalize) "
        f"| {result.ours_ms:.2f} |",
        f"| `langchain.agents.create_agent` | {result.create_agent_ms:.2f} |",
        f"| *ratio (agentloop / create_agent)* | *{result.ratio:.2f}* |",
    ]
