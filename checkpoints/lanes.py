"""One run at a time per thread: Postgres advisory locks across workers, asyncio locks within one.

The runner makes every call for a thread inside `Lanes.hold(thread_id)`; a surface that
needs more than one call in a row to see the thread unchanged holds the lane around them,
and the runner's own hold inside is then the same lane (a hold is re-entrant within a task
and the tasks it starts). Within a process an
`asyncio.Lock` per thread queues messages in arrival order (and keeps a waiting message from
holding a database connection); with the Postgres checkpointer, session-level advisory
locks keyed by hashes of the thread id then serialize the thread across worker processes
and machines. Different threads run concurrently.

A session's advisory lock goes with its session: if the server ends the connection (a
killed backend, a dropped TCP connection), the lock is free at once and a waiting worker
takes it, while the holder, idle on that connection, would not know. So a lane is two
locks on two connections, taken in the same order by every worker: a worker whose first
connection is lost still holds the second, so the next worker, having taken the first, waits
for the second until the holder's turn ends. The holder watches both connections' sockets
(no round trip): one lost is logged; both lost (the database restarting, which also drops
every waiting worker's connection) cancels the turn at once and `hold` raises
`LaneLostError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import psycopg
from psycopg import pq

from core.db.stale_check import RecentUseCheck
from core.settings import Settings

logger = logging.getLogger(__name__)

OnWait = Callable[[], Awaitable[None]]
_POOL_WAIT_S = 600.0
LOCKS = 2
"""Advisory locks (and connections) a running thread's lane holds."""


class LaneLostError(RuntimeError):
    """Both of a lane's connections were lost while it was held: its turn was stopped."""


@dataclass
class Lane:
    """A held lane: `lost` once both its connections were lost (its turn is being stopped)."""

    thread_id: str
    lost: bool = False


_NONE_HELD: Mapping[str, Lane] = MappingProxyType({})
_HELD: ContextVar[Mapping[str, Lane]] = ContextVar("agentloop_lanes_held", default=_NONE_HELD)
"""The lanes the running task (or a task that started it) holds, by thread id."""


def lock_key(thread_id: str, n: int = 0) -> int:
    """Return the `n`th advisory lock key of a thread: a signed 64-bit hash of its id."""
    salt = b"" if n == 0 else f"lane-{n}:".encode()
    digest = hashlib.blake2b(salt + thread_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class Lanes:
    """Serializes the runs of each thread; `pool` is set when the checkpointer is Postgres."""

    def __init__(self, pool: Any | None = None, size: int = 0) -> None:
        self._pool = pool
        # A lane takes its connections together: with more lanes taking them than the pool
        # holds pairs, each could hold one and wait for good on its second.
        self._pairs = asyncio.Semaphore(max(1, size // LOCKS))
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
            min_size=LOCKS,
            max_size=settings.lanes_pool_size,
            timeout=_POOL_WAIT_S,
            open=False,
            kwargs={"autocommit": True},
            # A connection dropped by a database restart is replaced, not handed to a turn.
            check=checks.check,
        )
        await pool.open(wait=True, timeout=10)
        try:
            yield cls(pool, settings.lanes_pool_size)
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
    async def hold(self, thread_id: str, on_wait: OnWait | None = None) -> AsyncIterator[Lane]:
        """Hold the thread's lane for the block; `on_wait` runs once if the lane is busy.

        Within a block that holds the lane already, this is that lane (nothing is taken).

        Raises:
            LaneLostError: both of the lane's connections were lost; the block was cancelled.
        """
        held = _HELD.get()
        if thread_id in held:
            yield held[thread_id]
            return
        lane = Lane(thread_id)
        token = _HELD.set(MappingProxyType({**held, thread_id: lane}))
        try:
            async with self._held(lane, on_wait):
                yield lane
        finally:
            _HELD.reset(token)

    @asynccontextmanager
    async def _held(self, lane: Lane, on_wait: OnWait | None) -> AsyncIterator[None]:
        thread_id = lane.thread_id
        lock = self._locks.setdefault(thread_id, asyncio.Lock())
        self._users[thread_id] = self._users.get(thread_id, 0) + 1
        try:
            waited = lock.locked() and on_wait is not None
            if waited and on_wait is not None:
                await on_wait()
            async with lock:
                if self._pool is None:
                    yield
                    return
                async with self._pairs, AsyncExitStack() as stack:
                    conns = [
                        await stack.enter_async_context(self._pool.connection())
                        for _ in range(LOCKS)
                    ]
                    keys = [lock_key(thread_id, n) for n in range(LOCKS)]
                    await _take(conns, keys, None if waited else on_wait)
                    watch = _Watch(lane, conns)
                    try:
                        yield
                    except asyncio.CancelledError as exc:
                        if lane.lost and asyncio.current_task().uncancel() == 0:  # type: ignore[union-attr]
                            raise LaneLostError(
                                f"lost the lane of thread {thread_id}: its turn was stopped"
                            ) from exc
                        raise
                    finally:
                        watch.close()
                        await _release(conns, keys)
        finally:
            self._users[thread_id] -= 1
            if not self._users[thread_id]:
                del self._users[thread_id]
                self._locks.pop(thread_id, None)


async def _take(conns: list[Any], keys: list[int], on_wait: OnWait | None) -> None:
    """Take the locks in order, each on its connection; `on_wait` once if one is held."""
    for conn, key in zip(conns, keys, strict=True):
        cursor = await conn.execute("select pg_try_advisory_lock(%s)", (key,))
        row = await cursor.fetchone()
        if row and row[0]:
            continue
        if on_wait is not None:
            await on_wait()
            on_wait = None
        await conn.execute("select pg_advisory_lock(%s)", (key,))


async def _release(conns: list[Any], keys: list[int]) -> None:
    """Unlock on every connection still open (a lost one took its lock with it)."""
    for conn, key in zip(conns, keys, strict=True):
        if conn.pgconn.status != pq.ConnStatus.OK:
            continue
        try:
            await conn.execute("select pg_advisory_unlock(%s)", (key,))
        except psycopg.Error:
            # Back in the pool still locked, the next turn would hold this lane too.
            logger.warning("could not unlock a lane; closing its connection", exc_info=True)
            await conn.close()


class _Watch:
    """Notices, from their sockets, the lane's connections the server ends while it is held.

    An idle connection receives nothing unless the server ends it (its last message, then
    end of file); reading what arrived tells a lost connection from a notice.
    """

    def __init__(self, lane: Lane, conns: list[Any]) -> None:
        self.lane = lane
        self.thread_id = lane.thread_id
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        self._watched: dict[int, Any] = {}
        self._lost = 0
        for conn in conns:
            fileno = conn.fileno()
            self._watched[fileno] = conn
            self._loop.add_reader(fileno, self._readable, fileno)

    def _readable(self, fileno: int) -> None:
        conn = self._watched[fileno]
        with contextlib.suppress(psycopg.OperationalError):  # the status tells it is gone
            conn.pgconn.consume_input()
        if conn.pgconn.status == pq.ConnStatus.OK:
            return
        self._loop.remove_reader(fileno)
        del self._watched[fileno]
        self._lost += 1
        if self._lost < LOCKS:
            logger.warning(
                "thread %s lost one of its lane's connections; the other holds the lane",
                self.thread_id,
            )
            return
        logger.error("thread %s lost its lane; its turn is stopped", self.thread_id)
        if self._task is not None:
            self.lane.lost = True
            self._task.cancel()

    def close(self) -> None:
        """Stop watching (the connections are used again to unlock)."""
        for fileno in self._watched:
            self._loop.remove_reader(fileno)
        self._watched.clear()
