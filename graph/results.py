"""What a turn is asked for and what it ends with, read from the thread's checkpoint.

`TurnRequest` is one message from one person; `TurnResult` is what every surface shows:
the status, the text, the turn's tool calls with their outcomes, and what waits for a
decision.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Interrupt, StateSnapshot

from core.messages import calls_of, result_data
from core.state import AgentState, ConfirmationRequest
from prompts import confirmation

RunStatus = Literal["completed", "needs_confirmation", "refused", "capped", "failed", "interrupted"]
"""`refused`: a decision that could not be applied (nothing pending, not allowed, expired);
`capped`: a limit (tool calls, rounds, time) ended the turn before its answer;
`interrupted`: the process stopped, or lost its database, mid-turn: the thread keeps its last
saved step, and a resume carries it on (`Runner.carry_on`)."""
CallStatus = Literal["ok", "error", "refused", "rejected", "not_confirmed", "pending_confirmation"]

MAX_THREAD_ID = 256
MAX_USER_ID = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
"""Control characters, and lone surrogates (invalid UTF-8 decoded): no store takes them."""
_OUTCOME_STATUS: dict[str, CallStatus] = {
    "ok": "ok",
    "refused": "refused",
    "rejected": "rejected",
    "not_confirmed": "not_confirmed",
    "capped": "error",
    "timeout": "error",
}


class InvalidRequest(ValueError):
    """A request no run can serve (an id too long, with control characters or invalid UTF-8)."""


@dataclass(frozen=True)
class TurnRequest:
    """One message from one person in one thread, with its per-run settings."""

    thread_id: str
    user_id: str
    message: str
    user_role: str = "member"
    channel: str = "cli"
    context_type: str = "general"
    model: str | None = None
    today: str | None = None

    def __post_init__(self) -> None:
        for name, value, limit in (
            ("thread id", self.thread_id, MAX_THREAD_ID),
            ("user id", self.user_id, MAX_USER_ID),
        ):
            if not value or len(value) > limit or _CONTROL.search(value):
                raise InvalidRequest(
                    f"a {name} must be 1 to {limit} characters of valid UTF-8 without control "
                    "characters "
                    f"(got {len(value)} characters)"
                )


@dataclass
class ToolCallRecord:
    """A tool call of the turn and what became of it."""

    name: str
    args: Any
    status: CallStatus
    result: Any


@dataclass
class TurnResult:
    """What a surface needs to answer the person."""

    thread_id: str
    run_id: str
    status: RunStatus
    text: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    interrupts: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape of `agentloop ask --json`."""
        return asdict(self)


def pending_in(snapshot: StateSnapshot) -> tuple[str, ConfirmationRequest] | None:
    """Return the (interrupt id, request) of the confirmation a thread waits on, if any."""
    for item in snapshot.interrupts:
        if isinstance(item.value, dict) and item.value.get("type") == "confirmation":
            return item.id, item.value  # type: ignore[return-value]
    return None


def result_of(
    values: Mapping[str, Any], pending: Sequence[Interrupt], thread_id: str, run_id: str
) -> TurnResult:
    """Return the outcome of a run that left the thread with `values` and `pending`."""
    state: AgentState = values  # type: ignore[assignment]
    interrupts = [
        {"id": item.id, **(item.value if isinstance(item.value, dict) else {"value": item.value})}
        for item in pending
    ]
    turn_run_id = state.get("run_id", run_id)
    records = turn_tool_calls(state)
    refusal = next((i["error"] for i in interrupts if i.get("error")), None)
    if refusal:
        return TurnResult(thread_id, turn_run_id, "refused", refusal, records, interrupts)
    if interrupts and state.get("final_text"):
        # A message answered beside a change that still waits for its own asker: this run
        # is the answer (its own run id), and the change waits as it did.
        return TurnResult(thread_id, run_id, "completed", state["final_text"], [], interrupts)
    if interrupts:
        proposed = [p for item in interrupts for p in item.get("proposals", [])]
        text = confirmation.ask(proposed)
        return TurnResult(thread_id, turn_run_id, "needs_confirmation", text, records, interrupts)
    status: RunStatus = "capped" if state.get("status") == "capped" else "completed"
    return TurnResult(thread_id, turn_run_id, status, state.get("final_text", ""), records)


def turn_tool_calls(state: AgentState) -> list[ToolCallRecord]:
    """Return the current turn's tool calls, each with what became of it."""
    messages = state.get("messages", [])
    start = next(
        (i for i, m in enumerate(messages) if m.id and m.id == state.get("turn_start_id")), 0
    )
    results = {m.tool_call_id: m for m in messages[start:] if isinstance(m, ToolMessage)}
    records: list[ToolCallRecord] = []
    for message in messages[start:]:
        if not isinstance(message, AIMessage):
            continue
        for call in calls_of(message):
            tool_message = results.get(call.id)
            if tool_message is None:
                records.append(ToolCallRecord(call.name, call.args, "pending_confirmation", None))
                continue
            outcome = str(tool_message.additional_kwargs.get("outcome", "error"))
            records.append(
                ToolCallRecord(
                    name=call.name,
                    args=call.args,
                    status=_OUTCOME_STATUS.get(outcome, "error"),
                    result=result_data(tool_message.text),
                )
            )
    return records
