"""Opens the configured checkpointer: memory (tests), SQLite (embedded default), Postgres."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from core.db.stale_check import RecentUseCheck
from core.settings import Settings

CHECKPOINT_SETUP_LOCK = 0x6167_6C6F_6F70_0002
"""The advisory lock key the checkpoint tables' set-up takes ("agloop" and 2)."""
READS_KEPT = 2
"""Connections of the checkpoint pool the saver leaves for the runner's reads of the tables."""


class CheckpointerNotReadyError(RuntimeError):
    """The checkpoint tables are missing: `agentloop db upgrade` has not run."""


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Yield the checkpointer `settings` selects, closing its connections afterwards."""
    kind = settings.checkpointer_kind()
    if kind == "memory":
        yield InMemorySaver()
    elif kind == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = settings.sqlite_checkpoint_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            # Creating SQLite tables is instant and idempotent, so the embedded default
            # needs no separate migration step.
            await saver.setup()
            yield saver
    else:
        async with open_postgres_pool(settings) as pool:
            from checkpoints.postgres_saver import PooledPostgresSaver

            await _require_tables(pool)
            yield PooledPostgresSaver(
                pool,
                concurrent=settings.checkpoint_pool_size - READS_KEPT,
                defer_writes=settings.checkpoint_pending_writes == "deferred",
                step_writes=settings.checkpoint_retention == "all",
            )


async def setup_checkpointer(settings: Settings) -> str:
    """Create or migrate the checkpoint tables (the migration step); return what was done."""
    kind = settings.checkpointer_kind()
    if kind != "postgres":
        async with open_checkpointer(settings):
            return f"{kind} checkpointer ready"
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with open_postgres_pool(settings) as pool, pool.connection() as lock:
        # Two set-ups at once would both create the tables; the second waits, then finds
        # them. It waits idle, polling: a session blocked in pg_advisory_lock would hold
        # up the first one's CREATE INDEX CONCURRENTLY, which waits for every transaction.
        while True:
            if await _try_lock(lock, CHECKPOINT_SETUP_LOCK):
                break
            await asyncio.sleep(0.2)
        try:
            await AsyncPostgresSaver(pool).setup()
        finally:
            await lock.execute("SELECT pg_advisory_unlock(%s)", (CHECKPOINT_SETUP_LOCK,))
    return "postgres checkpointer tables migrated"


async def _try_lock(connection: Any, key: int) -> bool:
    cursor = await connection.execute("SELECT pg_try_advisory_lock(%s) AS locked", (key,))
    row = await cursor.fetchone()
    return bool(row and row["locked"])


@asynccontextmanager
async def open_postgres_pool(settings: Settings) -> AsyncIterator[Any]:
    """Yield the checkpoint pool: `checkpoint_pool_size` connections as the saver needs them."""
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    checks = RecentUseCheck()
    pool: AsyncConnectionPool = AsyncConnectionPool(
        conninfo=settings.postgres_url(),
        min_size=1,
        max_size=settings.checkpoint_pool_size,
        open=False,
        kwargs={"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0},
        # A connection the server dropped (a restart, a failover) is replaced when it is
        # taken from the pool instead of failing the next checkpoint read or write.
        check=checks.check,
        timeout=settings.checkpoint_wait_s,
    )
    await pool.open(wait=True, timeout=10)
    try:
        yield pool
    finally:
        await pool.close()


async def _require_tables(pool: object) -> None:
    async with pool.connection() as conn:  # type: ignore[attr-defined]
        row = await (
            await conn.execute("select to_regclass('checkpoint_migrations') as present")
        ).fetchone()
    if row is None or row["present"] is None:
        raise CheckpointerNotReadyError(
            "the Postgres checkpoint tables are missing: run `agentloop db upgrade` first"
        )
