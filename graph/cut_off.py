"""Decisions on a thread whose last turn was cut off mid-way, with nothing waiting on a person.

A turn is cut off when its process stops or loses its database before the turn ends. If it
had an approved change under way, an approval finishes it (its key keeps it to one); any
other decision has nothing to apply to. Carrying the turn on, from its last saved step,
is for whoever may decide on the turn's changes.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import StateSnapshot

from core.asker import Asker
from core.db.engine import Database
from core.db.people import role_of
from core.settings import Settings
from graph.results import TurnRequest, pending_in
from prompts import confirmation, replies
from tools import proposals


async def not_theirs(
    db: Database | None, settings: Settings, snapshot: StateSnapshot, request: TurnRequest
) -> str | None:
    """Why the sender may not decide on the turn's changes (None: they may)."""
    asker = snapshot.values.get("asker") or {}
    actor = str(asker.get("user_id") or request.user_id)
    role = await role_of(db, request.user_id, request.user_role)
    if proposals.may_decide(Asker(request.user_id, role), actor, settings.approver_roles):
        return None
    who = proposals.who_may_decide(actor, settings.approver_roles)
    return f"Only {who} can decide on this turn's changes; nothing was changed."


async def decision_refusal(
    db: Database | None,
    settings: Settings,
    snapshot: StateSnapshot,
    request: TurnRequest,
    decision: dict[str, Any],
) -> str | None:
    """Why a decision may not finish the cut-off turn (None: it finishes its approved change)."""
    if not snapshot.next:
        return confirmation.nothing_pending()
    refusal = await not_theirs(db, settings, snapshot, request)
    if refusal is not None:
        return refusal
    approved = [
        d
        for d in (snapshot.values.get("decisions") or {}).values()
        if d.get("decision") in ("approve", "edit")
    ]
    if not approved:
        # Cut off with no change approved (a failed lookup, a stopped process): a decision
        # has nothing to apply to, whoever sends it.
        return confirmation.nothing_pending_cut_off(replies.carry_on_command(request.thread_id))
    if decision.get("decision") in ("approve", None):
        return None
    return confirmation.already_approved()


async def carry_on_refusal(
    db: Database | None, settings: Settings, snapshot: StateSnapshot, request: TurnRequest
) -> str | None:
    """Why the thread's turn may not be carried on by the sender (None: it may)."""
    if pending_in(snapshot) is not None:
        return confirmation.waiting_not_interrupted()
    if not snapshot.next:
        return confirmation.nothing_to_carry_on()
    return await not_theirs(db, settings, snapshot, request)
