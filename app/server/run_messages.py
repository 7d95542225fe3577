"""A person's messages on the server: none is lost when a run interrupts another.

Each message has an id from the moment its run is created, and a run that interrupts others
brings their messages along.
`multitask_strategy="interrupt"` cancels the thread's in-flight runs, and one still waiting
for a worker never applies its input: its message would vanish from the thread. The new run
carries those messages ahead of its own. The ids given at creation make a carried message
that did reach the thread the same message (`add_messages` replaces it in place), never a
second copy.
"""

from __future__ import annotations

import uuid
from collections.abc import MutableMapping
from typing import Any

from langgraph_sdk import get_client

IN_FLIGHT = ("pending", "running")


def give_ids(run_input: Any) -> None:
    """Give every message of a run's input that has none an id, in place."""
    for message in _messages(run_input):
        message.setdefault("id", str(uuid.uuid4()))


async def carry_superseded(thread_id: str, run_input: Any) -> None:
    """Put the messages of the thread's in-flight runs ahead of this run's own, in place."""
    if not isinstance(run_input, MutableMapping) or not _messages(run_input):
        return
    # The server's own API, in process (no network, no second authentication).
    runs: list[dict[str, Any]] = await get_client().runs.list(  # type: ignore[assignment]
        thread_id, limit=20, select=["run_id", "status", "kwargs", "created_at"]
    )
    superseded = sorted(
        (run for run in runs if run.get("status") in IN_FLIGHT),
        key=lambda run: str(run.get("created_at", "")),
    )
    carried = [m for run in superseded for m in _messages((run.get("kwargs") or {}).get("input"))]
    if carried:
        run_input["messages"] = [*carried, *_messages(run_input)]


def _messages(run_input: Any) -> list[MutableMapping[str, Any]]:
    """The messages of a run's input written as objects (the form Studio and the SDK send)."""
    if not isinstance(run_input, MutableMapping):
        return []
    messages = run_input.get("messages")
    if isinstance(messages, MutableMapping):
        messages = [messages]
        run_input["messages"] = messages
    if not isinstance(messages, list):
        return []
    return [m for m in messages if isinstance(m, MutableMapping)]
