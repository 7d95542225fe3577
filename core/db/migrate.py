"""Runs the Alembic migrations of the workspace database (`agentloop db upgrade`).

On PostgreSQL an upgrade holds an advisory lock for its transaction, so two upgrades
started at once run one after the other: the second finds the newest revision, a no-op.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect, text

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
