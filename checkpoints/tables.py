"""Direct reads of the PostgreSQL and SQLite savers' tables, for what loading a thread costs.

LangGraph answers "does this thread wait on an interrupt?" and "how many checkpoints does
it hold?" by loading the thread (its checkpoint, every channel's value, the pending
writes). Both are asked around every run, so they are read from the tables here: one small
query, nothing deserialized. Other savers (in memory) answer None: the caller loads.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.serde.types import INTERRUPT

# The latest checkpoint of the thread's root namespace (the one a run continues from, as
# the savers' own get_tuple picks it) holds an interrupt write: a run paused there, or in
# a subgraph it called (a subgraph's interrupt is written in its caller's namespace too).
_WAITING = (
    "SELECT EXISTS (SELECT 1 FROM {writes} w WHERE w.thread_id = {p} AND w.checkpoint_ns = ''"
    " AND w.channel = {p} AND w.checkpoint_id = (SELECT max(c.checkpoint_id) FROM checkpoints c"
    " WHERE c.thread_id = {p} AND c.checkpoint_ns = ''))"
)
_COUNT = "SELECT count(*) FROM checkpoints WHERE thread_id = {p}"


async def has_interrupt(saver: Any, thread_id: str) -> bool | None:
    """Whether the thread's latest checkpoint holds an interrupt (None: this saver can't say).

    An interrupt already answered by a run that then died still counts: the caller reads
    the thread to tell.
    """
    found = await _scalar(saver, _WAITING, (thread_id, INTERRUPT, thread_id))
    return None if found is None else bool(found)


async def checkpoint_count(saver: Any, thread_id: str) -> int:
    """Return how many checkpoints the thread holds, all namespaces (0 in memory or none)."""
    return int(await _scalar(saver, _COUNT, (thread_id,)) or 0)


async def _scalar(saver: Any, query: str, params: tuple[str, ...]) -> Any:
    """The first column of the query's first row on the saver's tables; None for other savers."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    if isinstance(saver, AsyncPostgresSaver):
        postgres_query = query.format(writes="checkpoint_writes", p="%s")
        return await _scalar_postgres(saver, postgres_query, params)
    if isinstance(saver, AsyncSqliteSaver):
        await saver.setup()
        async with saver.lock:
            cursor = await saver.conn.execute(query.format(writes="writes", p="?"), params)
            row = await cursor.fetchone()
        return row[0] if row else None
    return None


async def _scalar_postgres(saver: Any, query: str, params: tuple[str, ...]) -> Any:
    from psycopg.rows import tuple_row
    from psycopg_pool import AsyncConnectionPool

    async def first(conn: Any) -> Any:
        async with conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(query, params)
            row = await cur.fetchone()
        return row[0] if row else None

    if isinstance(saver.conn, AsyncConnectionPool):  # what open_checkpointer makes
        async with saver.conn.connection() as conn:
            return await first(conn)
    async with saver.lock:  # a single connection, shared with the saver's own calls
        return await first(saver.conn)
