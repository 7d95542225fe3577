"""Opens the workspace database (SQLite file by default, PostgreSQL via DATABASE_URL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

from sqlalchemy import event
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from core.db.stale_check import check_on_checkout
from core.settings import Settings

Dialect = Literal["sqlite", "postgresql"]


def async_url(settings: Settings) -> str:
    """Return the SQLAlchemy async URL of the workspace database."""
    url = settings.database_url
    if not url:
        return f"sqlite+aiosqlite:///{settings.data_dir / 'workspace.sqlite'}"
    if url.startswith("sqlite+aiosqlite://"):
        return url
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url.removeprefix("sqlite://")
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    raise ValueError(f"DATABASE_URL must be a sqlite:// or postgresql:// URL, not {url!r}")


def sync_url(settings: Settings) -> str:
    """Return the synchronous URL (Alembic migrations run synchronously)."""
    return async_url(settings).replace("sqlite+aiosqlite://", "sqlite://", 1)


class Database:
    """An async engine plus its session factory; one per process."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)

    @property
    def dialect(self) -> Dialect:
        """Which SQL dialect full-text search and upserts must speak."""
        return "postgresql" if self.engine.dialect.name == "postgresql" else "sqlite"

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """Yield a session; the caller commits, an exception rolls back."""
        async with self.sessions() as session:
            yield session

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


def open_database(settings: Settings) -> Database:
    """Create the engine for the configured database (connections open lazily)."""
    url = async_url(settings)
    if url.startswith("sqlite"):
        Path(url.split("///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    else:
        # SSD page costs: with the default (spinning-disk) cost the planner skips the KB's
        # GIN index for a sequential scan, not charging for de-TOASTing every tsvector:
        # ~60 ms instead of ~6 ms per search on 10,000 documents.
        engine = create_async_engine(
            url,
            pool_size=settings.database_pool_size,
            max_overflow=settings.database_max_overflow,
            connect_args={"options": "-c random_page_cost=1.1"},
        )
        check_on_checkout(engine)
    return Database(engine)


def _sqlite_pragmas(dbapi_connection: object, _: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    # WAL lets the CLI, the Slack app and tests read while a turn writes; foreign keys
    # are off by default in SQLite.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # In WAL mode NORMAL still survives a killed process (only a power cut can drop the
    # last commits) and spares an fsync on every commit, which the audit makes each turn.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
