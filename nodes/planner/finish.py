"""finish: the planner's report, built from what actually ran, handed back as tool results.

The report's actions and evidence come from the planner's own tool calls and results (not
from the model's account of them), so the main agent cannot be told of a change that did
not happen.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, RemoveMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from core.planner_state import PlannerReport, PlannerResult, PlannerState
from core.run_context import RunContext
from prompts import replies
from tools.registry import ToolRegistry

EVIDENCE_CHARS = 300


class Finish:
    """The finish node."""

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry

    async def __call__(self, state: PlannerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Write the report as the create_plan result; answer any other call of the wave."""
        status = state.get("status", "completed")
        if state.get("cap"):
            status = "blocked"
        actions, evidence, problems = self._outcomes(state.get("messages", []))
        plan = state.get("plan")
        report = PlannerReport(
            summary=self._summary(state, status),
            actions_taken=actions,
            evidence=evidence,
            open_questions=self._questions(state, status, problems),
            confidence=_confidence(state, status, problems),
        )
        update: dict[str, Any] = {}
        if plan is not None and status == "completed" and plan["status"] != "executed":
            plan = {**plan, "status": "executed"}
            update["plans"] = {plan["plan_id"]: plan}
        result = PlannerResult(
            report=report,
            planner_run_id=state.get("run_id", ""),
            parent_run_id=state.get("parent_run_id", ""),
            status=status,
            plan=dict(plan) if plan is not None else None,
            review=state.get("review"),
        )
        calls = state.get("parent_calls", [])
        out: list[AnyMessage | RemoveMessage] = [RemoveMessage(id=REMOVE_ALL_MESSAGES)]
        if calls:
            out.append(
                ToolMessage(
                    content=result.model_dump_json(),
                    tool_call_id=calls[0]["id"],
                    name=calls[0]["name"],
                    status="error" if status == "failed" else "success",
                    additional_kwargs={"outcome": "error" if status == "failed" else "ok"},
                )
            )
        for call in calls[1:]:
            out.append(
                ToolMessage(
                    content=replies.tool_not_run(
                        "create_plan must be the only call of its step; call this again"
                    ),
                    tool_call_id=call["id"],
                    name=call["name"],
                    status="error",
                    additional_kwargs={"outcome": "error"},
                )
            )
        update["messages"] = out
        return update

    def _outcomes(self, messages: list[AnyMessage]) -> tuple[list[str], list[str], list[str]]:
        results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
        actions: list[str] = []
        evidence: list[str] = []
        problems: list[str] = []
        for message in messages:
            if not isinstance(message, AIMessage):
                continue
            for call in message.tool_calls:
                result = results.get(call["id"] or "")
                if result is None:
                    continue
                outcome = result.additional_kwargs.get("outcome", "error")
                tool = self._registry.get(call["name"])
                label = f"{call['name']}({_args(call['args'])})"
                if outcome != "ok":
                    problems.append(f"{label}: {outcome}: {result.text[:EVIDENCE_CHARS]}")
                elif tool is not None and tool.mutating:
                    actions.append(f"{label} → {result.text[:EVIDENCE_CHARS]}")
                else:
                    evidence.append(f"{label} → {result.text[:EVIDENCE_CHARS]}")
        return actions, evidence, problems

    @staticmethod
    def _summary(state: PlannerState, status: str) -> str:
        if state.get("error"):
            return f"The planner could not run: {state['error']}"
        plan = state.get("plan")
        if plan is not None and plan["status"] == "pending_review":
            return (
                f"Drafted plan {plan['plan_id']} (version {plan['version']}) for the person "
                "to review; nothing was run."
            )
        review = state.get("review")
        if review is not None and review["verdict"] != "approved":
            return f"The reviewer did not approve the plan ({review['verdict']}); nothing was run."
        notes = state.get("step_notes", [])
        done = " ".join(notes) if notes else "No step was completed."
        if state.get("cap"):
            return f"{done} Stopped early: {state['cap']}"
        return done

    @staticmethod
    def _questions(state: PlannerState, status: str, problems: list[str]) -> list[str]:
        questions: list[str] = []
        plan = state.get("plan")
        if plan is not None and plan["status"] == "pending_review":
            questions.append(f"Run plan {plan['plan_id']} as drafted, or change it?")
        review = state.get("review")
        if review is not None and review["verdict"] != "approved" and review["notes"]:
            questions.append(f"Reviewer: {review['notes']}")
        if plan is not None and status != "completed":
            remaining = plan["steps"][state.get("step_index", 0) :]
            if remaining and plan["status"] not in ("pending_review", "rejected", "needs_changes"):
                questions.append("Not done yet: " + "; ".join(remaining))
        questions.extend(f"Did not succeed: {problem}" for problem in problems)
        return questions


def _confidence(state: PlannerState, status: str, problems: list[str]) -> float:
    if status == "failed":
        return 0.1
    if status == "blocked":
        return 0.4
    return 0.9 if not problems else 0.6


def _args(args: Any, limit: int = 120) -> str:
    text = json.dumps(args, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
