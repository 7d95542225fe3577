"""One run at a time per thread: Postgres advisory locks across workers, asyncio locks within one.

Every runner call for a thread is made inside `Lanes.hold(thread_id)`. Within a process an
`asyncio.Lock` per thread queues messages in arrival order (and keeps a waiting message from
holding a database connection); with the Postgres checkpointer a session-level advisory lock
keyed by a hash of the thread id then serializes the thread across worker processes and
machines. Different threads run concurrently.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from checkpoints.pool_check import RecentUseCheck
from core.settings import Settings

OnWait = Callable[[], Awaitable[None]]
# A lane's connection is held for a whole turn; a worker serves this many threads at once
# before the next one waits for a connection.
_POOL_MAX = 32
_POOL_WAIT_S = 600.0


def lock_key(thread_id: str) -> int:
    """Return the advisory lock key of a thread: a signed 64-bit hash of its id."""
    digest = hashlib.blake2b(thread_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class Lanes:
    """Serializes the runs of each thread; `pool` is set when the checkpointer is Postgres."""

    def __init__(self, pool: Any | None = None) -> None:
        self._pool = pool
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings) -> AsyncIterator[Lanes]:
        """Yield the lanes for the configured checkpointer (advisory locks on Postgres)."""
        if settings.checkpointer_kind() != "postgres":
            yield cls()
            return
        from psycopg_pool import AsyncConnectionPool

        checks = RecentUseCheck()
        pool: AsyncConnectionPool = AsyncConnectionPool(
            conninfo=settings.postgres_url(),
            min_size=1,
            max_size=_POOL_MAX,
            timeout=_POOL_WAIT_S,
            open=False,
            kwargs={"autocommit": True},
            # A connection dropped by a database restart is replaced, not handed to a turn.
            check=checks.check,
        )
        await pool.open(wait=True, timeout=10)
        try:
            yield cls(pool)
        finally:
            await pool.close()

    @property
    def distributed(self) -> bool:
        """Whether the lanes hold across processes (Postgres advisory locks)."""
        return self._pool is not None

    def busy(self, thread_id: str) -> bool:
        """Whether a run of the thread holds or waits for this process's lane."""
        return self._users.get(thread_id, 0) > 0

    @asynccontextmanager
    async def hold(self, thread_id: str, on_wait: OnWait | None = None) -> AsyncIterator[None]:
        """Hold the thread's lane for the block; `on_wait` runs once if the lane is busy."""
        lock = self._locks.setdefault(thread_id, asyncio.Lock())
        self._users[thread_id] = self._users.get(thread_id, 0) + 1
        waited = False
        try:
            if lock.locked() and on_wait is not None:
                waited = True
                await on_wait()
            async with lock:
                if self._pool is None:
                    yield
                    return
                async with self._pool.connection() as conn:
                    key = lock_key(thread_id)
                    cursor = await conn.execute("select pg_try_advisory_lock(%s)", (key,))
                    row = await cursor.fetchone()
                    if not (row and row[0]):
                        if on_wait is not None and not waited:
                            await on_wait()
                        await conn.execute("select pg_advisory_lock(%s)", (key,))
                    try:
                        yield
                    finally:
                        await conn.execute("select pg_advisory_unlock(%s)", (key,))
        finally:
            self._users[thread_id] -= 1
            if not self._users[thread_id]:
                del self._users[thread_id]
                self._locks.pop(thread_id, None)
