"""Runs the Alembic migrations of the workspace database (`agentloop db upgrade`).

Two upgrades started at once run one after the other, and the second finds the newest
revision, a no-op: on PostgreSQL an upgrade holds an advisory lock for its transaction; on
SQLite its transaction takes the database's write lock as it begins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, inspect, text

from core.db.engine import sync_url
from core.settings import Settings

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x6167_6C6F_6F70_0001
"""The advisory lock key every workspace upgrade takes ("agloop" and 1)."""


def alembic_config(url: str) -> Config:
    """Return an Alembic config for `url` without an alembic.ini file."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url)
    return config


def upgrade(settings: Settings) -> str:
    """Migrate the workspace database to the newest revision; return where it now stands."""
    url = sync_url(settings)
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        _write_lock_first(engine)
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # Released with the transaction, once the new revision is committed.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                )
            config = alembic_config(url)
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            tables = len(inspect(connection).get_table_names())
    finally:
        engine.dispose()
    return f"workspace database at the newest revision ({tables} tables)"


def _write_lock_first(engine: Engine) -> None:
    """Begin each transaction with BEGIN IMMEDIATE, waiting up to 30 s for another writer.

    The driver would begin it lazily, so two upgrades would both read "no revision yet"
    and both create the tables.
    """

    @event.listens_for(engine, "connect")
    def _driver_begins_nothing(dbapi_connection: Any, _: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA busy_timeout = 30000")

    @event.listens_for(engine, "begin")
    def _begin_immediate(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
