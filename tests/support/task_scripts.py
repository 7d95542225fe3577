"""The scripted turns the confirmation tests share: a create_task proposal, a closing answer."""

from __future__ import annotations

from typing import Any

from graph.runner import TurnRequest

TITLE = "Refresh the Garlic Press listing images"
CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "id": "call_create",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        }
    ]
}
"""One model turn proposing a Thorinox task titled TITLE."""


def ask(text: str = "create a task to refresh the images", user: str = "U0GRACE", **kw: Any):
    """A request in thread t1 on 2026-11-22 (by U0GRACE unless told)."""
    return TurnRequest(thread_id="t1", user_id=user, message=text, today="2026-11-22", **kw)
