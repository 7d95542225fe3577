"""Drop Slack's retries: each delivered event id is claimed once in `processed_events`.

Slack re-sends an event (same `event_id`, with `X-Slack-Retry-Num`) when it did not see the
acknowledgement in time. The claim is an insert under the event id's primary key, so it holds
across worker processes; rows older than the TTL are purged and may be claimed again.

Whether the insert claimed the id is read from `RETURNING`: through psycopg 3 the row count
of `INSERT … ON CONFLICT DO NOTHING` is -1, which reads as "claimed" for every retry.

The claim is made on the turn loop, first thing in handling the event, never on the loop
that acknowledges: every delivery is acknowledged either way, and the acknowledgement stays
free of database writes. Events the bot ignores are never written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.slack.clean_text import clean_text
from core.db.engine import Database
from core.db.models import ProcessedEvent

logger = logging.getLogger(__name__)

_PURGE_EVERY_S = 60.0


class EventLedger:
    """Claims event ids; a second claim of the same id within the TTL is refused."""

    def __init__(
        self,
        db: Database,
        ttl_s: float,
        source: str = "slack",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        """Claim ids in `db` for `ttl_s` seconds of `clock` (the wall clock unless given)."""
        self._db = db
        self._ttl = timedelta(seconds=ttl_s)
        self._source = source
        self.clock = clock
        self._last_purge = 0.0

    async def first_delivery(self, event_id: str | None) -> bool:
        """Return False for a repeated delivery of the event `event_id` (a Slack retry)."""
        if not event_id or await self.claim(clean_text(event_id)):
            return True
        logger.info("event %s already handled: a retry, dropped", event_id)
        return False

    async def claim(self, event_id: str) -> bool:
        """Return True the first time `event_id` is seen (within the TTL), False after."""
        now = self.clock()
        insert = pg_insert if self._db.dialect == "postgresql" else sqlite_insert
        statement = (
            insert(ProcessedEvent)
            .values(event_id=event_id, source=self._source, created_at=now)
            .on_conflict_do_nothing(index_elements=["event_id"])
            .returning(ProcessedEvent.event_id)
        )
        async with self._db.session() as session:
            inserted = (await session.execute(statement)).first() is not None
            if not inserted:
                # A row past its TTL that the purge has not removed yet counts as unseen.
                stale = await session.execute(
                    update(ProcessedEvent)
                    .where(
                        ProcessedEvent.event_id == event_id,
                        ProcessedEvent.created_at < now - self._ttl,
                    )
                    .values(created_at=now)
                    .returning(ProcessedEvent.event_id)
                )
                inserted = stale.first() is not None
            await session.commit()
        if time.monotonic() - self._last_purge > _PURGE_EVERY_S:
            await self.purge()
        return inserted

    async def purge(self) -> int:
        """Delete the ids older than the TTL; return how many went."""
        self._last_purge = time.monotonic()
        cutoff = self.clock() - self._ttl
        async with self._db.session() as session:
            result = await session.execute(
                delete(ProcessedEvent).where(
                    ProcessedEvent.source == self._source, ProcessedEvent.created_at < cutoff
                )
            )
            await session.commit()
        return int(result.rowcount)  # type: ignore[attr-defined]
