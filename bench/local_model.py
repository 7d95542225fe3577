"""The embedded local model on its sets of asks: the tuning set and the held-out sets.

Each ask runs through the runner (the whole graph: preselection, the local model, tools,
verify) in a thread of its own on a seeded demo workspace in SQLite, as an admin, with a
fixed "today" so the facts do not move; a follow-up's earlier messages run first in the
same thread. Whether a turn is right is bench/ask_scoring.py's strict definition. A change
proposed for an ask that only asks to know is counted on its own.

The held-out sets are reported as totals per category only: neither the progress said while it
runs nor the recorded section names an ask of it or what was answered. The tuning set (with
the retired held-out v1 to v9) is itemized. The median turn is measured again while
another process keeps one core busy.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from app.eval.workspace import build_template, workspace_settings
from bench.ask_scoring import RIGHT, Outcome, asks_for_change, verdict
from bench.ask_sets import HELD_OUT, Ask, SetName, load
from bench.suite import Say
from core.settings import Settings
from graph.runner import Runner, TurnRequest

TODAY = "2026-11-24"
USER = "U0ADA"
SETS: tuple[SetName, ...] = ("tuning", *HELD_OUT)
ITEMIZED: tuple[SetName, ...] = ("tuning",)
"""The sets whose asks are shown one by one; the held-out sets are shown as totals only."""
TARGET_HELD_OUT = 0.80
TARGET_TUNING = 0.85
TARGET_BUSY_RATIO = 2.0
BUSY_SAMPLE = 12
"""Asks of the tuning set timed again with one core busy."""


@dataclass(frozen=True)
class Turn:
    """One ask's outcome and its verdict."""

    ask: Ask
    seconds: float
    outcome: Outcome

    @property
    def verdict(self) -> str:
        """`ok`, or why the turn is wrong (bench/ask_scoring.py)."""
        return verdict(self.ask, self.outcome)

    @property
    def right(self) -> bool:
        """The turn answered its ask, strictly."""
        return self.verdict == RIGHT

    @property
    def proposed_change(self) -> bool:
        """The turn ended waiting for a person to approve a change."""
        return self.outcome.status == "needs_confirmation"


@dataclass
class LocalModelResult:
    """Every ask's turn by set, the busy-machine timings and the model's load time."""

    load_s: float
    commit: str = ""
    """The commit the asks ran on ("" outside a git checkout)."""
    turns: dict[str, list[Turn]] = field(default_factory=dict)
    quiet_s: list[float] = field(default_factory=list)
    busy_s: list[float] = field(default_factory=list)


def run(say: Say = print, sets: tuple[SetName, ...] = SETS, busy: bool = True) -> LocalModelResult:
    """Run every ask of `sets` on the local model; say each outcome as it comes."""
    return asyncio.run(_run(say, sets, busy))


async def _run(say: Say, sets: tuple[SetName, ...], busy: bool) -> LocalModelResult:
    with tempfile.TemporaryDirectory(prefix="bench-local-") as folder:
        base = Settings(model="local", openai_api_key=None)
        await build_template(Path(folder), base)
        settings = workspace_settings(base, Path(folder))
        async with Runner.open(settings) as runner:
            started = time.perf_counter()
            runner.check_model("local")  # loads the model once, outside the timed turns
            result = LocalModelResult(load_s=time.perf_counter() - started, commit=_commit())
            for name in sets:
                asks = load(name)
                shown = name in ITEMIZED
                say(f"  {name}: {len(asks)} asks" + ("" if shown else " (totals only)"))
                turns = result.turns.setdefault(name, [])
                quiet: AbstractContextManager[None] = nullcontext() if shown else _no_logs()
                with quiet:  # a failing tool's logged traceback would show a held-out call
                    for number, ask in enumerate(asks):
                        turn = await _ask(runner, ask, f"bench-{name}-{number}")
                        turns.append(turn)
                        if shown:
                            _say_turn(say, turn)
                        elif (number + 1) % 20 == 0:
                            say(f"  {name}: {number + 1} of {len(asks)} asked")
            if busy and "tuning" in result.turns:
                sample = load("tuning")[:BUSY_SAMPLE]
                result.quiet_s = [
                    (await _ask(runner, a, f"quiet-{i}")).seconds for i, a in enumerate(sample)
                ]
                with _one_core_busy():
                    result.busy_s = [
                        (await _ask(runner, a, f"busy-{i}")).seconds for i, a in enumerate(sample)
                    ]
                say(f"  busy: median {statistics.median(result.busy_s):.1f} s")
    return result


def _commit() -> str:
    """The checkout's commit, short, with "+" when files differ from it."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=root).returncode != 0
    except OSError:
        return ""
    return f"{head}{'+' * dirty}" if head else ""


@contextmanager
def _no_logs() -> Iterator[None]:
    """Log nothing while the block runs."""
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


@contextmanager
def _one_core_busy() -> Iterator[None]:
    """Keep one core busy with another process while the block runs."""
    spinner = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    spinner.start()
    try:
        yield
    finally:
        spinner.terminate()
        spinner.join()


def _spin() -> None:
    while True:
        pass


async def _ask(runner: Runner, ask: Ask, thread_id: str) -> Turn:
    for earlier in ask.after:
        await runner.run_turn(_request(thread_id, earlier))
    started = time.perf_counter()
    result = await runner.run_turn(_request(thread_id, ask.text))
    seconds = time.perf_counter() - started
    tools = tuple(call.name for call in result.tool_calls)
    proposals = json.dumps(result.interrupts, default=str) if result.interrupts else ""
    return Turn(ask, seconds, Outcome(tools, result.text, result.status, proposals))


def _request(thread_id: str, message: str) -> TurnRequest:
    return TurnRequest(
        thread_id=thread_id, user_id=USER, user_role="admin", message=message, today=TODAY
    )


def _say_turn(say: Say, turn: Turn) -> None:
    called = list(turn.outcome.tools)
    say(
        f"  {turn.seconds:5.1f} s  {turn.verdict:<14} {turn.ask.text!r} → {called} "
        f"{turn.outcome.text[:80]!r}"
    )


def score(turns: list[Turn]) -> tuple[int, int]:
    """How many turns are right, of how many."""
    return sum(t.right for t in turns), len(turns)


def category(ask: Ask) -> str:
    """The category an ask is totalled in: an ask for a look-up or for a change, one that needs
    a question, small talk, a follow-up, an ask to know."""
    if ask.clarify:
        return "clarify"
    if ask.kind != "tool":
        return ask.kind
    return "change" if asks_for_change(ask) else "look_up"


def totals(turns: list[Turn]) -> str:
    """Right of total per category, in the order the categories first come."""
    order = dict.fromkeys(category(t.ask) for t in turns)
    return ", ".join(
        "{} {}/{}".format(name, *score([t for t in turns if category(t.ask) == name]))
        for name in order
    )


def render(result: LocalModelResult) -> list[str]:
    """The markdown section: the figures against the targets, then the tuning set's asks."""
    lines = [
        "## The local model on the tuning and held-out asks (SmolLM2-135M, llama.cpp)",
        "",
        f"Each ask is one turn through the runner in a thread of its own on the seeded demo "
        f"workspace (SQLite), as an admin, today = {TODAY}; a follow-up's earlier messages run "
        f"first. The model loads once ({result.load_s:.1f} s). *Right*, strictly "
        f"(bench/ask_scoring.py): the first tool called or proposed is one the ask lists and "
        f"the answer, or the waiting proposal, holds one of its facts; a change is right only "
        f"when it is proposed for approval with the fact; a question is right "
        f"only for an ask that lacks what its tool needs, and only when it names what is "
        f"missing; the abilities reply is never right for an ask for a tool. The held-out "
        f"sets are shown as totals per category only; the tuning set (with the retired "
        f"held-out v1 to v9) ask by ask.",
        "",
    ]
    targets: dict[str, float] = dict.fromkeys(HELD_OUT, TARGET_HELD_OUT)
    targets["tuning"] = TARGET_TUNING
    every = [t for turns in result.turns.values() for t in turns]
    for name, turns in result.turns.items():
        right, total = score(turns)
        seconds = sorted(t.seconds for t in turns)
        know = [t for t in turns if t.ask.kind == "ask_to_know"]
        changed = sum(t.proposed_change for t in know)
        lines.append(
            f"- **{name}**: right {right}/{total} ({right / total:.0%}; "
            f"{_verdict(right / total >= targets[name], f'target ≥ {targets[name]:.0%}')}); "
            f"{totals(turns)}; changes proposed for asks to know: {changed}/{len(know)} "
            f"({_verdict(changed == 0, 'target 0')}); median {statistics.median(seconds):.1f} s, "
            f"slowest {seconds[-1]:.1f} s."
        )
    if result.busy_s:
        quiet, busy = statistics.median(result.quiet_s), statistics.median(result.busy_s)
        ratio = busy / quiet
        lines.append(
            f"- **one core busy** (the first {len(result.busy_s)} tuning asks, another process "
            f"spinning): median {busy:.1f} s against {quiet:.1f} s quiet, {ratio:.2f}× "
            f"({_verdict(ratio <= TARGET_BUSY_RATIO, f'target ≤ {TARGET_BUSY_RATIO:g}×')})."
        )
    lines += [
        f"- capped turns: {sum(t.outcome.status == 'capped' for t in every)}; "
        f"run on commit {result.commit or 'unknown'}, llama-cpp-python {_llama_version()} "
        f"(the model's numbers move a little with its build).",
        "",
        "| set | ask | expected | called | verdict | s | answer |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in ITEMIZED:
        for t in result.turns.get(name, []):
            answer = " ".join(t.outcome.text.split())[:70].replace("|", "\\|")
            expected = ", ".join(t.ask.tools) or "(reply)"
            lines.append(
                f"| {name} | {t.ask.text.replace('|', '/')} | {expected} "
                f"| {', '.join(t.outcome.tools) or '-'} | {t.verdict} "
                f"| {t.seconds:.1f} | {answer} |"
            )
    return lines


def _llama_version() -> str:
    try:
        return metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        return "not installed"


def _verdict(met: bool, target: str) -> str:
    return f"{target}: {'met' if met else '**missed**'}"
