"""Checking pooled PostgreSQL connections only when they may have gone stale.

A connection the server dropped (a restart, a failover) must not be handed to a run, so the
pools check a connection before lending it; but a check is a round trip, and a turn takes
and returns connections dozens of times, milliseconds apart. A connection lent within the
last `FRESH_S` seconds is lent again without a check; one not lent for longer is checked
first. (The time it was lent bounds how long it has sat idle since; noting its return
instead would take the pool's `reset` callback, which has the pool hand every returned
connection to a background worker.)
"""

from __future__ import annotations

import time
import weakref
from typing import Any

FRESH_S = 0.25
"""How long after it was lent a connection is lent again unchecked (a turn's steps are ms
apart)."""


class RecentUseCheck:
    """The `check` callback of a psycopg pool that skips checks of recently lent connections."""

    def __init__(self, fresh_s: float = FRESH_S) -> None:
        self._fresh_s = fresh_s
        self._lent: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    async def check(self, conn: Any) -> None:
        """Check a connection that may have been idle long enough to have been dropped."""
        from psycopg_pool import AsyncConnectionPool

        lent = self._lent.get(conn)
        now = time.monotonic()
        if lent is None or now - lent > self._fresh_s:
            await AsyncConnectionPool.check_connection(conn)
        self._lent[conn] = now
