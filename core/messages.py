"""The tool calls of an AI message, valid or not: each one gets exactly one ToolMessage.

LangChain keeps calls whose arguments did not parse apart (`invalid_tool_calls`); every
place that answers, proposes, audits or reports calls needs both kinds, in one order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call


@dataclass(frozen=True)
class Call:
    """One requested call: its id, tool name and arguments (raw text for a malformed one)."""

    id: str
    name: str
    args: Any
    error: str | None = None
    """Why the call is invalid (its arguments were not valid JSON, or were cut off)."""

    @property
    def invalid(self) -> bool:
        """Whether the model's arguments could not be read."""
        return self.error is not None


def calls_of(message: AIMessage) -> list[Call]:
    """Return every call of `message`: the valid ones, then the malformed ones."""
    calls = [Call(c["id"] or "", c["name"], c["args"]) for c in message.tool_calls]
    calls += [
        Call(
            c.get("id") or "",
            c.get("name") or "?",
            c.get("args"),
            c.get("error") or "malformed arguments",
        )
        for c in message.invalid_tool_calls
    ]
    return calls


def unanswered_calls(messages: Sequence[BaseMessage]) -> list[Call]:
    """Return the calls of the last AI message that have no ToolMessage yet."""
    last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last_ai is None:
        return []
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [call for call in calls_of(last_ai) if call.id not in answered]


def result_data(text: str) -> Any:
    """Return a tool result as data (its JSON), or as the text it is."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def distrust_cut_off_calls(message: AIMessage) -> AIMessage:
    """Turn tool calls of an answer cut off by the token limit into invalid calls.

    Streamed tool-call chunks are merged by completing partial JSON, so arguments cut off
    mid-string would otherwise look whole and run with truncated values.
    """
    if message.response_metadata.get("finish_reason") != "length" or not message.tool_calls:
        return message
    cut_off = [
        invalid_tool_call(
            name=call["name"],
            args=json.dumps(call["args"]),
            id=call["id"],
            error="the reply hit the token limit before these arguments were complete",
        )
        for call in message.tool_calls
    ]
    return message.model_copy(
        update={"tool_calls": [], "invalid_tool_calls": [*message.invalid_tool_calls, *cut_off]}
    )


def distrust_repaired_calls(message: AIMessage, sent: dict[str, str]) -> AIMessage:
    """Turn streamed tool calls whose arguments, as sent, are not valid JSON into invalid calls.

    A stream's arguments are merged by completing partial JSON: `{"title": "Delete every`
    would run as a whole call. Calls the stream did not carry (a model that does not
    stream) are parsed strictly by LangChain already.
    """
    kept, repaired = [], []
    for call in message.tool_calls:
        raw = sent.get(call["id"] or "")
        try:
            if raw is not None:
                json.loads(raw or "{}")
        except json.JSONDecodeError:
            repaired.append(
                invalid_tool_call(
                    name=call["name"], args=raw, id=call["id"], error="malformed arguments"
                )
            )
            continue
        kept.append(call)
    if not repaired:
        return message
    return message.model_copy(
        update={"tool_calls": kept, "invalid_tool_calls": [*message.invalid_tool_calls, *repaired]}
    )
