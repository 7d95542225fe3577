"""Drop Slack's retries: each delivered event id is claimed once in `processed_events`.

Slack re-sends an event (same `event_id`, with `X-Slack-Retry-Num`) when it did not see the
acknowledgement in time. The claim is an insert under the event id's primary key, so it holds
across worker processes; rows older than the TTL are purged and may be claimed again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from sqlalchemy import delete, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.db.engine import Database
from app.db.models import ProcessedEvent

logger = logging.getLogger(__name__)

_PURGE_EVERY_S = 60.0


class EventLedger:
    """Claims event ids; a second claim of the same id within the TTL is refused."""

    def __init__(self, db: Database, ttl_s: float, source: str = "slack") -> None:
        self._db = db
        self._ttl = timedelta(seconds=ttl_s)
        self._source = source
        self._last_purge = 0.0

    async def claim(self, event_id: str) -> bool:
        """Return True the first time `event_id` is seen (within the TTL), False after."""
        now = datetime.now(UTC)
        insert = pg_insert if self._db.dialect == "postgresql" else sqlite_insert
        statement = (
            insert(ProcessedEvent)
            .values(event_id=event_id, source=self._source, created_at=now)
            .on_conflict_do_nothing(index_elements=["event_id"])
        )
        async with self._db.session() as session:
            inserted = (await session.execute(statement)).rowcount  # type: ignore[attr-defined]
            if not inserted:
                # A row past its TTL that the purge has not removed yet counts as unseen.
                stale = await session.execute(
                    update(ProcessedEvent)
                    .where(
                        ProcessedEvent.event_id == event_id,
                        ProcessedEvent.created_at < now - self._ttl,
                    )
                    .values(created_at=now)
                )
                inserted = stale.rowcount  # type: ignore[attr-defined]
            await session.commit()
        if time.monotonic() - self._last_purge > _PURGE_EVERY_S:
            await self.purge()
        return bool(inserted)

    async def purge(self) -> int:
        """Delete the ids older than the TTL; return how many went."""
        self._last_purge = time.monotonic()
        cutoff = datetime.now(UTC) - self._ttl
        async with self._db.session() as session:
            result = await session.execute(
                delete(ProcessedEvent).where(
                    ProcessedEvent.source == self._source, ProcessedEvent.created_at < cutoff
                )
            )
            await session.commit()
        return int(result.rowcount)  # type: ignore[attr-defined]


def register(app: AsyncApp, ledger: EventLedger) -> None:
    """Add the middleware that acknowledges an already-seen event without running it again."""

    @app.middleware
    async def deduplicate(
        request: AsyncBoltRequest,
        next_: Callable[[], Awaitable[BoltResponse]],
    ) -> BoltResponse | None:
        event_id = request.body.get("event_id")
        is_event = request.body.get("type") == "event_callback" and event_id
        if is_event and not await ledger.claim(str(event_id)):
            retry = request.headers.get("x-slack-retry-num", ["-"])[0]
            logger.info("event %s already handled (retry %s): acknowledged", event_id, retry)
            return BoltResponse(status=200, body="")
        return await next_()
