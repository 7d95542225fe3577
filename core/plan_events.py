"""Events the planner streams while it drafts, reviews and carries out a plan."""

from __future__ import annotations

from typing import Any


def plan_created(plan_id: str, steps: list[str], mode: str, version: int) -> dict[str, Any]:
    """A plan was drafted (or revised)."""
    return {
        "type": "plan_created",
        "plan_id": plan_id,
        "steps": steps,
        "execution_mode": mode,
        "version": version,
    }


def plan_ready_for_review(plan_id: str, steps: list[str]) -> dict[str, Any]:
    """A draft waits for the person (draft_only)."""
    return {"type": "plan_ready_for_review", "plan_id": plan_id, "steps": steps}


def plan_review(plan_id: str, verdict: str, notes: str) -> dict[str, Any]:
    """The reviewer's verdict on a plan (agent_review)."""
    return {"type": "plan_review", "plan_id": plan_id, "verdict": verdict, "notes": notes}


def step_start(plan_id: str, index: int, step: str) -> dict[str, Any]:
    """The planner began a step (1-based index)."""
    return {"type": "step_start", "plan_id": plan_id, "index": index, "step": step}


def step_complete(plan_id: str, index: int, note: str) -> dict[str, Any]:
    """The planner finished a step."""
    return {"type": "step_complete", "plan_id": plan_id, "index": index, "note": note}
