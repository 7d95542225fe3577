"""Direct reads of the PostgreSQL and SQLite savers' tables, for what loading a thread costs.

LangGraph answers "does this thread wait on an interrupt?" and "how many checkpoints does
it hold?" by loading the thread (its checkpoint, every channel's value, the pending
writes). Both are asked around every run, so they are read from the tables here: one small
query, nothing deserialized. The exception is the first question on this project's
PostgreSQL saver: a run follows it and loads the thread anyway, so the saver loads it once
and keeps it for that run (`PooledPostgresSaver.read_latest`). Other savers (in memory)
answer None: the caller loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checkpoints.postgres_saver import INTERRUPT, PooledPostgresSaver

# The latest checkpoint of the thread's root namespace (the one a run continues from, as
# the savers' own get_tuple picks it) holds an interrupt write: a run paused there, or in
# a subgraph it called (a subgraph's interrupt is written in its caller's namespace too).
_INTERRUPTED = (
    "EXISTS (SELECT 1 FROM {writes} w WHERE w.thread_id = c.thread_id"
    " AND w.checkpoint_ns = '' AND w.checkpoint_id = c.checkpoint_id AND w.channel = {p})"
)
# The PostgreSQL saver keeps a checkpoint's plain values (strings, numbers) as JSON in its
# row; SQLite's serializes the whole checkpoint, so a value is not read there.
_LATEST = {
    "postgres": "SELECT c.checkpoint->'channel_values'->>{p}, " + _INTERRUPTED,
    "sqlite": "SELECT NULL, " + _INTERRUPTED,
}
_LATEST_FROM = (
    " FROM checkpoints c WHERE c.thread_id = {p} AND c.checkpoint_ns = ''"
    " ORDER BY c.checkpoint_id DESC LIMIT 1"
)
_COUNT = "SELECT count(*) FROM checkpoints WHERE thread_id = {p}"


@dataclass(frozen=True)
class Latest:
    """What the thread's latest checkpoint holds, as far as its row tells."""

    exists: bool
    """The thread has a checkpoint (False: a new thread)."""
    interrupted: bool
    """An interrupt write: a run paused there (an interrupt a run then answered and died
    on still counts; loading the thread tells)."""
    value: Any
    """The asked plain channel's value (None when unset, or on SQLite)."""


async def latest(saver: Any, thread_id: str, channel: str) -> Latest | None:
    """Read the thread's latest checkpoint's row (None: this saver can't say).

    The pooled PostgreSQL saver loads the whole checkpoint instead, and keeps it for the
    run that follows (which loads it anyway): one read of the thread, not two.
    """
    if isinstance(saver, PooledPostgresSaver):
        found = await saver.read_latest(thread_id)
        if found is None:
            return Latest(exists=False, interrupted=False, value=None)
        interrupted = any(write[1] == INTERRUPT for write in found.pending_writes or ())
        return Latest(True, interrupted, found.checkpoint["channel_values"].get(channel))
    kind = _kind(saver)
    if kind is None:
        return None
    query = _LATEST[kind] + _LATEST_FROM
    params = (channel, INTERRUPT, thread_id) if kind == "postgres" else (INTERRUPT, thread_id)
    row = await _first_row(saver, query, params)
    if row is None:
        return Latest(exists=False, interrupted=False, value=None)
    return Latest(exists=True, interrupted=bool(row[1]), value=row[0])


async def checkpoint_count(saver: Any, thread_id: str) -> int:
    """Return how many checkpoints the thread holds, all namespaces (0 in memory or none)."""
    if _kind(saver) is None:
        return 0
    row = await _first_row(saver, _COUNT, (thread_id,))
    return int(row[0]) if row else 0


def _kind(saver: Any) -> str | None:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    if isinstance(saver, AsyncPostgresSaver):
        return "postgres"
    if isinstance(saver, AsyncSqliteSaver):
        return "sqlite"
    return None


async def _first_row(saver: Any, query: str, params: tuple[str, ...]) -> tuple[Any, ...] | None:
    """The query's first row on a PostgreSQL or SQLite saver's tables."""
    from psycopg.rows import tuple_row
    from psycopg_pool import AsyncConnectionPool

    if _kind(saver) == "sqlite":
        await saver.setup()
        async with saver.lock:
            cursor = await saver.conn.execute(query.format(writes="writes", p="?"), params)
            return await cursor.fetchone()

    async def first(conn: Any) -> tuple[Any, ...] | None:
        async with conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(query.format(writes="checkpoint_writes", p="%s"), params)
            return await cur.fetchone()

    if isinstance(saver.conn, AsyncConnectionPool):  # what open_checkpointer makes
        async with saver.conn.connection() as conn:
            return await first(conn)
    async with saver.lock:  # a single connection, shared with the saver's own calls
        return await first(saver.conn)
