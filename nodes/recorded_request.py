"""The waiting request as the workspace recorded it, and why a decision can't be checked against it.

Graph state can be edited and threads can be copied; the workspace's proposal records
cannot. A proposal the state shows differently from its record (an edited asker, a forged
fingerprint) is refused and shown again as recorded; one without a record in this thread is
refused too, saying so plainly when the thread is a copy of the one it was proposed in.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from core.db.engine import Database
from core.db.models import ProposalRecord
from core.db.schema_errors import is_unmigrated
from core.state import ConfirmationRequest
from prompts import confirmation
from tools import proposal_records, proposals


async def as_recorded(
    db: Database, thread_id: str, request: ConfirmationRequest
) -> tuple[ConfirmationRequest, proposals.Refusal | None]:
    """The request as the workspace recorded its proposals, and why not, if it can't be."""
    try:
        records = await proposal_records.recorded(db, thread_id, request["proposals"])
        recorded = proposal_records.as_recorded(request, records)
        if recorded is None:
            elsewhere = await _recorded_elsewhere(db, thread_id, request)
    except SQLAlchemyError as exc:
        if not is_unmigrated(exc):
            raise
        return request, proposals.Refusal("unmigrated", confirmation.workspace_not_migrated())
    if recorded is None:
        text = confirmation.proposed_elsewhere() if elsewhere else confirmation.unrecorded()
        return request, proposals.Refusal("not_recorded", text)
    if recorded["proposals"] != request["proposals"] or recorded["actor"] != request.get("actor"):
        return recorded, proposals.Refusal("changed", confirmation.not_as_recorded())
    return recorded, None


async def _recorded_elsewhere(db: Database, thread_id: str, request: ConfirmationRequest) -> bool:
    """Whether every proposal of the request was recorded, as it is, in another thread."""
    fingerprints = {p["proposal_fingerprint"] for p in request.get("proposals", [])}
    async with db.session() as session:
        found = set(
            await session.scalars(
                select(ProposalRecord.fingerprint).where(
                    ProposalRecord.fingerprint.in_(sorted(fingerprints)),
                    ProposalRecord.thread_id != thread_id,
                )
            )
        )
    return bool(fingerprints) and found == fingerprints
