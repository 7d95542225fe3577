"""A 300-turn thread with large tool results: tokens sent per request, with compaction.

Scripted models (no latency): each turn one tool call returning ~3,800 characters, then an
answer. The run's context window is set small so compaction and pruning happen often; the
summary is a scripted turn on its own compaction model. Records the tokens of every request
(langchain-core's estimate, tool schemas included) and checks each is valid chat history.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from langchain_core.messages import HumanMessage, messages_from_dict
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from core.models import ModelResolver
from core.models.scripted import ScriptedChatModel, ScriptedTurn
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from history.pipeline import pairing_problems
from history.turn import turn_start
from prompts import compaction as compaction_prompts
from tools.declaration import ToolContext, declare
from tools.pack_data import upgrade_workspace
from tools.registry import ToolRegistry

TURNS = 300
WINDOW = 16_000
RESULT_CHARS = 3_800
SAMPLES = (1, 10, 25, 50, 100, 150, 200, 250, 300)


class ReportArgs(BaseModel):
    """Arguments of the report tool."""

    n: int


@declare(pack="bench", kind="read_only")
async def big_report(args: ReportArgs, ctx: ToolContext) -> dict[str, object]:
    """Return a large report."""
    return {"n": args.n, "rows": f"row-{args.n} " * (RESULT_CHARS // (7 + len(str(args.n))))}


@dataclass
class HistoryResult:
    """Tokens per turn (first request of the turn) and what compaction did."""

    window: int
    turns: int
    tokens: list[int] = field(default_factory=list)
    unmanaged: list[int] = field(default_factory=list)
    """Tokens the whole history would cost at each turn with no pipeline or compaction."""
    compactions: int = 0
    first_compaction_turn: int | None = None
    invalid_requests: int = 0
    requests: int = 0
    summary_calls: int = 0


def _turns(entries: Sequence[Mapping[str, Any]]) -> list[ScriptedTurn]:
    return [ScriptedTurn.model_validate(entry) for entry in entries]


async def _measure(turns: int, window: int) -> HistoryResult:
    result = HistoryResult(window=window, turns=turns)
    registry = ToolRegistry([big_report])
    schemas: list[Any] = list(registry.openai_schemas())
    with TemporaryDirectory() as tmp:
        transcript = Path(tmp) / "requests.jsonl"
        settings = Settings(
            _env_file=None,
            checkpointer="memory",
            model="scripted:history",
            data_dir=Path(tmp),
            scripted_transcript=transcript,
        )
        await asyncio.to_thread(upgrade_workspace, settings)  # a workspace for gather and the audit
        models = ModelResolver(settings)
        main = [
            turn
            for n in range(turns)
            for turn in (
                {"tool_calls": [{"name": "big_report", "args": {"n": n}}]},
                {"content": f"Report {n} is ready."},
            )
        ]
        models._models["scripted:history"] = ScriptedChatModel(
            turns=_turns(main), transcript=transcript
        )
        summaries = [{"content": f"Summary {k}: reports 0..n were shown."} for k in range(turns)]
        compactor = ScriptedChatModel(turns=_turns(summaries), transcript=transcript)
        models._models["scripted:compactor"] = compactor  # the resolver's cache is the seam
        raw = 0
        async with Runner.open(settings, registry, models) as runner:
            for n in range(turns):
                run_id = str(uuid.uuid4())
                request = TurnRequest(thread_id="long", user_id="bench", message=f"Report {n}?")
                context = runner.driver.context_for(request, run_id).model_copy(
                    update={"context_window": window, "compaction_model": "scripted:compactor"}
                )
                config = runner.driver.config_for("long", run_id, "bench")
                assert isinstance(runner.graph, CompiledStateGraph)  # in-process graph
                await runner.graph.ainvoke(
                    {"messages": [HumanMessage(request.message)]}, config, context=context
                )
                state = (await runner.graph.aget_state(config)).values
                messages = state["messages"]
                raw += count_tokens_approximately(
                    messages[turn_start(messages, state["turn_start_id"]) :]
                )
                result.unmanaged.append(raw)
                if state.get("compactions", 0) and result.first_compaction_turn is None:
                    result.first_compaction_turn = n + 1
            result.compactions = state.get("compactions", 0)
        result.summary_calls = len(compactor.turns) - compactor.unused()
        summary_prompt = compaction_prompts.summary_system()
        for line in transcript.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            messages = messages_from_dict(entry["messages"])
            if messages[0].text == summary_prompt:
                continue
            result.requests += 1
            result.invalid_requests += bool(pairing_problems(messages[1:]))
            tokens = count_tokens_approximately(messages, tools=schemas)
            if isinstance(messages[-1], HumanMessage):  # the first request of a turn
                result.tokens.append(tokens)
    return result


def run(turns: int = TURNS, window: int = WINDOW) -> HistoryResult:
    """Run the long-thread benchmark."""
    return asyncio.run(_measure(turns, window))


def render(result: HistoryResult) -> list[str]:
    """The RESULTS.md section."""
    after = result.tokens[(result.first_compaction_turn or 1) - 1 :]
    rows = [
        f"| {turn} | {result.tokens[turn - 1]:,} | {result.unmanaged[turn - 1]:,} |"
        for turn in SAMPLES
        if turn <= len(result.tokens)
    ]
    under = max(result.tokens) <= result.window
    return [
        f"## Long thread: {result.turns} turns with large tool results",
        "",
        f"Each turn: one tool call returning ~{RESULT_CHARS:,} characters, then an answer; "
        f"context window {result.window:,} tokens (set small so compaction happens often); "
        "the summary is a scripted turn. Tokens are langchain-core's estimate of the first "
        "request of each turn, system prompt and tool schemas included; *unmanaged history* "
        "is the thread's messages alone (no system prompt or tools), as they would be sent "
        "with no pipeline and no compaction.",
        "",
        "| turn | tokens sent | unmanaged history |",
        "|---|---|---|",
        *rows,
        "",
        f"- largest request: {max(result.tokens):,} tokens "
        f"({'under' if under else '**over**'} the {result.window:,}-token window); "
        f"after compaction starts: min {min(after):,}, max {max(after):,}",
        f"- compaction: first at turn {result.first_compaction_turn}, "
        f"{result.compactions} compactions ({result.summary_calls} summary calls) in "
        f"{result.turns} turns",
        f"- requests checked: {result.requests}; invalid chat history (orphan call or "
        f"result): {result.invalid_requests}",
    ]
