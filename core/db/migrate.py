"""Runs the Alembic migrations of the workspace database (`agentloop db upgrade`).

The runtime's own tables are the `core` branch; each pack with tables brings its own branch,
labelled with its name, and only the enabled packs' branches are upgraded. Every installed
pack's scripts are known, so a database that once had a pack enabled still reads as valid.

Two upgrades started at once run one after the other, and the second finds the newest
revision, a no-op: on PostgreSQL an upgrade holds an advisory lock for its transaction; on
SQLite its transaction takes the database's write lock as it begins.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, inspect, text

from core.db.engine import sync_url
from core.settings import Settings

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x6167_6C6F_6F70_0001
"""The advisory lock key every workspace upgrade takes ("agloop" and 1)."""


CORE = "core"
"""The branch label of the runtime's own tables."""


@dataclass(frozen=True)
class Branch:
    """A pack's migrations: its versions folder, labelled with the pack's name."""

    label: str
    versions: Path


def alembic_config(url: str, branches: Sequence[Branch] = ()) -> Config:
    """Return an Alembic config for `url` (and the packs' `branches`) without an alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    locations = [MIGRATIONS / "versions", *(branch.versions for branch in branches)]
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", os.pathsep.join(map(str, locations)))
    config.set_main_option("sqlalchemy.url", url)
    return config


def heads(branches: Sequence[Branch]) -> set[str]:
    """The revisions a database is at once the runtime's and `branches`' tables are current."""
    script = ScriptDirectory.from_config(alembic_config("", branches))
    return {_head(script, label) for label in _labels(branches)}


def upgrade(
    settings: Settings, enabled: Sequence[Branch] = (), known: Sequence[Branch] = ()
) -> str:
    """Migrate the runtime's tables and the `enabled` packs' to their newest revisions.

    `known`: every installed pack's branch, enabled or not, so the database's record of a
    pack enabled before is understood. Returns where the database now stands.
    """
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
            config = alembic_config(url, _union(enabled, known))
            config.attributes["connection"] = connection
            for label in _labels(enabled):
                command.upgrade(config, f"{label}@head")
            tables = len(inspect(connection).get_table_names())
    finally:
        engine.dispose()
    owners = "".join(f", {branch.label}'s" for branch in enabled)
    return f"workspace database at the newest revision ({tables} tables: the runtime's{owners})"


def _labels(branches: Sequence[Branch]) -> list[str]:
    return [CORE, *(branch.label for branch in branches)]


def _head(script: ScriptDirectory, label: str) -> str:
    return str(script.get_revision(f"{label}@head").revision)


def _union(enabled: Sequence[Branch], known: Sequence[Branch]) -> list[Branch]:
    return list({branch.label: branch for branch in (*known, *enabled)}.values())


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
