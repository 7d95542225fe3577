"""What one scenario step did: its tool calls (the planner's included), proposals and answer.

The runner's `TurnResult` lists the calls of the whole turn as the thread keeps them; a
step needs the calls made or finished *during* it, including those the planner made
(which the thread keeps only as the create_plan report). They are put together from the
thread's new messages and the step's `tool.call` / `tool.result` events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from app.eval.scenario import CallStatus
from core.messages import calls_of

_STATUS: dict[str, CallStatus] = {
    "ok": "ok",
    "refused": "refused",
    "rejected": "rejected",
    "not_confirmed": "not_confirmed",
    "error": "error",
    "timeout": "error",
    "capped": "error",
}


@dataclass(frozen=True)
class CallRecord:
    """One tool call as the step saw it."""

    id: str
    name: str
    status: CallStatus


@dataclass
class StepObservation:
    """Everything a step's expectations are checked against."""

    status: str
    text: str
    calls: list[CallRecord] = field(default_factory=list)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_estimated: bool = False

    @property
    def names(self) -> list[str]:
        """The step's tool names, in order."""
        return [call.name for call in self.calls]


def step_calls(
    history: Sequence[BaseMessage],
    seen_ids: set[str],
    events: Iterable[dict[str, Any]],
    proposals: Sequence[dict[str, Any]],
) -> list[CallRecord]:
    """Return the tool calls a step made or finished, in the order they happened.

    `history` is the thread after the step and `seen_ids` the ids of its messages before.
    Calls finished now but made in an earlier step (an approved change, a rejected or
    dismissed one) come first; then the calls the model made in this step, each followed,
    for create_plan, by the calls the planner made (and the change it proposed).
    """
    new_messages = [m for m in history if m.id not in seen_ids]
    names: dict[str, str] = {
        call.id: call.name
        for message in history
        if isinstance(message, AIMessage)
        for call in calls_of(message)
        if call.id
    }
    made = [
        call.id
        for message in new_messages
        if isinstance(message, AIMessage)
        for call in calls_of(message)
    ]
    answered = {
        m.tool_call_id: str(m.additional_kwargs.get("outcome", "error"))
        for m in new_messages
        if isinstance(m, ToolMessage)
    }
    ran: dict[str, str] = {}
    for event in events:
        if event.get("type") in ("tool.call", "tool.result"):
            names.setdefault(event["id"], event["name"])
            ran[event["id"]] = event.get("outcome", "")
    proposed_order = [p["tool_call_id"] for p in proposals]
    proposed = set(proposed_order)
    for proposal in proposals:
        names.setdefault(proposal["tool_call_id"], proposal["tool"])

    def record(call_id: str) -> CallRecord:
        name = names.get(call_id, "?")
        outcome = ran.get(call_id) or answered.get(call_id, "")
        if call_id in proposed or not outcome:
            return CallRecord(call_id, name, "pending_confirmation")
        return CallRecord(call_id, name, _STATUS.get(outcome, "error"))

    carried = [record(i) for i in answered if i not in made]
    # The planner's calls: those that ran, then the change it proposed (not run yet).
    inner_ids = [i for i in [*ran, *proposed_order] if i not in made and i not in answered]
    inner = [record(i) for i in dict.fromkeys(inner_ids)]
    records: list[CallRecord] = []
    for call_id in made:
        records.append(record(call_id))
        if names.get(call_id) == "create_plan":
            records += inner
            inner = []
    # A planner resumed by a decision has no new create_plan call: its calls come first.
    return inner + carried + records
