"""verify: checks the draft answer; a failed draft goes back to act with feedback, up to N tries.

Rules first (each with feedback the model can act on); then, behind a setting, the model as
a judge. A failed draft is removed from the history and its problems go into the next act.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime

from app.context.sanitizer import sanitize
from app.context.turn import turn_messages
from app.db.search import terms
from app.models import ModelResolver
from graph import events
from graph.context import Context
from graph.state import AgentState, Source, VerifyUpdate
from prompts import judge
from prompts.gathered import CITABLE_TYPES
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

NO_REPLY = "NO_REPLY"
JUDGE_TIMEOUT_S = 30.0
EVIDENCE_CHARS = 4_000
"""Tool results and sources shown to the judge are cut to this many characters."""
USED_SOURCE_WORDS = 3
"""An answer sharing this many distinctive words with a document's excerpt has used it."""

Rule = tuple[str, Callable[[str], bool]]

_TOOL_MARKUP = re.compile(r"</?(tool_call|function_call|tool_use|invoke)\b")

# Each rule: (feedback the model can act on, predicate that finds the problem).
RULES: list[Rule] = [
    (
        "The answer was empty: write a reply to the user's message.",
        # Only what would be posted counts; markup alone has its own, more precise rule.
        lambda text: not sanitize(text) and _TOOL_MARKUP.search(text) is None,
    ),
    (
        "It uses **double asterisks**; Slack bold is *single asterisks*.",
        lambda text: re.search(r"\*\*[^*\n]+\*\*", text) is not None,
    ),
    (
        "It uses # markdown headings, which Slack does not render; use a *bold* line instead.",
        lambda text: re.search(r"^\s{0,3}#{1,6}\s", text, re.MULTILINE) is not None,
    ),
    (
        "It uses > blockquotes; write the text as a plain line or a bullet instead.",
        lambda text: re.search(r"^\s{0,3}>", text, re.MULTILINE) is not None,
    ),
    (
        "It uses [text](url) links; Slack links are written <url|text>.",
        lambda text: re.search(r"\[[^\]\n]+\]\((https?|mailto):[^)\s]+\)", text) is not None,
    ),
    (
        "It contains tool-call markup; call tools through the tool interface and write the "
        "reply as plain text.",
        lambda text: _TOOL_MARKUP.search(text) is not None,
    ),
]

_CHANGE_VERBS = (
    r"(created|updated|booked|reserved|assigned|unassigned|removed|deleted|saved|stored|"
    r"added|archived|changed|scheduled|applied|renamed|mapped|remembered)"
)
_MUTATION_CLAIM = re.compile(
    rf"\b(?:I|we)(?:'ve| have)?\s+(?:just\s+|now\s+|already\s+|successfully\s+)?{_CHANGE_VERBS}\b"
    rf"|\b(?:has|have)\s+(?:now\s+)?been\s+(?:successfully\s+)?{_CHANGE_VERBS}\b"
    rf"|\b(?:is|are)\s+now\s+{_CHANGE_VERBS}\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Evidence:
    """What an answer may rest on: the question, the gathered sources, this turn's changes."""

    question: str = ""
    sources: Sequence[Source] = ()
    changes: Sequence[str] = field(default_factory=tuple)
    """Mutating tools that ran successfully in this turn."""
    tools_called: int = 0


def check(text: str, evidence: Evidence | None = None) -> list[str]:
    """Return the feedback of every rule the text breaks (empty when it passes)."""
    if text.strip() == NO_REPLY:
        return []
    issues = [feedback for feedback, broken in RULES if broken(text)]
    if evidence is None:
        return issues
    claim = _MUTATION_CLAIM.search(text)
    if claim and not evidence.changes:
        issues.append(
            f'It says a change was made ("{claim.group(0)}"), but no tool made a change in '
            "this turn. Do not claim it happened: say what you found, or what you can do once "
            "the person confirms."
        )
    issues += _uncited(text, evidence)
    if _misses_question(text, evidence):
        issues.append(
            "It does not seem to answer the message (it mentions none of: "
            f"{', '.join(_keywords(evidence.question)[:5])}). Answer what was asked, or ask "
            "a clarifying question."
        )
    return issues


def _uncited(text: str, evidence: Evidence) -> list[str]:
    lowered = text.casefold()
    answer_words = set(terms(text))
    asked = set(terms(evidence.question))
    issues = []
    for source in evidence.sources:
        if source["type"] not in CITABLE_TYPES:
            continue
        distinctive = {w for w in terms(source["excerpt"]) if len(w) >= 4 or w.isdigit()} - asked
        if len(distinctive & answer_words) < USED_SOURCE_WORDS:
            continue
        reference = source["reference"]
        stem = reference.rsplit("/", 1)[-1].removesuffix(".md")
        if reference.casefold() in lowered or stem.casefold() in lowered:
            continue
        issues.append(
            f"It uses {reference!r} without citing it; add (source: {reference}) where you use it."
        )
    return issues


def _keywords(text: str) -> list[str]:
    return [w for w in terms(text) if len(w) >= 4 and not w.isdigit()]


def _misses_question(text: str, evidence: Evidence) -> bool:
    """Whether the answer shares no word stem with a question (with a "?") of several words.

    Answers with something checkable (numbers, a question back, tool results) pass.
    """
    keywords = _keywords(evidence.question)
    if "?" not in evidence.question or len(keywords) < 2:
        return False  # a statement or a short question: nothing to hold the answer to
    if evidence.tools_called or "?" in text or re.search(r"\d", text):
        return False
    stems = {w[:5] for w in terms(text)}
    return not any(w[:5] in stems for w in keywords)


class Verify:
    """The verify node; the judge (behind a setting) uses the run's model."""

    def __init__(
        self, registry: ToolRegistry | None = None, models: ModelResolver | None = None
    ) -> None:
        self._registry = registry
        self._models = models

    async def __call__(self, state: AgentState, runtime: Runtime[Context]) -> VerifyUpdate:
        """Pass the draft, or drop it and record feedback (the last attempt ends the turn)."""
        runtime.stream_writer(events.agent_state("verifying"))
        draft = state["messages"][-1]
        assert isinstance(draft, AIMessage), "verify runs only after a final AI message"
        evidence = self._evidence(state)
        issues = check(draft.text, evidence)
        if not issues and runtime.context.verify_judge and draft.text.strip() != NO_REPLY:
            issues = await self._judge(state, draft.text, evidence, runtime.context)
        if not issues:
            return {"feedback": []}
        attempt = state.get("attempt", 0) + 1
        logger.info("verify: attempt %d failed: %s", attempt, "; ".join(issues))
        update: VerifyUpdate = {
            "messages": [RemoveMessage(id=draft.id or "")],
            "attempt": attempt,
            "feedback": issues,
            "issues": [*state.get("issues", []), *issues],
        }
        if attempt >= runtime.context.verify_max_attempts:
            update["status"] = "failed_verification"
        return update

    def _evidence(self, state: AgentState) -> Evidence:
        turn = turn_messages(state)
        question = turn[0].text if turn and isinstance(turn[0], HumanMessage) else ""
        changes = [
            m.name or ""
            for m in turn
            if isinstance(m, ToolMessage)
            and m.additional_kwargs.get("outcome") == "ok"
            and self._mutating(m.name or "")
        ]
        called = sum(1 for m in turn if isinstance(m, ToolMessage))
        return Evidence(question, state.get("sources", []), changes, called)

    def _mutating(self, name: str) -> bool:
        if self._registry is None:
            from tools.registry import default_registry

            self._registry = default_registry()
        tool = self._registry.get(name)
        # A tool without a declaration counts as one that changes things.
        return tool is None or not tool.read_only

    async def _judge(
        self, state: AgentState, draft: str, evidence: Evidence, ctx: Context
    ) -> list[str]:
        if self._models is None:
            from app.settings import get_settings

            self._models = ModelResolver(get_settings())
        model = self._models.resolve(ctx.model)
        results = [m.text for m in turn_messages(state) if isinstance(m, ToolMessage)]
        shown = "\n".join([*results, *(s["excerpt"] for s in evidence.sources)])
        request = [
            SystemMessage(judge.system()),
            HumanMessage(judge.request(evidence.question, shown[:EVIDENCE_CHARS], draft)),
        ]
        try:
            verdict = await asyncio.wait_for(model.ainvoke(request), timeout=JUDGE_TIMEOUT_S)
        except TimeoutError:
            # The judge is a second opinion after the rules passed; a slow one does not
            # hold the answer back.
            logger.warning("verify: the judge timed out; the answer stands on the rules")
            return []
        text = verdict.text.strip()
        if text.upper().startswith("PASS"):
            return []
        reason = text.split(":", 1)[1].strip() if ":" in text else text
        return [f"A reviewer found a problem: {reason or 'the answer is not supported'}"]


verify = Verify()
"""The node as the graph builder adds it when no registry or models are wired in."""
