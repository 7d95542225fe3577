"""What the turn's tools found, as a short answer, for a turn that ends without a good draft.

When a turn runs out of time or its drafts fail verification, the tools' results are still
facts: a person asking for a holiday's dates is better served by the dates the tool returned
than by a timeout notice. Only successful read results are shown, as the tools returned them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from core.messages import result_data

MAX_RESULTS = 3
MAX_FIELDS = 8
MAX_ITEMS = 5
_NAMING_KEYS = ("title", "name")
"""An item is named by these fields first, else by its first text field."""


def tool_findings(turn: Sequence[BaseMessage]) -> list[str]:
    """Return one line per successful tool result of the turn (the last few), oldest first.

    Args:
        turn: The turn's messages, from its opening message on.

    Returns:
        Lines such as `resolve_holiday: holiday Hanukkah, start 2026-12-04, end 2026-12-12`;
        empty when no tool returned data.
    """
    names = {
        call["id"]: call["name"]
        for message in turn
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    }
    lines = []
    for message in turn:
        if not isinstance(message, ToolMessage) or message.status == "error":
            continue
        data = result_data(message.text)
        if not isinstance(data, dict | list) or _failed(data):
            continue
        name = message.name or names.get(message.tool_call_id, "tool")
        rendered = _render(data)
        if rendered:
            lines.append(f"{name}: {rendered}")
    return lines[-MAX_RESULTS:]


def with_findings(why: str, lines: list[str]) -> str:
    """Why the turn ended early, then what its tools found (just `why` when they found none)."""
    if not lines:
        return why
    shown = "\n".join(f"• {line}" for line in lines)
    return f"{why}\nHere is what my lookups returned:\n{shown}"


def _failed(data: dict[str, Any] | list[Any]) -> bool:
    return isinstance(data, dict) and ("error" in data or data.get("status") == "not_confirmed")


def _render(data: dict[str, Any] | list[Any]) -> str:
    if isinstance(data, list):
        return _items(data)
    parts = []
    for key, value in list(data.items())[:MAX_FIELDS]:
        if isinstance(value, list):
            shown = _items(value)
            if shown:
                parts.append(f"{key}: {shown}")
        elif isinstance(value, dict):
            label = _label(value)
            if label:
                parts.append(f"{key} {label}")
        elif value not in (None, ""):
            parts.append(f"{key} {value}")
    return ", ".join(parts)


def _items(values: list[Any]) -> str:
    labels = [label for label in (_label(v) for v in values[:MAX_ITEMS]) if label]
    more = len(values) - MAX_ITEMS
    return "; ".join(labels) + (f" (+{more} more)" if more > 0 else "") if labels else ""


def _label(value: Any) -> str:
    if isinstance(value, dict):
        named = [value.get(k) for k in _NAMING_KEYS]
        texts = [v for v in value.values() if isinstance(v, str)]
        return str(next((v for v in [*named, *texts] if v), ""))
    return "" if isinstance(value, list) else str(value)
