"""A relay's runs: only for people the workspace lists, with the role it lists for them.

A relay (the Slack app, a CLI worker) identified the person itself and names them in each
run's context (`user_id`). The server takes that only for someone in `team_members`: a run
naming nobody, or someone the workspace does not list, is refused (403), and the role the
context claims is replaced by the listed one, so no stranger is ever recorded as asking for
or deciding on a change, and nobody acts with a role they were not given.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from app.server.access import granted, refuse
from app.server.members import member
from core.run_context import DEFAULT_USER
from core.server_access import RELAY
from graph.served import served_database


async def check_relayed(user: Any, run: MutableMapping[str, Any]) -> None:
    """Refuse a relay's run for an unlisted or missing person; give it their listed role."""
    if RELAY not in granted(user):
        return
    context = run.get("context")
    person = context.get("user_id") if isinstance(context, MutableMapping) else None
    if not isinstance(person, str) or not person.strip():
        refuse("A relay's run must name the person it acts for (the context's user_id).")
    listed = await member(served_database(), person)
    if listed is None:
        refuse(f"{person} is not a member of this workspace; a relay acts only for its members.")
    assert isinstance(context, MutableMapping)
    context["user_role"] = listed.role
    # The mirrored configurable says the same (the graph reads the context).
    configurable = (run.get("config") or {}).get("configurable")
    if isinstance(configurable, MutableMapping) and "user_role" in configurable:
        configurable["user_role"] = listed.role


def person_named(run: MutableMapping[str, Any]) -> str:
    """The person a relay's (or the development default's) run is for."""
    context = run.get("context")
    person = context.get("user_id") if isinstance(context, MutableMapping) else None
    return person if isinstance(person, str) and person else DEFAULT_USER
