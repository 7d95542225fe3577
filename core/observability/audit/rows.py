"""The audit rows of a run: its `agent_runs` row, its messages, its tool calls and results."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from core.messages import calls_of, result_data
from core.observability.audit.run import RunAudit, ToolTiming

SUMMARY_CHARS = 300


def run_row(audit: RunAudit, status: str) -> dict[str, Any]:
    """Return the run's `agent_runs` row as it starts (or as it ends, with the outcome)."""
    info = audit.info
    return {
        "id": info.run_id,
        "kind": info.kind,
        "parent_run_id": info.parent_run_id,
        "thread_id": info.thread_id,
        "user_id": info.user_id,
        "decided_by": info.decided_by,
        "channel": info.channel,
        "trace_id": info.trace_id,
        "status": status,
        "input_text": info.input_text,
        "output_text": "",
        "model": info.model,
        "input_tokens": 0,
        "output_tokens": 0,
        "usage": [],
        "started_at": datetime.fromtimestamp(audit.started, UTC),
    }


def message_rows(audit: RunAudit, usage: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return an `agent_messages` row per message the run added, with AI messages' tokens."""
    # Model calls and AI messages line up in order for the act node's calls.
    act_calls = iter([c for c in usage if c.get("node") == "act"])
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    for seq, message in enumerate(audit.messages.values()):
        row: dict[str, Any] = {
            "run_id": audit.info.run_id,
            "thread_id": audit.info.thread_id,
            "seq": seq,
            "role": message.type,
            "content": message.text,
            "tool_calls": [],
            "tool_call_id": None,
            "name": None,
            "model": None,
            "input_tokens": None,
            "output_tokens": None,
            "created_at": now,
        }
        if isinstance(message, AIMessage):
            row["tool_calls"] = _jsonable(
                [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in message.tool_calls]
            )
            call = next(act_calls, None) or {}
            tokens: dict[str, Any] = dict(message.usage_metadata or {})
            row["model"] = message.response_metadata.get("model_name") or call.get("model")
            row["input_tokens"] = tokens.get("input_tokens", call.get("input_tokens"))
            row["output_tokens"] = tokens.get("output_tokens", call.get("output_tokens"))
        if isinstance(message, ToolMessage):
            row["tool_call_id"] = message.tool_call_id
            row["name"] = message.name
        rows.append(row)
    return rows


def skill_rows(audit: RunAudit) -> list[dict[str, Any]]:
    """Return a `skill_call` event per tool call and a `skill_result` event per result."""
    info = audit.info
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []

    def event(
        call_id: str,
        kind: str,
        name: str,
        payload: dict[str, Any],
        summary: str,
        status: str = "",
        duration_ms: float | None = None,
    ) -> dict[str, Any]:
        return {
            "run_id": info.run_id,
            "thread_id": info.thread_id,
            "tool_call_id": call_id,
            "event_type": kind,
            "skill_id": name,
            "payload": payload,
            "payload_summary": summary,
            "status": status,
            "duration_ms": duration_ms,
            "created_at": now,
        }

    for message in audit.messages.values():
        if isinstance(message, AIMessage):
            for call in calls_of(message):
                payload = {"args": _jsonable(call.args)}
                rows.append(
                    event(call.id, "skill_call", call.name, payload, summary(payload["args"]))
                )
        elif isinstance(message, ToolMessage):
            timing = audit.timings.get(message.tool_call_id, ToolTiming())
            result = result_data(message.text)
            rows.append(
                event(
                    message.tool_call_id,
                    "skill_result",
                    message.name or "?",
                    {"result": result},
                    summary(result),
                    str(message.additional_kwargs.get("outcome") or timing.outcome),
                    timing.duration_ms,
                )
            )
    return rows


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def summary(value: Any) -> str:
    """Return a short text of a payload for listings."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS] + "…"
