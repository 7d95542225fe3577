"""The embedded local model on the reference asks: right tool, the fact, seconds per turn.

Each ask runs as one turn through the runner (the whole graph: preselection, the local
model, tools, verify) in a fresh thread on a seeded demo workspace in SQLite, with a fixed
"today" so the facts do not move. A turn is right when its first tool call is the expected
tool (or, for small talk, when it calls none), and it holds the fact when the answer (or the
waiting proposal) contains one of the expected strings. Then one conversation runs in a
single thread, each ask following the last, as a person talks in Slack: follow-ups that
lean on the previous answer ("any rooms then?") and asks that must not ("next weekend"
after a task due December 4).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.eval.workspace import build_template, workspace_settings
from bench.suite import Say
from core.settings import Settings
from graph.runner import Runner, TurnRequest

TODAY = "2026-11-24"
TARGET_RIGHT = 10
TARGET_MEDIAN_S = 6.0
TARGET_P95_S = 15.0
TARGET_CONVERSATION_RIGHT = 11
"""Of the conversation's asks, both the right tool and the fact."""


@dataclass(frozen=True)
class Ask:
    """One reference ask, the tool that answers it and strings the answer must hold one of."""

    text: str
    tool: str | None
    facts: tuple[str, ...]


ASKS = (
    Ask(
        "When is Hanukkah this year?",
        "resolve_holiday",
        ("2026-12-04", "2026-12-05", "December 4", "December 5"),
    ),
    Ask("When is Thanksgiving 2026?", "resolve_holiday", ("2026-11-26", "November 26")),
    Ask("When is Christmas?", "resolve_holiday", ("2026-12-25", "December 25")),
    Ask(
        "what's still open for Thorinox?",
        "list_tasks",
        ("Refresh Garlic Press main images", "Q1 PPC budget review"),
    ),
    Ask("Which client owns the Garlic Press brand?", "resolve_brand", ("Thorinox", "Distex")),
    Ask(
        "Do we have a room free next weekend?",
        "resolve_date_hint",
        ("2026-12-04", "December 4", "room", "Room"),
    ),
    Ask("What dates are next weekend?", "resolve_date_hint", ("2026-12-04", "December 4")),
    Ask(
        "Create a task for Thorinox to refresh the Garlic Press images",
        "create_task",
        ("create_task",),
    ),
    Ask(
        "What do we know about Thorinox?", "get_client_context", ("Kitchen", "kitchen", "cookware")
    ),
    Ask(
        "search the KB for the onboarding checklist",
        "search_kb",
        ("New brand onboarding checklist", "onboarding"),
    ),
    Ask(
        "Which brands have incomplete mappings?",
        "audit_brand_mappings",
        ("Garlic Press", "Distex Lighting"),
    ),
    Ask("List the brands of Thorinox", "lookup_brand", ("Thorinox Cutlery", "Thorinox Peelers")),
    Ask("Remember that Thorinox prefers email", "remember_client_note", ("remember_client_note",)),
    Ask(
        "Is a room available from December 18 to December 20?", "get_availability", ("room", "Room")
    ),
    Ask("thanks!", None, ("welcome",)),
)

CONVERSATION = (
    Ask("When is Hanukkah this year?", "resolve_holiday", ("2026-12-05", "December 5")),
    Ask("what's still open for Thorinox?", "list_tasks", ("Refresh Garlic Press main images",)),
    # The task is due 2026-12-04: the stay must come from "next weekend", not from it.
    Ask("Do we have a room free next weekend?", "resolve_date_hint", ("2026-12-06",)),
    Ask("any rooms for 3 guests then?", "get_availability", ("2026-12-06",)),
    Ask("When is Christmas?", "resolve_holiday", ("2026-12-25", "December 25")),
    Ask("any rooms then?", "get_availability", ("2026-12-26",)),
    Ask("and tomorrow?", "resolve_date_hint", ("2026-11-25",)),
    Ask("what about friday?", "resolve_date_hint", ("2026-11-27",)),
    Ask("Which client owns the Garlic Press brand?", "resolve_brand", ("Thorinox", "Distex")),
    Ask("the Thorinox one", "resolve_brand", ("Thorinox",)),
    # Nothing before it gives a date: the reply asks for the dates rather than booking.
    Ask("book a room for Dana Levi", None, ("Which dates",)),
    Ask("Do we have a room free?", None, ("Which dates",)),
    # The dates the reply asked for: the room search runs on them.
    Ask("next weekend", "resolve_date_hint", ("Queen",)),
    Ask("thanks!", None, ("welcome",)),
    # Mid-thread, what the asker may ask for, not a reply made up from the thread.
    Ask("what can you do?", None, ("Check which hotel room types are free",)),
    # A holiday says when: its night, not the dates the thread held before.
    Ask("is a King Suite free on Christmas?", "resolve_holiday", ("2026-12-26",)),
    # The dates, the rooms on them, then the booking proposed for the guest the message names.
    Ask("book a room for Dana Levi next weekend", "resolve_date_hint", ("create_booking",)),
)
"""One thread, in order. A follow-up's fact is what only the right reading of it gives."""


@dataclass
class Turn:
    """One ask's outcome."""

    ask: Ask
    seconds: float
    tools: list[str]
    text: str
    status: str
    model_calls: int

    @property
    def right_tool(self) -> bool:
        """The first tool called is the expected one (none expected: none called)."""
        first = self.tools[0] if self.tools else None
        return first == self.ask.tool

    @property
    def has_fact(self) -> bool:
        """The answer, or the waiting proposal, holds one of the expected strings (small
        talk: the answer is not empty)."""
        if not self.ask.facts:
            return bool(self.text.strip())
        shown = (
            self.text + " " + " ".join(self.tools if self.status == "needs_confirmation" else [])
        )
        return any(fact in shown for fact in self.ask.facts)


@dataclass
class LocalModelResult:
    """Every ask's turn, and the model's load time."""

    load_s: float
    turns: list[Turn] = field(default_factory=list)
    conversation: list[Turn] = field(default_factory=list)


def run(say: Say = print) -> LocalModelResult:
    """Run every ask on the local model; say each outcome as it comes."""
    return asyncio.run(_run(say))


async def _run(say: Say) -> LocalModelResult:
    with tempfile.TemporaryDirectory(prefix="bench-local-") as folder:
        base = Settings(model="local", openai_api_key=None)
        await build_template(Path(folder), base)
        settings = workspace_settings(base, Path(folder))
        async with Runner.open(settings) as runner:
            started = time.perf_counter()
            runner.check_model("local")  # loads the model once, outside the timed turns
            result = LocalModelResult(load_s=time.perf_counter() - started)
            for number, ask in enumerate(ASKS):
                turn = await _turn(runner, ask, f"bench-local-{number}")
                result.turns.append(turn)
                _say_turn(say, turn)
            say("  one conversation:")
            for ask in CONVERSATION:
                turn = await _turn(runner, ask, "bench-local-conversation")
                result.conversation.append(turn)
                _say_turn(say, turn)
    return result


def _say_turn(say: Say, turn: Turn) -> None:
    mark = "ok" if turn.right_tool else "WRONG TOOL"
    say(f"  {turn.seconds:5.1f} s  {mark:<10} {turn.ask.text!r} → {turn.tools}")


async def _turn(runner: Runner, ask: Ask, thread_id: str) -> Turn:
    calls = 0

    def count(event: dict[str, Any]) -> None:
        nonlocal calls
        if event.get("type") == "agent_state" and event.get("state") == "thinking":
            calls += 1

    request = TurnRequest(thread_id=thread_id, user_id="U_BENCH", message=ask.text, today=TODAY)
    started = time.perf_counter()
    result = await runner.run_turn(request, on_event=count)
    seconds = time.perf_counter() - started
    tools = [call.name for call in result.tool_calls]
    return Turn(ask, seconds, tools, result.text, result.status, calls)


def render(result: LocalModelResult) -> list[str]:
    """The markdown section: one row per ask, then the figures against the targets."""
    turns = result.turns
    seconds = sorted(t.seconds for t in turns)
    median = statistics.median(seconds)
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    right = sum(t.right_tool for t in turns)
    facts = sum(t.has_fact for t in turns)
    lines = [
        "## The local model on the reference asks (SmolLM2-135M, llama.cpp, 2 threads)",
        "",
        f"Each ask is one turn through the runner in a fresh thread on the seeded demo "
        f"workspace (SQLite), today = {TODAY}; the model loads once ({result.load_s:.1f} s) "
        f"before the timed turns. *Right tool*: the first tool called is the expected one "
        f"(none for small talk). *Fact*: the answer (or the waiting proposal) holds the "
        f"expected value. Targets: right tool ≥ {TARGET_RIGHT} of {len(turns)}, median "
        f"≤ {TARGET_MEDIAN_S:g} s, p95 ≤ {TARGET_P95_S:g} s, no turn at the 90 s cap.",
        "",
        "| ask | expected | called | right | fact | s | model calls | status |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in turns:
        lines.append(
            f"| {t.ask.text} | {t.ask.tool or '(reply)'} | {', '.join(t.tools) or '-'} "
            f"| {'yes' if t.right_tool else 'no'} | {'yes' if t.has_fact else 'no'} "
            f"| {t.seconds:.1f} | {t.model_calls} | {t.status} |"
        )
    calls = statistics.mean(t.model_calls for t in turns)
    capped = sum(t.status == "capped" for t in turns)
    verdicts = [
        _verdict(right >= TARGET_RIGHT, f"right tool {right}/{len(turns)}"),
        _verdict(median <= TARGET_MEDIAN_S, f"median {median:.1f} s"),
        _verdict(p95 <= TARGET_P95_S, f"p95 {p95:.1f} s"),
        _verdict(capped == 0, f"{capped} capped turn(s)"),
    ]
    lines += [
        "",
        f"Fact in the answer: {facts}/{len(turns)}; model calls per turn: {calls:.1f} (mean).",
        "",
        "Result: " + "; ".join(verdicts) + ".",
    ]
    return lines + _render_conversation(result.conversation)


def _render_conversation(turns: list[Turn]) -> list[str]:
    """The conversation's table: its asks in order, in one thread."""
    if not turns:
        return []
    both = sum(t.right_tool and t.has_fact for t in turns)
    lines = [
        "",
        f"One conversation, in one thread, in this order. A follow-up's fact is what only "
        f"the right reading of it gives (the stay from next weekend's dates, not from a task "
        f"due December 4; one night on Christmas Day; the rooms free on the dates a reply "
        f"asked for). Target: right tool and fact on "
        f"≥ {TARGET_CONVERSATION_RIGHT} of {len(turns)}.",
        "",
        "| # | ask | expected | called | right | fact | s | status |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for number, t in enumerate(turns, start=1):
        lines.append(
            f"| {number} | {t.ask.text} | {t.ask.tool or '(reply)'} "
            f"| {', '.join(t.tools) or '-'} | {'yes' if t.right_tool else 'no'} "
            f"| {'yes' if t.has_fact else 'no'} | {t.seconds:.1f} | {t.status} |"
        )
    verdict = _verdict(
        both >= TARGET_CONVERSATION_RIGHT, f"right tool and fact {both}/{len(turns)}"
    )
    return [*lines, "", f"Result: {verdict}."]


def _verdict(met: bool, figure: str) -> str:
    return f"{figure} ({'met' if met else '**missed**'})"
