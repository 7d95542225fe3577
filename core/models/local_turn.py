"""What the local model reads of a conversation: the person's ask and this turn's tool results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

ASKED_DATES_OF = "local_asked_dates_of"
"""A reply's `response_metadata` key: the tool whose dates it asked for."""


@dataclass(frozen=True)
class ToolResult:
    """One tool result of the current turn."""

    name: str
    content: str
    failed: bool = False
    """The call did not go through: refused, rejected, invalid or failed."""

    def data(self) -> Any:
        """The result parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.content)
        except ValueError:
            return None

    def leaves(self) -> list[str | int | float]:
        """The scalar values of a JSON result, at any depth (nulls and flags left out)."""
        found: list[str | int | float] = []
        _collect_leaves(self.data(), found)
        return found


@dataclass(frozen=True)
class Turn:
    """The current turn: the person's last message and what the tools answered since."""

    system: str
    """The leading system message ("" when there is none)."""
    ask: str
    """The text of the last human message ("" when there is none)."""
    called: tuple[str, ...]
    """Tools called since the ask, in order, each once."""
    results: tuple[ToolResult, ...]
    """Tool results since the ask, in order."""
    start: int
    """Index of the ask in the conversation (0 when there is no human message)."""
    earlier: dict[str, tuple[str | int | float, ...]] = field(default_factory=dict)
    """The previous exchange's values by name: its calls' arguments, then its results'
    fields at any depth. A follow-up ("book it for Dana Levi") refers to them."""
    earlier_called: tuple[str, ...] = ()
    """Tools the previous exchange called, or asked the dates of, in order, each once:
    "next weekend" answers "Which dates do you mean?" about a room search."""

    @property
    def answered(self) -> bool:
        """Whether a tool result arrived after the ask (the model's second call or later)."""
        return bool(self.results)

    def result_values(self) -> dict[str, Any]:
        """The top-level fields of this turn's JSON object results (the latest wins).

        Nested fields are left out: a list of tasks holds a "client" in every item, but it
        does not name one client for a next call.
        """
        fields: dict[str, Any] = {}
        for result in self.results:
            data = result.data()
            if isinstance(data, dict):
                fields.update((str(key), value) for key, value in data.items())
        return fields

    def plain_values(self) -> dict[str, str | int | float]:
        """The top-level fields of `result_values` that hold one plain value.

        Only a plain value can fill an argument: a nested record ("client": {...}) names no
        one value a call could take.
        """
        return {key: value for key, value in self.result_values().items() if is_plain(value)}


def is_plain(value: Any) -> bool:
    """Whether `value` is a string or a number (a flag is neither)."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def read_turn(messages: Sequence[BaseMessage]) -> Turn:
    """Split a conversation into the parts the local model's stages use.

    Args:
        messages: The conversation the model is called with.

    Returns:
        The current turn.
    """
    system = next((message_text(m) for m in messages[:1] if isinstance(m, SystemMessage)), "")
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    ask = message_text(messages[start]) if start >= 0 else ""
    names: dict[str, str] = {}
    called: dict[str, None] = {}
    results = []
    for message in messages[start + 1 :]:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                called[call["name"]] = None
                names[str(call.get("id"))] = call["name"]
        elif isinstance(message, ToolMessage):
            name = message.name or names.get(message.tool_call_id, "tool")
            failed = message.status == "error"
            results.append(ToolResult(name, message_text(message), failed))
    before = max(
        (i for i, m in enumerate(messages[:start]) if isinstance(m, HumanMessage)), default=-1
    )
    exchange = messages[before + 1 : start] if start > 0 else []
    return Turn(
        system,
        ask,
        tuple(called),
        tuple(results),
        max(start, 0),
        _named_values(exchange),
        _exchange_tools(exchange),
    )


def _exchange_tools(exchange: Sequence[BaseMessage]) -> tuple[str, ...]:
    """The tools an exchange called or asked the dates of, in order, each once."""
    names: list[str] = []
    for message in exchange:
        if isinstance(message, AIMessage):
            names += [call["name"] for call in message.tool_calls]
            if asked := message.response_metadata.get(ASKED_DATES_OF):
                names.append(str(asked))
    return tuple(dict.fromkeys(names))


def _named_values(messages: Sequence[BaseMessage]) -> dict[str, tuple[str | int | float, ...]]:
    """Scalar values by argument or field name: calls' arguments first, then results'.

    A call that did not go through offers nothing: its arguments were what was wrong.
    """
    found: dict[str, list[str | int | float]] = {}
    failed = {
        m.tool_call_id for m in messages if isinstance(m, ToolMessage) and m.status == "error"
    }
    calls = [c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    for call in calls:
        if call.get("id") in failed:
            continue
        for key, value in (call.get("args") or {}).items():
            _add_named(found, str(key), value)
    for message in messages:
        if isinstance(message, ToolMessage) and message.status != "error":
            _collect_named(ToolResult("", message_text(message)).data(), found)
    return {key: tuple(dict.fromkeys(values)) for key, values in found.items()}


def _collect_named(node: Any, found: dict[str, list[str | int | float]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            _add_named(found, str(key), value)
            _collect_named(value, found)
    elif isinstance(node, list):
        for item in node:
            _collect_named(item, found)


def _add_named(found: dict[str, list[str | int | float]], key: str, value: Any) -> None:
    if is_plain(value) and value != "":
        found.setdefault(key, []).append(value)


def _collect_leaves(node: Any, found: list[str | int | float]) -> None:
    if isinstance(node, dict | list):
        for value in node.values() if isinstance(node, dict) else node:
            _collect_leaves(value, found)
    elif is_plain(node):
        found.append(node)


def message_text(message: BaseMessage) -> str:
    """The text of a message, whether its content is a string or content blocks."""
    if isinstance(message.content, str):
        return message.content
    parts = []
    for block in message.content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)
