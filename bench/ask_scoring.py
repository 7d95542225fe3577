"""Whether a turn answered its ask: the one definition of *right* for the local model's bench.

Strict, the way a person judges the reply:

- an ask for a tool is right when the first tool called (or proposed) is one of the ask's
  tools and the answer, or the waiting proposal, holds one of its facts; any other first
  call is wrong, even when the right tool is called after it;
- a first call of a tool that changes data is right only when the turn ends waiting for
  approval and the proposal itself holds the fact: a change answered with why it cannot
  be made, or with a listing that happens to hold the fact, is not the change;
- a question in place of a call is right only for an ask marked `clarify` (it lacks what
  its tool needs), and only when its last line names every one of the ask's `options`; a
  `clarify` ask answered with a call of its tool, or any proposal, is wrong (reading a date
  or a record first is not: a person sees only the question);
- the abilities reply ("Here is what I can help you with …", or the same list after how
  the assistant works in general) is never right for an ask for a tool, nor for small talk
  that is not asking what the assistant can do, nor for an ask to know that lists no fact;
- small talk is right when no tool is called, the reply is not a question of its own
  (a set small-talk answer may end in "?") and it holds the ask's fact, if it lists one.

The small-talk answers are read from the model's data (local_model/texts.toml), not its code.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.ask_sets import Ask
from prompts.replies import graceful_failure
from tools.registry import default_registry

TEXTS = Path(__file__).resolve().parents[1] / "local_model" / "texts.toml"
RIGHT = "ok"
WRONG_TOOL = "WRONG TOOL"
NO_FACT = "NO FACT"
NO_CALL = "NO CALL"
ABILITIES = "ABILITIES"
UNASKED_QUESTION = "QUESTION"
CALLED_NOT_ASKED = "CALLED"
NOT_A_QUESTION = "NO QUESTION"
MISSED_OPTIONS = "MISSED OPTIONS"
NOT_PROPOSED = "NOT PROPOSED"
_FAILURE_OPENING = graceful_failure(1, [])[:40]


@dataclass(frozen=True)
class Outcome:
    """What a turn did, as the scorer sees it."""

    tools: tuple[str, ...]
    """The tools called or proposed, in order."""
    text: str
    status: str
    proposals: str = ""
    """The waiting proposals as JSON ("" when none)."""


def verdict(ask: Ask, outcome: Outcome) -> str:
    """`RIGHT`, or why the turn is wrong."""
    if ask.tools:
        if is_abilities_reply(outcome.text):
            return ABILITIES
        if ask.clarify:
            if outcome.proposals or set(outcome.tools) & set(ask.tools):
                return CALLED_NOT_ASKED
            asked = question(outcome)
            if not asked:
                return NOT_A_QUESTION
            return RIGHT if names_all(asked, ask.options) else MISSED_OPTIONS
        if not outcome.tools:
            return UNASKED_QUESTION if question(outcome) else NO_CALL
        if outcome.tools[0] not in ask.tools:
            return WRONG_TOOL
        if changes_data(outcome.tools[0]):
            if outcome.status != "needs_confirmation":
                return NOT_PROPOSED
            outcome = Outcome(outcome.tools, "", outcome.status, outcome.proposals)
        return RIGHT if holds_fact(ask, outcome) else NO_FACT
    if outcome.tools:
        return WRONG_TOOL
    if question(outcome):
        return UNASKED_QUESTION
    if is_abilities_reply(outcome.text) and not ask.facts:
        return ABILITIES
    return RIGHT if holds_fact(ask, outcome) else NO_FACT


def is_right(ask: Ask, outcome: Outcome) -> bool:
    """The turn answered the ask (see the module's rules)."""
    return verdict(ask, outcome) == RIGHT


def asks_for_change(ask: Ask) -> bool:
    """The ask's first tool changes data: an ask for a change."""
    return bool(ask.tools) and changes_data(ask.tools[0])


def changes_data(tool: str) -> bool:
    """The tool changes data, so only its proposal, waiting for approval, answers an ask."""
    declared = default_registry().get(tool)
    return declared is not None and declared.mutating


def holds_fact(ask: Ask, outcome: Outcome) -> bool:
    """The answer or the waiting proposal holds one of the ask's facts; with none listed, the
    turn said something that is not the graceful failure."""
    shown = f"{outcome.text} {outcome.proposals}"
    if not ask.facts:
        return bool(outcome.text.strip() or outcome.proposals) and _FAILURE_OPENING not in shown
    return any(fact in shown for fact in ask.facts)


def question(outcome: Outcome) -> str:
    """The question the answer ends with (its last line), unless it is a set small-talk answer
    or the turn did not complete; "" when it asks nothing."""
    text = outcome.text.strip()
    if outcome.status != "completed" or not text.endswith("?") or is_set_answer(text):
        return ""
    return text.splitlines()[-1]


def names_all(text: str, options: tuple[str, ...]) -> bool:
    """Every option is named, in any of its spellings ("check in|check-in|date")."""
    said = text.casefold()
    return bool(options) and all(
        any(spelling.strip().casefold() in said for spelling in option.split("|"))
        for option in options
    )


def is_abilities_reply(text: str) -> bool:
    """A reply listing what the assistant can do (alone, or after how it works in general)."""
    return any(text.strip().startswith(opening) for opening in _abilities_openings())


def is_set_answer(text: str) -> bool:
    """One of the model's set small-talk answers (the abilities reply included)."""
    return text.strip() in _fixed_answers() or is_abilities_reply(text)


@cache
def _answers() -> tuple[str, ...]:
    data = tomllib.loads(TEXTS.read_text(encoding="utf-8"))
    # each kind's answer, and any other it has ("general": how the assistant works)
    kinds = data.get("small_talk", {}).values()
    return tuple(str(text) for kind in kinds for key, text in kind.items() if key != "examples")


@cache
def _fixed_answers() -> frozenset[str]:
    return frozenset(a.strip() for a in _answers() if "{" not in a)


@cache
def _abilities_openings() -> tuple[str, ...]:
    templated = [a for a in _answers() if "{abilities}" in a]
    return tuple(t.split("{abilities}", 1)[0].strip() for t in templated)
