"""Who may edit a thread's state on the server: who asked and who may decide are the admins'.

The thread's state holds the turn's asker, the proposal waiting for a decision (with who may
decide on it) and the decisions taken; an edit of any of them is refused to every caller but
an admin. A state update (`threads.update_state`, Studio's state editor) does not show the
server's authorization what it writes, so it is refused as a whole to everyone but admins
and relays (the trusted service that writes the Slack app's closing messages); a run's
`input` and `Command(update=...)` do show it, and are refused when they name those keys,
a relay's included (its runs carry messages and decisions, never who asked).
Under the unauthenticated development default nobody is identified, so nothing is refused
here; the workspace's records still decide what a decision may do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph_sdk import Auth

from core.server_access import ADMIN, RELAY, UNAUTHENTICATED

PROTECTED = frozenset({"asker", "pending", "decisions"})
"""State keys that say who asked, what waits for a decision and who may decide it."""


def may_edit(user: Any) -> bool:
    """Whether the caller may edit any part of a thread's state."""
    granted = set(getattr(user, "permissions", None) or ())
    return bool(granted & {ADMIN, RELAY, UNAUTHENTICATED})


def check_state_update(user: Any) -> None:
    """Refuse a state update by anyone but an admin (or a relay)."""
    if may_edit(user):
        return
    raise Auth.exceptions.HTTPException(
        status_code=403,
        detail="Only an admin may edit a thread's state: it holds who asked for a change "
        "and who may decide on it.",
    )


def check_run(user: Any, run: Mapping[str, Any]) -> None:
    """Refuse a run whose input or Command writes who asked or who may decide."""
    granted = set(getattr(user, "permissions", None) or ())
    if granted & {ADMIN, UNAUTHENTICATED}:
        return
    command = run.get("command") or {}
    written = _keys(run.get("input")) | _keys(command.get("update"))
    named = sorted(written & PROTECTED)
    if named:
        raise Auth.exceptions.HTTPException(
            status_code=403,
            detail=f"Only an admin may write {', '.join(named)} into a thread's state.",
        )


def _keys(update: Any) -> set[str]:
    """The state keys an input or a Command's update writes (a mapping or (key, value) pairs)."""
    if isinstance(update, Mapping):
        return {str(key) for key in update}
    if isinstance(update, Sequence) and not isinstance(update, str):
        return {str(pair[0]) for pair in update if isinstance(pair, Sequence) and len(pair) == 2}
    return set()
