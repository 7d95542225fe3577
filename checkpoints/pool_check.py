"""Checking pooled PostgreSQL connections only when they may have gone stale.

A connection the server dropped (a restart, a failover) must not be handed to a run, so the
pools check a connection before lending it; but a check is a round trip, and a turn takes
and returns connections dozens of times, milliseconds apart. A connection returned within
the last `FRESH_S` seconds is lent without a check; one idle longer is checked first.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

FRESH_S = 0.25
"""How long after its return a connection is lent unchecked (a turn's steps are ms apart)."""


class RecentUseCheck:
    """The `check` and `reset` callbacks of a psycopg pool that skip checks of fresh connections."""

    def __init__(self, fresh_s: float = FRESH_S) -> None:
        self._fresh_s = fresh_s
        self._returned: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    async def check(self, conn: Any) -> None:
        """Check a connection that has been idle long enough to have been dropped."""
        from psycopg_pool import AsyncConnectionPool

        returned = self._returned.get(conn)
        if returned is None or time.monotonic() - returned > self._fresh_s:
            await AsyncConnectionPool.check_connection(conn)

    async def reset(self, conn: Any) -> None:
        """Note when the connection came back to the pool."""
        self._returned[conn] = time.monotonic()
