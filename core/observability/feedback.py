"""People's votes on answers: one row per person per answer, and a score on the run's trace.

Every surface records a vote with `record_feedback`: the vote is upserted into `feedback`
(the latest vote of a person on an answer wins; a replayed click changes nothing), then
sent to Langfuse as a boolean score named `user-feedback` on the trace of the run. The
score's id is derived from the run and the person, so Langfuse keeps one score per person
per answer too, the latest.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import utcnow
from core.db.engine import Database
from core.db.models import AgentRun, Feedback
from core.observability.tracing import Tracing

Rating = Literal["positive", "negative"]
RATINGS: tuple[Rating, ...] = ("positive", "negative")
SCORE_NAME = "user-feedback"
"""The Langfuse score a vote becomes (boolean: 1 positive, 0 negative)."""
_VOTE_FIELDS = ("rating", "comment", "channel", "voted_at")
"""What a later vote of the same person on the same answer replaces."""
_SCORE_IDS = uuid.UUID("6d1f6c1e-3f0b-4c2e-9a53-6167656e746c")


class UnknownRunError(LookupError):
    """No run (or more than one) has the id or prefix a vote names."""


@dataclass(frozen=True)
class Vote:
    """A person's rating of the answer one run gave."""

    run_id: str
    """The run's id; a unique prefix is enough."""
    person: str
    rating: Rating
    comment: str | None = None
    channel: str = ""
    """Where the vote was given (slack, cli)."""


@dataclass(frozen=True)
class Recorded:
    """A vote as recorded: the run's full id and the trace its score went to ("" untraced)."""

    run_id: str
    person: str
    rating: Rating
    trace_id: str
    scored: bool
    """Whether a score was handed to Langfuse (tracing on)."""


def score_id(run_id: str, person: str) -> str:
    """The id of a person's score on a run's trace: the same for every vote they give it."""
    return str(uuid.uuid5(_SCORE_IDS, f"{run_id}\x1f{person}"))


async def record_feedback(db: Database, tracing: Tracing, vote: Vote) -> Recorded:
    """Record `vote` (replacing the person's earlier vote on that answer), then score the trace.

    Raises `UnknownRunError` when no single run has the vote's id; nothing is written then.
    The score is exported in the background: a caller that exits next awaits
    `tracing.flush()`.
    """
    if vote.rating not in RATINGS:
        raise ValueError(f"a vote is positive or negative, not {vote.rating!r}")
    async with db.session() as session:
        run = await _run(session, vote.run_id)
        values = {
            "run_id": run.id,
            "person": vote.person,
            "rating": vote.rating,
            "comment": vote.comment or None,
            "channel": vote.channel,
            "voted_at": utcnow(),
        }
        insert = pg_insert if db.dialect == "postgresql" else sqlite_insert
        statement = insert(Feedback).values(**values)
        await session.execute(
            statement.on_conflict_do_update(
                index_elements=["run_id", "person"],
                set_={k: statement.excluded[k] for k in _VOTE_FIELDS},
            )
        )
        await session.commit()
        trace_id = run.trace_id
    scored = _score(tracing, run.id, trace_id, vote)
    return Recorded(run.id, vote.person, vote.rating, trace_id, scored)


async def _run(session: AsyncSession, run_id: str) -> AgentRun:
    found = await session.get(AgentRun, run_id)
    if found is not None:
        return found
    if run_id:
        query = select(AgentRun).where(AgentRun.id.startswith(run_id, autoescape=True)).limit(2)
        matches = (await session.scalars(query)).all()
        if len(matches) == 1:
            return matches[0]
    raise UnknownRunError(f"no run {run_id!r}")


def _score(tracing: Tracing, run_id: str, trace_id: str, vote: Vote) -> bool:
    if tracing.exporter is None or not trace_id:
        return False
    tracing.exporter.client.create_score(
        name=SCORE_NAME,
        value=1.0 if vote.rating == "positive" else 0.0,
        data_type="BOOLEAN",
        trace_id=trace_id,
        score_id=score_id(run_id, vote.person),
        comment=vote.comment or None,
        metadata={"run_id": run_id, "person": vote.person, "channel": vote.channel},
    )
    return True
