"""Proposals kept in the workspace: propose records each one, confirm checks decisions against it.

Graph state can be edited by whoever may send the thread a state update or a `Command`; the
workspace cannot. So the call, its fingerprint and who asked are taken from the record the
propose node wrote the first time it saw the call, and whatever the state says later (an
edited actor, a forged fingerprint, a re-run that proposes the same call again) is compared
with that record, never believed instead of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from core.db.engine import Database
from core.db.models import ProposalRecord
from core.state import ConfirmationRequest, Proposal


@dataclass(frozen=True)
class Recorded:
    """A recorded proposal: the proposal as first made, and the role its asker had then."""

    proposal: Proposal
    role: str
    resume_state: dict[str, Any] | None = None


async def record(
    db: Database,
    thread_id: str,
    message_id: str,
    proposals: Sequence[Proposal],
    role: str,
    *,
    parent_call_id: str = "",
    resume_state: dict[str, Any] | None = None,
) -> list[Proposal]:
    """Record a wave's proposals and return them as recorded (a call's first record stands).

    A re-run, a fork or a state edit that proposes the same call of the same AI message
    again gets the first proposal back: same fingerprint, same asker, same times.
    """
    if not proposals:
        return []
    rows = [
        {
            "fingerprint": p["proposal_fingerprint"],
            "thread_id": thread_id,
            "message_id": message_id,
            "tool_call_id": p["tool_call_id"],
            "tool": p["tool"],
            "args": p["args"],
            "description": p["description"],
            "actor": p["actor"],
            "actor_role": role,
            "run_id": p["run_id"],
            "created_at": p["created_at"],
            "expires_at": p["expires_at"],
            "parent_call_id": parent_call_id,
            "resume_state": resume_state,
        }
        for p in proposals
    ]
    dialect = postgresql if db.dialect == "postgresql" else sqlite
    insert = dialect.insert(ProposalRecord).values(rows)
    calls = [p["tool_call_id"] for p in proposals]
    key = ["thread_id", "message_id", "tool_call_id"]
    async with db.session() as session:
        await session.execute(insert.on_conflict_do_nothing(index_elements=key))
        await session.commit()
        found = await session.scalars(
            select(ProposalRecord).where(
                ProposalRecord.thread_id == thread_id,
                ProposalRecord.message_id == message_id,
                ProposalRecord.tool_call_id.in_(calls),
            )
        )
        by_call = {row.tool_call_id: _proposal(row) for row in found}
    return [by_call[call] for call in calls]


async def recorded(
    db: Database, thread_id: str, proposals: Sequence[Proposal]
) -> dict[str, Recorded]:
    """Return the records of these proposals' calls in this thread, by tool call id.

    A call's record is the one with the proposal's fingerprint; failing that (the state's
    fingerprint was changed) the call's latest record in the thread.
    """
    calls = {p["tool_call_id"]: p["proposal_fingerprint"] for p in proposals}
    async with db.session() as session:
        rows = (
            await session.scalars(
                select(ProposalRecord)
                .where(
                    ProposalRecord.thread_id == thread_id,
                    ProposalRecord.tool_call_id.in_(list(calls)),
                )
                .order_by(ProposalRecord.id)
            )
        ).all()
    chosen: dict[str, ProposalRecord] = {}
    for row in rows:
        kept = chosen.get(row.tool_call_id)
        if kept is None or kept.fingerprint != calls[row.tool_call_id]:
            chosen[row.tool_call_id] = row
    return {call: _recorded(row) for call, row in chosen.items()}


async def by_fingerprint(db: Database, thread_id: str, fingerprint: str) -> Recorded | None:
    """Return the proposal recorded in this thread under `fingerprint`, if any."""
    async with db.session() as session:
        row = await session.scalar(
            select(ProposalRecord)
            .where(ProposalRecord.thread_id == thread_id, ProposalRecord.fingerprint == fingerprint)
            .limit(1)
        )
    return _recorded(row) if row is not None else None


async def latest_for_plan(db: Database, thread_id: str, parent_call_id: str) -> list[Recorded]:
    """Return the latest wave the planner proposed for the main graph's create_plan call."""
    async with db.session() as session:
        latest = await session.scalar(
            select(ProposalRecord)
            .where(
                ProposalRecord.thread_id == thread_id,
                ProposalRecord.parent_call_id == parent_call_id,
            )
            .order_by(ProposalRecord.id.desc())
            .limit(1)
        )
        if latest is None:
            return []
        wave = await session.scalars(
            select(ProposalRecord)
            .where(
                ProposalRecord.thread_id == thread_id,
                ProposalRecord.message_id == latest.message_id,
            )
            .order_by(ProposalRecord.id)
        )
        return [_recorded(row) for row in wave]


def as_recorded(
    request: ConfirmationRequest, records: Mapping[str, Recorded]
) -> ConfirmationRequest | None:
    """Return `request` with its proposals as recorded; None if one has no record.

    Who may decide comes from the records too: a wave whose records name different askers
    is not one any decision can be checked against.
    """
    shown = request.get("proposals", [])
    if not shown or any(p["tool_call_id"] not in records for p in shown):
        return None
    kept = [records[p["tool_call_id"]].proposal for p in shown]
    if len({p["actor"] for p in kept}) != 1:
        return None
    recorded = cast(ConfirmationRequest, {k: v for k, v in request.items() if k != "error"})
    recorded["actor"] = kept[0]["actor"]
    recorded["expires_at"] = min(p["expires_at"] for p in kept)
    recorded["proposals"] = kept
    return recorded


def _recorded(row: ProposalRecord) -> Recorded:
    return Recorded(_proposal(row), row.actor_role, row.resume_state or None)


def _proposal(row: ProposalRecord) -> Proposal:
    return Proposal(
        tool_call_id=row.tool_call_id,
        tool=row.tool,
        args=dict(row.args),
        description=row.description,
        run_id=row.run_id,
        actor=row.actor,
        created_at=row.created_at,
        expires_at=row.expires_at,
        proposal_fingerprint=row.fingerprint,
    )
