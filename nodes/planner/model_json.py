"""Reading the JSON a planner model call was asked to reply with.

The planner runs on every provider, including the scripted and local models, which have no
structured output: the prompt asks for JSON only and this reads what comes back.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.utils.json import parse_json_markdown


def reply_json(text: str) -> dict[str, Any] | None:
    """Return the JSON object in a reply, or None.

    langchain-core's `parse_json_markdown` reads a bare or fenced object and closes one the
    model cut short; an object amid prose is read from its first brace to its last.
    """
    start, end = text.find("{"), text.rfind("}")
    embedded = text[start : end + 1] if 0 <= start < end else ""
    for candidate in (text, embedded):
        try:
            value = parse_json_markdown(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None
