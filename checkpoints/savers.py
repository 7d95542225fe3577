"""Opens the configured checkpointer: memory (tests), SQLite (embedded default), Postgres."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from checkpoints.pool_check import RecentUseCheck
from core.settings import Settings

POOL_SIZE = 10
"""Connections to PostgreSQL a process's checkpointer holds at most."""


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
        async with _postgres_pool(settings) as pool:
            from checkpoints.postgres_saver import PooledPostgresSaver

            await _require_tables(pool)
            # Two connections stay for the runner's reads of the tables.
            yield PooledPostgresSaver(
                pool,
                concurrent=POOL_SIZE - 2,
                step_writes=settings.checkpoint_retention == "all",
            )


async def setup_checkpointer(settings: Settings) -> str:
    """Create or migrate the checkpoint tables (the migration step); return what was done."""
    kind = settings.checkpointer_kind()
    if kind != "postgres":
        async with open_checkpointer(settings):
            return f"{kind} checkpointer ready"
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with _postgres_pool(settings) as pool:
        await AsyncPostgresSaver(pool).setup()  # type: ignore[arg-type]
    return "postgres checkpointer tables migrated"


@asynccontextmanager
async def _postgres_pool(settings: Settings) -> AsyncIterator[object]:
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    checks = RecentUseCheck()
    pool: AsyncConnectionPool = AsyncConnectionPool(
        conninfo=settings.postgres_url(),
        min_size=1,
        max_size=POOL_SIZE,
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
