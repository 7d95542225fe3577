"""Run events streamed to every surface (LangGraph `custom` stream mode) and their shapes."""

from __future__ import annotations

from typing import Any, Literal

AgentStateName = Literal[
    "thinking", "executing_tools", "executing_plan", "waiting_on_user", "verifying"
]


def run_started(
    run_id: str, thread_id: str, trace_id: str = "", parent_run_id: str | None = None
) -> dict[str, Any]:
    """A run began; a resume names the run it carries on (`parent_run_id`), in its trace."""
    return {
        "type": "run.started",
        "run_id": run_id,
        "thread_id": thread_id,
        "trace_id": trace_id,
        "parent_run_id": parent_run_id,
    }


def agent_state(state: AgentStateName, detail: str = "") -> dict[str, Any]:
    """What the agent is doing now (drives the live status on every surface)."""
    return {"type": "agent_state", "state": state, "detail": detail}


def chunk(text: str) -> dict[str, Any]:
    """A fragment of the answer the model is writing, as it arrives (a draft until verified)."""
    return {"type": "chunk", "text": text}


DraftReason = Literal["tool_calls", "rejected"]


def draft_reset(reason: DraftReason, attempt: int = 0) -> dict[str, Any]:
    """The text streamed since the last reset is not the answer: forget it.

    `tool_calls`: the model wrote it before calling tools (a preamble, not the reply);
    `rejected`: the checks sent the draft back, and the model writes it again (`attempt`
    is the number of drafts sent back so far). The answer is always the turn's final text.
    """
    return {"type": "draft.reset", "reason": reason, "attempt": attempt}


def tool_call(name: str, call_id: str, args: Any) -> dict[str, Any]:
    """A tool call is about to run."""
    return {"type": "tool.call", "name": name, "id": call_id, "args": args}


def tool_result(
    name: str, call_id: str, outcome: str, duration_ms: float, started: float, finished: float
) -> dict[str, Any]:
    """A tool call finished (or was refused); `started`/`finished` are monotonic seconds."""
    return {
        "type": "tool.result",
        "name": name,
        "id": call_id,
        "outcome": outcome,
        "is_error": outcome != "ok",
        "duration_ms": round(duration_ms, 2),
        "started": started,
        "finished": finished,
    }


def run_completed(run_id: str, status: str) -> dict[str, Any]:
    """A run ended with an answer or a pending confirmation."""
    return {"type": "run.completed", "run_id": run_id, "status": status}


def run_failed(run_id: str, error: str) -> dict[str, Any]:
    """A run ended with an error."""
    return {"type": "run.failed", "run_id": run_id, "error": error}
