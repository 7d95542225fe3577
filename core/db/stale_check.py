"""Checking pooled PostgreSQL connections only when they may have gone stale.

A connection the server dropped (a restart, a failover) must not be handed to a run, so
every pool (the workspace engine's, the checkpoint and lane pools) checks a connection
before lending it; but a check is a round trip, and a turn takes and returns connections
dozens of times, milliseconds apart. A connection lent within the last `FRESH_S` seconds is
lent again without a check; one not lent for longer is checked first. (The time it was lent
bounds how long it has sat idle since; noting its return instead would take psycopg's
`reset` callback, which has the pool hand every returned connection to a background worker.)
"""

from __future__ import annotations

import time
import weakref
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine

FRESH_S = 0.25
"""How long after it was lent a connection is lent again unchecked (a turn's steps are ms
apart)."""


class RecentlyLent:
    """The pool's clock: when each connection was last lent."""

    def __init__(self, fresh_s: float = FRESH_S) -> None:
        self._fresh_s = fresh_s
        self._lent: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    def due(self, conn: Any) -> bool:
        """Note `conn` as lent now; say whether it must be checked first (not lent lately)."""
        now = time.monotonic()
        lent = self._lent.get(conn)
        self._lent[conn] = now
        return lent is None or now - lent > self._fresh_s


class RecentUseCheck:
    """The `check` callback of a psycopg pool that skips checks of recently lent connections.

    A connection that fails the check is discarded by the pool, which lends a new one.
    """

    def __init__(self, fresh_s: float = FRESH_S) -> None:
        self._clock = RecentlyLent(fresh_s)

    async def check(self, conn: Any) -> None:
        """Check a connection that may have been idle long enough to have been dropped."""
        from psycopg_pool import AsyncConnectionPool

        if self._clock.due(conn):
            await AsyncConnectionPool.check_connection(conn)


def check_on_checkout(engine: AsyncEngine) -> None:
    """Have a SQLAlchemy engine ping a connection not lent lately before lending it.

    SQLAlchemy's `pool_pre_ping` would ping on every checkout. A dead connection raises
    `DisconnectionError`, on which the pool lends a new connection instead.
    """
    clock = RecentlyLent()

    def ping_if_stale(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        # The pool's record outlives reconnects; the new connection of a retry is fresh.
        if not clock.due(record):
            return
        try:
            cursor = dbapi_connection.cursor()
            cursor.execute("SELECT 1")
            cursor.close()
        except Exception as exc:
            raise DisconnectionError(f"stale connection: {exc}") from exc

    event.listen(engine.sync_engine, "checkout", ping_if_stale)
