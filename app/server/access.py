"""Who may change what on the server: the rules behind the table in docs/studio.md.

Threads are the team's to read and to ask in. Changing a thread itself (its metadata, a
copy, deleting it or one of its runs) is for its asker, the person who started it (the
thread's `asker` metadata, written when it is created), and for admins; a viewer changes
nothing. Configuring the server (assistants, crons, the store) is for admins. The
unauthenticated development default of `langgraph dev` may do everything: nobody is
identified there.
"""

from __future__ import annotations

from typing import Any, NoReturn

from langgraph_sdk import Auth, get_client
from langgraph_sdk.errors import NotFoundError

from core.server_access import ADMIN, MEMBER, RELAY, UNAUTHENTICATED

ASKER = "asker"
"""The thread metadata key that names who started the thread."""


def granted(user: Any) -> set[str]:
    """The caller's permissions."""
    return set(getattr(user, "permissions", None) or ())


def identity(user: Any) -> str:
    """The caller's user id."""
    return str(getattr(user, "identity", ""))


def is_admin(user: Any) -> bool:
    """An admin of the workspace (or the unauthenticated development default)."""
    return bool(granted(user) & {ADMIN, UNAUTHENTICATED})


def may_stop_runs(user: Any) -> bool:
    """Whether the caller may cancel a thread's runs (members, admins, relays: not viewers)."""
    return is_admin(user) or bool(granted(user) & {MEMBER, RELAY})


def refuse(detail: str) -> NoReturn:
    """Answer the request 403 with this one line."""
    raise Auth.exceptions.HTTPException(status_code=403, detail=detail)


def require_admin(user: Any, what: str) -> None:
    """Refuse a non-admin: `what` is what they tried ("create assistants")."""
    if not is_admin(user):
        refuse(f"Only an admin may {what} on this server.")


async def require_asker(user: Any, thread_id: Any, what: str) -> None:
    """Refuse anyone but the thread's asker (a member or admin) and admins.

    A thread the server does not have is left to the server to answer (404).
    """
    if is_admin(user):
        return
    found, asker = await thread_asker(thread_id)
    if not found:
        return
    if MEMBER in granted(user) and asker is not None and asker == identity(user):
        return
    who = f"{asker} (who started it) or an admin" if asker else "an admin"
    refuse(f"Only {who} may {what} this thread.")


async def thread_asker(thread_id: Any) -> tuple[bool, str | None]:
    """Whether the server has the thread, and who started it (None: nobody recorded)."""
    try:
        # The server's own API, in process (no network, no second authentication).
        thread: Any = await get_client().threads.get(str(thread_id))
    except NotFoundError:
        return False, None
    asker = (thread.get("metadata") or {}).get(ASKER)
    return True, str(asker) if asker else None


def asker_for_new_thread(user: Any, person: str | None) -> str | None:
    """Who starts a thread created now: the calling person, or whom a relay's run names.

    A relay's (or the development default's) empty thread has no asker yet: None.
    """
    if granted(user) & {RELAY, UNAUTHENTICATED}:
        return person
    return identity(user)
