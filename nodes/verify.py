"""verify: checks the draft answer; a failed draft goes back to act with feedback, up to N tries.

Rules first (each with feedback the model can act on); then, behind a setting, the model as
a judge. A failed draft is removed from the history and its problems go into the next act.
"""

from __future__ import annotations

import asyncio
import logging
import time

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime

from core import events
from core.models import ModelResolver
from core.run_context import RunContext
from core.state import AgentState, VerifyUpdate, changes
from history.turn import turn_messages
from prompts import judge
from prompts.replies import NO_REPLY
from screening.answer_checks import Evidence, check
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

JUDGE_TIMEOUT_S = 30.0
EVIDENCE_CHARS = 4_000
"""Tool results and sources shown to the judge are cut to this many characters."""
NOT_DONE = frozenset({"rejected", "refused", "error", "timeout", "not_confirmed", "capped"})


class Verify:
    """The verify node; the judge (behind a setting) uses the run's model."""

    def __init__(self, registry: ToolRegistry, models: ModelResolver | None = None) -> None:
        self._registry = registry
        self._models = models

    async def __call__(self, state: AgentState, runtime: Runtime[RunContext]) -> VerifyUpdate:
        """Pass the draft, or drop it and record feedback (the last attempt ends the turn)."""
        runtime.stream_writer(events.agent_state("verifying"))
        draft = state["messages"][-1]
        assert isinstance(draft, AIMessage), "verify runs only after a final AI message"
        evidence = self._evidence(state)
        issues = check(draft.text, evidence)
        if not issues and runtime.context.verify_judge and draft.text.strip() != NO_REPLY:
            issues = await self._judge(state, draft.text, evidence, runtime.context)
        if not issues:
            # A passed draft clears the feedback of a failed one (a first pass has none).
            passed: VerifyUpdate = {"feedback": []}
            return changes(passed, state)
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
        # The draft streamed to the surfaces is withdrawn; the turn's final text replaces it.
        runtime.stream_writer(events.draft_reset("rejected", attempt))
        return update

    def _evidence(self, state: AgentState) -> Evidence:
        turn = turn_messages(state)
        question = turn[0].text if turn and isinstance(turn[0], HumanMessage) else ""
        results = [m for m in turn if isinstance(m, ToolMessage) and self._mutating(m.name or "")]
        changes = [m.name or "" for m in results if m.additional_kwargs.get("outcome") == "ok"]
        failed = [m.name or "" for m in results if m.additional_kwargs.get("outcome") in NOT_DONE]
        answered = [m for m in turn if isinstance(m, ToolMessage)]
        # What the tools returned, and what they are for: saying what it can do uses no source.
        said = [m.text for m in answered] + [tool.summary for tool in self._registry.tools()]
        return Evidence(
            question, state.get("sources", []), changes, len(answered), failed, " ".join(said)
        )

    def _mutating(self, name: str) -> bool:
        tool = self._registry.get(name)
        # A tool without a declaration counts as one that changes things.
        return tool is None or not tool.read_only

    async def _judge(
        self, state: AgentState, draft: str, evidence: Evidence, ctx: RunContext
    ) -> list[str]:
        if self._models is None:
            from core.settings import get_settings

            self._models = ModelResolver(get_settings())
        model = self._models.resolve(ctx.model)
        results = [m.text for m in turn_messages(state) if isinstance(m, ToolMessage)]
        shown = "\n".join([*results, *(s["excerpt"] for s in evidence.sources)])
        request = [
            SystemMessage(judge.system()),
            HumanMessage(judge.request(evidence.question, shown[:EVIDENCE_CHARS], draft)),
        ]
        deadline = ctx.deadline_for(state.get("deadline"))
        timeout = max(min(JUDGE_TIMEOUT_S, deadline - time.time()), 0.001)
        try:
            verdict = await asyncio.wait_for(model.ainvoke(request), timeout=timeout)
        except TimeoutError:
            # The judge is a second opinion after the rules passed; a slow one (or one past
            # the turn's deadline) does not hold the answer back.
            logger.warning("verify: the judge timed out; the answer stands on the rules")
            return []
        text = verdict.text.strip()
        if text.upper().startswith("PASS"):
            return []
        reason = text.split(":", 1)[1].strip() if ":" in text else text
        return [f"A reviewer found a problem: {reason or 'the answer is not supported'}"]
