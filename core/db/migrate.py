"""Runs the Alembic migrations of the workspace database (`agentloop db upgrade`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect

from core.db.engine import sync_url
from core.settings import Settings

MIGRATIONS = Path(__file__).with_name("migrations")


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
            config = alembic_config(url)
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            tables = len(inspect(connection).get_table_names())
    finally:
        engine.dispose()
    return f"workspace database at the newest revision ({tables} tables)"


def missing_tables(settings: Settings) -> bool:
    """Whether the workspace tables have not been created yet."""
    engine = create_engine(sync_url(settings))
    try:
        with engine.connect() as connection:
            return not inspect(connection).has_table("alembic_version")
    finally:
        engine.dispose()
