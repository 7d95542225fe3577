"""Where a re-run of the planner picks up: its state when it proposed a change.

Re-run from a checkpoint taken before the planner started (the thread's waiting checkpoint,
when a change waits inside the planner), LangGraph runs the subgraph from its start: the
planner would draft again and ask the model for a new call, a new proposal. The planner's
state at its proposal is kept with the proposal's record, so `start` resumes from there and
the re-run shows the recorded proposal, as a re-run of the main graph's confirm does.
"""

from __future__ import annotations

import json
from typing import Any, cast

from langchain_core.messages import AnyMessage, messages_from_dict, messages_to_dict

from core.planner_state import PlannerState

_KEPT = (
    "plans",
    "run_id",
    "parent_run_id",
    "turn_start_id",
    "parent_calls",
    "request",
    "plan",
    "review",
    "step_index",
    "step_notes",
    "rounds",
    "tool_calls_used",
    "asker",
)


def snapshot(state: PlannerState) -> dict[str, Any]:
    """Return the planner's state as plain JSON: its conversation and its progress."""
    kept: dict[str, Any] = {key: state[key] for key in _KEPT if key in state}  # type: ignore[literal-required]
    kept["messages"] = messages_to_dict(state.get("messages", []))
    loaded: dict[str, Any] = json.loads(json.dumps(kept, default=str))
    return loaded


def restore(saved: dict[str, Any]) -> tuple[list[AnyMessage], dict[str, Any]]:
    """Return the kept conversation and the rest of the kept state."""
    progress = {key: value for key, value in saved.items() if key in _KEPT}
    messages = cast(list[AnyMessage], messages_from_dict(saved.get("messages", [])))
    return messages, progress
