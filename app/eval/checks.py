"""Checks a step's observation against its expectations, and every mutation against its proposal.

Each check returns sentences saying what differed (empty when everything held), so a
failing scenario reads as a list of reasons, not a stack trace.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection

from app.eval.observe import StepObservation
from app.eval.scenario import Expect
from tools.registry import ToolRegistry


def check_step(expect: Expect, seen: StepObservation) -> list[str]:
    """Return how the step differs from what it must show."""
    problems: list[str] = []
    if expect.status is not None and seen.status != expect.status:
        problems.append(f"status is {seen.status!r}, expected {expect.status!r}")
    problems += _tools(expect, seen.names)
    for name, status in expect.outcomes.items():
        got = [call.status for call in seen.calls if call.name == name]
        if not got:
            problems.append(f"expected {name} to end {status}, but it was not called")
        elif any(s != status for s in got):
            problems.append(f"{name} ended {', '.join(got)}, expected {status}")
    if expect.proposals is not None:
        proposed = [p["tool"] for p in seen.proposals]
        if proposed != expect.proposals:
            problems.append(f"proposed {proposed}, expected {expect.proposals}")
    problems += _text(expect, seen.text)
    if expect.llm_calls is not None and seen.llm_calls != expect.llm_calls:
        problems.append(f"{seen.llm_calls} model call(s), expected {expect.llm_calls}")
    return problems


def _tools(expect: Expect, names: list[str]) -> list[str]:
    problems = []
    if expect.tools is not None and names != expect.tools:
        problems.append(f"tools called {names}, expected {expect.tools}")
    if expect.tools_unordered is not None and Counter(names) != Counter(expect.tools_unordered):
        problems.append(
            f"tools called {sorted(names)}, expected (any order) {sorted(expect.tools_unordered)}"
        )
    missing = [name for name in expect.tools_include if name not in names]
    if missing:
        problems.append(f"{', '.join(missing)} not called (called: {names})")
    unwanted = [name for name in expect.tools_exclude if name in names]
    if unwanted:
        problems.append(f"{', '.join(unwanted)} called, expected not")
    return problems


def _text(expect: Expect, text: str) -> list[str]:
    shown = _short(text)
    problems = []
    if expect.text_equals is not None and text != expect.text_equals:
        problems.append(f"answer is {shown}, expected {_short(expect.text_equals)}")
    for part in expect.text_contains:
        if part.casefold() not in text.casefold():
            problems.append(f"answer lacks {part!r}: {shown}")
    for part in expect.text_not_contains:
        if part.casefold() in text.casefold():
            problems.append(f"answer contains {part!r}: {shown}")
    for pattern in expect.text_matches:
        if re.search(pattern, text) is None:
            problems.append(f"answer does not match /{pattern}/: {shown}")
    return problems


def check_confirmed(
    seen: StepObservation, proposed_before: Collection[str], registry: ToolRegistry
) -> list[str]:
    """Every mutation that ran in the step must have been proposed in an earlier step.

    A change runs only after the person saw its proposal (same tool call) and decided.
    """
    problems = []
    for call in seen.calls:
        tool = registry.get(call.name)
        if tool is None or not tool.mutating or call.status != "ok":
            continue
        if call.id not in proposed_before:
            problems.append(
                f"{call.name} ran (call {call.id}) without a confirmation: it was never proposed"
            )
    return problems


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")
