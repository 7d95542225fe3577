"""Fills `{{tool.path}}` placeholders in scripted arguments from earlier tool results.

A scripted model cannot know values made up at run time (a plan's id, a new row's id),
which a real model would copy from a tool result. A string argument that is exactly
`{{create_plan.plan.plan_id}}` becomes that field of the latest create_plan result in the
thread, before the step runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from core.models.scripted import ScriptedTurn

_PLACEHOLDER = re.compile(r"^\{\{\s*(?P<tool>\w+)(?P<path>(?:\.\w+)+)\s*\}\}$")


class PlaceholderError(ValueError):
    """A placeholder names a result, or a field of it, that the thread does not have."""


def fill(turns: Sequence[ScriptedTurn], history: Sequence[BaseMessage]) -> list[ScriptedTurn]:
    """Return the turns with every placeholder in their tool-call arguments filled."""
    results = _latest_results(history)
    filled = []
    for turn in turns:
        calls = [
            call.model_copy(update={"args": _fill_value(call.args, results)})
            for call in turn.tool_calls
        ]
        filled.append(turn.model_copy(update={"tool_calls": calls}))
    return filled


def _fill_value(value: Any, results: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return {key: _fill_value(item, results) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill_value(item, results) for item in value]
    if not isinstance(value, str) or (match := _PLACEHOLDER.match(value)) is None:
        return value
    tool = match["tool"]
    if tool not in results:
        raise PlaceholderError(f"{value}: no earlier {tool} result in the thread")
    found = results[tool]
    for key in match["path"].lstrip(".").split("."):
        if not isinstance(found, dict) or key not in found:
            raise PlaceholderError(f"{value}: the latest {tool} result has no {key!r}")
        found = found[key]
    return found


def _latest_results(history: Sequence[BaseMessage]) -> dict[str, Any]:
    """Tool name → the parsed result of its latest call in the thread."""
    names = {
        call["id"]: call["name"]
        for message in history
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    }
    results: dict[str, Any] = {}
    for message in history:
        if isinstance(message, ToolMessage) and message.tool_call_id in names:
            try:
                results[names[message.tool_call_id]] = json.loads(message.text)
            except json.JSONDecodeError:
                continue  # a plain-text result (an error) has no fields to fill from
    return results
